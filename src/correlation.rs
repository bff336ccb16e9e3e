//! The external-correlation request callback: it stamps every kernel dispatch and memory copy
//! with the HIP stream of the thread that issued it (openxla/xla#46182, xla-rocm-tracer.md §5.9).
//!
//! The SDK calls it for KERNEL_DISPATCH and MEMORY_COPY operations of the main context, on the
//! thread that enqueues the work, inside the HIP_STREAM SET window of the issuing HIP call. The
//! value written into `external.value` reappears in the buffer records' `correlation_id.external`,
//! where `records.rs` reads it back as `stream_id`.
use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};

use rocprofiler_sdk_sys as sys;

use crate::stream_stack;

/// Requests that arrived on a thread other than the one the SDK attributes the operation to.
/// The thread-local stack is then the wrong one (HIP without direct dispatch, rocprofiler-sdk.md
/// §13.2): the value written is still this thread's top, as in XLA, but the count makes the
/// hazard visible instead of silent.
static FOREIGN_THREAD_REQUESTS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static OS_THREAD_ID: Cell<u64> = const { Cell::new(0) };
}

fn current_os_thread_id() -> u64 {
    OS_THREAD_ID
        .try_with(|cached| {
            if cached.get() == 0 {
                // SAFETY: gettid has no arguments and cannot fail.
                let tid = unsafe { libc::syscall(libc::SYS_gettid) } as u64;
                cached.set(tid);
            }
            cached.get()
        })
        .unwrap_or(0)
}

pub fn foreign_thread_requests() -> u64 {
    FOREIGN_THREAD_REQUESTS.load(Ordering::Relaxed)
}

/// Returns 0 ("use the value I wrote") with the top of the calling thread's stream stack.
///
/// # Safety
/// `external_corr_id_value` is null or points to the SDK's writable `rocprofiler_user_data_t`.
pub(crate) unsafe extern "C" fn stream_external_correlation_callback(
    thread_id: sys::rocprofiler_thread_id_t,
    _context_id: sys::rocprofiler_context_id_t,
    _kind: sys::rocprofiler_external_correlation_id_request_kind_t,
    _operation: sys::rocprofiler_tracing_operation_t,
    _internal_corr_id_value: u64,
    external_corr_id_value: *mut sys::rocprofiler_user_data_t,
    _data: *mut c_void,
) -> c_int {
    // Panic-free: a syscall, integer compares, a relaxed atomic and a checked pointer write.
    if external_corr_id_value.is_null() {
        // Non-zero: the SDK falls back to the pushed external id (§8.4); nothing else is safe.
        return 1;
    }
    let own = current_os_thread_id();
    if own != 0 && thread_id != own {
        FOREIGN_THREAD_REQUESTS.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: non-null and writable per the SDK contract.
    unsafe {
        (*external_corr_id_value).value = stream_stack::top();
    }
    0
}
