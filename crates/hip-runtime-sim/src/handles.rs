//! Opaque handle values for HIP objects (`hipEvent_t`, `hipGraph_t`, ...): distinct fake
//! addresses per kind, never dereferenced. Programs hand them back; registries look them up by
//! value, so a stale or forged handle is an error, never a wild pointer.

use std::sync::atomic::{AtomicU64, Ordering};

pub struct HandleSpace {
    base: u64,
    next: AtomicU64,
}

impl HandleSpace {
    pub const fn new(base: u64) -> Self {
        Self {
            base,
            next: AtomicU64::new(0),
        }
    }

    /// A never-before-returned handle of this kind (16-byte aligned, non-null).
    pub fn next(&self) -> u64 {
        self.base + 0x10 * (self.next.fetch_add(1, Ordering::Relaxed) + 1)
    }
}
