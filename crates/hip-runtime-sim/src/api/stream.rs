//! hipStreamCreate(WithFlags, WithPriority), hipStreamDestroy, hipStreamQuery,
//! hipStreamSynchronize, hipStreamWaitEvent, hipStreamGetFlags/Priority, hipGetStreamDeviceId,
//! hipLaunchHostFunc.

use super::device_query::{GREATEST_STREAM_PRIORITY, LEAST_STREAM_PRIORITY};
use super::{hip_call, write_out, Traced};
use crate::error::{hipError_t, HipError, HIP_ERROR_INVALID_VALUE};
use crate::streams::StreamInfo;
use crate::{device, driver, events, host_callbacks, streams};
pub use host_callbacks::HostFn;
use rocprofiler_sdk_sys::*;
use std::ffi::{c_int, c_uint, c_void};

/// `hipStreamDefault | hipStreamNonBlocking`.
const KNOWN_STREAM_FLAGS: c_uint = 0x1;

/// # Safety
/// `stream` must be null or point to a writable `hipStream_t`.
unsafe fn create(op: i32, stream: *mut u64, flags: c_uint, priority: c_int) -> hipError_t {
    hip_call(op, None, || {
        if stream.is_null() || flags & !KNOWN_STREAM_FLAGS != 0 {
            // The SDK's CREATE wrapper runs after the call whatever it returned and reads
            // `*stream`, which HIP left as the program had it.
            let stream_out = (!stream.is_null()).then(|| {
                // SAFETY: caller contract: a non-null `stream` points to a `hipStream_t`
                // (volatile: its bytes come from the program, which may not have set them).
                unsafe { stream.read_volatile() }
            });
            driver::stream_create_failed(op, stream_out)?;
            return Ok(Traced::FailedByDriver(HipError(HIP_ERROR_INVALID_VALUE)));
        }
        let created = driver::stream_create(op)?;
        // HIP clamps a priority outside the device's range into it.
        let priority = priority.clamp(GREATEST_STREAM_PRIORITY, LEAST_STREAM_PRIORITY);
        let info = StreamInfo {
            device: device::current(),
            flags,
            priority,
        };
        streams::insert(created, info);
        // SAFETY: caller contract; checked non-null.
        unsafe { write_out(stream, created) }?;
        Ok(Traced::ByDriver)
    })
}

/// # Safety
/// `stream` must be null or point to a writable `hipStream_t`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamCreate(stream: *mut u64) -> hipError_t {
    // SAFETY: caller contract.
    unsafe { create(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate, stream, 0, 0) }
}

/// # Safety
/// `stream` must be null or point to a writable `hipStream_t`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithFlags(stream: *mut u64, flags: c_uint) -> hipError_t {
    // SAFETY: caller contract.
    unsafe {
        create(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreateWithFlags,
            stream,
            flags,
            0,
        )
    }
}

/// # Safety
/// `stream` must be null or point to a writable `hipStream_t`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithPriority(
    stream: *mut u64,
    flags: c_uint,
    priority: c_int,
) -> hipError_t {
    // SAFETY: caller contract.
    unsafe {
        create(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreateWithPriority,
            stream,
            flags,
            priority,
        )
    }
}

/// # Safety
/// `flags` must be null or point to a writable `unsigned int`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetFlags(stream: u64, flags: *mut c_uint) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetFlags,
        Some(stream),
        || {
            let info = streams::info(stream)?;
            // SAFETY: caller contract.
            unsafe { write_out(flags, info.flags) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `priority` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetPriority(stream: u64, priority: *mut c_int) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetPriority,
        Some(stream),
        || {
            let info = streams::info(stream)?;
            // SAFETY: caller contract.
            unsafe { write_out(priority, info.priority) }?;
            Ok(Traced::No)
        },
    )
}

/// The device of a stream, or -1 for an unknown one (HIP returns the id, not an error).
#[no_mangle]
pub extern "C" fn hipGetStreamDeviceId(stream: u64) -> c_int {
    let mut answer = -1;
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGetStreamDeviceId,
        Some(stream),
        || {
            answer = c_int::try_from(streams::device_of(stream)?).unwrap_or(-1);
            Ok(Traced::No)
        },
    );
    answer
}

/// Enqueues `func(user_data)` on `stream`: it runs on the runtime's callback thread once the
/// work submitted to the stream before it finished, never on the calling thread
/// (docs/simulator-fidelity.md#host-callbacks).
#[no_mangle]
pub extern "C" fn hipLaunchHostFunc(
    stream: u64,
    func: Option<HostFn>,
    user_data: *mut c_void,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchHostFunc,
        Some(stream),
        || {
            streams::device_of(stream)?;
            let func = func.ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
            host_callbacks::enqueue(stream, func, user_data as usize)?;
            Ok(Traced::No)
        },
    )
}

/// Waits for the stream's work, then destroys it. hipStreamDestroy gets no SET (docs/sdk-facts.md#stream-operations).
#[no_mangle]
pub extern "C" fn hipStreamDestroy(stream: u64) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy,
        None,
        || {
            if let Err(rejected) = streams::remove(stream) {
                // The SDK's DESTROY wrapper looks the handle up after the call even when HIP
                // rejects it (the SDK 1.0.0 map aborts on a value it never had); the driver
                // plays that lookup and returns HIP's rejection without tracing the call.
                let _ = driver::stream_destroy(stream);
                return Err(rejected);
            }
            driver::stream_destroy(stream)?;
            Ok(Traced::ByDriver)
        },
    )
}

#[no_mangle]
pub extern "C" fn hipStreamSynchronize(stream: u64) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize,
        Some(stream),
        || {
            streams::device_of(stream)?;
            driver::stream_synchronize(stream)?;
            // The stream's host callbacks are part of its work.
            host_callbacks::wait_stream(stream);
            Ok(Traced::ByDriver)
        },
    )
}

/// Host-side work is done at submission, so a valid stream is always idle here.
#[no_mangle]
pub extern "C" fn hipStreamQuery(stream: u64) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamQuery,
        Some(stream),
        || {
            streams::device_of(stream)?;
            Ok(Traced::No)
        },
    )
}

/// Traced with its event and stream; the simulated device starts the stream's later work
/// after the work the event's latest record marked.
#[no_mangle]
pub extern "C" fn hipStreamWaitEvent(stream: u64, event: u64, flags: c_uint) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent,
        Some(stream),
        || {
            streams::device_of(stream)?;
            events::validate(event)?;
            if flags != 0 {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            driver::event_call(
                ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent,
                event,
                stream,
                flags,
            )?;
            Ok(Traced::ByDriver)
        },
    )
}

/// `hipStreamCaptureStatusNone`: the simulator never captures (hipStreamBeginCapture is not
/// supported), so every stream reports no capture.
const CAPTURE_STATUS_NONE: c_int = 0;

/// # Safety
/// `status` must be null or point to a writable `hipStreamCaptureStatus`; `id` null or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetCaptureInfo(
    stream: u64,
    status: *mut c_int,
    id: *mut u64,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamGetCaptureInfo,
        Some(stream),
        || {
            streams::device_of(stream)?;
            // SAFETY: caller contract.
            unsafe { write_out(status, CAPTURE_STATUS_NONE) }?;
            if !id.is_null() {
                // SAFETY: caller contract.
                unsafe { id.write(0) };
            }
            Ok(Traced::No)
        },
    )
}
