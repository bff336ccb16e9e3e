//! The driver side: a Rust API that plays a HIP program against the simulated SDK.
//!
//! Every function here is one HIP runtime call (named in its doc) and fires, on the calling
//! thread, exactly what the real runtime + SDK fire (docs/sdk-facts.md#firing-order, docs/simulator-fidelity.md#per-call-order): HIP_STREAM SET ENTER (only
//! for calls with a stream argument), HIP_RUNTIME_API ENTER with a fresh correlation id, the
//! external-correlation request and the KERNEL_DISPATCH ENQUEUE / MEMORY_COPY ENTER callbacks
//! for the work it submits, HIP_RUNTIME_API EXIT, SET EXIT, then the HIP API buffer record.
//! Kernel and copy completions (COMPLETE / EXIT callbacks, buffer records) come later from the
//! simulated signal-handler thread, when the modelled device end time has passed.
//!
//! The first call also plays the HIP runtime registering with the SDK: if no tool was forced,
//! `rocprofiler_configure` is looked up with `dlsym(RTLD_DEFAULT)` and initialized; then the
//! runtime loads its blit-kernel code object on every GPU.
//!
//! Calls that return a correlation id return the HIP call's internal correlation id, which
//! every record of that call carries under direct dispatch. Under indirect dispatch
//! (`direct_dispatch=0`) HIP's worker thread submits the work and each packet or copy
//! gets a fresh id made there, so no device record carries the call's id.
//!
//! The HIP API callback payload carries the call's arguments for the calls modelled here
//! (`*_with` variants take the program's pointers; the others make up plausible ones).
//!
//! The calls live by kind: [`stream_calls`] (streams, windows, synchronization),
//! [`event_calls`] (event records and stream waits),
//! [`launches`] (code objects, kernels, graphs, memsets), [`copies`] (memcpys and the copy
//! paths), [`roctx_calls`] (ROCTx); this file holds the types, the devices and the calls of
//! no kind in particular.
mod copies;
mod event_calls;
mod launches;
mod roctx_calls;
mod stream_calls;

use crate::engine::dispatch::ApiCall;
use crate::engine::signal;
use crate::hip::streams;
use crate::hip::{code_objects, hip_args, worker};
use crate::SimError;
use rocprofiler_sdk_sys as sys;
use std::cell::Cell;
use std::sync::OnceLock;

pub use crate::hip::code_objects::KernelResources;
pub use crate::hip::streams::{NULL_STREAM, STREAM_LEGACY, STREAM_PER_THREAD};
pub use copies::{memcpy_async, memcpy_async_as, memcpy_async_with, memcpy_sync, memcpy_sync_with};
pub use event_calls::{event_record, event_record_with_flags, stream_wait_event};
pub use launches::{
    find_kernel, graph_launch, graph_launch_with, launch_kernel, launch_kernel_with,
    load_code_object, load_code_object_with_resources, memset_async, memset_async_as, memset_sync,
    module_launch_kernel, module_launch_kernel_with, unload_code_object,
};
pub use roctx_calls::{
    roctx_mark, roctx_name_hip_stream, roctx_range_pop, roctx_range_push, roctx_range_start,
    roctx_range_stop,
};
pub use stream_calls::{
    bind_stream_to_queue, sdk_stream_id, stream_create, stream_create_failed, stream_create_with,
    stream_destroy, stream_synchronize, stream_wait, stream_window_enter, stream_window_exit,
    StreamWindow,
};

/// A `hipStream_t` value: 0 = null stream, 0x1 = `hipStreamLegacy`, 0x2 = `hipStreamPerThread`.
pub type HipStream = u64;

/// A rocprofiler kernel id, as registered by a code object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KernelId(pub u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CopyKind {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

impl CopyKind {
    /// The `rocprofiler_memory_copy_operation_t` of this direction.
    pub fn operation(self) -> i32 {
        match self {
            CopyKind::HostToHost => sys::ROCPROFILER_MEMORY_COPY_HOST_TO_HOST,
            CopyKind::HostToDevice => sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE,
            CopyKind::DeviceToHost => sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST,
            CopyKind::DeviceToDevice => sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelLaunch {
    pub kernel: KernelId,
    /// Grid size in work-items (the AQL packet's `grid_size`).
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub duration_ns: u64,
}

/// Where the host side of a copy lives: `hipHostMalloc`/`hipHostRegister` memory is pinned,
/// plain `malloc`/stack memory is pageable (the HIP runtime pins or stages it per copy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HostMemory {
    #[default]
    Pinned,
    Pageable,
}

/// What the program passed to a copy call beyond [`Copy`]: its host memory kind and its
/// pointers (for the HIP API payload's arguments and the records' addresses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyCall {
    pub host: HostMemory,
    /// `dst` and `src` as passed; 0 lets the simulator make addresses up.
    pub dst: u64,
    pub src: u64,
    /// The `hipMemcpyKind` passed (e.g. 4, `hipMemcpyDefault`); `None`: the one of the
    /// copy's direction.
    pub hip_kind: Option<i32>,
}

/// What the program passed to a launch beyond [`KernelLaunch`], for the HIP API payload:
/// the host stub or `hipFunction_t`, and the argument array.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchCall {
    pub function: u64,
    pub args: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy {
    pub kind: CopyKind,
    pub bytes: u64,
    /// Source GPU for device sources (default: the stream's / current device).
    pub src_device: Option<u32>,
    /// Destination GPU for device destinations (default: the stream's / current device).
    pub dst_device: Option<u32>,
    pub duration_ns: u64,
}

/// Blit kernels the HIP runtime registers on every GPU.
pub const BLIT_FILL_KERNEL: &str = "__amd_rocclr_fillBufferAligned";
pub const BLIT_COPY_KERNEL: &str = "__amd_rocclr_copyBuffer";
const BLIT_KERNELS: [&str; 3] = [
    BLIT_FILL_KERNEL,
    BLIT_COPY_KERNEL,
    "__amd_rocclr_copyBufferAligned",
];

thread_local! {
    static CURRENT_DEVICE: Cell<u32> = const { Cell::new(0) };
}

static RUNTIME_LOADED: OnceLock<()> = OnceLock::new();

/// The runtime's first contact with the SDK (registration, blit code objects).
fn runtime() -> Result<(), SimError> {
    crate::engine::registration::runtime_registration()?;
    RUNTIME_LOADED.get_or_init(|| {
        for device in 0..gpus() {
            let _ = code_objects::load(device, &BLIT_KERNELS);
        }
    });
    Ok(())
}

/// HIP devices: the GPUs visible to HIP, in HIP's order (`HIP_VISIBLE_DEVICES` & co.).
fn gpus() -> u32 {
    crate::engine::agents::agents().hip_device_count()
}

/// `hipGetDeviceCount`: the number of GPUs visible to HIP (no HIP call is recorded). Device
/// `k` of every driver call is the k-th of them, which need not be the k-th GPU agent.
pub fn device_count() -> u32 {
    gpus()
}

fn check_device(device: u32) -> Result<(), SimError> {
    if device < gpus() {
        Ok(())
    } else {
        Err(SimError::InvalidDevice(device))
    }
}

fn op(id: sys::rocprofiler_hip_runtime_api_id_t) -> i32 {
    id
}

/// The GPU (its ordinal among all GPUs, the agent's `logical_node_type_id`) that HIP device
/// `device` is; `None` if HIP has no such device.
pub fn device_gpu_ordinal(device: u32) -> Option<u32> {
    crate::engine::agents::agents().hip_device_gpu(device)
}

/// `hipSetDevice`: the calling thread's current device.
pub fn set_device(device: u32) -> Result<(), SimError> {
    runtime()?;
    check_device(device)?;
    let mut args = hip_args::zeroed();
    args.hipSetDevice = sys::rocprofiler_hip_api_args_hipSetDevice_t {
        deviceId: device as i32,
    };
    let call = ApiCall::enter_with_args(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice),
        None,
        args,
    );
    CURRENT_DEVICE.set(device);
    call.exit();
    Ok(())
}

/// The calling thread's current device (no HIP call is recorded).
pub fn current_device() -> u32 {
    CURRENT_DEVICE.get()
}

/// The correlation id the driver hands to work submitted inside a HIP call: the call's own
/// under direct dispatch (the API thread's correlation stack holds it); 0 under indirect
/// dispatch, where HIP's worker thread, whose stack is empty, gets a fresh one per packet
/// or copy (`dispatch::enqueue_kernel` / `enqueue_copy`).
fn submission_correlation_id(api_correlation_id: u64) -> u64 {
    if crate::machine::machine().direct_dispatch {
        api_correlation_id
    } else {
        0
    }
}

/// A made-up device address for calls given no pointer (the HIP API payload's `dst`/`src`).
fn made_up_address(device: Option<u32>) -> u64 {
    match device {
        // Wrapping: an invalid device is refused later by `check_device`, not by a panic here.
        Some(d) => 0x7fd0_0000_0000u64.wrapping_add(u64::from(d).wrapping_shl(36)),
        None => 0x7f40_0000_0000,
    }
}

fn check_api_op(api_op: i32) -> Result<(), SimError> {
    if api_op < 0 || api_op as usize >= sys::HIP_RUNTIME_API_NAMES.len() {
        return Err(SimError::InvalidArgument(format!(
            "unknown HIP operation id {api_op}"
        )));
    }
    Ok(())
}

/// `hipDeviceSynchronize` (op 66): no SET; waits until all work of the current device
/// finished on the device. As for `hipStreamSynchronize`, kernel records may come later.
pub fn device_synchronize() -> Result<(), SimError> {
    runtime()?;
    let call = ApiCall::enter(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize),
        None,
    );
    signal::wait_device(current_device());
    call.exit();
    Ok(())
}

/// Any other HIP call by operation id; with `Some(stream)` it gets a SET like every function
/// with one stream argument. Submits no device work.
pub fn api_call(api_op: i32, stream: Option<HipStream>) -> Result<u64, SimError> {
    runtime()?;
    if api_op < 0 || api_op as usize >= sys::HIP_RUNTIME_API_NAMES.len() {
        return Err(SimError::InvalidArgument(format!(
            "unknown HIP operation id {api_op}"
        )));
    }
    let info = stream
        .map(|s| streams::resolve(s, current_device()))
        .transpose()?;
    let call = ApiCall::enter(api_op, info.as_ref());
    let correlation_id = call.correlation_id;
    call.exit();
    Ok(correlation_id)
}

/// [`api_call`] with the call's arguments in its HIP API payload (the allocation functions, whose
/// arguments tell a tool which memory is where).
pub fn api_call_with_args(
    api_op: i32,
    stream: Option<HipStream>,
    args: sys::rocprofiler_hip_api_args_t,
) -> Result<u64, SimError> {
    runtime()?;
    check_api_op(api_op)?;
    let info = stream
        .map(|s| streams::resolve(s, current_device()))
        .transpose()?;
    let call = ApiCall::enter_with_args(api_op, info.as_ref(), args);
    let correlation_id = call.correlation_id;
    call.exit();
    Ok(correlation_id)
}

/// A HIP call the runtime rejected (or any call without device work), traced as the SDK's
/// wrappers trace it: they run before the runtime validates anything. A `stream` the runtime
/// does not know (destroyed, or never created) still gets its SET under the SDK 1.0.0 map: with
/// the id the map kept for that address, or, if the map never had it, the process aborts like
/// the real SDK. Under the newer map such a call is traced without a SET. Known streams are
/// traced as by [`api_call`].
pub fn api_call_failed(api_op: i32, stream: Option<HipStream>) -> Result<u64, SimError> {
    let unknown = match stream.map(|s| streams::resolve(s, current_device())) {
        Some(Err(SimError::UnknownStream(value))) => value,
        _ => return api_call(api_op, stream),
    };
    runtime()?;
    if api_op < 0 || api_op as usize >= sys::HIP_RUNTIME_API_NAMES.len() {
        return Err(SimError::InvalidArgument(format!(
            "unknown HIP operation id {api_op}"
        )));
    }
    let info = streams::unknown_to_hip(unknown, current_device());
    let call = ApiCall::enter(api_op, info.as_ref());
    let correlation_id = call.correlation_id;
    call.exit();
    Ok(correlation_id)
}

/// The HIP operation id of a runtime function name (`"hipMalloc"` -> 215).
pub fn hip_operation(name: &str) -> Option<i32> {
    sys::HIP_RUNTIME_API_NAMES
        .iter()
        .position(|n| *n == name)
        .map(|i| i as i32)
}

/// A host thread sleeping (not a HIP call): real sleep, or under the virtual clock virtual
/// time moving forward by `duration` (the completions due by then are pushed). A tool that
/// waits for records (the tracer's `disable()`) sleeps through this to let simulated time pass.
pub fn host_sleep(duration: std::time::Duration) {
    crate::engine::signal::sleep_ns(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX));
}

/// Waits until every device's submitted work completed and every record (kernel records
/// included, after their lag) was pushed (not a HIP call). Under the virtual clock this moves
/// virtual time forward to the last completion.
pub fn wait_idle() {
    worker::wait_idle();
    signal::wait_all();
}
