//! hipInit, versions, device selection and properties, hipDeviceSynchronize.

use super::{hip_call, write_out, Traced};
use crate::abi::HipDevicePropR0600;
use crate::error::{hipError_t, HipError, HIP_ERROR_INVALID_VALUE};
use crate::{device, device_props, driver, memory};
use rocprofiler_sdk_sys::*;
use std::ffi::{c_int, c_uint};

/// HIP_VERSION of the ROCm release whose ABI this runtime follows (6.3.0).
const HIP_RUNTIME_VERSION: c_int = 60_300_000;

#[no_mangle]
pub extern "C" fn hipInit(flags: c_uint) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipInit, None, || {
        if flags != 0 {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        Ok(Traced::No)
    })
}

/// # Safety
/// `driver_version` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(driver_version: *mut c_int) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDriverGetVersion,
        None,
        || {
            // SAFETY: caller contract.
            unsafe { write_out(driver_version, HIP_RUNTIME_VERSION) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `runtime_version` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(runtime_version: *mut c_int) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipRuntimeGetVersion,
        None,
        || {
            // SAFETY: caller contract.
            unsafe { write_out(runtime_version, HIP_RUNTIME_VERSION) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `count` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount,
        None,
        || {
            let n = c_int::try_from(device::count()).unwrap_or(c_int::MAX);
            // SAFETY: caller contract.
            unsafe { write_out(count, n) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `device_id` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDevice(device_id: *mut c_int) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDevice, None, || {
        // SAFETY: caller contract.
        unsafe { write_out(device_id, device::current() as c_int) }?;
        Ok(Traced::No)
    })
}

#[no_mangle]
pub extern "C" fn hipSetDevice(device_id: c_int) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice, None, || {
        // The simulator's set_device is itself the traced hipSetDevice call.
        device::set_current(device_id)?;
        Ok(Traced::ByDriver)
    })
}

/// # Safety
/// `prop` must be null or point to a writable `hipDeviceProp_tR0600` (1472 bytes).
#[no_mangle]
pub unsafe extern "C" fn hipGetDevicePropertiesR0600(
    prop: *mut HipDevicePropR0600,
    device_id: c_int,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDevicePropertiesR0600,
        None,
        || {
            let device = device::validate(device_id)?;
            // The properties (PCI bus, UUID) are those of the GPU behind the HIP device.
            let gpu = driver::gpu_ordinal(device);
            // SAFETY: caller contract.
            unsafe { write_out(prop, device_props::device_properties(gpu)) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `free` and `total` must be null or point to writable `size_t`s.
#[no_mangle]
pub unsafe extern "C" fn hipMemGetInfo(free: *mut usize, total: *mut usize) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetInfo, None, || {
        if free.is_null() || total.is_null() {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        let used = memory::device_bytes_in_use(device::current());
        // SAFETY: caller contract; both checked non-null.
        unsafe {
            write_out(free, device_props::TOTAL_GLOBAL_MEM.saturating_sub(used))?;
            write_out(total, device_props::TOTAL_GLOBAL_MEM)?;
        }
        Ok(Traced::No)
    })
}

/// Waits until all work of the current device completed and its records reached the buffers.
#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize,
        None,
        || {
            driver::device_synchronize()?;
            // Host callbacks are device work too.
            crate::host_callbacks::wait_all();
            Ok(Traced::ByDriver)
        },
    )
}
