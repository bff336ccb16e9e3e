//! Stream calls: creation and destruction with the HIP_STREAM callbacks after them
//! (docs/sdk-facts.md#stream-ids), SET windows not tied to one call, queue binding, and the
//! waits (`hipStreamSynchronize`, and the untraced wait a host callback makes).
use super::{
    current_device, op, runtime, HipStream, NULL_STREAM, STREAM_LEGACY, STREAM_PER_THREAD,
};
use crate::engine::dispatch::{self, ApiCall};
use crate::engine::signal;
use crate::hip::streams;
use crate::SimError;
use rocprofiler_sdk_sys as sys;

/// `hipStreamCreate` on the current device. HIP_STREAM CREATE (phase NONE) fires after the call.
pub fn stream_create() -> Result<HipStream, SimError> {
    stream_create_with(op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate))
}

/// The HIP functions that create a stream (a `hipStream_t*` out-parameter, docs/sdk-facts.md#stream-operations).
const STREAM_CREATE_OPS: [sys::rocprofiler_hip_runtime_api_id_t; 4] = [
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreateWithFlags,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreateWithPriority,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipExtStreamCreateWithCUMask,
];

/// A stream creation traced under the creating function's own operation id (`api_op`, one of
/// `hipStreamCreate`, `hipStreamCreateWithFlags`, `hipStreamCreateWithPriority`,
/// `hipExtStreamCreateWithCUMask`). Flags, priorities and masks do not change what the SDK
/// sees: no SET (the stream is an out-parameter), then CREATE after the call.
pub fn stream_create_with(api_op: i32) -> Result<HipStream, SimError> {
    if !STREAM_CREATE_OPS.contains(&api_op) {
        return Err(SimError::InvalidArgument(format!(
            "HIP operation {api_op} does not create a stream"
        )));
    }
    runtime()?;
    let device = current_device();
    let call = ApiCall::enter(api_op, None);
    let value = streams::create(device);
    call.exit();
    created(value);
    Ok(value)
}

/// HIP_STREAM CREATE after a create call that wrote `value` to `*stream`.
fn created(value: HipStream) {
    let traced = dispatch::hip_stream_traced(sys::ROCPROFILER_HIP_STREAM_CREATE);
    if let Some(id) = streams::register_created(value, traced) {
        dispatch::stream_lifecycle(sys::ROCPROFILER_HIP_STREAM_CREATE, id, value);
    }
}

/// A stream creation (`api_op` as for [`stream_create_with`]) that the HIP runtime rejected,
/// e.g. for bad flags: traced like any failed call. SDK 1.0.0's CREATE wrapper does not look
/// at the result: if a HIP_STREAM callback context is active, CREATE fires anyway and adds
/// whatever `*stream` holds to the stream map (`stream_out` = that value; `None` = a null
/// `hipStream_t*`, for which CREATE carries id 0 and value 0). A `*stream` still holding the
/// null stream moves the null stream to a new id, so later SETs on it no longer say 0. The
/// newer map keeps the earlier behaviour here: nothing after a failed create.
pub fn stream_create_failed(api_op: i32, stream_out: Option<HipStream>) -> Result<(), SimError> {
    if !STREAM_CREATE_OPS.contains(&api_op) {
        return Err(SimError::InvalidArgument(format!(
            "HIP operation {api_op} does not create a stream"
        )));
    }
    runtime()?;
    ApiCall::enter(api_op, None).exit();
    if crate::machine::machine().stream_map.is_size_indexed() {
        match stream_out {
            Some(value) => created(value),
            None => {
                if dispatch::hip_stream_traced(sys::ROCPROFILER_HIP_STREAM_CREATE) {
                    dispatch::stream_lifecycle(sys::ROCPROFILER_HIP_STREAM_CREATE, 0, 0);
                }
            }
        }
    }
    Ok(())
}

/// `hipStreamDestroy`: waits for the stream's work, then HIP_STREAM DESTROY after the call.
/// Under the size-indexed maps (SDK 1.0.0 to 1.3.0) DESTROY looks the stream up (keeping its
/// entry) even when HIP rejected the handle, and for a value the map lacks aborts the process
/// (1.0.0) or adds it (later).
pub fn stream_destroy(stream: HipStream) -> Result<(), SimError> {
    runtime()?;
    let strict = crate::machine::machine().stream_map.is_size_indexed();
    let strict_lookup = || {
        if !dispatch::hip_stream_traced(sys::ROCPROFILER_HIP_STREAM_DESTROY) {
            return None;
        }
        Some(streams::sdk_id(stream).unwrap_or_else(|| streams::unmapped_id(stream, "DESTROY")))
    };
    let info = match streams::resolve(stream, current_device()) {
        Ok(info)
            if info.value == stream
                && !matches!(stream, NULL_STREAM | STREAM_LEGACY | STREAM_PER_THREAD) =>
        {
            info
        }
        rejected => {
            if strict {
                strict_lookup();
            }
            return Err(rejected.err().unwrap_or_else(|| {
                SimError::InvalidArgument(format!("stream {stream:#x} cannot be destroyed"))
            }));
        }
    };
    let call = ApiCall::enter(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy),
        None,
    );
    signal::wait_stream(info.key());
    let destroyed = streams::destroy(stream);
    call.exit();
    destroyed?;
    let id = if strict {
        strict_lookup()
    } else {
        Some(info.id)
    };
    if let Some(id) = id {
        dispatch::stream_lifecycle(sys::ROCPROFILER_HIP_STREAM_DESTROY, id, stream);
    }
    Ok(())
}

/// A HIP_STREAM SET window on the calling thread that is not tied to one traced call: what
/// the SDK fires around a call with a stream argument whose body makes further HIP calls on
/// the same thread (they run inside the window, so a tool's thread-local stream stack holds
/// `stream` for them), or around a call that never returns. Dropping it without
/// [`stream_window_exit`] fires no SET EXIT, as for a call that never returned.
pub struct StreamWindow(crate::engine::dispatch::SetWindow);

/// Opens a [`StreamWindow`]: HIP_STREAM SET ENTER for `stream`, to the HIP_STREAM callback
/// contexts active now (they, and only they, get the EXIT). Under the SDK 1.0.0 map a stream
/// the map lacks aborts the process while such a context is active, as a SET does.
pub fn stream_window_enter(stream: HipStream) -> Result<StreamWindow, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    Ok(StreamWindow(crate::engine::dispatch::SetWindow::enter(
        &info,
        crate::time::clock::gettid(),
    )))
}

/// Closes a [`StreamWindow`]: SET EXIT to the contexts that got its ENTER.
pub fn stream_window_exit(window: StreamWindow) {
    window.0.exit();
}

/// Sends the stream's next work to HSA queue `queue` (a queue handle). Several streams may
/// share a queue; a stream may move. Not a HIP call: this is how the runtime maps streams.
pub fn bind_stream_to_queue(stream: HipStream, queue: u64) -> Result<(), SimError> {
    streams::bind_queue(stream, current_device(), queue)
}

/// The SDK stream id a `hipStream_t` maps to on this thread (no HIP call is recorded).
/// Under the SDK 1.0.0 map, a value the map lacks is `UnknownStream`.
pub fn sdk_stream_id(stream: HipStream) -> Result<u64, SimError> {
    let info = streams::resolve(stream, current_device())?;
    if info.mapped {
        Ok(info.id)
    } else {
        Err(SimError::UnknownStream(stream))
    }
}

/// Waits, untraced, until the work submitted to `stream` so far finished on the device: what
/// a host callback enqueued behind that work waits for.
pub fn stream_wait(stream: HipStream) -> Result<(), SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    signal::wait_stream(info.key());
    Ok(())
}

/// `hipStreamSynchronize` (op 346): waits until the stream's work finished on the device.
/// Copy records are pushed by then; kernel records may come later (the kernel record lag).
pub fn stream_synchronize(stream: HipStream) -> Result<(), SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    let call = ApiCall::enter(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize),
        Some(&info),
    );
    signal::wait_stream(info.key());
    call.exit();
    Ok(())
}
