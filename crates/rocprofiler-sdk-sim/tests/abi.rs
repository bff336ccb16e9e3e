//! Each `rocsim_*` function the simulated SDK defines (`capi`) has the signature `rocsim-abi`
//! declares (the declarations the simulated HIP runtime calls through): both must coerce to the
//! one written type, so a parameter changed on one side fails to compile here.

use rocprofiler_sdk_sim::capi;
use rocsim_abi::*;
use std::ffi::c_char;

macro_rules! same_signature {
    ($($name:ident: $ty:ty;)*) => {
        $(let _: [$ty; 2] = [rocsim_abi::$name, capi::$name];)*
    };
}

#[test]
fn definitions_match_the_declarations() {
    same_signature! {
        rocsim_set_device: unsafe extern "C" fn(u32) -> i32;
        rocsim_current_device: unsafe extern "C" fn() -> u32;
        rocsim_device_count: unsafe extern "C" fn() -> u32;
        rocsim_device_gpu_ordinal: unsafe extern "C" fn(u32) -> i32;
        rocsim_stream_create:
            unsafe extern "C" fn(*const rocsim_stream_create_options_t, *mut u64) -> i32;
        rocsim_stream_destroy: unsafe extern "C" fn(u64) -> i32;
        rocsim_bind_stream_to_queue: unsafe extern "C" fn(u64, u64) -> i32;
        rocsim_load_code_object: unsafe extern "C" fn(
            *const rocsim_code_object_options_t,
            *mut u64,
            *mut u64,
        ) -> i32;
        rocsim_unload_code_object: unsafe extern "C" fn(u64) -> i32;
        rocsim_launch_kernel: unsafe extern "C" fn(*const rocsim_launch_options_t, *mut u64) -> i32;
        rocsim_graph_launch:
            unsafe extern "C" fn(*const rocsim_graph_launch_options_t, *mut u64) -> i32;
        rocsim_memcpy: unsafe extern "C" fn(*const rocsim_memcpy_options_t, *mut u64) -> i32;
        rocsim_memset: unsafe extern "C" fn(*const rocsim_memset_options_t, *mut u64) -> i32;
        rocsim_stream_wait: unsafe extern "C" fn(u64) -> i32;
        rocsim_stream_synchronize: unsafe extern "C" fn(u64) -> i32;
        rocsim_device_synchronize: unsafe extern "C" fn() -> i32;
        rocsim_api_call: unsafe extern "C" fn(*const rocsim_api_call_options_t, *mut u64) -> i32;
        rocsim_wait_idle: unsafe extern "C" fn();
        rocsim_host_sleep_ns: unsafe extern "C" fn(u64);
        rocsim_fault_inject: unsafe extern "C" fn(*const c_char, u32, u32);
        rocsim_fault_clear: unsafe extern "C" fn();
        rocsim_replay_scenario: unsafe extern "C" fn(*const c_char, *mut c_char, usize) -> i32;
    }
}

/// The statuses the C functions return are the shared numbers.
#[test]
fn statuses_are_the_shared_numbers() {
    let mut corr = 0;
    // SAFETY: null options are rejected before they are read.
    let status = unsafe { capi::rocsim_launch_kernel(std::ptr::null(), &mut corr) };
    assert_eq!(status, ROCSIM_STATUS_INVALID_ARGUMENT);
    let error = rocprofiler_sdk_sim::SimError::UnknownStream(0).code();
    assert_eq!(error, ROCSIM_STATUS_UNKNOWN_STREAM);
}
