//! `internal_threading.h` (docs/sdk-facts.md#callback-threads). As in the SDK's `internal_threading.cpp`, both calls are
//! LOCKED only once initialization finished: before it started they work too.
use super::write_out;
use crate::engine::{buffer, callback_thread};
use crate::sdk::ffi_guard::guard;
use rocprofiler_sdk_sys as sys;

/// LOCKED once initialization finished, as the SDK.
fn locked() -> bool {
    crate::engine::lifecycle::init_status() > 0
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_create_callback_thread(
    cb_thread_id: *mut sys::rocprofiler_callback_thread_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_create_callback_thread", || {
        if cb_thread_id.is_null() {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        if locked() {
            return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        let handle = callback_thread::create();
        // SAFETY: non-null, valid per the SDK contract.
        unsafe { write_out(cb_thread_id, sys::rocprofiler_callback_thread_t { handle }) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocprofiler_assign_callback_thread(
    buffer_id: sys::rocprofiler_buffer_id_t,
    cb_thread_id: sys::rocprofiler_callback_thread_t,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_assign_callback_thread", || {
        if locked() {
            return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        if !buffer::exists(buffer_id.handle) {
            return sys::ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
        }
        if !callback_thread::exists(cb_thread_id.handle) {
            return sys::ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND;
        }
        buffer::assign_thread(buffer_id.handle, cb_thread_id.handle);
        sys::ROCPROFILER_STATUS_SUCCESS
    })
}
