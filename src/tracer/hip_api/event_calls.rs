//! The record and wait calls that order streams (`hipEventRecord`, `hipEventRecordWithFlags`,
//! `hipStreamWaitEvent` and their per-thread-stream forms), noted at their HIP API ENTER with
//! their event and stream, for the export's wait flows (docs/xla-interface.md#stream-waits).
//!
//! The ENTER callback runs on every HIP call: every call pays one compare of its operation
//! ([`is_event_call`]); an event call writes one entry into its thread's own ring
//! (`word_ring.rs`) without a lock, as copy calls do (`copy_log.rs`). A thread's first event
//! call registers its ring (once, under the store's lock); `disable()` takes every ring in.
//! The stream is the call's HIP_STREAM SET, the one its work would be attributed to.
use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::Arc;

use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;

use crate::event::{BarrierSpan, EventCall, EventCallKind};
use crate::tracer::streams::stack as stream_stack;
use crate::tracer::word_ring::{RingEntry, WordRing};

/// Event calls a thread may note before they are taken in (32 bytes each). Programs make a few
/// per step; a full ring is taken in by its own thread.
const EVENT_LOG_CAPACITY: u64 = 256;

type ThreadEventLog = WordRing<EventCall, 4, EVENT_LOG_CAPACITY>;

impl RingEntry<4> for EventCall {
    fn to_words(self) -> [u64; 4] {
        let kind = match self.kind {
            EventCallKind::Record => 0,
            EventCallKind::Wait => 1,
        };
        [self.correlation_id, kind, self.event, self.stream_id]
    }

    fn from_words([correlation_id, kind, event, stream_id]: [u64; 4]) -> EventCall {
        EventCall {
            correlation_id,
            kind: if kind == 0 {
                EventCallKind::Record
            } else {
                EventCallKind::Wait
            },
            event,
            stream_id,
            barrier: None,
        }
    }
}

/// The HIP functions that record an event or wait for one.
pub(crate) const EVENT_CALLS: [i32; 5] = [
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecordWithFlags,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord_spt,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent_spt,
];

/// Whether `operation` records an event or waits for one (the ENTER callback asks its table,
/// `enter_callback::noted`, built from [`EVENT_CALLS`]).
#[cfg(test)]
pub(crate) fn is_event_call(operation: i32) -> bool {
    EVENT_CALLS.contains(&operation)
}

/// What the call did and its event, from its HIP API payload; `None` if the payload does not
/// cover the arguments or the event is null (HIP refuses the call).
///
/// # Safety
/// `payload` is null or the SDK's HIP API payload of `operation` (it starts with its size in
/// bytes), valid during this call.
unsafe fn kind_and_event(operation: i32, payload: *const c_void) -> Option<(EventCallKind, u64)> {
    if payload.is_null() {
        return None;
    }
    let args_at = std::mem::offset_of!(sys::rocprofiler_callback_tracing_hip_api_data_t, args);
    // SAFETY: the payload starts with its u64 size (this function's contract).
    let size = unsafe { (payload as *const u64).read_unaligned() };
    // Read only below, once `size` says the payload covers it.
    let args = (payload as *const u8).wrapping_add(args_at);
    let (kind, event) = if operation == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent
        || operation == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent_spt
    {
        type Args = sys::rocprofiler_hip_api_args_hipStreamWaitEvent_t;
        if size < (args_at + std::mem::size_of::<Args>()) as u64 {
            return None;
        }
        // SAFETY: the payload holds `size` bytes, which cover this member.
        let args = unsafe { (args as *const Args).read_unaligned() };
        (EventCallKind::Wait, args.event as u64)
    } else {
        // `hipEventRecordWithFlags` starts with the same `(event, stream)`.
        type Args = sys::rocprofiler_hip_api_args_hipEventRecord_t;
        if size < (args_at + std::mem::size_of::<Args>()) as u64 {
            return None;
        }
        // SAFETY: as above.
        let args = unsafe { (args as *const Args).read_unaligned() };
        (EventCallKind::Record, args.event as u64)
    };
    (event != 0).then_some((kind, event))
}

/// Every thread's ring, and what was taken out of them.
#[derive(Default)]
struct Store {
    logs: Vec<Arc<ThreadEventLog>>,
    taken: Vec<EventCall>,
    /// The HIP_EVENT records decoded since [`clear`]: the barriers' GPU times by the internal
    /// correlation id of their call, put on their calls at [`take_session`].
    barriers: Vec<(u64, EventCallKind, BarrierSpan)>,
}

/// Calls noted per session at most (32 bytes each): past it new calls are not noted.
const MAX_NOTED_CALLS: usize = 1 << 20;

impl Store {
    fn take_logs(&mut self) {
        let taken = &mut self.taken;
        let mut keep = |call| {
            if taken.len() < MAX_NOTED_CALLS {
                taken.push(call);
            }
        };
        self.logs.retain(|log| {
            log.take(&mut keep);
            if Arc::strong_count(log) > 1 {
                return true;
            }
            // Its thread is gone: what it wrote before dropping its handle is visible now.
            std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
            log.take(&mut keep);
            false
        });
    }
}

static STORE: Mutex<Store> = Mutex::new(Store {
    logs: Vec::new(),
    taken: Vec::new(),
    barriers: Vec::new(),
});

thread_local! {
    /// The calling thread's ring, registered with [`STORE`] at its first event call.
    static OWN_LOG: RefCell<Option<Arc<ThreadEventLog>>> = const { RefCell::new(None) };
}

/// At an event call's HIP API ENTER, on the calling thread: notes the call in the thread's
/// ring. Out of line and cold: most HIP calls are not event calls.
///
/// # Safety
/// `payload` is null or the SDK's HIP API payload of `operation`, valid during this call.
#[cold]
#[inline(never)]
pub(crate) unsafe fn note_event_call(operation: i32, payload: *mut c_void, correlation_id: u64) {
    // SAFETY: this function's contract.
    let Some((kind, event)) = (unsafe { kind_and_event(operation, payload) }) else {
        return;
    };
    note(EventCall {
        correlation_id,
        kind,
        event,
        stream_id: stream_stack::top(),
        barrier: None,
    });
}

fn note(call: EventCall) {
    let written = OWN_LOG.try_with(|own| {
        let Ok(mut own) = own.try_borrow_mut() else {
            return false;
        };
        let log = own.get_or_insert_with(|| {
            let log = Arc::new(ThreadEventLog::new());
            STORE.lock().logs.push(log.clone());
            log
        });
        if log.push(call) {
            return true;
        }
        // Nobody took the rings in for a while: take them in here.
        STORE.lock().take_logs();
        log.push(call)
    });
    if written != Ok(true) {
        // The thread is exiting (no thread-local) or the call re-entered: under the lock.
        let mut store = STORE.lock();
        if store.taken.len() < MAX_NOTED_CALLS {
            store.taken.push(call);
        }
    }
}

/// At a session's start: forgets every call noted before.
pub(crate) fn clear() {
    let mut store = STORE.lock();
    for log in &store.logs {
        log.discard();
    }
    store.logs.retain(|log| Arc::strong_count(log) > 1);
    store.taken.clear();
    store.barriers.clear();
}

/// On the buffer thread, for a HIP_EVENT record of the running session (`decode/hip_event.rs`):
/// the GPU time of the barrier the call of `correlation_id` enqueued. Past
/// [`MAX_NOTED_CALLS`] barriers are not noted.
pub(crate) fn note_barrier(correlation_id: u64, kind: EventCallKind, span: BarrierSpan) {
    let mut store = STORE.lock();
    if store.barriers.len() < MAX_NOTED_CALLS {
        store.barriers.push((correlation_id, kind, span));
    }
}

/// Puts each barrier on the call of its correlation id and kind (`calls` sorted by
/// correlation id); a barrier without its call (noted before the session, or not noted) is
/// left out.
fn attach_barriers(calls: &mut [EventCall], barriers: &[(u64, EventCallKind, BarrierSpan)]) {
    for &(correlation_id, kind, span) in barriers {
        if let Ok(at) = calls.binary_search_by_key(&correlation_id, |call| call.correlation_id) {
            let call = &mut calls[at];
            if call.kind == kind {
                call.barrier = Some(span);
            }
        }
    }
}

/// At a session's end: the calls noted since [`clear`], in correlation order, forgotten here.
pub(crate) fn take_session() -> Vec<EventCall> {
    let mut store = STORE.lock();
    store.take_logs();
    let mut calls = std::mem::take(&mut store.taken);
    calls.sort_by_key(|call| call.correlation_id);
    let barriers = std::mem::take(&mut store.barriers);
    attach_barriers(&mut calls, &barriers);
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A HIP API payload as the SDK passes it, with `args` written in.
    fn payload(
        args: sys::rocprofiler_hip_api_args_t,
    ) -> sys::rocprofiler_callback_tracing_hip_api_data_t {
        // SAFETY: plain C data, all-zero is valid.
        let mut data: sys::rocprofiler_callback_tracing_hip_api_data_t =
            unsafe { std::mem::zeroed() };
        data.size = std::mem::size_of_val(&data) as u64;
        data.args = args;
        data
    }

    #[test]
    fn records_and_waits_are_read_in_their_signatures_order() {
        // SAFETY: plain C data, all-zero is valid.
        let mut args: sys::rocprofiler_hip_api_args_t = unsafe { std::mem::zeroed() };
        args.hipStreamWaitEvent = sys::rocprofiler_hip_api_args_hipStreamWaitEvent_t {
            stream: 0x51 as sys::hipStream_t,
            event: 0xe1 as sys::hipEvent_t,
            flags: 0,
        };
        let mut wait = payload(args);
        let wait_op = sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent;
        // SAFETY: a whole payload of this operation.
        let got = unsafe { kind_and_event(wait_op, (&raw mut wait).cast()) };
        assert_eq!(got, Some((EventCallKind::Wait, 0xe1)));
        args.hipEventRecord = sys::rocprofiler_hip_api_args_hipEventRecord_t {
            event: 0xe2 as sys::hipEvent_t,
            stream: 0x52 as sys::hipStream_t,
        };
        let mut record = payload(args);
        let record_op = sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord;
        // SAFETY: as above.
        let got = unsafe { kind_and_event(record_op, (&raw mut record).cast()) };
        assert_eq!(got, Some((EventCallKind::Record, 0xe2)));
        // A payload too small for the arguments, and a null event, are not read as a call.
        record.size = 16;
        // SAFETY: as above; the size says 16.
        let got = unsafe { kind_and_event(record_op, (&raw mut record).cast()) };
        assert_eq!(got, None);
        args.hipEventRecord.event = std::ptr::null_mut();
        let mut null_event = payload(args);
        // SAFETY: as above.
        let got = unsafe { kind_and_event(record_op, (&raw mut null_event).cast()) };
        assert_eq!(got, None);
        assert!(is_event_call(wait_op) && is_event_call(record_op));
        assert!(!is_event_call(
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel
        ));
    }

    #[test]
    fn calls_round_trip_through_a_ring() {
        let call = EventCall {
            correlation_id: 7,
            kind: EventCallKind::Wait,
            event: 0xe1,
            stream_id: 3,
            barrier: None,
        };
        assert_eq!(EventCall::from_words(call.to_words()), call);
        let record = EventCall {
            kind: EventCallKind::Record,
            ..call
        };
        assert_eq!(EventCall::from_words(record.to_words()), record);
    }

    #[test]
    fn a_barrier_goes_on_the_call_of_its_correlation_id_and_kind() {
        let call = |correlation_id, kind| EventCall {
            correlation_id,
            kind,
            event: 0xe1,
            stream_id: 1,
            barrier: None,
        };
        let mut calls = [
            call(3, EventCallKind::Record),
            call(7, EventCallKind::Wait),
            call(9, EventCallKind::Wait),
        ];
        let span = |start_ns, end_ns| BarrierSpan { start_ns, end_ns };
        let barriers = [
            (7, EventCallKind::Wait, span(100, 250)),
            (3, EventCallKind::Record, span(90, 90)),
            // Another session's call, and a record of the wrong kind: left out.
            (5, EventCallKind::Wait, span(1, 2)),
            (9, EventCallKind::Record, span(3, 4)),
        ];
        attach_barriers(&mut calls, &barriers);
        assert_eq!(calls[0].barrier, Some(span(90, 90)));
        assert_eq!(calls[1].barrier, Some(span(100, 250)));
        assert_eq!(calls[2].barrier, None);
    }
}
