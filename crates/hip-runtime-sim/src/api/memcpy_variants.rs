//! The copy functions with a fixed direction (the driver API's hipMemcpyHtoD, DtoH, and their
//! Async forms, hipMemcpyDtoDAsync) and hipMemcpyWithStream, each traced under its own HIP
//! operation id. They are `hipMemcpy(Async)` with the direction given by the function.

use super::{hip_call, Traced};
use crate::error::hipError_t;
use crate::{copy, device, driver, streams};
use rocprofiler_sdk_sys::*;
use std::ffi::{c_int, c_void};

/// `hipMemcpyKind` values the fixed-direction functions stand for.
const HOST_TO_DEVICE: c_int = 1;
const DEVICE_TO_HOST: c_int = 2;
const DEVICE_TO_DEVICE: c_int = 3;

/// A stream copy in direction `kind`, traced as `op`.
///
/// # Safety
/// As `hipMemcpyAsync`: `src`/`dst` valid for `bytes` when they are not runtime allocations.
unsafe fn copy_on_stream(
    op: i32,
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
    stream: u64,
) -> hipError_t {
    hip_call(op, Some(stream), || {
        let stream_device = streams::device_of(stream)?;
        let Some(planned) = copy::plan(dst.cast(), src.cast(), bytes, kind, stream_device)? else {
            return Ok(Traced::No);
        };
        // SAFETY: validated by `plan`, and the caller contract.
        unsafe { planned.perform() };
        driver::memcpy_async_as(op, stream, &planned.work, &planned.call)?;
        Ok(Traced::ByDriver)
    })
}

/// A blocking copy in direction `kind`, traced as `op`: on the null stream of the current
/// device, then waits for it.
///
/// # Safety
/// As [`copy_on_stream`].
unsafe fn copy_blocking(
    op: i32,
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
) -> hipError_t {
    hip_call(op, None, || {
        let Some(planned) = copy::plan(dst.cast(), src.cast(), bytes, kind, device::current())?
        else {
            return Ok(Traced::No);
        };
        // SAFETY: validated by `plan`, and the caller contract.
        unsafe { planned.perform() };
        driver::memcpy_async_as(op, streams::NULL_STREAM, &planned.work, &planned.call)?;
        driver::stream_wait(streams::NULL_STREAM)?;
        Ok(Traced::ByDriver)
    })
}

/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoD(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
) -> hipError_t {
    // SAFETY: caller contract.
    unsafe {
        copy_blocking(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoD,
            dst,
            src,
            bytes,
            HOST_TO_DEVICE,
        )
    }
}

/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoH(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
) -> hipError_t {
    // SAFETY: caller contract.
    unsafe {
        copy_blocking(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoH,
            dst,
            src,
            bytes,
            DEVICE_TO_HOST,
        )
    }
}

/// # Safety
/// As `hipMemcpyAsync`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoDAsync(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    stream: u64,
) -> hipError_t {
    // SAFETY: caller contract.
    unsafe {
        copy_on_stream(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync,
            dst,
            src,
            bytes,
            HOST_TO_DEVICE,
            stream,
        )
    }
}

/// # Safety
/// As `hipMemcpyAsync`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoHAsync(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    stream: u64,
) -> hipError_t {
    // SAFETY: caller contract.
    unsafe {
        copy_on_stream(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoHAsync,
            dst,
            src,
            bytes,
            DEVICE_TO_HOST,
            stream,
        )
    }
}

/// # Safety
/// As `hipMemcpyAsync`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoDAsync(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    stream: u64,
) -> hipError_t {
    // SAFETY: caller contract.
    unsafe {
        copy_on_stream(
            ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoDAsync,
            dst,
            src,
            bytes,
            DEVICE_TO_DEVICE,
            stream,
        )
    }
}

/// `hipMemcpyAsync` followed by waiting for the stream, as one call.
///
/// # Safety
/// As `hipMemcpyAsync`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyWithStream(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
    stream: u64,
) -> hipError_t {
    let op = ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyWithStream;
    // SAFETY: caller contract.
    let code = unsafe { copy_on_stream(op, dst, src, bytes, kind, stream) };
    if code == crate::error::HIP_SUCCESS {
        // The copy's data moved at submission; its device time has to pass too.
        let _ = driver::stream_wait(stream);
    }
    code
}
