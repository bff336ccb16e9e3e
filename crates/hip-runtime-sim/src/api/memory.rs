//! hipMalloc, hipFree, hipHostMalloc, hipHostFree, hipMemcpy(Async), hipMemset(Async).

use super::{hip_call, write_out, Traced};
use crate::error::{hipError_t, HipError, HIP_ERROR_INVALID_VALUE};
use crate::memory::{self, Placement};
use crate::{copy, device, driver, streams, timing_model};
use rocprofiler_sdk_sys::*;
use std::ffi::{c_int, c_uint, c_void};

/// # Safety
/// `ptr` must be null or point to a writable `void*`.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, None, || {
        if ptr.is_null() {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        let allocation = memory::allocate(size, Placement::Device(device::current()))?;
        // SAFETY: caller contract.
        unsafe { write_out(ptr, allocation.cast()) }?;
        Ok(Traced::No)
    })
}

/// # Safety
/// `ptr` must be null or point to a writable `void*`.
#[no_mangle]
pub unsafe extern "C" fn hipHostMalloc(
    ptr: *mut *mut c_void,
    size: usize,
    _flags: c_uint,
) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc, None, || {
        if ptr.is_null() {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        let allocation = memory::allocate(size, Placement::PinnedHost)?;
        // SAFETY: caller contract.
        unsafe { write_out(ptr, allocation.cast()) }?;
        Ok(Traced::No)
    })
}

#[no_mangle]
pub extern "C" fn hipFree(ptr: *mut c_void) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipFree, None, || {
        memory::free(ptr.cast(), false)?;
        Ok(Traced::No)
    })
}

#[no_mangle]
pub extern "C" fn hipHostFree(ptr: *mut c_void) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipHostFree, None, || {
        memory::free(ptr.cast(), true)?;
        Ok(Traced::No)
    })
}

/// Synchronous copy: no stream argument, so no SET (docs/sdk-facts.md#stream-operations); returns when the copy completed.
///
/// # Safety
/// `src`/`dst` must be valid for `size_bytes` bytes when they are not runtime allocations.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    size_bytes: usize,
    kind: c_int,
) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy, None, || {
        let Some(planned) =
            copy::plan(dst.cast(), src.cast(), size_bytes, kind, device::current())?
        else {
            return Ok(Traced::No);
        };
        // SAFETY: validated by `plan`, and the caller contract.
        unsafe { planned.perform() };
        driver::memcpy_sync(&planned.work, &planned.call)?;
        Ok(Traced::ByDriver)
    })
}

/// # Safety
/// As [`hipMemcpy`].
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    size_bytes: usize,
    kind: c_int,
    stream: u64,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync,
        Some(stream),
        || {
            let stream_device = streams::device_of(stream)?;
            let Some(planned) =
                copy::plan(dst.cast(), src.cast(), size_bytes, kind, stream_device)?
            else {
                return Ok(Traced::No);
            };
            // SAFETY: validated by `plan`, and the caller contract.
            unsafe { planned.perform() };
            driver::memcpy_async(stream, &planned.work, &planned.call)?;
            Ok(Traced::ByDriver)
        },
    )
}

/// A fill runs as a blit kernel on the device (a KERNEL_DISPATCH record, not a MEMORY_COPY,
/// docs/simulator-fidelity.md#record-contents). No stream argument, so no SET (docs/sdk-facts.md#stream-operations); it runs on the current
/// device's null stream and returns when the fill completed.
///
/// # Safety
/// `dst` must be writable for `size_bytes` bytes when it is not a runtime allocation.
#[no_mangle]
pub unsafe extern "C" fn hipMemset(
    dst: *mut c_void,
    value: c_int,
    size_bytes: usize,
) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset, None, || {
        // SAFETY: caller contract.
        if !unsafe { copy::fill(dst.cast(), value, size_bytes) }? {
            return Ok(Traced::No);
        }
        let bytes = size_bytes as u64;
        driver::memset_sync(bytes, timing_model::fill_duration_ns(bytes))?;
        Ok(Traced::ByDriver)
    })
}

/// # Safety
/// As [`hipMemset`].
#[no_mangle]
pub unsafe extern "C" fn hipMemsetAsync(
    dst: *mut c_void,
    value: c_int,
    size_bytes: usize,
    stream: u64,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync,
        Some(stream),
        || {
            streams::device_of(stream)?;
            // SAFETY: caller contract.
            if !unsafe { copy::fill(dst.cast(), value, size_bytes) }? {
                return Ok(Traced::No);
            }
            let bytes = size_bytes as u64;
            driver::memset_async(stream, bytes, timing_model::fill_duration_ns(bytes))?;
            Ok(Traced::ByDriver)
        },
    )
}
