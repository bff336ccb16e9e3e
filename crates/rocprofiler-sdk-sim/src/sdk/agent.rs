//! `agent.h` (docs/sdk-facts.md#agents).
use crate::sdk::ffi_guard::guard;
use rocprofiler_sdk_sys as sys;
use std::ffi::c_void;

/// Calls `callback` once, synchronously, with every agent; returns the callback's status.
/// INCOMPATIBLE_ABI when `agent_size` exceeds the library's struct: 312 bytes (ROCm 7.1), or
/// 304 with `rocm = "7.0"` (docs/sdk-facts.md#agents, #version-hazards).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_available_agents(
    version: sys::rocprofiler_agent_version_t,
    callback: sys::rocprofiler_query_available_agents_cb_t,
    agent_size: usize,
    user_data: *mut c_void,
) -> sys::rocprofiler_status_t {
    guard("rocprofiler_query_available_agents", || {
        let Some(callback) = callback else {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        };
        if version != sys::ROCPROFILER_AGENT_INFO_VERSION_0 {
            return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        if agent_size > crate::machine::machine().agent_struct_size() {
            return sys::ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI;
        }
        let mut pointers = crate::engine::agents::agents().pointers().to_vec();
        // SAFETY: the tool's callback with an array of `pointers.len()` agent pointers that
        // stay valid for the life of the process.
        unsafe { callback(version, pointers.as_mut_ptr(), pointers.len(), user_data) }
    })
}
