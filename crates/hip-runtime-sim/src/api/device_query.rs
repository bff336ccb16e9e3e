//! The driver-style device queries XLA's ROCm executor makes: hipDeviceGet,
//! hipDeviceGetAttribute, hipDeviceGetName, hipDeviceGetPCIBusId, hipDeviceTotalMem,
//! hipDeviceGetStreamPriorityRange, and peer access (one simulated machine: every GPU pair can).

use super::{hip_call, write_out, Traced};
use crate::error::{
    hipError_t, HipError, HIP_ERROR_INVALID_VALUE, HIP_ERROR_PEER_ACCESS_ALREADY_ENABLED,
};
use crate::{device, device_attribute, device_props, driver};
use parking_lot::Mutex;
use rocprofiler_sdk_sys::*;
use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_uint};

/// Stream priorities as ROCm reports them: 0 is the lowest (default), -1 the greatest.
pub const LEAST_STREAM_PRIORITY: c_int = 0;
pub const GREATEST_STREAM_PRIORITY: c_int = -1;

fn properties(device_id: c_int) -> Result<crate::abi::HipDevicePropR0600, HipError> {
    let device = device::validate(device_id)?;
    Ok(device_props::device_properties(driver::gpu_ordinal(device)))
}

/// Copies `text` and its NUL into the program's buffer of `len` bytes (truncating).
///
/// # Safety
/// `out` must be null or writable for `len` bytes.
unsafe fn write_c_string(out: *mut c_char, len: c_int, text: &str) -> Result<(), HipError> {
    let len = usize::try_from(len).map_err(|_| HipError(HIP_ERROR_INVALID_VALUE))?;
    if out.is_null() || len == 0 {
        return Err(HipError(HIP_ERROR_INVALID_VALUE));
    }
    let n = text.len().min(len - 1);
    // SAFETY: caller contract: `len` writable bytes, and `n < len`.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), out, n);
        out.add(n).write(0);
    }
    Ok(())
}

/// # Safety
/// `device` must be null or point to a writable `hipDevice_t`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGet(device: *mut c_int, ordinal: c_int) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGet, None, || {
        device::validate(ordinal)?;
        // SAFETY: caller contract. A hipDevice_t is the ordinal.
        unsafe { write_out(device, ordinal) }?;
        Ok(Traced::No)
    })
}

/// # Safety
/// `value` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    device_id: c_int,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetAttribute,
        None,
        || {
            let props = properties(device_id)?;
            let answer = device_attribute::value(attribute, &props)
                .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
            // SAFETY: caller contract.
            unsafe { write_out(value, answer) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `name` must be null or writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetName(
    name: *mut c_char,
    len: c_int,
    device_id: c_int,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetName,
        None,
        || {
            let props = properties(device_id)?;
            let text = device_props::c_string(&props.name);
            // SAFETY: caller contract.
            unsafe { write_c_string(name, len, &text) }?;
            Ok(Traced::No)
        },
    )
}

/// `domain:bus:device.function`, as HIP formats it.
///
/// # Safety
/// `pci_bus_id` must be null or writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetPCIBusId(
    pci_bus_id: *mut c_char,
    len: c_int,
    device_id: c_int,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetPCIBusId,
        None,
        || {
            let p = properties(device_id)?;
            let text = format!(
                "{:04x}:{:02x}:{:02x}.0",
                p.pciDomainID, p.pciBusID, p.pciDeviceID
            );
            // SAFETY: caller contract.
            unsafe { write_c_string(pci_bus_id, len, &text) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `bytes` must be null or point to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceTotalMem(bytes: *mut usize, device_id: c_int) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceTotalMem,
        None,
        || {
            let p = properties(device_id)?;
            // SAFETY: caller contract.
            unsafe { write_out(bytes, p.totalGlobalMem) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// Each pointer must be null (not wanted) or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceGetStreamPriorityRange,
        None,
        || {
            // SAFETY: caller contract; either may be null.
            unsafe {
                if !least.is_null() {
                    least.write(LEAST_STREAM_PRIORITY);
                }
                if !greatest.is_null() {
                    greatest.write(GREATEST_STREAM_PRIORITY);
                }
            }
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `can_access` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceCanAccessPeer(
    can_access: *mut c_int,
    device_id: c_int,
    peer_device_id: c_int,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceCanAccessPeer,
        None,
        || {
            device::validate(device_id)?;
            device::validate(peer_device_id)?;
            // SAFETY: caller contract.
            unsafe { write_out(can_access, c_int::from(device_id != peer_device_id)) }?;
            Ok(Traced::No)
        },
    )
}

/// (current device, peer) pairs with peer access enabled.
static PEER_ACCESS: Mutex<Option<HashSet<(u32, u32)>>> = Mutex::new(None);

#[no_mangle]
pub extern "C" fn hipDeviceEnablePeerAccess(peer_device_id: c_int, flags: c_uint) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceEnablePeerAccess,
        None,
        || {
            let peer = device::validate(peer_device_id)?;
            let current = device::current();
            if flags != 0 || peer == current {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            if !PEER_ACCESS
                .lock()
                .get_or_insert_with(HashSet::new)
                .insert((current, peer))
            {
                return Err(HipError(HIP_ERROR_PEER_ACCESS_ALREADY_ENABLED));
            }
            Ok(Traced::No)
        },
    )
}
