//! Where the SDK is in its life: the initialization and finalization statuses, 0 = not
//! started, -1 = in progress, 1 = done (docs/sdk-facts.md#registration). `registration` owns
//! the order of start-up and shutdown and is the only writer; the other rooms only read, so
//! none of them needs `registration`.
use std::sync::atomic::{AtomicI32, Ordering};

static INIT_STATUS: AtomicI32 = AtomicI32::new(0);
static FINI_STATUS: AtomicI32 = AtomicI32::new(0);

pub(crate) fn init_status() -> i32 {
    INIT_STATUS.load(Ordering::Acquire)
}

pub(crate) fn fini_status() -> i32 {
    FINI_STATUS.load(Ordering::Acquire)
}

pub(crate) fn set_init(status: i32) {
    INIT_STATUS.store(status, Ordering::Release);
}

pub(crate) fn set_fini(status: i32) {
    FINI_STATUS.store(status, Ordering::Release);
}

/// Configuration calls are only accepted while tools initialize (docs/sdk-facts.md#what-may-be-called-where).
pub(crate) fn configuration_open() -> bool {
    init_status() == -1
}
