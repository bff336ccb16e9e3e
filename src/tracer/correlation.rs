//! The external-correlation request callback: it stamps every kernel dispatch and memory copy
//! with the HIP stream of the thread that issued it (openxla/xla#46182, xla-rocm-tracer.md §5.9).
//!
//! The SDK calls it for KERNEL_DISPATCH and MEMORY_COPY operations of the main context, on the
//! thread that enqueues the work, inside the HIP_STREAM SET window of the issuing HIP call. The
//! value written into `external.value` reappears in the buffer records' `correlation_id.external`,
//! where `records.rs` reads it back as `stream_id`.
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};

use rocprofiler_sdk_sys as sys;

use crate::tracer::stream_stack;

/// Requests made outside any HIP_STREAM SET window of the calling thread. HIP calls without a
/// stream argument (`hipMemcpy`, ...) land here legitimately and get the null stream; but when
/// HIP submits from a worker thread (no direct dispatch, §13.2) *every* request does, and the
/// stream ids are wrong. The value written is still this thread's top, as in XLA; the counts
/// make that hazard visible instead of silent.
static REQUESTS_OUTSIDE_SET_WINDOW: AtomicU64 = AtomicU64::new(0);

pub fn requests_outside_set_window() -> u64 {
    REQUESTS_OUTSIDE_SET_WINDOW.load(Ordering::Relaxed)
}

/// Returns 0 ("use the value I wrote") with the top of the calling thread's stream stack.
///
/// # Safety
/// `external_corr_id_value` is null or points to the SDK's writable `rocprofiler_user_data_t`.
#[doc(hidden)] // public for tests/hot_path_alloc.rs, which calls it as the SDK does
pub unsafe extern "C" fn stream_external_correlation_callback(
    _thread_id: sys::rocprofiler_thread_id_t,
    _context_id: sys::rocprofiler_context_id_t,
    _kind: sys::rocprofiler_external_correlation_id_request_kind_t,
    _operation: sys::rocprofiler_tracing_operation_t,
    internal_corr_id_value: u64,
    external_corr_id_value: *mut sys::rocprofiler_user_data_t,
    _data: *mut c_void,
) -> c_int {
    // Panic-free: a thread-local read, a relaxed atomic, a checked pointer write and the
    // ledger's lock (a map insert that cannot panic short of allocation failure).
    if external_corr_id_value.is_null() {
        // Non-zero: the SDK falls back to the pushed external id (§8.4); nothing else is safe.
        return 1;
    }
    let stream_id = stream_stack::innermost_set().unwrap_or_else(|| {
        REQUESTS_OUTSIDE_SET_WINDOW.fetch_add(1, Ordering::Relaxed);
        stream_stack::NULL_STREAM_ID
    });
    // SAFETY: non-null and writable per the SDK contract.
    unsafe {
        (*external_corr_id_value).value = stream_id;
    }
    // One record to come for the running session (`disable()` waits for it).
    crate::tracer::instance()
        .ledger()
        .on_request(internal_corr_id_value);
    0
}
