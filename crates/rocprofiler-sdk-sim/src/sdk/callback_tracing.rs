//! `callback_tracing.h`: service configuration (docs/sdk-facts.md#callback-tracing) and the names API (docs/sdk-facts.md#names-api).
use super::read_operations;
use crate::engine::registry::{self, CallbackService, ConfigureError, OpFilter};
use crate::engine::user_ptr::UserPtr;
use crate::sdk::ffi_guard::guard;
use crate::sdk::names::{self, Domain};
use rocprofiler_sdk_sys as sys;
use std::ffi::{c_char, c_void};

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_callback_tracing_service(
    context_id: sys::rocprofiler_context_id_t,
    kind: sys::rocprofiler_callback_tracing_kind_t,
    operations: *const sys::rocprofiler_tracing_operation_t,
    operations_count: usize,
    callback: sys::rocprofiler_callback_tracing_cb_t,
    callback_args: *mut c_void,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_configure_callback_tracing_service", || {
        if !crate::engine::lifecycle::configuration_open() {
            return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        if !registry::exists(context_id.handle) {
            return sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
        }
        if !names::is_valid_kind(Domain::Callback, kind) {
            return sys::ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
        }
        let Some(callback) = callback else {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        };
        // SAFETY: the caller's array contract.
        let ops = match unsafe {
            read_operations(Domain::Callback, kind, operations, operations_count)
        } {
            Ok(ops) => ops,
            Err(status) => return status,
        };
        let service = CallbackService {
            ops: OpFilter::new(ops),
            callback,
            data: UserPtr(callback_args),
        };
        match registry::add_callback_service(context_id.handle, kind, service) {
            Ok(()) => sys::ROCPROFILER_STATUS_SUCCESS,
            Err(ConfigureError::ContextNotFound) => sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
            Err(ConfigureError::AlreadyConfigured) => {
                sys::ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED
            }
        }
    })
}

/// Shared by the callback and buffer name queries.
pub(super) unsafe fn write_name(
    text: Option<&'static std::ffi::CStr>,
    name: *mut *const c_char,
    name_len: *mut u64,
    missing: sys::rocprofiler_status_t,
) -> sys::rocprofiler_status_t {
    let Some(text) = text else { return missing };
    if !name.is_null() {
        // SAFETY: non-null out-pointer per the SDK contract; the string is 'static.
        unsafe { name.write(text.as_ptr()) };
    }
    if !name_len.is_null() {
        // SAFETY: as above.
        unsafe { name_len.write(text.count_bytes() as u64) };
    }
    sys::ROCPROFILER_STATUS_SUCCESS
}

pub(super) unsafe fn query_kind_name(
    domain: Domain,
    kind: u32,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> sys::rocprofiler_status_t {
    // SAFETY: forwarded caller contract.
    unsafe {
        write_name(
            names::kind_name(domain, kind).or(names::hip_event_kind_name(domain, kind)),
            name,
            name_len,
            sys::ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
        )
    }
}

pub(super) unsafe fn query_operation_name(
    domain: Domain,
    kind: u32,
    operation: i32,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> sys::rocprofiler_status_t {
    if kind >= names::kind_count(domain) && !names::is_hip_event_kind(domain, kind) {
        return sys::ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    }
    let text = names::operations(domain, kind).and_then(|ops| ops.name(operation));
    // SAFETY: forwarded caller contract.
    unsafe {
        write_name(
            text,
            name,
            name_len,
            sys::ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
        )
    }
}

/// Visits kinds 0 (NONE) .. LAST-1, stopping when the callback returns non-zero (docs/sdk-facts.md#names-api).
pub(super) fn iterate_kinds(
    domain: Domain,
    mut visit: impl FnMut(u32) -> i32,
) -> sys::rocprofiler_status_t {
    for kind in 0..names::kind_count(domain) {
        if visit(kind) != 0 {
            break;
        }
    }
    sys::ROCPROFILER_STATUS_SUCCESS
}

/// INVALID_ARGUMENT for NONE and LAST (docs/sdk-facts.md#names-api); kinds whose operations the sim does not name
/// have none to visit.
pub(super) fn iterate_operations(
    domain: Domain,
    kind: u32,
    mut visit: impl FnMut(i32) -> i32,
) -> sys::rocprofiler_status_t {
    let last = names::kind_count(domain);
    if kind == 0 || kind == last {
        return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    }
    if kind > last {
        return sys::ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    }
    if let Some(ops) = names::operations(domain, kind) {
        for op in ops.iter() {
            if visit(op) != 0 {
                break;
            }
        }
    }
    sys::ROCPROFILER_STATUS_SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_callback_tracing_kind_name(
    kind: sys::rocprofiler_callback_tracing_kind_t,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> sys::rocprofiler_status_t {
    // SAFETY: the out-pointers are the caller's, passed on unchanged under the same contract
    // (null ones are skipped).
    guard("rocprofiler_query_callback_tracing_kind_name", || unsafe {
        query_kind_name(Domain::Callback, kind, name, name_len)
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_callback_tracing_kind_operation_name(
    kind: sys::rocprofiler_callback_tracing_kind_t,
    operation: sys::rocprofiler_tracing_operation_t,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> sys::rocprofiler_status_t {
    guard(
        "rocprofiler_query_callback_tracing_kind_operation_name",
        // SAFETY: the out-pointers are the caller's, passed on unchanged under the same contract
        // (null ones are skipped).
        || unsafe { query_operation_name(Domain::Callback, kind, operation, name, name_len) },
    )
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_callback_tracing_kinds(
    callback: sys::rocprofiler_callback_tracing_kind_cb_t,
    data: *mut c_void,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_iterate_callback_tracing_kinds", || {
        let Some(callback) = callback else {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        };
        // SAFETY: the tool's callback with its own data.
        iterate_kinds(Domain::Callback, |kind| unsafe { callback(kind, data) })
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_callback_tracing_kind_operations(
    kind: sys::rocprofiler_callback_tracing_kind_t,
    callback: sys::rocprofiler_callback_tracing_kind_operation_cb_t,
    data: *mut c_void,
) -> sys::rocprofiler_status_t {
    guard(
        "rocprofiler_iterate_callback_tracing_kind_operations",
        || {
            let Some(callback) = callback else {
                return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
            };
            // SAFETY: the tool's callback with its own data.
            iterate_operations(Domain::Callback, kind, |op| unsafe {
                callback(kind, op, data)
            })
        },
    )
}

/// The arguments of a traced call, one callback each (`callback_tracing.cpp`
/// `rocprofiler_iterate_callback_tracing_kind_operation_args`): HIP runtime API records are
/// described from their payload's argument union; NONE/LAST are INVALID_ARGUMENT; kinds whose
/// records have no arguments (kernel dispatch, memory copy, HIP stream, code object, ...)
/// are NOT_IMPLEMENTED. A non-zero return from the callback stops the iteration. As in the
/// SDK, the value addresses point into a copy of the arguments that lives only for this call.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_callback_tracing_kind_operation_args(
    record: sys::rocprofiler_callback_tracing_record_t,
    callback: sys::rocprofiler_callback_tracing_operation_args_cb_t,
    max_dereference_count: i32,
    user_data: *mut c_void,
) -> sys::rocprofiler_status_t {
    guard(
        "rocprofiler_iterate_callback_tracing_kind_operation_args",
        || {
            let Some(callback) = callback else {
                return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
            };
            match record.kind {
                sys::ROCPROFILER_CALLBACK_TRACING_NONE | sys::ROCPROFILER_CALLBACK_TRACING_LAST => {
                    return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
                }
                sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API => {}
                _ => return sys::ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
            }
            if record.payload.is_null() {
                return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
            }
            // SAFETY: a HIP runtime API record's payload is the sim's HIP API data, alive
            // while the tool's callback (our caller) runs; copy the arguments out of it.
            let args = unsafe {
                (*record
                    .payload
                    .cast::<sys::rocprofiler_callback_tracing_hip_api_data_t>())
                .args
            };
            let described =
                crate::hip::hip_args::describe(record.operation, &args, max_dereference_count);
            for (number, arg) in described.iter().enumerate() {
                // SAFETY: the tool's callback with strings and addresses alive for the call.
                let stop = unsafe {
                    callback(
                        record.kind,
                        record.operation,
                        number as u32,
                        arg.addr,
                        arg.indirection,
                        arg.type_name.as_ptr(),
                        arg.name.as_ptr(),
                        arg.value.as_ptr(),
                        arg.dereferences,
                        user_data,
                    )
                };
                if stop != 0 {
                    break;
                }
            }
            sys::ROCPROFILER_STATUS_SUCCESS
        },
    )
}
