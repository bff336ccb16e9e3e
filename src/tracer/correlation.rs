//! The external-correlation request callback: it stamps every kernel dispatch and memory copy
//! with the HIP stream of the thread that issued it (openxla/xla#46182, docs/xla-interface.md#stream-tracking).
//!
//! The SDK calls it for KERNEL_DISPATCH and MEMORY_COPY operations of the main context, on the
//! thread that enqueues the work, inside the HIP_STREAM SET window of the issuing HIP call. The
//! value written into `external.value` reappears in the buffer records' `correlation_id.external`,
//! where `record_decoder.rs` reads it back as `stream_id`.
use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};

use rocprofiler_sdk_sys as sys;

use crate::event::RocmTracerEvent;
use crate::tracer::stream_stack;
use crate::tracer::thread_state::{self, ThreadState};

/// Requests made on a thread that was in no HIP API call of the session: HIP's worker thread
/// under indirect dispatch, whose records carry correlation ids no API call has. Their
/// records are stamped [`RocmTracerEvent::UNATTRIBUTED_STREAM_ID`].
static UNATTRIBUTED_REQUESTS: AtomicU64 = AtomicU64::new(0);

#[cfg(any(test, feature = "testing"))]
pub fn unattributed_requests() -> u64 {
    UNATTRIBUTED_REQUESTS.load(Ordering::Relaxed)
}

/// Bumped by every `enable()`: a HIP call entered in an earlier session (whose EXIT the
/// stopped context never reported) does not count as open in this one.
static SESSION_GENERATION: AtomicU64 = AtomicU64::new(0);

/// (session generation, HIP API calls of that session open on this thread): a part of the
/// thread's `ThreadState`.
pub(crate) struct OpenHipCalls(Cell<(u64, u32)>);

impl OpenHipCalls {
    #[allow(clippy::declare_interior_mutable_const)] // only the thread-local's initializer
    pub(crate) const EMPTY: OpenHipCalls = OpenHipCalls(Cell::new((0, 0)));

    /// The main context's HIP API ENTER on this thread.
    #[inline]
    pub(crate) fn enter(&self) {
        let generation = SESSION_GENERATION.load(Ordering::Acquire);
        let (seen, depth) = self.0.get();
        let depth = if seen == generation { depth } else { 0 };
        self.0.set((generation, depth.saturating_add(1)));
    }

    /// The main context's HIP API EXIT on this thread.
    #[inline]
    pub(crate) fn exit(&self) {
        let generation = SESSION_GENERATION.load(Ordering::Acquire);
        let (seen, depth) = self.0.get();
        let depth = if seen == generation { depth } else { 0 };
        self.0.set((generation, depth.saturating_sub(1)));
    }

    /// Whether a HIP API call of the running session is open on this thread.
    fn any_open(&self) -> bool {
        let (seen, depth) = self.0.get();
        seen == SESSION_GENERATION.load(Ordering::Acquire) && depth > 0
    }
}

pub(crate) fn start_session_generation() {
    SESSION_GENERATION.fetch_add(1, Ordering::AcqRel);
}

/// The stream a request on `thread` stamps: the innermost SET window's, else the null stream
/// inside a HIP call, else [`RocmTracerEvent::UNATTRIBUTED_STREAM_ID`].
#[inline]
fn stream_of_request(thread: &ThreadState) -> u64 {
    match thread.streams.top() {
        Some(stream_id) => stream_id,
        // A call without a stream argument (hipMemcpy, hipMemset) runs on the null stream.
        None if thread.hip_calls.any_open() => stream_stack::NULL_STREAM_ID,
        // Outside any HIP call, the work was submitted for a call on another thread, which no
        // stream stack here can name.
        None => unattributed(),
    }
}

#[cold]
fn unattributed() -> u64 {
    UNATTRIBUTED_REQUESTS.fetch_add(1, Ordering::Relaxed);
    RocmTracerEvent::UNATTRIBUTED_STREAM_ID
}

/// Writes the stream of the calling thread's innermost HIP_STREAM SET window (or, outside one,
/// the null stream inside a HIP call and [`RocmTracerEvent::UNATTRIBUTED_STREAM_ID`] outside
/// any), notes the request in the session ledger, and returns 0 ("use the value I wrote").
///
/// # Safety
/// `external_corr_id_value` is null or points to the SDK's writable `rocprofiler_user_data_t`.
#[doc(hidden)] // public for tests/hot_path_alloc.rs, which calls it as the SDK does
pub unsafe extern "C" fn stream_external_correlation_callback(
    thread_id: sys::rocprofiler_thread_id_t,
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
        // Non-zero: the SDK falls back to the pushed external id (docs/sdk-facts.md#request-return-contract); nothing else is safe.
        return 1;
    }
    // The thread's state never fails to be reached (`thread_state`); were it gone, the null
    // stream is what XLA would write.
    let stream_id =
        thread_state::with(stream_of_request).unwrap_or(stream_stack::NULL_STREAM_ID);
    // SAFETY: non-null and writable per the SDK contract.
    unsafe {
        (*external_corr_id_value).value = stream_id;
    }
    // One record to come for the running session (`disable()` waits for it).
    crate::tracer::instance()
        .ledger()
        .on_request(thread_id, internal_corr_id_value);
    0
}
