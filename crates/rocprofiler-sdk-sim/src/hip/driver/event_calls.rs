//! The calls that order streams with events: `hipEventRecord`, `hipEventRecordWithFlags` and
//! `hipStreamWaitEvent`. Each has one stream argument, so each gets its SET
//! (docs/sdk-facts.md#stream-operations), and its HIP API payload carries the event and the
//! stream in the function's signature order (a tool pairs a wait with its record by the event).
//! The timing: a record takes the time the recording stream's work so far ends, and a wait
//! keeps the waiting stream's later work from starting before it (time/device.rs), as the
//! barrier packet HIP enqueues does. The packets themselves are modelled only for their
//! HIP_EVENT records (10.1, see [`traced`]).
use super::{current_device, op, runtime, HipStream};
use crate::engine::dispatch::{hip_event, ApiCall};
use crate::hip::{hip_args, streams};
use crate::SimError;
use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;
use rustc_hash::FxHashMap as HashMap;

/// A `hipEvent_t` as the program passed it.
fn event_ptr(event: u64) -> sys::hipEvent_t {
    event as usize as sys::hipEvent_t
}

/// An event's latest record: when the work it marks completes on its device, and the
/// stream and HSA queue it was recorded on.
#[derive(Clone, Copy)]
struct Recorded {
    at: u64,
    stream: (u32, u64),
    queue: u64,
}

/// Each event's latest record, by `hipEvent_t`.
static RECORDED_AT: Mutex<Option<HashMap<u64, Recorded>>> = Mutex::new(None);

/// What a call does to the device's timing besides being traced.
enum Timing {
    Record(u64),
    Wait(u64),
}

/// One traced call with `args` and a SET for `stream`; returns its correlation id.
///
/// Where a tool traces HIP_EVENT (10.1, `engine/dispatch/hip_event.rs`), the call's barrier
/// packet gets a record: a RECORD's starts and ends when the recording queue reaches it (once
/// the stream's earlier work ended); a WAIT's starts when the waiting queue reaches it and
/// ends when the recorded work completes. A wait on an event never recorded, recorded on the
/// same stream, or already complete at the call enqueues no barrier, so it has no record
/// (`fwd.h` @ radhaksri/rocm-systems 6a0bbe3a, `ROCPROFILER_HIP_EVENT_WAIT`). The barriers do
/// not change the timing: the stream's later work already waits for the recorded work.
fn traced(
    api_op: i32,
    stream: HipStream,
    args: sys::rocprofiler_hip_api_args_t,
    timing: Timing,
) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    let now = crate::time::clock::now_ns();
    // (operation, event, source queue, start, end) of the call's traced barrier.
    let mut barrier = None;
    match timing {
        Timing::Record(event) => {
            let at = crate::time::device::stream_end(info.key());
            let recorded = Recorded {
                at,
                stream: info.key(),
                queue: info.queue,
            };
            RECORDED_AT
                .lock()
                .get_or_insert_with(HashMap::default)
                .insert(event, recorded);
            let operation = sys::ROCPROFILER_HIP_EVENT_RECORD;
            if hip_event::traced(operation) {
                let start = crate::time::device::barrier_start(info.key(), now);
                barrier = Some((operation, event, 0, start, start));
            }
        }
        Timing::Wait(event) => {
            let recorded = RECORDED_AT
                .lock()
                .as_ref()
                .and_then(|at| at.get(&event).copied());
            if let Some(recorded) = recorded {
                let operation = sys::ROCPROFILER_HIP_EVENT_WAIT;
                if recorded.stream != info.key()
                    && recorded.at > now
                    && hip_event::traced(operation)
                {
                    let start = crate::time::device::barrier_start(info.key(), now);
                    let end = start.max(recorded.at);
                    barrier = Some((operation, event, recorded.queue, start, end));
                }
                crate::time::device::stream_waits_until(info.key(), recorded.at);
            }
        }
    }
    let call = ApiCall::enter_with_args(api_op, Some(&info), args);
    let correlation_id = call.correlation_id;
    if let Some((operation, event, source_queue, start_ns, end_ns)) = barrier {
        hip_event::barrier(hip_event::Barrier {
            operation,
            correlation_id,
            event,
            stream: &info,
            source_queue,
            start_ns,
            end_ns,
        });
    }
    call.exit();
    Ok(correlation_id)
}

/// `hipEventRecord(event, stream)`: the event marks the work submitted to `stream` so far.
pub fn event_record(event: u64, stream: HipStream) -> Result<u64, SimError> {
    let mut args = hip_args::zeroed();
    args.hipEventRecord = sys::rocprofiler_hip_api_args_hipEventRecord_t {
        event: event_ptr(event),
        stream: hip_args::stream_ptr(stream),
    };
    traced(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord),
        stream,
        args,
        Timing::Record(event),
    )
}

/// `hipEventRecordWithFlags(event, stream, flags)`.
pub fn event_record_with_flags(event: u64, stream: HipStream, flags: u32) -> Result<u64, SimError> {
    let mut args = hip_args::zeroed();
    args.hipEventRecordWithFlags = sys::rocprofiler_hip_api_args_hipEventRecordWithFlags_t {
        event: event_ptr(event),
        stream: hip_args::stream_ptr(stream),
        flags,
    };
    traced(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecordWithFlags),
        stream,
        args,
        Timing::Record(event),
    )
}

/// `hipStreamWaitEvent(stream, event, flags)`: `stream`'s later work waits for the work the
/// event's latest record marked (on any device).
pub fn stream_wait_event(stream: HipStream, event: u64, flags: u32) -> Result<u64, SimError> {
    let mut args = hip_args::zeroed();
    args.hipStreamWaitEvent = sys::rocprofiler_hip_api_args_hipStreamWaitEvent_t {
        stream: hip_args::stream_ptr(stream),
        event: event_ptr(event),
        flags,
    };
    traced(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent),
        stream,
        args,
        Timing::Wait(event),
    )
}
