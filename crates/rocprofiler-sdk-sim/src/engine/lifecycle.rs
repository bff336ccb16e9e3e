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

/// Whether the HIP runtime's API table reached the SDK: HIP registers it once, at its first
/// call. When no tool is discoverable at that moment the SDK is never loaded and the table
/// never reaches it (`rocprofiler-register` finds nothing to hand it to), so no HIP or device
/// work is ever intercepted until the SDK propagates the tables again (docs/sdk-facts.md#tool-start-up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RuntimeTables {
    /// The runtime has not registered yet.
    NotRegistered,
    /// The runtime registered while no tool was there: it runs untraced.
    Untraced,
    /// The runtime's calls go through the SDK.
    Traced,
}

static RUNTIME_TABLES: AtomicI32 = AtomicI32::new(0);

pub(crate) fn runtime_tables() -> RuntimeTables {
    match RUNTIME_TABLES.load(Ordering::Acquire) {
        0 => RuntimeTables::NotRegistered,
        1 => RuntimeTables::Untraced,
        _ => RuntimeTables::Traced,
    }
}

pub(crate) fn set_runtime_tables(tables: RuntimeTables) {
    let value = match tables {
        RuntimeTables::NotRegistered => 0,
        RuntimeTables::Untraced => 1,
        RuntimeTables::Traced => 2,
    };
    RUNTIME_TABLES.store(value, Ordering::Release);
}
