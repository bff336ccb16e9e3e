//! `buffer.h` (§7.1-7.2).
use super::write_out;
use crate::ffi_guard::guard;
use crate::user_ptr::UserPtr;
use crate::{buffer, registration, registry};
use rocprofiler_sdk_sys as sys;
use std::ffi::c_void;

/// Rejects an id that already names a buffer with INVALID_ARGUMENT (zero-initialize ids).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_create_buffer(
    context: sys::rocprofiler_context_id_t,
    size: usize,
    watermark: usize,
    policy: sys::rocprofiler_buffer_policy_t,
    callback: sys::rocprofiler_buffer_tracing_cb_t,
    callback_data: *mut c_void,
    buffer_id: *mut sys::rocprofiler_buffer_id_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_create_buffer", || {
        let Some(callback) = callback else {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        };
        if buffer_id.is_null() {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        if !registration::configuration_open() {
            return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        if !registry::exists(context.handle) {
            return sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
        }
        // SAFETY: non-null, valid per the SDK contract.
        if buffer::exists(unsafe { (*buffer_id).handle }) {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        let valid_policy = matches!(
            policy,
            sys::ROCPROFILER_BUFFER_POLICY_DISCARD | sys::ROCPROFILER_BUFFER_POLICY_LOSSLESS
        );
        if size == 0 || !valid_policy {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        let handle = buffer::create(
            context.handle,
            size,
            watermark,
            policy,
            callback,
            UserPtr(callback_data),
        );
        // SAFETY: as above.
        unsafe { write_out(buffer_id, sys::rocprofiler_buffer_id_t { handle }) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_destroy_buffer(
    buffer_id: sys::rocprofiler_buffer_id_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_destroy_buffer", || {
        buffer::destroy(buffer_id.handle)
    })
}

/// Blocks until the buffer's callback ran. BUFFER_BUSY during a concurrent flush or destroy,
/// and when called from the buffer's own callback thread (the real SDK deadlocks, §13.4).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_flush_buffer(
    buffer_id: sys::rocprofiler_buffer_id_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_flush_buffer", || {
        buffer::flush(buffer_id.handle)
    })
}
