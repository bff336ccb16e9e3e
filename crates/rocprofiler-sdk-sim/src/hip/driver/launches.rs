//! Kernel calls: code objects and their kernels (docs/sdk-facts.md#code-objects-and-kernel-symbols),
//! `hipLaunchKernel`, `hipModuleLaunchKernel`, `hipGraphLaunch` (one correlation id, one
//! dispatch per kernel) and the memsets, which the runtime runs as a fill blit kernel.
use super::{
    check_api_op, check_device, current_device, made_up_address, op, runtime,
    submission_correlation_id, HipStream, KernelId, KernelLaunch, KernelResources, LaunchCall,
    BLIT_FILL_KERNEL, NULL_STREAM,
};
use crate::engine::dispatch::{self, ApiCall, GraphLaunch, KernelWork};
use crate::engine::signal;
use crate::hip::streams::{self, StreamInfo};
use crate::hip::{code_objects, hip_args, worker};
use crate::SimError;
use rocprofiler_sdk_sys as sys;

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
    submit_kernels_on(api_op, info, true, launches, false, args, None)
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
/// argument); with `wait`, the call returns only after they completed and were pushed. With
/// `graph`, the call is a launch of that `hipGraphExec_t`: the submission sits inside the
/// HIP_GRAPH EXEC_LAUNCH ENTER and EXIT (`engine/dispatch/graph.rs`).
#[allow(clippy::too_many_arguments)]
fn submit_kernels_on(
    api_op: i32,
    info: StreamInfo,
    with_set: bool,
    launches: &[KernelLaunch],
    wait: bool,
    args: sys::rocprofiler_hip_api_args_t,
    graph: Option<u64>,
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
    let dispatches = works.len() as u64;
    let launch = graph.map(|exec| GraphLaunch::enter(exec, info.device, call.correlation_id));
    worker::submit(move || works.into_iter().for_each(dispatch::enqueue_kernel));
    if let Some(launch) = launch {
        launch.exit(dispatches);
    }
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
    runtime()?;
    let info = streams::resolve(stream, current_device())?;
    submit_kernels_on(
        op(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch),
        info,
        true,
        kernels,
        false,
        args,
        Some(graph_exec),
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
        None,
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
    submit_kernels_on(
        op(api_op),
        info,
        true,
        &[launch],
        false,
        hip_args::zeroed(),
        None,
    )
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
        None,
    )
}
