//! The calls that order streams with events: `hipEventRecord`, `hipEventRecordWithFlags` and
//! `hipStreamWaitEvent`. Each has one stream argument, so each gets its SET
//! (docs/sdk-facts.md#stream-operations), and its HIP API payload carries the event and the
//! stream in the function's signature order (a tool pairs a wait with its record by the event).
//! No packet is modelled; the timing is: a record takes the time the recording stream's work
//! so far ends, and a wait keeps the waiting stream's later work from starting before it
//! (time/device.rs), as the barrier packet HIP enqueues does.
use super::{current_device, op, runtime, HipStream};
use crate::engine::dispatch::ApiCall;
use crate::hip::{hip_args, streams};
use crate::SimError;
use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;
use rustc_hash::FxHashMap as HashMap;

/// A `hipEvent_t` as the program passed it.
fn event_ptr(event: u64) -> sys::hipEvent_t {
    event as usize as sys::hipEvent_t
}

/// When each event's latest record completes on its device, by `hipEvent_t`.
static RECORDED_AT: Mutex<Option<HashMap<u64, u64>>> = Mutex::new(None);

/// What a call does to the device's timing besides being traced.
enum Timing {
    Record(u64),
    Wait(u64),
}

/// One traced call with `args` and a SET for `stream`; returns its correlation id.
fn traced(
    api_op: i32,
    stream: HipStream,
    args: sys::rocprofiler_hip_api_args_t,
    timing: Timing,
) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    match timing {
        Timing::Record(event) => {
            let at = crate::time::device::stream_end(info.key());
            RECORDED_AT
                .lock()
                .get_or_insert_with(HashMap::default)
                .insert(event, at);
        }
        Timing::Wait(event) => {
            let recorded = RECORDED_AT
                .lock()
                .as_ref()
                .and_then(|at| at.get(&event).copied());
            if let Some(at) = recorded {
                crate::time::device::stream_waits_until(info.key(), at);
            }
        }
    }
    let call = ApiCall::enter_with_args(api_op, Some(&info), args);
    let correlation_id = call.correlation_id;
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
