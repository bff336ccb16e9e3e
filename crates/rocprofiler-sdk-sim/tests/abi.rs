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
        rocsim_event_call: unsafe extern "C" fn(i32, u64, u64, u32, *mut u64) -> i32;
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

/// Options that contradict themselves are refused before the simulator plays anything.
#[test]
fn contradicting_options_are_invalid_arguments() {
    let launch = rocsim_kernel_launch_t {
        kernel: 1,
        grid: [1, 1, 1],
        block: [1, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 1,
    };
    let launch_as_a_copy = rocsim_launch_options_t {
        launch,
        stream: 0,
        function: 0,
        args: 0,
        op: rocprofiler_sdk_sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy,
    };
    let sync_copy_on_a_stream = rocsim_memcpy_options_t {
        copy: rocsim_copy_t {
            kind: ROCSIM_COPY_HOST_TO_DEVICE,
            bytes: 64,
            src_device: ROCSIM_DEVICE_DEFAULT,
            dst_device: ROCSIM_DEVICE_DEFAULT,
            duration_ns: 1,
        },
        sync: 1,
        op: 0,
        stream: 0x7f00,
        host: ROCSIM_HOST_PINNED,
        has_hip_kind: 0,
        hip_kind: 0,
        dst: 0,
        src: 0,
    };
    let names = [c"k".as_ptr()];
    let symbol = rocsim_kernel_symbol_t {
        name: names[0],
        kernarg_segment_size: 0,
        group_segment_size: 0,
        private_segment_size: 0,
        sgpr_count: 0,
        arch_vgpr_count: 0,
        accum_vgpr_count: 0,
    };
    let names_and_symbols = rocsim_code_object_options_t {
        device: 0,
        count: 1,
        names: names.as_ptr(),
        symbols: &symbol,
    };
    let null = std::ptr::null_mut();
    // SAFETY: valid options; null out-pointers.
    let statuses = unsafe {
        [
            capi::rocsim_launch_kernel(&launch_as_a_copy, null),
            capi::rocsim_memcpy(&sync_copy_on_a_stream, null),
            capi::rocsim_load_code_object(&names_and_symbols, null, null),
        ]
    };
    assert_eq!(statuses, [ROCSIM_STATUS_INVALID_ARGUMENT; 3]);
}
