//! `context.h` (docs/sdk-facts.md#contexts).
use super::write_out;
use crate::engine::{registration, registry};
use crate::sdk::ffi_guard::guard;
use rocprofiler_sdk_sys as sys;
use std::ffi::c_int;

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_create_context(
    context_id: *mut sys::rocprofiler_context_id_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_create_context", || {
        if context_id.is_null() {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: non-null, valid per the SDK contract.
        if unsafe { (*context_id).handle } != 0 {
            return sys::ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO;
        }
        // Like the SDK's context.cpp: the id is set to the library's CONTEXT_NONE before the
        // remaining checks, so a failed create leaves UINT64_MAX under ROCm 7.0 (docs/sdk-facts.md#contexts, #version-hazards).
        let none = crate::machine::machine().rocm.context_none();
        // SAFETY: as above.
        unsafe { (*context_id).handle = none };
        if !crate::engine::lifecycle::configuration_open() {
            return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        let handle = registry::create_context(registration::initializing_client());
        // SAFETY: as above.
        unsafe { write_out(context_id, sys::rocprofiler_context_id_t { handle }) }
    })
}

/// As the SDK's `context::start_context`: CONTEXT_NOT_FOUND first, then LOCKED once
/// finalization started; idempotent. A destroyed buffer does not make the context invalid.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_start_context(
    context_id: sys::rocprofiler_context_id_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_start_context", || {
        if !registry::exists(context_id.handle) {
            return sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
        }
        if crate::engine::lifecycle::fini_status() != 0 {
            return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        registry::set_active(context_id.handle, true);
        sys::ROCPROFILER_STATUS_SUCCESS
    })
}

/// As the SDK's `context::stop_context`: SUCCESS once finalized; otherwise the context must be
/// active, and a registered but inactive one (never started, already stopped, or stopped by
/// finalization) is CONTEXT_NOT_FOUND.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_stop_context(
    context_id: sys::rocprofiler_context_id_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_stop_context", || {
        if crate::engine::lifecycle::fini_status() > 0 {
            return sys::ROCPROFILER_STATUS_SUCCESS;
        }
        if registry::deactivate(context_id.handle) {
            sys::ROCPROFILER_STATUS_SUCCESS
        } else {
            sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_context_is_active(
    context_id: sys::rocprofiler_context_id_t,
    status: *mut c_int,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_context_is_active", || {
        if status.is_null() {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        match registry::is_active(context_id.handle) {
            // SAFETY: non-null, valid per the SDK contract.
            Some(active) => unsafe { write_out(status, active as c_int) },
            None => sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
        }
    })
}

/// Writes 1 for every registered context, as the SDK source does (the header comment says the
/// opposite, docs/sdk-facts.md#contexts); destroying a context's buffer does not change it.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_context_is_valid(
    context_id: sys::rocprofiler_context_id_t,
    status: *mut c_int,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_context_is_valid", || {
        if status.is_null() {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        match registry::exists(context_id.handle).then_some(true) {
            // SAFETY: non-null, valid per the SDK contract.
            Some(valid) => unsafe { write_out(status, valid as c_int) },
            None => sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
        }
    })
}
