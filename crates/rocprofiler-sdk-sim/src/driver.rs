//! The driver side: a Rust API that plays a HIP program against the simulated SDK.
//!
//! Every function here is one HIP runtime call (named in its doc) and fires, on the calling
//! thread, exactly what the real runtime + SDK fire (§6.4, §18.13): HIP_STREAM SET ENTER (only
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
//! Copies: host<->device and peer copies are SDMA copies (MEMORY_COPY records); a
//! device-to-device copy within one GPU is a blit kernel (`__amd_rocclr_copyBuffer`,
//! KERNEL_DISPATCH record), and memset is `__amd_rocclr_fillBufferAligned` (§10.4, §18.36).
//!
//! Calls that return a correlation id return the HIP call's internal correlation id, which
//! every record of that call carries.
use crate::dispatch::{self, ApiCall, CopyWork, KernelWork};
use crate::streams::{self, StreamInfo};
use crate::{code_objects, signal, worker, SimError};
use rocprofiler_sdk_sys as sys;
use std::cell::Cell;
use std::sync::OnceLock;

pub use crate::streams::{NULL_STREAM, STREAM_LEGACY, STREAM_PER_THREAD};

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
    crate::registration::runtime_registration()?;
    RUNTIME_LOADED.get_or_init(|| {
        for device in 0..gpus() {
            let _ = code_objects::load(device, &BLIT_KERNELS);
        }
    });
    Ok(())
}

fn gpus() -> u32 {
    crate::machine::machine().gpus
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

/// `hipSetDevice`: the calling thread's current device.
pub fn set_device(device: u32) -> Result<(), SimError> {
    runtime()?;
    check_device(device)?;
    let call = ApiCall::enter(op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice), None);
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

/// The HIP functions that create a stream (a `hipStream_t*` out-parameter, §6.3).
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
    let (value, id) = streams::create(device);
    call.exit();
    dispatch::stream_lifecycle(sys::ROCPROFILER_HIP_STREAM_CREATE, id, value);
    Ok(value)
}

/// `hipStreamDestroy`: waits for the stream's work, then HIP_STREAM DESTROY after the call.
pub fn stream_destroy(stream: HipStream) -> Result<(), SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    if info.value != stream || matches!(stream, NULL_STREAM | STREAM_LEGACY | STREAM_PER_THREAD) {
        return Err(SimError::InvalidArgument(format!(
            "stream {stream:#x} cannot be destroyed"
        )));
    }
    let call = ApiCall::enter(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy),
        None,
    );
    signal::wait_stream(info.key());
    let destroyed = streams::destroy(stream);
    call.exit();
    let (id, _) = destroyed?;
    dispatch::stream_lifecycle(sys::ROCPROFILER_HIP_STREAM_DESTROY, id, stream);
    Ok(())
}

/// Sends the stream's next work to HSA queue `queue` (a queue handle). Several streams may
/// share a queue; a stream may move. Not a HIP call: this is how the runtime maps streams.
pub fn bind_stream_to_queue(stream: HipStream, queue: u64) -> Result<(), SimError> {
    streams::bind_queue(stream, current_device(), queue)
}

/// The SDK stream id a `hipStream_t` maps to on this thread (no HIP call is recorded).
pub fn sdk_stream_id(stream: HipStream) -> Result<u64, SimError> {
    Ok(streams::resolve(stream, current_device())?.id)
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
) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    submit_kernels_on(api_op, info, true, launches, false)
}

/// Submits kernels on `info` inside one HIP call (with a SET if the function has a stream
/// argument); with `wait`, the call returns only after they completed and were pushed.
fn submit_kernels_on(
    api_op: i32,
    info: StreamInfo,
    with_set: bool,
    launches: &[KernelLaunch],
    wait: bool,
) -> Result<u64, SimError> {
    let mut works = launches
        .iter()
        .map(|l| kernel_work(&info, l))
        .collect::<Result<Vec<_>, _>>()?;
    for _ in &works {
        signal::begin(info.device, info.key());
    }
    let call = ApiCall::enter(api_op, with_set.then_some(&info));
    for work in &mut works {
        work.correlation_id = call.correlation_id;
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
    submit_kernels(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel),
        stream,
        &[*launch],
    )
}

/// `hipModuleLaunchKernel` (op 308).
pub fn module_launch_kernel(stream: HipStream, launch: &KernelLaunch) -> Result<u64, SimError> {
    submit_kernels(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel),
        stream,
        &[*launch],
    )
}

/// `hipGraphLaunch` (op 166): one correlation id, one KERNEL_DISPATCH record per kernel.
pub fn graph_launch(stream: HipStream, kernels: &[KernelLaunch]) -> Result<u64, SimError> {
    submit_kernels(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch),
        stream,
        kernels,
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

/// `hipMemsetAsync` (op 293): a `__amd_rocclr_fillBufferAligned` blit kernel.
pub fn memset_async(stream: HipStream, bytes: u64, duration_ns: u64) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    let launch = fill_launch(info.device, bytes, duration_ns)?;
    submit_kernels_on(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync),
        info,
        true,
        &[launch],
        false,
    )
}

/// `hipMemset` (op 288): no stream argument, so no SET (§6.3); the fill blit kernel runs on the
/// current device's null stream and the call returns when it finished on the device (its
/// record may come later, like every kernel's).
pub fn memset_sync(bytes: u64, duration_ns: u64) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(NULL_STREAM, current_device())?;
    let launch = fill_launch(info.device, bytes, duration_ns)?;
    submit_kernels_on(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset),
        info,
        false,
        &[launch],
        true,
    )
}

enum CopyPath {
    Sdma(CopyWork),
    Blit(KernelWork),
}

fn copy_path(stream: &StreamInfo, copy: &Copy) -> Result<CopyPath, SimError> {
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
    if copy.kind == CopyKind::DeviceToDevice && src == dst {
        let kernel =
            find_kernel(stream.device, BLIT_COPY_KERNEL).ok_or(SimError::UnknownKernel(0))?;
        let items = copy.bytes.div_ceil(16).div_ceil(256).max(1) * 256;
        return Ok(CopyPath::Blit(KernelWork {
            correlation_id: 0,
            kernel_id: kernel.0,
            stream: *stream,
            grid: [items.min(u32::MAX as u64) as u32, 1, 1],
            block: [256, 1, 1],
            private_segment_size: 0,
            group_segment_size: 0,
            duration_ns: copy.duration_ns,
        }));
    }
    Ok(CopyPath::Sdma(CopyWork {
        correlation_id: 0,
        direction: copy.kind.operation(),
        bytes: copy.bytes,
        src_device: src,
        dst_device: dst,
        stream: *stream,
        duration_ns: copy.duration_ns,
    }))
}

fn submit_copy(
    api_op: i32,
    info: StreamInfo,
    with_set: bool,
    copy: &Copy,
    wait: bool,
) -> Result<u64, SimError> {
    let mut path = copy_path(&info, copy)?;
    signal::begin(info.device, info.key());
    let call = ApiCall::enter(api_op, with_set.then_some(&info));
    match &mut path {
        CopyPath::Sdma(work) => work.correlation_id = call.correlation_id,
        CopyPath::Blit(work) => work.correlation_id = call.correlation_id,
    }
    worker::submit(move || match path {
        CopyPath::Sdma(work) => dispatch::enqueue_copy(work),
        CopyPath::Blit(work) => dispatch::enqueue_kernel(work),
    });
    if wait {
        signal::wait_stream(info.key());
    }
    let correlation_id = call.correlation_id;
    call.exit();
    Ok(correlation_id)
}

/// `hipMemcpyAsync` (op 268) on `stream`.
pub fn memcpy_async(stream: HipStream, copy: &Copy) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    submit_copy(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync),
        info,
        true,
        copy,
        false,
    )
}

/// `hipMemcpy` (op 259): no stream argument, so no SET (§6.3); runs on the current device's
/// null stream and returns when the copy completed and its records were pushed.
pub fn memcpy_sync(copy: &Copy) -> Result<u64, SimError> {
    runtime()?;
    let info = streams::resolve(NULL_STREAM, current_device())?;
    submit_copy(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy),
        info,
        false,
        copy,
        true,
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

/// The HIP operation id of a runtime function name (`"hipMalloc"` -> 215).
pub fn hip_operation(name: &str) -> Option<i32> {
    sys::HIP_RUNTIME_API_NAMES
        .iter()
        .position(|n| *n == name)
        .map(|i| i as i32)
}

/// Waits until every device's submitted work completed and every record (kernel records
/// included, after their lag) was pushed (not a HIP call). Under the virtual clock this moves
/// virtual time forward to the last completion.
pub fn wait_idle() {
    worker::wait_idle();
    signal::wait_all();
}
