//! `external_correlation.h` (docs/sdk-facts.md#external-correlation).
use crate::engine::external_correlation as ext;
use crate::engine::registry::{self, ConfigureError, RequestService};
use crate::engine::user_ptr::UserPtr;
use crate::sdk::ffi_guard::guard;
use crate::time::clock;
use rocprofiler_sdk_sys as sys;
use std::ffi::c_void;

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_external_correlation_id_request_service(
    context_id: sys::rocprofiler_context_id_t,
    kinds: *const sys::rocprofiler_external_correlation_id_request_kind_t,
    kinds_count: usize,
    callback: sys::rocprofiler_external_correlation_id_request_cb_t,
    callback_args: *mut c_void,
) -> sys::rocprofiler_status_t {
    guard(
        "rocprofiler_configure_external_correlation_id_request_service",
        || {
            // As the SDK's `external_correlation.cpp`: only a registered context is needed,
            // at any time (no CONFIGURATION_LOCKED); kinds are checked last.
            if !registry::exists(context_id.handle) {
                return sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
            }
            if !kinds.is_null() && kinds_count == 0 {
                return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
            }
            let Some(callback) = callback else {
                return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
            };
            if registry::has_request_service(context_id.handle) {
                return sys::ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
            }
            let last = sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST;
            let mask = if kinds.is_null() {
                (1..last).fold(0u64, |m, k| m | (1 << k))
            } else {
                // SAFETY: non-null, valid for `kinds_count` reads per the SDK contract.
                let kinds = unsafe { std::slice::from_raw_parts(kinds, kinds_count) };
                if kinds.iter().any(|&k| k == 0 || k >= last) {
                    return sys::ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
                }
                kinds.iter().fold(0u64, |m, &k| m | (1 << k))
            };
            let service = RequestService {
                kinds: mask,
                callback,
                data: UserPtr(callback_args),
            };
            match registry::add_request_service(context_id.handle, service) {
                Ok(()) => sys::ROCPROFILER_STATUS_SUCCESS,
                Err(ConfigureError::ContextNotFound) => {
                    sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
                }
                Err(ConfigureError::AlreadyConfigured) => {
                    sys::ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED
                }
            }
        },
    )
}

fn check(context: sys::rocprofiler_context_id_t, tid: u64) -> Option<sys::rocprofiler_status_t> {
    if !registry::exists(context.handle) {
        return Some(sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
    }
    // Thread ids below the process id cannot belong to this process (docs/sdk-facts.md#push-and-pop).
    if tid < clock::getpid() {
        return Some(sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    }
    None
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_push_external_correlation_id(
    context: sys::rocprofiler_context_id_t,
    tid: sys::rocprofiler_thread_id_t,
    external_correlation_id: sys::rocprofiler_user_data_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_push_external_correlation_id", || {
        if let Some(status) = check(context, tid) {
            return status;
        }
        // SAFETY: both union members are 8 bytes; `value` reads whatever the tool stored.
        ext::push(context.handle, tid, unsafe {
            external_correlation_id.value
        });
        sys::ROCPROFILER_STATUS_SUCCESS
    })
}

/// An empty stack pops `{0}`; `external_correlation_id` may be NULL (docs/sdk-facts.md#push-and-pop).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_pop_external_correlation_id(
    context: sys::rocprofiler_context_id_t,
    tid: sys::rocprofiler_thread_id_t,
    external_correlation_id: *mut sys::rocprofiler_user_data_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_pop_external_correlation_id", || {
        if let Some(status) = check(context, tid) {
            return status;
        }
        let value = ext::pop(context.handle, tid);
        if !external_correlation_id.is_null() {
            // SAFETY: non-null out-pointer per the SDK contract.
            unsafe { external_correlation_id.write(sys::rocprofiler_user_data_t { value }) };
        }
        sys::ROCPROFILER_STATUS_SUCCESS
    })
}
