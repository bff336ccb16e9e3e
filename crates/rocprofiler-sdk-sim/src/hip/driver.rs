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
//! Copies follow the HIP runtime's copy paths (the machine's copy keys):
//! host<->device copies are SDMA copies (MEMORY_COPY records), except that small ones are a
//! GPU blit, reported as DEVICE_TO_DEVICE on the GPU up to ROCm 7.2 and as a
//! `__amd_rocclr_copyBuffer` KERNEL_DISPATCH from 7.13 (`small_copies`), small pageable ones on a large-BAR GPU
//! are a CPU `memcpy` (no record), and large pageable ones are split into pinned pieces (one
//! record each); host-to-host copies are a CPU `memcpy` (no record); peer copies are SDMA
//! copies; a device-to-device copy within one GPU is a blit kernel (`__amd_rocclr_copyBuffer`,
//! KERNEL_DISPATCH record), and memset is `__amd_rocclr_fillBufferAligned` (docs/sdk-facts.md#blit-copies, docs/simulator-fidelity.md#record-contents).
//!
//! Calls that return a correlation id return the HIP call's internal correlation id, which
//! every record of that call carries under direct dispatch. Under indirect dispatch
//! (`direct_dispatch=0`) HIP's worker thread submits the work and each packet or copy
//! gets a fresh id made there, so no device record carries the call's id.
//!
//! The HIP API callback payload carries the call's arguments for the calls modelled here
//! (`*_with` variants take the program's pointers; the others make up plausible ones).
use crate::engine::dispatch::{self, ApiCall, CopyWork, KernelWork};
use crate::engine::signal;
use crate::hip::streams::{self, StreamInfo};
use crate::hip::{code_objects, hip_args, worker};
use crate::machine::SmallCopies;
use crate::SimError;
use rocprofiler_sdk_sys as sys;
use std::cell::Cell;
use std::sync::OnceLock;

pub use crate::hip::code_objects::KernelResources;
pub use crate::hip::streams::{NULL_STREAM, STREAM_LEGACY, STREAM_PER_THREAD};

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

/// `hipStreamCreate` on the current device. HIP_STREAM CREATE (phase NONE) fires after the call.
pub fn stream_create() -> Result<HipStream, SimError> {
    stream_create_with(op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate))
}

/// The HIP functions that create a stream (a `hipStream_t*` out-parameter, docs/sdk-facts.md#stream-operations).
const STREAM_CREATE_OPS: [sys::rocprofiler_hip_runtime_api_id_t; 4] = [
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreateWithFlags,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreateWithPriority,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipExtStreamCreateWithCUMask,
];

/// A stream creation traced under the creating function's own operation id (`api_op`, one of
/// `hipStreamCreate`, `hipStreamCreateWithFlags`, `hipStreamCreateWithPriority`,
/// `hipExtStreamCreateWithCUMask`). Flags, priorities and masks do not change what the SDK
/// sees: no SET (the stream is an out-parameter), then CREATE after the call.
pub fn stream_create_with(api_op: i32) -> Result<HipStream, SimError> {
    if !STREAM_CREATE_OPS.contains(&api_op) {
        return Err(SimError::InvalidArgument(format!(
            "HIP operation {api_op} does not create a stream"
        )));
    }
    runtime()?;
    let device = current_device();
    let call = ApiCall::enter(api_op, None);
    let value = streams::create(device);
    call.exit();
    created(value);
    Ok(value)
}

/// HIP_STREAM CREATE after a create call that wrote `value` to `*stream`.
fn created(value: HipStream) {
    let traced = dispatch::hip_stream_traced(sys::ROCPROFILER_HIP_STREAM_CREATE);
    if let Some(id) = streams::register_created(value, traced) {
        dispatch::stream_lifecycle(sys::ROCPROFILER_HIP_STREAM_CREATE, id, value);
    }
}

/// A stream creation (`api_op` as for [`stream_create_with`]) that the HIP runtime rejected,
/// e.g. for bad flags: traced like any failed call. SDK 1.0.0's CREATE wrapper does not look
/// at the result: if a HIP_STREAM callback context is active, CREATE fires anyway and adds
/// whatever `*stream` holds to the stream map (`stream_out` = that value; `None` = a null
/// `hipStream_t*`, for which CREATE carries id 0 and value 0). A `*stream` still holding the
/// null stream moves the null stream to a new id, so later SETs on it no longer say 0. The
/// newer map keeps the earlier behaviour here: nothing after a failed create.
pub fn stream_create_failed(api_op: i32, stream_out: Option<HipStream>) -> Result<(), SimError> {
    if !STREAM_CREATE_OPS.contains(&api_op) {
        return Err(SimError::InvalidArgument(format!(
            "HIP operation {api_op} does not create a stream"
        )));
    }
    runtime()?;
    ApiCall::enter(api_op, None).exit();
    if crate::machine::machine().stream_map.throws_on_unknown() {
        match stream_out {
            Some(value) => created(value),
            None => {
                if dispatch::hip_stream_traced(sys::ROCPROFILER_HIP_STREAM_CREATE) {
                    dispatch::stream_lifecycle(sys::ROCPROFILER_HIP_STREAM_CREATE, 0, 0);
                }
            }
        }
    }
    Ok(())
}

/// `hipStreamDestroy`: waits for the stream's work, then HIP_STREAM DESTROY after the call.
/// Under the SDK 1.0.0 map DESTROY looks the stream up (keeping its entry) and aborts the
/// process for a value the map lacks, even when HIP rejected the handle.
pub fn stream_destroy(stream: HipStream) -> Result<(), SimError> {
    runtime()?;
    let strict = crate::machine::machine().stream_map.throws_on_unknown();
    let strict_lookup = || {
        if !dispatch::hip_stream_traced(sys::ROCPROFILER_HIP_STREAM_DESTROY) {
            return None;
        }
        Some(streams::sdk_id(stream).unwrap_or_else(|| streams::abort_unmapped(stream, "DESTROY")))
    };
    let info = match streams::resolve(stream, current_device()) {
        Ok(info)
            if info.value == stream
                && !matches!(stream, NULL_STREAM | STREAM_LEGACY | STREAM_PER_THREAD) =>
        {
            info
        }
        rejected => {
            if strict {
                strict_lookup();
            }
            return Err(rejected.err().unwrap_or_else(|| {
                SimError::InvalidArgument(format!("stream {stream:#x} cannot be destroyed"))
            }));
        }
    };
    let call = ApiCall::enter(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy),
        None,
    );
    signal::wait_stream(info.key());
    let destroyed = streams::destroy(stream);
    call.exit();
    destroyed?;
    let id = if strict {
        strict_lookup()
    } else {
        Some(info.id)
    };
    if let Some(id) = id {
        dispatch::stream_lifecycle(sys::ROCPROFILER_HIP_STREAM_DESTROY, id, stream);
    }
    Ok(())
}

/// A HIP_STREAM SET window on the calling thread that is not tied to one traced call: what
/// the SDK fires around a call with a stream argument whose body makes further HIP calls on
/// the same thread (they run inside the window, so a tool's thread-local stream stack holds
/// `stream` for them), or around a call that never returns. Dropping it without
/// [`stream_window_exit`] fires no SET EXIT, as for a call that never returned.
pub struct StreamWindow(crate::engine::dispatch::SetWindow);

/// Opens a [`StreamWindow`]: HIP_STREAM SET ENTER for `stream`, to the HIP_STREAM callback
/// contexts active now (they, and only they, get the EXIT). Under the SDK 1.0.0 map a stream
/// the map lacks aborts the process while such a context is active, as a SET does.
pub fn stream_window_enter(stream: HipStream) -> Result<StreamWindow, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    Ok(StreamWindow(crate::engine::dispatch::SetWindow::enter(
        &info,
        crate::time::clock::gettid(),
    )))
}

/// Closes a [`StreamWindow`]: SET EXIT to the contexts that got its ENTER.
pub fn stream_window_exit(window: StreamWindow) {
    window.0.exit();
}

/// Sends the stream's next work to HSA queue `queue` (a queue handle). Several streams may
/// share a queue; a stream may move. Not a HIP call: this is how the runtime maps streams.
pub fn bind_stream_to_queue(stream: HipStream, queue: u64) -> Result<(), SimError> {
    streams::bind_queue(stream, current_device(), queue)
}

/// ROCTx's `roctxNameHipStream(name, stream)` on the calling thread: MARKER_NAME_API
/// ENTER and EXIT to the contexts that trace it (see `roctx.rs`); returns ROCTx's 0. Not a HIP
/// call, so no HIP API record and no HIP_STREAM SET. `name` must not contain NUL.
pub fn roctx_name_hip_stream(stream: HipStream, name: &str) -> Result<i32, SimError> {
    crate::engine::roctx::name_hip_stream_str(name, stream)
}

/// ROCTx's `roctxRangePushA(message)` on the calling thread: MARKER_CORE_API ENTER and EXIT to
/// the contexts that trace it (see `roctx.rs`); returns the new range's 0-based level. Not a
/// HIP call. `message` must not contain NUL.
pub fn roctx_range_push(message: &str) -> Result<i32, SimError> {
    let message = roctx_message(message)?;
    Ok(crate::engine::roctx::range_push(Some(&message)))
}

/// ROCTx's `roctxRangePop()` on the calling thread; returns the closed range's level, or -1
/// when the thread had none open (the callbacks fire either way, as the SDK's do).
pub fn roctx_range_pop() -> i32 {
    crate::engine::roctx::range_pop()
}

/// ROCTx's `roctxMarkA(message)` on the calling thread. `message` must not contain NUL.
pub fn roctx_mark(message: &str) -> Result<(), SimError> {
    let message = roctx_message(message)?;
    crate::engine::roctx::mark(Some(&message));
    Ok(())
}

fn roctx_message(message: &str) -> Result<std::ffi::CString, SimError> {
    std::ffi::CString::new(message).map_err(|_| {
        SimError::InvalidArgument(format!("ROCTx message {message:?} contains a NUL byte"))
    })
}

/// The SDK stream id a `hipStream_t` maps to on this thread (no HIP call is recorded).
/// Under the SDK 1.0.0 map, a value the map lacks is `UnknownStream`.
pub fn sdk_stream_id(stream: HipStream) -> Result<u64, SimError> {
    let info = streams::resolve(stream, current_device())?;
    if info.mapped {
        Ok(info.id)
    } else {
        Err(SimError::UnknownStream(stream))
    }
}

/// Loads a code object on `device`: CODE_OBJECT LOAD, then DEVICE_KERNEL_SYMBOL_REGISTER per
/// kernel (phase LOAD), with the mangled names given.
pub fn load_code_object(
    device: u32,
    mangled_kernel_names: &[&str],
) -> Result<(u64, Vec<KernelId>), SimError> {
    runtime()?;
    check_device(device)?;
    let (id, kernels) = code_objects::load(device, mangled_kernel_names)?;
    Ok((id, kernels.into_iter().map(KernelId).collect()))
}

/// As [`load_code_object`], each kernel with the resources its descriptor declares.
pub fn load_code_object_with_resources(
    device: u32,
    kernels: &[(&str, KernelResources)],
) -> Result<(u64, Vec<KernelId>), SimError> {
    runtime()?;
    check_device(device)?;
    let (id, kernels) = code_objects::load_with_resources(device, kernels)?;
    Ok((id, kernels.into_iter().map(KernelId).collect()))
}

/// Unloads a code object (phase UNLOAD callbacks); its kernel names become invalid.
pub fn unload_code_object(id: u64) -> Result<(), SimError> {
    runtime()?;
    code_objects::unload(id)
}

/// The kernel id of a kernel registered on `device` (e.g. the blit kernels).
pub fn find_kernel(device: u32, mangled_name: &str) -> Option<KernelId> {
    code_objects::find_kernel(device, mangled_name).map(KernelId)
}

fn kernel_work(stream: &StreamInfo, launch: &KernelLaunch) -> Result<KernelWork, SimError> {
    let device = code_objects::kernel_device(launch.kernel.0)
        .ok_or(SimError::UnknownKernel(launch.kernel.0))?;
    if device != stream.device {
        return Err(SimError::InvalidArgument(format!(
            "kernel {} is loaded on device {device}, stream {:#x} is on device {}",
            launch.kernel.0, stream.value, stream.device
        )));
    }
    Ok(KernelWork {
        correlation_id: 0,
        kernel_id: launch.kernel.0,
        stream: *stream,
        grid: launch.grid,
        block: launch.block,
        private_segment_size: launch.private_segment_size,
        group_segment_size: launch.group_segment_size,
        duration_ns: launch.duration_ns,
    })
}

/// One call with a stream argument that submits kernels.
fn submit_kernels(
    api_op: i32,
    stream: HipStream,
    launches: &[KernelLaunch],
    args: sys::rocprofiler_hip_api_args_t,
) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    submit_kernels_on(api_op, info, true, launches, false, args)
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

/// Number of blocks per dimension of a launch whose grid is in work-items.
fn blocks(launch: &KernelLaunch) -> [u32; 3] {
    std::array::from_fn(|i| launch.grid[i] / launch.block[i].max(1))
}

fn launch_args(
    stream: HipStream,
    launch: &KernelLaunch,
    call: &LaunchCall,
) -> sys::rocprofiler_hip_api_args_t {
    let mut args = hip_args::zeroed();
    args.hipLaunchKernel = sys::rocprofiler_hip_api_args_hipLaunchKernel_t {
        function_address: call.function as usize as *const std::ffi::c_void,
        numBlocks: hip_args::dim3(blocks(launch)),
        dimBlocks: hip_args::dim3(launch.block),
        args: call.args as usize as *mut *mut std::ffi::c_void,
        sharedMemBytes: launch.group_segment_size as usize,
        stream: hip_args::stream_ptr(stream),
    };
    args
}

fn module_launch_args(
    stream: HipStream,
    launch: &KernelLaunch,
    call: &LaunchCall,
) -> sys::rocprofiler_hip_api_args_t {
    let [gx, gy, gz] = blocks(launch);
    let [bx, by, bz] = launch.block;
    let mut args = hip_args::zeroed();
    args.hipModuleLaunchKernel = sys::rocprofiler_hip_api_args_hipModuleLaunchKernel_t {
        func: call.function as usize as sys::hipFunction_t,
        gridDimX: gx,
        gridDimY: gy,
        gridDimZ: gz,
        blockDimX: bx,
        blockDimY: by,
        blockDimZ: bz,
        sharedMemBytes: launch.group_segment_size,
        stream: hip_args::stream_ptr(stream),
        kernelParams: call.args as usize as *mut *mut std::ffi::c_void,
        extra: std::ptr::null_mut(),
    };
    args
}

/// Submits kernels on `info` inside one HIP call (with a SET if the function has a stream
/// argument); with `wait`, the call returns only after they completed and were pushed.
fn submit_kernels_on(
    api_op: i32,
    info: StreamInfo,
    with_set: bool,
    launches: &[KernelLaunch],
    wait: bool,
    args: sys::rocprofiler_hip_api_args_t,
) -> Result<u64, SimError> {
    let mut works = launches
        .iter()
        .map(|l| kernel_work(&info, l))
        .collect::<Result<Vec<_>, _>>()?;
    for _ in &works {
        signal::begin(info.device, info.key());
    }
    let call = ApiCall::enter_with_args(api_op, with_set.then_some(&info), args);
    for work in &mut works {
        work.correlation_id = submission_correlation_id(call.correlation_id);
    }
    worker::submit(move || works.into_iter().for_each(dispatch::enqueue_kernel));
    if wait {
        signal::wait_stream(info.key());
    }
    let correlation_id = call.correlation_id;
    call.exit();
    Ok(correlation_id)
}

/// `hipLaunchKernel` (op 214).
pub fn launch_kernel(stream: HipStream, launch: &KernelLaunch) -> Result<u64, SimError> {
    launch_kernel_with(stream, launch, &LaunchCall::default())
}

/// `hipLaunchKernel` with the program's host stub and argument array in the payload.
pub fn launch_kernel_with(
    stream: HipStream,
    launch: &KernelLaunch,
    call: &LaunchCall,
) -> Result<u64, SimError> {
    submit_kernels(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel),
        stream,
        &[*launch],
        launch_args(stream, launch, call),
    )
}

/// `hipModuleLaunchKernel` (op 308).
pub fn module_launch_kernel(stream: HipStream, launch: &KernelLaunch) -> Result<u64, SimError> {
    module_launch_kernel_with(stream, launch, &LaunchCall::default())
}

/// `hipModuleLaunchKernel` with the program's `hipFunction_t` and `kernelParams`.
pub fn module_launch_kernel_with(
    stream: HipStream,
    launch: &KernelLaunch,
    call: &LaunchCall,
) -> Result<u64, SimError> {
    submit_kernels(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel),
        stream,
        &[*launch],
        module_launch_args(stream, launch, call),
    )
}

/// `hipGraphLaunch` (op 166): one correlation id, one KERNEL_DISPATCH record per kernel.
pub fn graph_launch(stream: HipStream, kernels: &[KernelLaunch]) -> Result<u64, SimError> {
    graph_launch_with(stream, kernels, 0)
}

/// `hipGraphLaunch` with the program's `hipGraphExec_t` in the payload.
pub fn graph_launch_with(
    stream: HipStream,
    kernels: &[KernelLaunch],
    graph_exec: u64,
) -> Result<u64, SimError> {
    let mut args = hip_args::zeroed();
    args.hipGraphLaunch = sys::rocprofiler_hip_api_args_hipGraphLaunch_t {
        graphExec: graph_exec as usize as sys::hipGraphExec_t,
        stream: hip_args::stream_ptr(stream),
    };
    submit_kernels(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch),
        stream,
        kernels,
        args,
    )
}

/// The `__amd_rocclr_fillBufferAligned` dispatch that fills `bytes` on `device`.
fn fill_launch(device: u32, bytes: u64, duration_ns: u64) -> Result<KernelLaunch, SimError> {
    let kernel = find_kernel(device, BLIT_FILL_KERNEL).ok_or(SimError::UnknownKernel(0))?;
    let items = bytes.div_ceil(16).div_ceil(256).max(1) * 256;
    Ok(KernelLaunch {
        kernel,
        grid: [items.min(u32::MAX as u64) as u32, 1, 1],
        block: [256, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns,
    })
}

/// A made-up device address for calls given no pointer (the HIP API payload's `dst`/`src`).
fn made_up_address(device: Option<u32>) -> u64 {
    match device {
        // Wrapping: an invalid device is refused later by `check_device`, not by a panic here.
        Some(d) => 0x7fd0_0000_0000u64.wrapping_add(u64::from(d).wrapping_shl(36)),
        None => 0x7f40_0000_0000,
    }
}

/// `hipMemsetAsync` (op 293): a `__amd_rocclr_fillBufferAligned` blit kernel.
pub fn memset_async(stream: HipStream, bytes: u64, duration_ns: u64) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    let launch = fill_launch(info.device, bytes, duration_ns)?;
    let mut args = hip_args::zeroed();
    args.hipMemsetAsync = sys::rocprofiler_hip_api_args_hipMemsetAsync_t {
        dst: made_up_address(Some(info.device)) as usize as *mut std::ffi::c_void,
        value: 0,
        sizeBytes: bytes as usize,
        stream: hip_args::stream_ptr(stream),
    };
    submit_kernels_on(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync),
        info,
        true,
        &[launch],
        false,
        args,
    )
}

/// A stream fill traced as HIP function `api_op` (`hipMemsetD32Async`, ...): the same blit
/// kernel; the API payload is left zeroed (the simulator models only `hipMemsetAsync`'s).
pub fn memset_async_as(
    api_op: i32,
    stream: HipStream,
    bytes: u64,
    duration_ns: u64,
) -> Result<u64, SimError> {
    if api_op == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync {
        return memset_async(stream, bytes, duration_ns);
    }
    runtime()?;
    check_api_op(api_op)?;
    let info = streams::resolve(stream, current_device())?;
    let launch = fill_launch(info.device, bytes, duration_ns)?;
    submit_kernels_on(op(api_op), info, true, &[launch], false, hip_args::zeroed())
}

/// `hipMemset` (op 288): no stream argument, so no SET (docs/sdk-facts.md#stream-operations); the fill blit kernel runs on the
/// current device's null stream and the call returns when it finished on the device (its
/// record may come later, like every kernel's).
pub fn memset_sync(bytes: u64, duration_ns: u64) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(NULL_STREAM, current_device())?;
    let launch = fill_launch(info.device, bytes, duration_ns)?;
    let mut args = hip_args::zeroed();
    args.hipMemset = sys::rocprofiler_hip_api_args_hipMemset_t {
        dst: made_up_address(Some(info.device)) as usize as *mut std::ffi::c_void,
        value: 0,
        sizeBytes: bytes as usize,
    };
    submit_kernels_on(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset),
        info,
        false,
        &[launch],
        true,
        args,
    )
}

enum CopyPath {
    Sdma(CopyWork),
    Blit(KernelWork),
}

/// The work the HIP runtime submits for `copy` (possibly none: a CPU `memcpy`), per the
/// machine's copy keys (`sdma_threshold`, `small_copies`, ...) (ROCclr `rocblit.cpp`: `DmaBlitManager`,
/// `KernelBlitManager` read/write/copy paths).
fn copy_paths(
    stream: &StreamInfo,
    copy: &Copy,
    call: &CopyCall,
) -> Result<Vec<CopyPath>, SimError> {
    let (src, dst) = match copy.kind {
        CopyKind::HostToHost => (None, None),
        CopyKind::HostToDevice => (None, Some(copy.dst_device.unwrap_or(stream.device))),
        CopyKind::DeviceToHost => (Some(copy.src_device.unwrap_or(stream.device)), None),
        CopyKind::DeviceToDevice => (
            Some(copy.src_device.unwrap_or(stream.device)),
            Some(copy.dst_device.unwrap_or(stream.device)),
        ),
    };
    for device in [src, dst].into_iter().flatten() {
        check_device(device)?;
    }
    let model = crate::machine::machine();
    let sdma = |direction: i32, bytes: u64, src_device, dst_device, offset: u64, duration_ns| {
        let at = |address: u64| {
            if address == 0 {
                0
            } else {
                address.wrapping_add(offset)
            }
        };
        CopyPath::Sdma(CopyWork {
            correlation_id: 0,
            direction,
            bytes,
            src_device,
            dst_device,
            stream: *stream,
            duration_ns,
            dst_address: at(call.dst),
            src_address: at(call.src),
        })
    };
    // A shader blit: `__amd_rocclr_copyBuffer` over 16-byte items in 256-wide groups.
    let blit = |device: u32| -> Result<CopyPath, SimError> {
        let kernel = find_kernel(device, BLIT_COPY_KERNEL).ok_or(SimError::UnknownKernel(0))?;
        let items = copy.bytes.div_ceil(16).div_ceil(256).max(1) * 256;
        Ok(CopyPath::Blit(KernelWork {
            correlation_id: 0,
            kernel_id: kernel.0,
            stream: *stream,
            grid: [items.min(u32::MAX as u64) as u32, 1, 1],
            block: [256, 1, 1],
            private_segment_size: 0,
            group_segment_size: 0,
            duration_ns: copy.duration_ns,
        }))
    };
    let paths = match copy.kind {
        // Both sides are host memory: the runtime copies with the CPU.
        CopyKind::HostToHost if !model.h2h_record => Vec::new(),
        CopyKind::HostToHost => vec![sdma(
            copy.kind.operation(),
            copy.bytes,
            None,
            None,
            0,
            copy.duration_ns,
        )],
        CopyKind::DeviceToDevice if src == dst => vec![blit(stream.device)?],
        CopyKind::DeviceToDevice => vec![sdma(
            copy.kind.operation(),
            copy.bytes,
            src,
            dst,
            0,
            copy.duration_ns,
        )],
        CopyKind::HostToDevice | CopyKind::DeviceToHost => {
            let gpu = src.or(dst);
            let cpu_copy_max = if copy.kind == CopyKind::HostToDevice {
                model.large_bar_h2d_max
            } else {
                model.large_bar_d2h_max
            };
            if call.host == HostMemory::Pageable && copy.bytes <= cpu_copy_max {
                // Large-BAR GPU: the CPU writes or reads the device memory directly.
                Vec::new()
            } else if copy.bytes <= model.sdma_threshold
                && model.small_copies == SmallCopies::BlitKernel
            {
                // Newer runtimes run a small copy as a shader blit on the stream's GPU
                // (`KernelBlitManager::useShaderCopyBufferPath`).
                vec![blit(stream.device)?]
            } else if copy.bytes <= model.sdma_threshold {
                // A blit on the GPU: the runtime hands the GPU agent for both sides.
                vec![sdma(
                    sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE,
                    copy.bytes,
                    gpu,
                    gpu,
                    0,
                    copy.duration_ns,
                )]
            } else if call.host == HostMemory::Pageable
                && model.pageable_chunk > 0
                && copy.bytes > model.pageable_chunk
            {
                // Pinned piece by piece: one async copy per piece, the time shared pro rata.
                let pieces = copy.bytes.div_ceil(model.pageable_chunk);
                (0..pieces)
                    .map(|i| {
                        let offset = i * model.pageable_chunk;
                        let bytes = model.pageable_chunk.min(copy.bytes - offset);
                        let duration =
                            (copy.duration_ns as u128 * bytes as u128 / copy.bytes as u128) as u64;
                        sdma(copy.kind.operation(), bytes, src, dst, offset, duration)
                    })
                    .collect()
            } else {
                vec![sdma(
                    copy.kind.operation(),
                    copy.bytes,
                    src,
                    dst,
                    0,
                    copy.duration_ns,
                )]
            }
        }
    };
    Ok(paths)
}

/// The HIP API payload of a copy call (`hipMemcpyAsync` with a stream, `hipMemcpy` without).
fn copy_args(
    copy: &Copy,
    call: &CopyCall,
    stream: Option<HipStream>,
    device: u32,
) -> sys::rocprofiler_hip_api_args_t {
    let side = |address: u64, device_side: Option<u32>, host: bool| match address {
        0 => made_up_address(if host {
            None
        } else {
            device_side.or(Some(device))
        }),
        a => a,
    };
    let dst = side(
        call.dst,
        copy.dst_device,
        matches!(copy.kind, CopyKind::HostToHost | CopyKind::DeviceToHost),
    ) as usize as *mut std::ffi::c_void;
    let src = side(
        call.src,
        copy.src_device,
        matches!(copy.kind, CopyKind::HostToHost | CopyKind::HostToDevice),
    ) as usize as *const std::ffi::c_void;
    let kind = call.hip_kind.unwrap_or(match copy.kind {
        CopyKind::HostToHost => 0,
        CopyKind::HostToDevice => 1,
        CopyKind::DeviceToHost => 2,
        CopyKind::DeviceToDevice => 3,
    });
    let mut args = hip_args::zeroed();
    match stream {
        Some(stream) => {
            args.hipMemcpyAsync = sys::rocprofiler_hip_api_args_hipMemcpyAsync_t {
                dst,
                src,
                sizeBytes: copy.bytes as usize,
                kind,
                stream: hip_args::stream_ptr(stream),
            }
        }
        None => {
            args.hipMemcpy = sys::rocprofiler_hip_api_args_hipMemcpy_t {
                dst,
                src,
                sizeBytes: copy.bytes as usize,
                kind,
            }
        }
    }
    args
}

#[allow(clippy::too_many_arguments)]
fn submit_copy(
    api_op: i32,
    info: StreamInfo,
    with_set: bool,
    copy: &Copy,
    call: &CopyCall,
    wait: bool,
    args: sys::rocprofiler_hip_api_args_t,
) -> Result<u64, SimError> {
    let mut paths = copy_paths(&info, copy, call)?;
    for _ in &paths {
        signal::begin(info.device, info.key());
    }
    let api = ApiCall::enter_with_args(api_op, with_set.then_some(&info), args);
    let correlation_id = submission_correlation_id(api.correlation_id);
    for path in &mut paths {
        match path {
            CopyPath::Sdma(work) => work.correlation_id = correlation_id,
            CopyPath::Blit(work) => work.correlation_id = correlation_id,
        }
    }
    if !paths.is_empty() {
        worker::submit(move || {
            for path in paths {
                match path {
                    CopyPath::Sdma(work) => dispatch::enqueue_copy(work),
                    CopyPath::Blit(work) => dispatch::enqueue_kernel(work),
                }
            }
        });
    }
    if wait {
        signal::wait_stream(info.key());
    }
    let correlation_id = api.correlation_id;
    api.exit();
    Ok(correlation_id)
}

/// `hipMemcpyAsync` (op 268) on `stream`, from or to pinned host memory.
pub fn memcpy_async(stream: HipStream, copy: &Copy) -> Result<u64, SimError> {
    memcpy_async_with(stream, copy, &CopyCall::default())
}

/// `hipMemcpyAsync` with the program's host memory kind and pointers.
pub fn memcpy_async_with(stream: HipStream, copy: &Copy, call: &CopyCall) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    let args = copy_args(copy, call, Some(stream), info.device);
    submit_copy(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync),
        info,
        true,
        copy,
        call,
        false,
        args,
    )
}

/// A stream copy traced as HIP function `api_op` (`hipMemcpyHtoDAsync`, `hipMemcpyWithStream`,
/// ...) instead of `hipMemcpyAsync`; its API payload is left zeroed (the simulator models only
/// `hipMemcpyAsync`'s and `hipMemcpy`'s).
pub fn memcpy_async_as(
    api_op: i32,
    stream: HipStream,
    copy: &Copy,
    call: &CopyCall,
) -> Result<u64, SimError> {
    if api_op == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync {
        return memcpy_async_with(stream, copy, call);
    }
    runtime()?;
    check_api_op(api_op)?;
    let info = streams::resolve(stream, current_device())?;
    submit_copy(
        op(api_op),
        info,
        true,
        copy,
        call,
        false,
        hip_args::zeroed(),
    )
}

/// Waits, untraced, until the work submitted to `stream` so far finished on the device: what
/// a host callback enqueued behind that work waits for.
pub fn stream_wait(stream: HipStream) -> Result<(), SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    signal::wait_stream(info.key());
    Ok(())
}

fn check_api_op(api_op: i32) -> Result<(), SimError> {
    if api_op < 0 || api_op as usize >= sys::HIP_RUNTIME_API_NAMES.len() {
        return Err(SimError::InvalidArgument(format!(
            "unknown HIP operation id {api_op}"
        )));
    }
    Ok(())
}

/// `hipMemcpy` (op 259): no stream argument, so no SET (docs/sdk-facts.md#stream-operations); runs on the current device's
/// null stream and returns when the copy completed. SDMA copy records are pushed before it
/// returns; a copy within one GPU is a blit kernel, whose record follows after the kernel lag
/// like any kernel's. Pinned host memory.
pub fn memcpy_sync(copy: &Copy) -> Result<u64, SimError> {
    memcpy_sync_with(copy, &CopyCall::default())
}

/// `hipMemcpy` with the program's host memory kind and pointers.
pub fn memcpy_sync_with(copy: &Copy, call: &CopyCall) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(NULL_STREAM, current_device())?;
    let args = copy_args(copy, call, None, info.device);
    submit_copy(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy),
        info,
        false,
        copy,
        call,
        true,
        args,
    )
}

/// `hipStreamSynchronize` (op 346): waits until the stream's work finished on the device.
/// Copy records are pushed by then; kernel records may come later (the kernel record lag).
pub fn stream_synchronize(stream: HipStream) -> Result<(), SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    let call = ApiCall::enter(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize),
        Some(&info),
    );
    signal::wait_stream(info.key());
    call.exit();
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
