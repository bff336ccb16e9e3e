//! `buffer_tracing.h`: service configuration (docs/sdk-facts.md#buffers) and the names API (docs/sdk-facts.md#names-api).
use super::callback_tracing::{
    iterate_kinds, iterate_operations, query_kind_name, query_operation_name,
};
use super::read_operations;
use crate::engine::registry::{self, BufferService, ConfigureError, OpFilter};
use crate::sdk::ffi_guard::guard;
use crate::sdk::names::{self, Domain};
use rocprofiler_sdk_sys as sys;
use std::ffi::{c_char, c_void};

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure_buffer_tracing_service(
    context_id: sys::rocprofiler_context_id_t,
    kind: sys::rocprofiler_buffer_tracing_kind_t,
    operations: *const sys::rocprofiler_tracing_operation_t,
    operations_count: usize,
    buffer_id: sys::rocprofiler_buffer_id_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_configure_buffer_tracing_service", || {
        if !crate::engine::lifecycle::configuration_open() {
            return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        if !registry::exists(context_id.handle) {
            return sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
        }
        if !names::is_valid_kind(Domain::Buffer, kind) {
            return sys::ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
        }
        if !crate::engine::buffer::exists(buffer_id.handle) {
            return sys::ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
        }
        // SAFETY: the caller's array contract.
        let ops =
            match unsafe { read_operations(Domain::Buffer, kind, operations, operations_count) } {
                Ok(ops) => ops,
                Err(status) => return status,
            };
        let service = BufferService {
            ops: OpFilter::new(ops),
            buffer: buffer_id.handle,
        };
        match registry::add_buffer_service(context_id.handle, kind, service) {
            Ok(()) => sys::ROCPROFILER_STATUS_SUCCESS,
            Err(ConfigureError::ContextNotFound) => sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
            Err(ConfigureError::AlreadyConfigured) => {
                sys::ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_buffer_tracing_kind_name(
    kind: sys::rocprofiler_buffer_tracing_kind_t,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> sys::rocprofiler_status_t {
    // SAFETY: the out-pointers are the caller's, passed on unchanged under the same contract
    // (null ones are skipped).
    guard("rocprofiler_query_buffer_tracing_kind_name", || unsafe {
        query_kind_name(Domain::Buffer, kind, name, name_len)
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_buffer_tracing_kind_operation_name(
    kind: sys::rocprofiler_buffer_tracing_kind_t,
    operation: sys::rocprofiler_tracing_operation_t,
    name: *mut *const c_char,
    name_len: *mut u64,
) -> sys::rocprofiler_status_t {
    guard(
        "rocprofiler_query_buffer_tracing_kind_operation_name",
        // SAFETY: the out-pointers are the caller's, passed on unchanged under the same contract
        // (null ones are skipped).
        || unsafe { query_operation_name(Domain::Buffer, kind, operation, name, name_len) },
    )
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_buffer_tracing_kinds(
    callback: sys::rocprofiler_buffer_tracing_kind_cb_t,
    data: *mut c_void,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_iterate_buffer_tracing_kinds", || {
        let Some(callback) = callback else {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        };
        // SAFETY: the tool's callback with its own data.
        iterate_kinds(Domain::Buffer, |kind| unsafe { callback(kind, data) })
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_buffer_tracing_kind_operations(
    kind: sys::rocprofiler_buffer_tracing_kind_t,
    callback: sys::rocprofiler_buffer_tracing_kind_operation_cb_t,
    data: *mut c_void,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_iterate_buffer_tracing_kind_operations", || {
        let Some(callback) = callback else {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        };
        // SAFETY: the tool's callback with its own data.
        iterate_operations(Domain::Buffer, kind, |op| unsafe {
            callback(kind, op, data)
        })
    })
}
