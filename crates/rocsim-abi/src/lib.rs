//! The `rocsim_*` C ABI of the simulated rocprofiler-sdk, written once.
//!
//! `rocprofiler-sdk-sim` defines these functions (its `capi` module, exported from the cdylib
//! `librocprofiler-sdk.so`); `hip-runtime-sim` calls them the way the real HIP runtime's
//! interception drives the real SDK. Both sides take the structs, numbers and declarations
//! from here, so they cannot drift apart; `tests/layout.rs` pins the C layout (the one the C
//! declarations in `capi`'s documentation and the C++ tests use), and the simulated SDK's
//! `tests/abi.rs` checks that each definition has the declared signature.
//!
//! No dependencies: only `repr(C)` data and `extern "C"` declarations.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};

/// Status of a `rocsim_*` call: success.
pub const ROCSIM_STATUS_SUCCESS: i32 = 0;
/// No such device.
pub const ROCSIM_STATUS_INVALID_DEVICE: i32 = 1;
/// The stream is not known (never created, or destroyed).
pub const ROCSIM_STATUS_UNKNOWN_STREAM: i32 = 2;
/// The kernel id is not known (never loaded, or its code object unloaded).
pub const ROCSIM_STATUS_UNKNOWN_KERNEL: i32 = 3;
/// The code object id is not known.
pub const ROCSIM_STATUS_UNKNOWN_CODE_OBJECT: i32 = 4;
/// Called from inside a tool's `initialize` (the real runtime would deadlock there).
pub const ROCSIM_STATUS_CALLED_FROM_INITIALIZE: i32 = 5;
/// An argument was invalid (a null pointer, an unknown enum value, a bad scenario).
pub const ROCSIM_STATUS_INVALID_ARGUMENT: i32 = 6;
/// The simulator panicked; the panic was caught at the C boundary.
pub const ROCSIM_STATUS_PANICKED: i32 = 7;

/// `rocsim_copy_t::kind`: host to host.
pub const ROCSIM_COPY_HOST_TO_HOST: u32 = 0;
/// `rocsim_copy_t::kind`: host to device.
pub const ROCSIM_COPY_HOST_TO_DEVICE: u32 = 1;
/// `rocsim_copy_t::kind`: device to host.
pub const ROCSIM_COPY_DEVICE_TO_HOST: u32 = 2;
/// `rocsim_copy_t::kind`: device to device.
pub const ROCSIM_COPY_DEVICE_TO_DEVICE: u32 = 3;
/// `rocsim_copy_t::src_device` / `dst_device`: the default device of that side.
pub const ROCSIM_DEVICE_DEFAULT: i32 = -1;

/// `rocsim_copy_call_t::host`: pinned host memory (`hipHostMalloc`).
pub const ROCSIM_HOST_PINNED: u32 = 0;
/// `rocsim_copy_call_t::host`: pageable host memory.
pub const ROCSIM_HOST_PAGEABLE: u32 = 1;
/// `rocsim_copy_call_t::hip_kind`: the `hipMemcpyKind` of the copy's `kind`.
pub const ROCSIM_HIP_KIND_FROM_COPY: i32 = -1;

/// `rocsim_kernel_launch_t`: one kernel dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct rocsim_kernel_launch_t {
    /// A kernel id from `rocsim_load_code_object`.
    pub kernel: u64,
    /// Work-items per dimension.
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub duration_ns: u64,
}

/// `rocsim_copy_t`: one copy's direction, size, devices and duration.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct rocsim_copy_t {
    /// `ROCSIM_COPY_*`.
    pub kind: u32,
    pub bytes: u64,
    /// `ROCSIM_DEVICE_DEFAULT` or a HIP device.
    pub src_device: i32,
    pub dst_device: i32,
    pub duration_ns: u64,
}

/// `rocsim_copy_call_t`: what a program passed to a copy call.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct rocsim_copy_call_t {
    /// `ROCSIM_HOST_PINNED` or `ROCSIM_HOST_PAGEABLE`.
    pub host: u32,
    /// The `hipMemcpyKind` passed; `ROCSIM_HIP_KIND_FROM_COPY`: the one of the copy's `kind`.
    pub hip_kind: i32,
    /// The pointers as passed; 0: made up by the sim.
    pub dst: u64,
    pub src: u64,
}

/// `rocsim_kernel_symbol_t`: one kernel of a code object with the resources its kernel
/// descriptor declares, as the SDK's DEVICE_KERNEL_SYMBOL_REGISTER payload reports them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct rocsim_kernel_symbol_t {
    /// The mangled kernel name, NUL-terminated.
    pub name: *const c_char,
    pub kernarg_segment_size: u32,
    /// Static LDS bytes per work-group.
    pub group_segment_size: u32,
    /// Scratch bytes per work-item.
    pub private_segment_size: u32,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
}

/// `rocsim_launch_call_t`: what a program passed to a launch (the host stub or
/// `hipFunction_t`, and the argument array), for the HIP API payload.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct rocsim_launch_call_t {
    pub function: u64,
    pub args: u64,
}

// The simulated SDK's stand-ins for the marker tables the real SDK gives the ROCTx library:
// `librocprofiler-sdk.so` defines `rocsim_roctx_*` with these signatures, and the simulated
// `librocprofiler-sdk-roctx.so` looks them up by name (one ROCTx C function each).
/// `rocsim_roctx_range_push_a`: `roctxRangePushA`.
pub type rocsim_roctx_range_push_a_fn = unsafe extern "C" fn(message: *const c_char) -> c_int;
/// `rocsim_roctx_range_pop`: `roctxRangePop`.
pub type rocsim_roctx_range_pop_fn = extern "C" fn() -> c_int;
/// `rocsim_roctx_mark_a`: `roctxMarkA`.
pub type rocsim_roctx_mark_a_fn = unsafe extern "C" fn(message: *const c_char);
/// `rocsim_roctx_name_hip_stream`: `roctxNameHipStream`.
pub type rocsim_roctx_name_hip_stream_fn =
    unsafe extern "C" fn(name: *const c_char, stream: *const c_void) -> c_int;

// The functions, as `rocprofiler-sdk-sim`'s `capi` defines them. Out-pointers may be null when
// the caller does not want the value; each `int32_t` result is a `ROCSIM_STATUS_*`.
extern "C" {
    pub fn rocsim_set_device(device: u32) -> i32;
    pub fn rocsim_current_device() -> u32;
    /// HIP-visible GPUs, in HIP's order.
    pub fn rocsim_device_count() -> u32;
    /// The GPU ordinal of HIP device `device`; -1: no such device.
    pub fn rocsim_device_gpu_ordinal(device: u32) -> i32;
    pub fn rocsim_stream_create(stream: *mut u64) -> i32;
    /// `op`: a hipStreamCreate* operation id.
    pub fn rocsim_stream_create_with(op: i32, stream: *mut u64) -> i32;
    pub fn rocsim_stream_create_failed(op: i32, has_stream_out: i32, stream_out: u64) -> i32;
    pub fn rocsim_stream_destroy(stream: u64) -> i32;
    pub fn rocsim_bind_stream_to_queue(stream: u64, queue: u64) -> i32;
    pub fn rocsim_load_code_object(
        device: u32,
        names: *const *const c_char,
        count: usize,
        code_object_id: *mut u64,
        kernel_ids: *mut u64,
    ) -> i32;
    /// As `rocsim_load_code_object`, with each kernel's descriptor resources.
    pub fn rocsim_load_code_object_ex(
        device: u32,
        symbols: *const rocsim_kernel_symbol_t,
        count: usize,
        code_object_id: *mut u64,
        kernel_ids: *mut u64,
    ) -> i32;
    pub fn rocsim_unload_code_object(code_object_id: u64) -> i32;
    pub fn rocsim_launch_kernel(
        stream: u64,
        launch: *const rocsim_kernel_launch_t,
        corr: *mut u64,
    ) -> i32;
    pub fn rocsim_module_launch_kernel(
        stream: u64,
        launch: *const rocsim_kernel_launch_t,
        corr: *mut u64,
    ) -> i32;
    pub fn rocsim_graph_launch(
        stream: u64,
        launches: *const rocsim_kernel_launch_t,
        count: usize,
        corr: *mut u64,
    ) -> i32;
    pub fn rocsim_memcpy_async(stream: u64, copy: *const rocsim_copy_t, corr: *mut u64) -> i32;
    pub fn rocsim_memcpy_sync(copy: *const rocsim_copy_t, corr: *mut u64) -> i32;
    pub fn rocsim_memcpy_async_ex(
        stream: u64,
        copy: *const rocsim_copy_t,
        call: *const rocsim_copy_call_t,
        corr: *mut u64,
    ) -> i32;
    pub fn rocsim_memcpy_sync_ex(
        copy: *const rocsim_copy_t,
        call: *const rocsim_copy_call_t,
        corr: *mut u64,
    ) -> i32;
    pub fn rocsim_launch_kernel_ex(
        stream: u64,
        launch: *const rocsim_kernel_launch_t,
        call: *const rocsim_launch_call_t,
        corr: *mut u64,
    ) -> i32;
    pub fn rocsim_module_launch_kernel_ex(
        stream: u64,
        launch: *const rocsim_kernel_launch_t,
        call: *const rocsim_launch_call_t,
        corr: *mut u64,
    ) -> i32;
    pub fn rocsim_graph_launch_ex(
        stream: u64,
        launches: *const rocsim_kernel_launch_t,
        count: usize,
        graph_exec: u64,
        corr: *mut u64,
    ) -> i32;
    pub fn rocsim_memset_async(stream: u64, bytes: u64, duration_ns: u64, corr: *mut u64) -> i32;
    /// A stream copy traced as HIP function `op` (`hipMemcpyHtoDAsync`, ...), not as
    /// `hipMemcpyAsync`.
    pub fn rocsim_memcpy_async_as(
        op: i32,
        stream: u64,
        copy: *const rocsim_copy_t,
        call: *const rocsim_copy_call_t,
        corr: *mut u64,
    ) -> i32;
    /// A stream fill traced as HIP function `op` (`hipMemsetD32Async`, ...).
    pub fn rocsim_memset_async_as(
        op: i32,
        stream: u64,
        bytes: u64,
        duration_ns: u64,
        corr: *mut u64,
    ) -> i32;
    /// Waits, untraced, until the work submitted to `stream` so far finished on the device
    /// (what a host callback enqueued on the stream waits for).
    pub fn rocsim_stream_wait(stream: u64) -> i32;
    pub fn rocsim_memset_sync(bytes: u64, duration_ns: u64, corr: *mut u64) -> i32;
    pub fn rocsim_stream_synchronize(stream: u64) -> i32;
    pub fn rocsim_device_synchronize() -> i32;
    pub fn rocsim_api_call(op: i32, has_stream: i32, stream: u64, corr: *mut u64) -> i32;
    pub fn rocsim_api_call_failed(op: i32, has_stream: i32, stream: u64, corr: *mut u64) -> i32;
    pub fn rocsim_wait_idle();
    /// A host sleep of `ns` that moves the virtual clock (real sleep under the real clock).
    pub fn rocsim_host_sleep_ns(ns: u64);
    /// `nth`: 0 = every call.
    pub fn rocsim_fault_inject(function: *const c_char, status: u32, nth: u32);
    pub fn rocsim_fault_clear();
    /// On failure writes the message (NUL-terminated, truncated to `error_len`).
    pub fn rocsim_replay_scenario(path: *const c_char, error: *mut c_char, error_len: usize)
        -> i32;
}
