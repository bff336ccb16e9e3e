//! The external-correlation request callback: it stamps every kernel dispatch and memory copy
//! with the HIP stream of the thread that issued it (openxla/xla#46182, docs/xla-interface.md#stream-tracking).
//!
//! The SDK calls it for KERNEL_DISPATCH and MEMORY_COPY operations of the main context, on the
//! thread that enqueues the work, inside the HIP_STREAM SET window of the issuing HIP call. The
//! value written into `external.value` reappears in the buffer records' `correlation_id.external`,
//! where `decode/record_decoder.rs` reads it back as `stream_id` (with the node ordinal of a
//! graph launch's dispatch, packed as `graph_nodes.rs` says).
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::LazyLock;

use rocprofiler_sdk_sys as sys;

use crate::event::RocmTracerEvent;
use crate::tracer::session::ledger::SessionLedger;
use crate::tracer::streams::stack as stream_stack;
use crate::tracer::thread_state::{self, LastHipCall, ThreadState};

/// Requests made on a thread that was in no HIP API call: HIP's worker thread
/// under indirect dispatch, whose records carry correlation ids no API call has. Their
/// records are stamped [`RocmTracerEvent::UNATTRIBUTED_STREAM_ID`].
static UNATTRIBUTED_REQUESTS: AtomicU64 = AtomicU64::new(0);

#[cfg(any(test, feature = "testing"))]
pub fn unattributed_requests() -> u64 {
    UNATTRIBUTED_REQUESTS.load(Ordering::Relaxed)
}

/// The thread's `LastHipCall` (layout in `thread_state`): the internal correlation id of the
/// last HIP API call it entered (0: none). Internal correlation ids grow process-wide and a request
/// carries the id of the call whose work it stamps, so a request made on this thread with an
/// id no newer than this one is made inside one of this thread's HIP calls (the innermost, or
/// an outer one around a nested call). HIP's worker thread enters no HIP call, and work it
/// submits later gets a fresh, newer id. Nothing is kept at EXIT: the HIP API EXIT callback
/// does no work, and a call whose EXIT a stopped context never reported leaves nothing stale.
impl LastHipCall {
    /// The main context's HIP API ENTER of call `correlation_id` on this thread.
    #[inline]
    pub(crate) fn enter(&self, correlation_id: u64) {
        self.0.set(correlation_id);
    }

    /// Whether the work of call `correlation_id`, requested on this thread, was submitted by
    /// one of this thread's HIP calls.
    #[inline]
    fn submitted(&self, correlation_id: u64) -> bool {
        correlation_id != 0 && correlation_id <= self.0.get()
    }
}

/// The stream a request on `thread` stamps: the innermost SET window's, else the null stream
/// inside a HIP call, else [`RocmTracerEvent::UNATTRIBUTED_STREAM_ID`].
#[inline]
fn stream_of_request(thread: &ThreadState, correlation_id: u64) -> u64 {
    match thread.streams.top() {
        Some(stream_id) => stream_id,
        // A call without a stream argument (hipMemcpy, hipMemset) runs on the null stream.
        None if thread.hip_calls.submitted(correlation_id) => stream_stack::NULL_STREAM_ID,
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
/// any), notes the request in the session ledger [`serve`] gave, and returns 0 ("use the
/// value I wrote").
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
    // Panic-free: a thread-local read, a checked pointer write and the thread's request
    // counter (plain stores; a thread's first request of a session goes out of line, and its
    // first request ever registers it under the ledger's lock, a push that cannot panic short
    // of allocation failure).
    if external_corr_id_value.is_null() {
        // Non-zero: the SDK falls back to the pushed external id (docs/sdk-facts.md#request-return-contract); nothing else is safe.
        return 1;
    }
    // The SDK's thread id is not needed on this path: the ledger counts per thread state, and
    // its shared stripes (for a thread whose counters are gone) are picked by that state's
    // address, so only the id and the output pointer stay live across the thread-local look-up.
    let counted = thread_state::with(|thread| {
        let stream_id = stream_of_request(thread, internal_corr_id_value);
        // A node of a graph launch in progress on this thread carries its ordinal too
        // (`graph_nodes.rs`).
        let value = thread.graph.stamp(internal_corr_id_value, stream_id);
        // SAFETY: non-null and writable per the SDK contract.
        unsafe {
            (*external_corr_id_value).value = value;
        }
        // One record to come for the running session (`disable()` waits for it).
        ledger().on_request_on_thread(thread, internal_corr_id_value);
    });
    if counted.is_none() {
        // The thread's state never fails to be reached (`thread_state`, so this is compiled
        // out); were it gone, the null stream is what XLA would write.
        // SAFETY: as above.
        unsafe {
            (*external_corr_id_value).value = stream_stack::NULL_STREAM_ID;
        }
        ledger().on_request(thread_id, internal_corr_id_value);
    }
    0
}

/// The session ledger requests are counted in, given once by the tracer's set-up before it
/// registers the callback (`sdk/setup.rs`). A static rather than the callback data: read
/// after the thread-local look-up, it keeps no register live across that call (five
/// instructions per request on the benchmarks' hot path).
static LEDGER: AtomicPtr<SessionLedger> = AtomicPtr::new(std::ptr::null_mut());

/// Counts every later request in `ledger`.
pub(crate) fn serve(ledger: &'static SessionLedger) {
    LEDGER.store(std::ptr::from_ref(ledger).cast_mut(), Ordering::Release);
}

#[inline]
fn ledger() -> &'static SessionLedger {
    // Acquire, paired with `serve`'s Release: the ledger's fields are seen as initialized.
    let ledger = LEDGER.load(Ordering::Acquire);
    if ledger.is_null() {
        return unserved();
    }
    // SAFETY: only ever set to the `'static` ledger `serve` was given.
    unsafe { &*ledger }
}

/// Where a request before the set-up would count (the callback is registered after it): a
/// ledger no session reads.
#[cold]
#[inline(never)]
fn unserved() -> &'static SessionLedger {
    static UNSERVED: LazyLock<SessionLedger> = LazyLock::new(SessionLedger::default);
    &UNSERVED
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamped(correlation_id: u64) -> u64 {
        thread_state::with(|thread| stream_of_request(thread, correlation_id)).unwrap()
    }

    #[test]
    fn a_request_outside_a_set_window_is_the_null_stream_only_within_a_call_of_this_thread() {
        std::thread::spawn(|| {
            // HIP's worker thread: it entered no HIP call.
            assert_eq!(stamped(5), RocmTracerEvent::UNATTRIBUTED_STREAM_ID);
            thread_state::with(|thread| thread.hip_calls.enter(10));
            // hipMemcpy (no stream) enqueues its copy inside call 10.
            assert_eq!(stamped(10), stream_stack::NULL_STREAM_ID);
            // A call nested in call 10 (say from an annotation source's hook), then call 10's
            // own work: still inside call 10.
            thread_state::with(|thread| thread.hip_calls.enter(11));
            assert_eq!(stamped(10), stream_stack::NULL_STREAM_ID);
            // Work with a newer id than any call this thread entered was submitted elsewhere.
            assert_eq!(stamped(12), RocmTracerEvent::UNATTRIBUTED_STREAM_ID);
            assert_eq!(stamped(0), RocmTracerEvent::UNATTRIBUTED_STREAM_ID);
            // Inside a SET window the window's stream wins.
            thread_state::with(|thread| thread.streams.push(7));
            assert_eq!(stamped(12), 7);
            thread_state::with(|thread| thread.streams.pop());
        })
        .join()
        .unwrap();
    }
}
