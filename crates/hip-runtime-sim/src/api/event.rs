//! hipEventCreate(WithFlags), hipEventRecord, hipEventSynchronize, hipEventQuery,
//! hipEventElapsedTime, hipEventDestroy.

use super::{hip_call, write_out, Traced};
use crate::error::{hipError_t, HipError, HIP_ERROR_INVALID_VALUE};
use crate::{driver, events, streams};
use rocprofiler_sdk_sys::*;
use std::ffi::c_uint;

/// hipEventDefault | BlockingSync | DisableTiming | Interprocess, and the release/fence bits.
const KNOWN_EVENT_FLAGS: c_uint = 0x7 | 0x2000_0000 | 0x4000_0000 | 0x8000_0000;

/// # Safety
/// `event` must be null or point to a writable `hipEvent_t`.
unsafe fn create(op: i32, event: *mut u64, flags: c_uint) -> hipError_t {
    hip_call(op, None, || {
        if event.is_null() || flags & !KNOWN_EVENT_FLAGS != 0 {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        // SAFETY: caller contract; checked non-null.
        unsafe { write_out(event, events::create()) }?;
        Ok(Traced::No)
    })
}

/// # Safety
/// `event` must be null or point to a writable `hipEvent_t`.
#[no_mangle]
pub unsafe extern "C" fn hipEventCreate(event: *mut u64) -> hipError_t {
    // SAFETY: caller contract.
    unsafe { create(ROCPROFILER_HIP_RUNTIME_API_ID_hipEventCreate, event, 0) }
}

/// # Safety
/// `event` must be null or point to a writable `hipEvent_t`.
#[no_mangle]
pub unsafe extern "C" fn hipEventCreateWithFlags(event: *mut u64, flags: c_uint) -> hipError_t {
    // SAFETY: caller contract.
    unsafe {
        create(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipEventCreateWithFlags,
            event,
            flags,
        )
    }
}

/// Records the point the stream reached: the modelled completion time of its work so far.
#[no_mangle]
pub extern "C" fn hipEventRecord(event: u64, stream: u64) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord,
        Some(stream),
        || {
            streams::device_of(stream)?;
            events::validate(event)?;
            events::record(event, driver::timestamp_ns())?;
            driver::event_call(
                ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord,
                event,
                stream,
                0,
            )?;
            Ok(Traced::ByDriver)
        },
    )
}

/// Waits until the modelled time of the event has passed on the device.
#[no_mangle]
pub extern "C" fn hipEventSynchronize(event: u64) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipEventSynchronize,
        None,
        || {
            events::validate(event)?;
            events::wait(event);
            Ok(Traced::No)
        },
    )
}

#[no_mangle]
pub extern "C" fn hipEventQuery(event: u64) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipEventQuery, None, || {
        events::validate(event)?;
        events::query(event)?;
        Ok(Traced::No)
    })
}

/// # Safety
/// `ms` must be null or point to a writable `float`.
#[no_mangle]
pub unsafe extern "C" fn hipEventElapsedTime(ms: *mut f32, start: u64, stop: u64) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipEventElapsedTime,
        None,
        || {
            if ms.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            let elapsed = events::elapsed_ms(start, stop)?;
            // SAFETY: caller contract; checked non-null.
            unsafe { write_out(ms, elapsed) }?;
            Ok(Traced::No)
        },
    )
}

#[no_mangle]
pub extern "C" fn hipEventDestroy(event: u64) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipEventDestroy, None, || {
        events::destroy(event)?;
        Ok(Traced::No)
    })
}
