//! `buffer.h` (docs/sdk-facts.md#buffers, #buffer-behaviour).
use super::write_out;
use crate::engine::buffer;
use crate::engine::user_ptr::UserPtr;
use crate::sdk::ffi_guard::guard;
use rocprofiler_sdk_sys as sys;
use std::ffi::c_void;

/// As `rocprofiler_create_buffer` in the SDK's `buffer.cpp`: LOCKED outside initialization,
/// SERVICE_ALREADY_CONFIGURED for an id that already names a buffer (zero-initialize ids), and
/// nothing else is checked: an unknown context, a null callback (records are then cleared
/// without a call), POLICY_NONE (treated as DISCARD) and size 0 (every record is lost) are all
/// accepted. A null `buffer_id` is INVALID_ARGUMENT here; the SDK dereferences it.
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
        if buffer_id.is_null() {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        if !crate::engine::lifecycle::configuration_open() {
            return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        // SAFETY: non-null, valid per the SDK contract.
        if buffer::exists(unsafe { (*buffer_id).handle }) {
            return sys::ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
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

/// Blocks until the buffer's callback ran; a concurrent flush is waited out. BUFFER_BUSY only
/// when called from the buffer's own callback thread (the real SDK deadlocks there, docs/sdk-facts.md#what-may-be-called-where).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_flush_buffer(
    buffer_id: sys::rocprofiler_buffer_id_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_flush_buffer", || {
        buffer::flush(buffer_id.handle)
    })
}
