//! `rocprofiler.h`: time, thread ids, version and status strings (docs/sdk-facts.md#status-codes-and-time).
use super::write_out;
use crate::engine::registration;
use crate::sdk::ffi_guard::{guard, guard_value};
use crate::sdk::status_names;
use crate::time::clock;
use rocprofiler_sdk_sys as sys;
use std::ffi::c_char;

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_timestamp(
    ts: *mut sys::rocprofiler_timestamp_t,
) -> sys::rocprofiler_status_t {
    // SAFETY: write_out rejects a null `ts`; a non-null one is writable per the SDK contract.
    guard("rocprofiler_get_timestamp", || unsafe {
        write_out(ts, clock::now_ns())
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_thread_id(
    tid: *mut sys::rocprofiler_thread_id_t,
) -> sys::rocprofiler_status_t {
    // SAFETY: write_out rejects a null `tid`; a non-null one is writable per the SDK contract.
    guard("rocprofiler_get_thread_id", || unsafe {
        write_out(tid, clock::gettid())
    })
}

/// Null out-pointers are skipped, so a caller may ask for the major version only.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_version(
    major: *mut u32,
    minor: *mut u32,
    patch: *mut u32,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_get_version", || {
        let (ma, mi, pa) = registration::version();
        for (ptr, value) in [(major, ma), (minor, mi), (patch, pa)] {
            if !ptr.is_null() {
                // SAFETY: non-null out-pointer per the SDK contract.
                unsafe { ptr.write(value) };
            }
        }
        sys::ROCPROFILER_STATUS_SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_version_triplet(
    info: *mut sys::rocprofiler_version_triplet_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_get_version_triplet", || {
        let (major, minor, patch) = registration::version();
        // SAFETY: out-pointer per the SDK contract (null rejected).
        unsafe {
            write_out(
                info,
                sys::rocprofiler_version_triplet_t {
                    major,
                    minor,
                    patch,
                },
            )
        }
    })
}

#[no_mangle]
pub extern "C" fn rocprofiler_get_status_name(status: sys::rocprofiler_status_t) -> *const c_char {
    guard_value(std::ptr::null(), || {
        status_names::status_name(status).map_or(std::ptr::null(), |s| s.as_ptr())
    })
}

#[no_mangle]
pub extern "C" fn rocprofiler_get_status_string(
    status: sys::rocprofiler_status_t,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        status_names::status_string(status).map_or(std::ptr::null(), |s| s.as_ptr())
    })
}
