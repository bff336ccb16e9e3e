//! Modelled durations on the simulated MI300X-like device, used when a program gives none.
//! Rough but monotonic: enough for traces with plausible shapes.

use crate::driver::CopyKind;

/// Launch overhead plus ~1 ns per 256 work-items.
pub fn kernel_duration_ns(work_items: u64) -> u64 {
    2_000 + work_items / 256
}

/// DMA setup plus bytes over the link: ~50 GB/s host links, ~2 TB/s device-local.
pub fn copy_duration_ns(kind: CopyKind, bytes: u64) -> u64 {
    match kind {
        CopyKind::DeviceToDevice => 1_000 + bytes / 2_000,
        _ => 2_000 + bytes / 50,
    }
}

/// A fill kernel writes ~1 TB/s.
pub fn fill_duration_ns(bytes: u64) -> u64 {
    2_000 + bytes / 1_000
}
