//! hipStreamCreate(WithFlags), hipStreamDestroy, hipStreamQuery, hipStreamSynchronize,
//! hipStreamWaitEvent.

use super::{hip_call, write_out, Traced};
use crate::error::{hipError_t, HipError, HIP_ERROR_INVALID_VALUE};
use crate::{device, driver, events, streams};
use rocprofiler_sdk_sys::*;
use std::ffi::c_uint;

/// `hipStreamDefault | hipStreamNonBlocking`.
const KNOWN_STREAM_FLAGS: c_uint = 0x1;

/// # Safety
/// `stream` must be null or point to a writable `hipStream_t`.
unsafe fn create(op: i32, stream: *mut u64, flags: c_uint) -> hipError_t {
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
        streams::insert(created, device::current());
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
    unsafe { create(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate, stream, 0) }
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
        )
    }
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

/// Work runs in submission order on the host, so the dependency already holds.
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
            Ok(Traced::No)
        },
    )
}
