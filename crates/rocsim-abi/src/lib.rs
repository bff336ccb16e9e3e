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

/// `rocsim_memcpy_options_t::host`: pinned host memory (`hipHostMalloc`).
pub const ROCSIM_HOST_PINNED: u32 = 0;
/// `rocsim_memcpy_options_t::host`: pageable host memory.
pub const ROCSIM_HOST_PAGEABLE: u32 = 1;

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

// One options struct per call that has choices, in place of a function per variant: a caller
// zeroes it and fills only what it needs; each field's 0 is the plain call, and `Default`,
// where a struct has one, is that all-zero value.

/// `rocsim_stream_create_options_t`: how `rocsim_stream_create` is called. All zero: a
/// `hipStreamCreate` that creates a stream.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct rocsim_stream_create_options_t {
    /// The creating HIP function's operation id (`hipStreamCreateWithFlags`, ...); 0:
    /// `hipStreamCreate`.
    pub op: i32,
    /// 0: the call creates a stream; 1: HIP rejected it (bad flags), traced with the SDK's
    /// CREATE bookkeeping, and no stream is made.
    pub rejected: u32,
    /// For a rejected call: 0, the program passed a null `hipStream_t*`; 1, `*stream` held
    /// `stream_out`.
    pub has_stream_out: u32,
    pub stream_out: u64,
}

/// `rocsim_code_object_options_t`: the code object `rocsim_load_code_object` loads, its kernels
/// given as `names` or as `symbols` (the other null).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct rocsim_code_object_options_t {
    /// The HIP device; 0: device 0.
    pub device: u32,
    /// The kernels in `names` or `symbols`; 0: an empty code object.
    pub count: usize,
    /// `count` mangled names, each kernel with the simulator's default resources.
    pub names: *const *const c_char,
    /// `count` kernels with the resources their descriptors declare; null: `names`.
    pub symbols: *const rocsim_kernel_symbol_t,
}

impl Default for rocsim_code_object_options_t {
    fn default() -> Self {
        rocsim_code_object_options_t {
            device: 0,
            count: 0,
            names: std::ptr::null(),
            symbols: std::ptr::null(),
        }
    }
}

/// `rocsim_launch_options_t`: one kernel launch (`rocsim_launch_kernel`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct rocsim_launch_options_t {
    /// The dispatch (required: every field is meant).
    pub launch: rocsim_kernel_launch_t,
    /// 0: the null stream.
    pub stream: u64,
    /// What the program passed, for the HIP API payload: the host stub (`hipLaunchKernel`) or
    /// `hipFunction_t` (`hipModuleLaunchKernel`); 0: null.
    pub function: u64,
    /// The argument array (`args`, `kernelParams`); 0: null.
    pub args: u64,
    /// The HIP function: 0 or `hipLaunchKernel`'s id: `hipLaunchKernel`;
    /// `hipModuleLaunchKernel`'s id: that one.
    pub op: i32,
}

/// `rocsim_graph_launch_options_t`: one `hipGraphLaunch` (`rocsim_graph_launch`): its kernels
/// under one correlation id.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct rocsim_graph_launch_options_t {
    /// `count` dispatches (required, at least one).
    pub kernels: *const rocsim_kernel_launch_t,
    pub count: usize,
    /// 0: the null stream.
    pub stream: u64,
    /// The `hipGraphExec_t` passed, for the HIP API payload; 0: null.
    pub graph_exec: u64,
}

/// `rocsim_memcpy_options_t`: one copy call (`rocsim_memcpy`). With `copy` filled and the rest
/// zero: a `hipMemcpyAsync` on the null stream from pinned memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct rocsim_memcpy_options_t {
    /// The copy (required: every field is meant).
    pub copy: rocsim_copy_t,
    /// 0: the call returns at once, the copy on `stream`; 1: `hipMemcpy`, which has no stream
    /// (`stream` and `op` 0) and returns when the copy finished.
    pub sync: u32,
    /// An asynchronous copy's HIP function (`hipMemcpyHtoDAsync`, `hipMemcpyWithStream`, ...,
    /// traced with a zeroed payload); 0: `hipMemcpyAsync`.
    pub op: i32,
    /// 0: the null stream.
    pub stream: u64,
    /// `ROCSIM_HOST_PINNED` (0) or `ROCSIM_HOST_PAGEABLE`: the host side's memory.
    pub host: u32,
    /// 0: the `hipMemcpyKind` passed is the one of `copy.kind`; 1: `hip_kind` (e.g. 4,
    /// `hipMemcpyDefault`).
    pub has_hip_kind: u32,
    pub hip_kind: i32,
    /// The pointers as passed; 0: made up by the simulator.
    pub dst: u64,
    pub src: u64,
}

/// `rocsim_memset_options_t`: one fill call (`rocsim_memset`). All zero but `bytes` and
/// `duration_ns`: a `hipMemsetAsync` on the null stream.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct rocsim_memset_options_t {
    pub bytes: u64,
    pub duration_ns: u64,
    /// 0: the call returns at once, the fill on `stream`; 1: `hipMemset`, which has no stream
    /// (`stream` and `op` 0) and returns when the fill finished.
    pub sync: u32,
    /// An asynchronous fill's HIP function (`hipMemsetD32Async`, ..., traced with a zeroed
    /// payload); 0: `hipMemsetAsync`.
    pub op: i32,
    /// 0: the null stream.
    pub stream: u64,
}

/// `rocsim_api_call_options_t`: a HIP call without device work (`rocsim_api_call`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct rocsim_api_call_options_t {
    /// The HIP operation id (required).
    pub op: i32,
    /// 0: no stream argument (no SET); 1: `stream` is its one stream argument.
    pub has_stream: u32,
    pub stream: u64,
    /// 0: HIP ran the call; 1: HIP may reject it, on a stream HIP may not know: the SDK's
    /// wrappers trace it before HIP validates, so its SET follows the SDK's stream map.
    pub rejected: u32,
}

// The simulated SDK's stand-ins for the marker tables the real SDK gives the ROCTx library:
// `librocprofiler-sdk.so` defines `rocsim_roctx_*` with these signatures, and the simulated
// `librocprofiler-sdk-roctx.so` looks them up by name (one ROCTx C function each).
/// `rocsim_roctx_range_push_a`: `roctxRangePushA`.
pub type rocsim_roctx_range_push_a_fn = unsafe extern "C" fn(message: *const c_char) -> c_int;
/// `rocsim_roctx_range_pop`: `roctxRangePop`.
pub type rocsim_roctx_range_pop_fn = extern "C" fn() -> c_int;
/// `rocsim_roctx_range_start_a`: `roctxRangeStartA`; returns the range's `roctx_range_id_t`.
pub type rocsim_roctx_range_start_a_fn = unsafe extern "C" fn(message: *const c_char) -> u64;
/// `rocsim_roctx_range_stop`: `roctxRangeStop(id)`.
pub type rocsim_roctx_range_stop_fn = extern "C" fn(id: u64);
/// `rocsim_roctx_mark_a`: `roctxMarkA`.
pub type rocsim_roctx_mark_a_fn = unsafe extern "C" fn(message: *const c_char);
/// `rocsim_roctx_name_hip_stream`: `roctxNameHipStream`.
pub type rocsim_roctx_name_hip_stream_fn =
    unsafe extern "C" fn(name: *const c_char, stream: *const c_void) -> c_int;

// The functions, as `rocprofiler-sdk-sim`'s `capi` defines them. Out-pointers may be null when
// the caller does not want the value; options pointers may not; each `int32_t` result is a
// `ROCSIM_STATUS_*`.
extern "C" {
    pub fn rocsim_set_device(device: u32) -> i32;
    pub fn rocsim_current_device() -> u32;
    /// HIP-visible GPUs, in HIP's order.
    pub fn rocsim_device_count() -> u32;
    /// The GPU ordinal of HIP device `device`; -1: no such device.
    pub fn rocsim_device_gpu_ordinal(device: u32) -> i32;
    /// Writes the stream made to `stream` (nothing for a rejected call).
    pub fn rocsim_stream_create(
        options: *const rocsim_stream_create_options_t,
        stream: *mut u64,
    ) -> i32;
    pub fn rocsim_stream_destroy(stream: u64) -> i32;
    pub fn rocsim_bind_stream_to_queue(stream: u64, queue: u64) -> i32;
    /// Writes the code object's id and its `count` kernel ids, in order.
    pub fn rocsim_load_code_object(
        options: *const rocsim_code_object_options_t,
        code_object_id: *mut u64,
        kernel_ids: *mut u64,
    ) -> i32;
    pub fn rocsim_unload_code_object(code_object_id: u64) -> i32;
    pub fn rocsim_launch_kernel(options: *const rocsim_launch_options_t, corr: *mut u64) -> i32;
    pub fn rocsim_graph_launch(
        options: *const rocsim_graph_launch_options_t,
        corr: *mut u64,
    ) -> i32;
    pub fn rocsim_memcpy(options: *const rocsim_memcpy_options_t, corr: *mut u64) -> i32;
    pub fn rocsim_memset(options: *const rocsim_memset_options_t, corr: *mut u64) -> i32;
    /// Waits, untraced, until the work submitted to `stream` so far finished on the device
    /// (what a host callback enqueued on the stream waits for).
    pub fn rocsim_stream_wait(stream: u64) -> i32;
    pub fn rocsim_stream_synchronize(stream: u64) -> i32;
    /// `hipEventRecord`, `hipEventRecordWithFlags` or `hipStreamWaitEvent` (`op`) of `event`
    /// on `stream`, traced with its arguments; a wait orders the stream's later work after the
    /// event's latest record.
    pub fn rocsim_event_call(op: i32, event: u64, stream: u64, flags: u32, corr: *mut u64) -> i32;
    pub fn rocsim_device_synchronize() -> i32;
    pub fn rocsim_api_call(options: *const rocsim_api_call_options_t, corr: *mut u64) -> i32;
    /// [`rocsim_api_call`] with the call's HIP API payload arguments: `args` points at the
    /// SDK's `rocprofiler_hip_api_args_t` (88 bytes), filled as the function's member.
    pub fn rocsim_api_call_with_args(
        options: *const rocsim_api_call_options_t,
        args: *const c_void,
        corr: *mut u64,
    ) -> i32;
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
