//! What a pointer is: hipPointerGetAttributes, hipPointerGetAttribute,
//! hipDrvPointerGetAttributes, hipMemGetAddressRange, answered from the runtime's allocation registry. A pointer the
//! runtime did not allocate or register is `hipErrorInvalidValue`.

use super::{hip_call, write_out, Traced};
use crate::error::{hipError_t, HipError, HIP_ERROR_INVALID_VALUE};
use crate::memory::{self, Placement};
use rocprofiler_sdk_sys::*;
use std::ffi::{c_int, c_uint, c_void};

/// `hipMemoryType`.
const MEMORY_TYPE_HOST: c_uint = 1;
const MEMORY_TYPE_DEVICE: c_uint = 2;

/// `hipPointer_attribute` values answered.
const ATTRIBUTE_MEMORY_TYPE: c_int = 2;
const ATTRIBUTE_DEVICE_POINTER: c_int = 3;
const ATTRIBUTE_HOST_POINTER: c_int = 4;
const ATTRIBUTE_SYNC_MEMOPS: c_int = 6;
const ATTRIBUTE_BUFFER_ID: c_int = 7;
const ATTRIBUTE_IS_MANAGED: c_int = 8;
const ATTRIBUTE_DEVICE_ORDINAL: c_int = 9;
const ATTRIBUTE_RANGE_START_ADDR: c_int = 11;
const ATTRIBUTE_RANGE_SIZE: c_int = 12;
const ATTRIBUTE_MAPPED: c_int = 13;

/// `hipPointerAttribute_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HipPointerAttribute {
    pub memory_type: c_uint,
    pub device: c_int,
    pub device_pointer: *mut c_void,
    pub host_pointer: *mut c_void,
    pub is_managed: c_int,
    pub allocation_flags: c_uint,
}

struct Known {
    start: usize,
    size: usize,
    placement: Placement,
}

fn known(ptr: *const c_void) -> Result<Known, HipError> {
    let (start, size, placement) =
        memory::containing(ptr as usize).ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
    Ok(Known {
        start,
        size,
        placement,
    })
}

/// One attribute's value, written to `data` with the attribute's C type.
///
/// # Safety
/// `data` must be writable for the attribute's type (`unsigned`, `int`, `void*` or `size_t`).
unsafe fn write_attribute(
    data: *mut c_void,
    attribute: c_int,
    ptr: *const c_void,
    k: &Known,
) -> Result<(), HipError> {
    let (device_ptr, host_ptr, ordinal) = match k.placement {
        Placement::Device(d) => (ptr as usize, 0, d as c_int),
        // Pinned host memory is mapped for the device at the same address.
        Placement::PinnedHost => (ptr as usize, ptr as usize, 0),
    };
    let memory_type = match k.placement {
        Placement::Device(_) => MEMORY_TYPE_DEVICE,
        Placement::PinnedHost => MEMORY_TYPE_HOST,
    };
    // SAFETY: caller contract, per attribute type.
    unsafe {
        match attribute {
            ATTRIBUTE_MEMORY_TYPE => write_out(data.cast::<c_uint>(), memory_type),
            ATTRIBUTE_DEVICE_POINTER => write_out(data.cast::<usize>(), device_ptr),
            ATTRIBUTE_HOST_POINTER => write_out(data.cast::<usize>(), host_ptr),
            ATTRIBUTE_SYNC_MEMOPS | ATTRIBUTE_IS_MANAGED => write_out(data.cast::<c_int>(), 0),
            ATTRIBUTE_MAPPED => write_out(data.cast::<c_int>(), 1),
            ATTRIBUTE_BUFFER_ID => write_out(data.cast::<u64>(), k.start as u64),
            ATTRIBUTE_DEVICE_ORDINAL => write_out(data.cast::<c_int>(), ordinal),
            ATTRIBUTE_RANGE_START_ADDR => write_out(data.cast::<usize>(), k.start),
            ATTRIBUTE_RANGE_SIZE => write_out(data.cast::<usize>(), k.size),
            _ => Err(HipError(HIP_ERROR_INVALID_VALUE)),
        }
    }
}

/// # Safety
/// `attributes` must be null or point to a writable `hipPointerAttribute_t`.
#[no_mangle]
pub unsafe extern "C" fn hipPointerGetAttributes(
    attributes: *mut HipPointerAttribute,
    ptr: *const c_void,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipPointerGetAttributes,
        None,
        || {
            let k = known(ptr)?;
            let value = match k.placement {
                Placement::Device(d) => HipPointerAttribute {
                    memory_type: MEMORY_TYPE_DEVICE,
                    device: d as c_int,
                    device_pointer: ptr.cast_mut(),
                    host_pointer: std::ptr::null_mut(),
                    is_managed: 0,
                    allocation_flags: 0,
                },
                Placement::PinnedHost => HipPointerAttribute {
                    memory_type: MEMORY_TYPE_HOST,
                    device: 0,
                    device_pointer: ptr.cast_mut(),
                    host_pointer: ptr.cast_mut(),
                    is_managed: 0,
                    allocation_flags: 0,
                },
            };
            // SAFETY: caller contract.
            unsafe { write_out(attributes, value) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `data` must be null or writable for the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn hipPointerGetAttribute(
    data: *mut c_void,
    attribute: c_int,
    ptr: *const c_void,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipPointerGetAttribute,
        None,
        || {
            let k = known(ptr)?;
            // SAFETY: caller contract.
            unsafe { write_attribute(data, attribute, ptr, &k) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `attributes` and `data` must be null or hold `count` entries, each `data[i]` writable for
/// `attributes[i]`'s type.
#[no_mangle]
pub unsafe extern "C" fn hipDrvPointerGetAttributes(
    count: c_uint,
    attributes: *const c_int,
    data: *mut *mut c_void,
    ptr: *const c_void,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipDrvPointerGetAttributes,
        None,
        || {
            if count > 0 && (attributes.is_null() || data.is_null()) {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            let k = known(ptr)?;
            for i in 0..count as usize {
                // SAFETY: caller contract: `count` entries each.
                unsafe { write_attribute(*data.add(i), *attributes.add(i), ptr, &k) }?;
            }
            Ok(Traced::No)
        },
    )
}

/// The allocation holding `ptr`: its start and size.
///
/// # Safety
/// `base` and `size` must be null (not wanted) or writable.
#[no_mangle]
pub unsafe extern "C" fn hipMemGetAddressRange(
    base: *mut *mut c_void,
    size: *mut usize,
    ptr: *const c_void,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetAddressRange,
        None,
        || {
            let k = known(ptr)?;
            // SAFETY: caller contract; each may be null.
            unsafe {
                if !base.is_null() {
                    base.write(k.start as *mut c_void);
                }
                if !size.is_null() {
                    size.write(k.size);
                }
            }
            Ok(Traced::No)
        },
    )
}
