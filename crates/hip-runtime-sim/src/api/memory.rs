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
        let mut args = zeroed_args();
        args.hipMalloc = rocprofiler_hip_api_args_hipMalloc_t { ptr, size };
        Ok(Traced::WithArgs(args))
    })
}

/// The HIP API payload's arguments, all zero until a function's member is filled.
fn zeroed_args() -> rocprofiler_hip_api_args_t {
    // SAFETY: the union holds only integers and raw pointers, for which all-zero is valid.
    unsafe { std::mem::zeroed() }
}

/// The payload of the allocation functions `(void** ptr, size_t size, unsigned flags)`.
fn malloc_flags_args(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> Traced {
    let mut args = zeroed_args();
    args.hipMallocFlags = rocprofiler_hip_api_args_hipMallocFlags_t { ptr, size, flags };
    Traced::WithArgs(args)
}

/// The payload of `hipFree`, `hipHostFree` and `hipHostUnregister`: the pointer.
fn free_args(ptr: *mut c_void) -> Traced {
    let mut args = zeroed_args();
    args.hipFree = rocprofiler_hip_api_args_hipFree_t { ptr };
    Traced::WithArgs(args)
}

/// # Safety
/// `ptr` must be null or point to a writable `void*`.
#[no_mangle]
pub unsafe extern "C" fn hipHostMalloc(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc, None, || {
        if ptr.is_null() {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        let allocation = memory::allocate(size, Placement::PinnedHost)?;
        // SAFETY: caller contract.
        unsafe { write_out(ptr, allocation.cast()) }?;
        Ok(malloc_flags_args(ptr, size, flags))
    })
}

#[no_mangle]
pub extern "C" fn hipFree(ptr: *mut c_void) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipFree, None, || {
        memory::free(ptr.cast(), false)?;
        Ok(free_args(ptr))
    })
}

#[no_mangle]
pub extern "C" fn hipHostFree(ptr: *mut c_void) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipHostFree, None, || {
        memory::free(ptr.cast(), true)?;
        Ok(free_args(ptr))
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

/// `hipExtMallocWithFlags`: device memory; the fine/coarse-grain flags change nothing here.
///
/// # Safety
/// As [`hipMalloc`].
#[no_mangle]
pub unsafe extern "C" fn hipExtMallocWithFlags(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipExtMallocWithFlags,
        None,
        || {
            if ptr.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            let allocation = memory::allocate(size, Placement::Device(device::current()))?;
            // SAFETY: caller contract.
            unsafe { write_out(ptr, allocation.cast()) }?;
            Ok(malloc_flags_args(ptr, size, flags))
        },
    )
}

/// `hipMallocManaged`: device memory of the current device, which the host can read and write
/// here as all simulated device memory (no migration is modelled).
///
/// # Safety
/// As [`hipMalloc`].
#[no_mangle]
pub unsafe extern "C" fn hipMallocManaged(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocManaged,
        None,
        || {
            if ptr.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            let allocation = memory::allocate(size, Placement::Device(device::current()))?;
            // SAFETY: caller contract.
            unsafe { write_out(ptr, allocation.cast()) }?;
            Ok(malloc_flags_args(ptr, size, flags))
        },
    )
}

/// Pins the program's host range: copies from or to it count as pinned from now on.
#[no_mangle]
pub extern "C" fn hipHostRegister(ptr: *mut c_void, size: usize, flags: c_uint) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipHostRegister, None, || {
        memory::register_host(ptr.cast(), size)?;
        let mut args = zeroed_args();
        args.hipHostRegister = rocprofiler_hip_api_args_hipHostRegister_t {
            hostPtr: ptr,
            sizeBytes: size,
            flags,
        };
        Ok(Traced::WithArgs(args))
    })
}

#[no_mangle]
pub extern "C" fn hipHostUnregister(ptr: *mut c_void) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipHostUnregister,
        None,
        || {
            memory::unregister_host(ptr.cast())?;
            Ok(free_args(ptr))
        },
    )
}

/// Pinned host memory is mapped for the device at the same address.
///
/// # Safety
/// `device_ptr` must be null or point to a writable `void*`.
#[no_mangle]
pub unsafe extern "C" fn hipHostGetDevicePointer(
    device_ptr: *mut *mut c_void,
    host_ptr: *mut c_void,
    flags: c_uint,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipHostGetDevicePointer,
        None,
        || {
            if flags != 0 || memory::locate(host_ptr as usize, 1)? != Some(Placement::PinnedHost) {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            // SAFETY: caller contract.
            unsafe { write_out(device_ptr, host_ptr) }?;
            Ok(Traced::No)
        },
    )
}

/// Fills `count` 32-bit words with `value`: the fill blit kernel on the stream.
///
/// # Safety
/// `dst` must be writable for `4 * count` bytes when it is not a runtime allocation.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD32Async(
    dst: *mut c_void,
    value: c_int,
    count: usize,
    stream: u64,
) -> hipError_t {
    let op = ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetD32Async;
    hip_call(op, Some(stream), || {
        streams::device_of(stream)?;
        let bytes = count
            .checked_mul(4)
            .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
        if dst.is_null() || !(dst as usize).is_multiple_of(4) {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        if bytes == 0 {
            return Ok(Traced::No);
        }
        memory::locate(dst as usize, bytes)?;
        let words = dst.cast::<c_int>();
        for i in 0..count {
            // SAFETY: in range (checked against the allocation, or the caller contract) and
            // aligned.
            unsafe { words.add(i).write(value) };
        }
        let bytes = bytes as u64;
        driver::memset_async_as(op, stream, bytes, timing_model::fill_duration_ns(bytes))?;
        Ok(Traced::ByDriver)
    })
}
