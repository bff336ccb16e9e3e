//! `registration.h`.
use super::write_out;
use crate::engine::registration;
use crate::sdk::ffi_guard::guard;
use rocprofiler_sdk_sys as sys;
use std::ffi::c_int;

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_force_configure(
    configure_func: sys::rocprofiler_configure_func_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_force_configure", || {
        registration::force_configure(configure_func)
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_is_initialized(
    status: *mut c_int,
) -> sys::rocprofiler_status_t {
    // SAFETY: write_out rejects a null `status`; a non-null one is writable per the SDK contract.
    guard("rocprofiler_is_initialized", || unsafe {
        write_out(status, crate::engine::lifecycle::init_status())
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_is_finalized(status: *mut c_int) -> sys::rocprofiler_status_t {
    // SAFETY: write_out rejects a null `status`; a non-null one is writable per the SDK contract.
    guard("rocprofiler_is_finalized", || unsafe {
        write_out(status, crate::engine::lifecycle::fini_status())
    })
}
