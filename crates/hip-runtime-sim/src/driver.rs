//! The simulated SDK's driver, through its `rocsim_*` C ABI (crates/rocprofiler-sdk-sim
//! `capi`). The symbols are resolved at the final link against the simulated
//! `librocprofiler-sdk.so` (or its rlib in Rust tests), so the process has one SDK state,
//! shared with the tool. Each call here is one HIP call as the SDK sees it: SET, API records,
//! request callback, kernel/copy records correlated to it.

use crate::error::{
    HipError, HIP_ERROR_CONTEXT_IS_DESTROYED, HIP_ERROR_INVALID_DEVICE,
    HIP_ERROR_INVALID_DEVICE_FUNCTION, HIP_ERROR_INVALID_HANDLE, HIP_ERROR_INVALID_VALUE,
    HIP_ERROR_NOT_INITIALIZED, HIP_ERROR_UNKNOWN,
};
use std::ffi::{c_char, CString};
use std::sync::OnceLock;

pub type Stream = u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyKind {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

#[derive(Clone, Copy, Debug)]
pub struct CopyWork {
    pub kind: CopyKind,
    pub bytes: u64,
    pub src_device: Option<u32>,
    pub dst_device: Option<u32>,
    pub duration_ns: u64,
}

/// What the program passed to a copy call, beyond its direction and size.
#[derive(Clone, Copy, Debug)]
pub struct CopyCall {
    /// The host side is pageable memory (not a `hipHostMalloc` allocation).
    pub pageable: bool,
    pub dst: u64,
    pub src: u64,
    /// The `hipMemcpyKind` passed.
    pub hip_kind: i32,
}

/// What the program passed to a launch, for the HIP API payload: the host stub or
/// `hipFunction_t`, and the argument array.
#[derive(Clone, Copy, Debug)]
pub struct LaunchCall {
    pub function: u64,
    pub args: u64,
}

/// `rocsim_kernel_launch_t` (`kernel` is the SDK's kernel id; `grid` counts work-items per
/// dimension).
pub use rocsim_abi::rocsim_kernel_launch_t as KernelLaunch;

use rocprofiler_sdk_sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel;
use rocsim_abi::{
    rocsim_api_call_options_t, rocsim_code_object_options_t, rocsim_copy_t,
    rocsim_graph_launch_options_t, rocsim_launch_options_t, rocsim_memcpy_options_t,
    rocsim_memset_options_t, rocsim_stream_create_options_t,
};

/// The `rocsim_*` functions, declared once in `rocsim-abi`.
use rocsim_abi as ffi;

/// A `rocsim_*` status (`SimError::code`) as the `hipError_t` HIP would return.
fn check(status: i32) -> Result<(), HipError> {
    use rocsim_abi::*;
    let code = match status {
        ROCSIM_STATUS_SUCCESS => return Ok(()),
        ROCSIM_STATUS_INVALID_DEVICE => HIP_ERROR_INVALID_DEVICE,
        ROCSIM_STATUS_UNKNOWN_STREAM => HIP_ERROR_CONTEXT_IS_DESTROYED,
        ROCSIM_STATUS_UNKNOWN_KERNEL => HIP_ERROR_INVALID_DEVICE_FUNCTION,
        ROCSIM_STATUS_UNKNOWN_CODE_OBJECT => HIP_ERROR_INVALID_HANDLE,
        // HIP calls from inside the tool's initialize: the real runtime deadlocks (docs/simulator-fidelity.md#registration-and-lifecycle).
        ROCSIM_STATUS_CALLED_FROM_INITIALIZE => HIP_ERROR_NOT_INITIALIZED,
        ROCSIM_STATUS_INVALID_ARGUMENT => HIP_ERROR_INVALID_VALUE,
        _ => HIP_ERROR_UNKNOWN,
    };
    Err(HipError(code))
}

/// Number of HIP devices: the GPUs of the simulated machine that HIP may use
/// (`HIP_VISIBLE_DEVICES` and the other visibility variables, as the simulated SDK reads
/// them). The SDK's agent list is no substitute: it lists every GPU, hidden ones too, and a
/// tool-side agent query fails outright when the library's agent struct is smaller than this
/// crate's headers (ROCm 7.0).
pub fn gpu_count() -> u32 {
    static COUNT: OnceLock<u32> = OnceLock::new();
    // SAFETY: plain value call.
    *COUNT.get_or_init(|| unsafe { ffi::rocsim_device_count() })
}

/// The machine's GPU that HIP device `device` is (its position among all GPUs, which differs
/// from `device` when visibility variables hide GPUs).
pub fn gpu_ordinal(device: u32) -> u32 {
    // SAFETY: plain value call.
    let ordinal = unsafe { ffi::rocsim_device_gpu_ordinal(device) };
    u32::try_from(ordinal).unwrap_or(device)
}

pub fn set_device(device: u32) -> Result<(), HipError> {
    // SAFETY: plain value call.
    check(unsafe { ffi::rocsim_set_device(device) })
}

/// A stream created on the current device by the HIP function `op` (`hipStreamCreate`,
/// `hipStreamCreateWithFlags`, ...), traced under that function's operation id.
pub fn stream_create(op: i32) -> Result<Stream, HipError> {
    let mut stream = 0;
    let options = rocsim_stream_create_options_t {
        op,
        ..Default::default()
    };
    // SAFETY: valid options; `stream` is a valid out-pointer.
    check(unsafe { ffi::rocsim_stream_create(&options, &mut stream) })?;
    Ok(stream)
}

/// A stream creation HIP rejected, traced with the SDK's CREATE bookkeeping; `stream_out` is
/// what the program's `*stream` held (`None`: a null `hipStream_t*`).
pub fn stream_create_failed(op: i32, stream_out: Option<Stream>) -> Result<(), HipError> {
    let options = rocsim_stream_create_options_t {
        op,
        rejected: 1,
        has_stream_out: u32::from(stream_out.is_some()),
        stream_out: stream_out.unwrap_or(0),
    };
    // SAFETY: valid options; no stream is written.
    check(unsafe { ffi::rocsim_stream_create(&options, std::ptr::null_mut()) })
}

pub fn stream_destroy(stream: Stream) -> Result<(), HipError> {
    // SAFETY: plain value call.
    check(unsafe { ffi::rocsim_stream_destroy(stream) })
}

/// Loads a code object holding these kernels on `device`; returns its id and the kernel ids
/// in the same order. Kernels with descriptor resources are reported with them; a code object
/// registered by names only gets the simulated SDK's defaults.
pub fn load_code_object(
    device: u32,
    kernels: &[crate::code_object::KernelSymbol],
) -> Result<(u64, Vec<u64>), HipError> {
    let owned: Vec<CString> = kernels
        .iter()
        .map(|k| CString::new(k.name.as_str()).map_err(|_| HipError(HIP_ERROR_INVALID_VALUE)))
        .collect::<Result<_, _>>()?;
    let mut id = 0;
    let mut kernel_ids = vec![0u64; kernels.len()];
    let described = !kernels.is_empty() && kernels.iter().all(|k| k.resources.is_some());
    let symbols: Vec<rocsim_abi::rocsim_kernel_symbol_t> = kernels
        .iter()
        .zip(&owned)
        .filter_map(|(k, name)| {
            let r = k.resources?;
            Some(rocsim_abi::rocsim_kernel_symbol_t {
                name: name.as_ptr(),
                kernarg_segment_size: r.kernarg_segment_size,
                group_segment_size: r.group_segment_size,
                private_segment_size: r.private_segment_size,
                sgpr_count: r.sgpr_count,
                arch_vgpr_count: r.arch_vgpr_count,
                accum_vgpr_count: r.accum_vgpr_count,
            })
        })
        .collect();
    let names: Vec<*const c_char> = owned.iter().map(|n| n.as_ptr()).collect();
    let options = rocsim_code_object_options_t {
        device,
        count: kernels.len(),
        names: if described {
            std::ptr::null()
        } else {
            names.as_ptr()
        },
        symbols: if described {
            symbols.as_ptr()
        } else {
            std::ptr::null()
        },
    };
    // SAFETY: the array passed (`symbols` when every kernel is described, else `names`) holds
    // `count` entries whose names live in `owned` for the call; `kernel_ids` has room for
    // `count` ids.
    let status =
        unsafe { ffi::rocsim_load_code_object(&options, &mut id, kernel_ids.as_mut_ptr()) };
    check(status)?;
    Ok((id, kernel_ids))
}

pub fn unload_code_object(id: u64) -> Result<(), HipError> {
    // SAFETY: plain value call.
    check(unsafe { ffi::rocsim_unload_code_object(id) })
}

/// `hipLaunchKernel`; `call` is what the program passed (for the HIP API payload).
pub fn launch_kernel(
    stream: Stream,
    launch: &KernelLaunch,
    call: &LaunchCall,
) -> Result<(), HipError> {
    launch_as(0, stream, launch, call)
}

pub fn module_launch_kernel(
    stream: Stream,
    launch: &KernelLaunch,
    call: &LaunchCall,
) -> Result<(), HipError> {
    launch_as(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel,
        stream,
        launch,
        call,
    )
}

/// One kernel launched by HIP function `op` (0: `hipLaunchKernel`).
fn launch_as(
    op: i32,
    stream: Stream,
    launch: &KernelLaunch,
    call: &LaunchCall,
) -> Result<(), HipError> {
    let options = rocsim_launch_options_t {
        launch: *launch,
        stream,
        function: call.function,
        args: call.args,
        op,
    };
    // SAFETY: valid options; null correlation out-pointer.
    check(unsafe { ffi::rocsim_launch_kernel(&options, std::ptr::null_mut()) })
}

/// All kernels under the one correlation id of the hipGraphLaunch call.
pub fn graph_launch(
    stream: Stream,
    launches: &[KernelLaunch],
    graph_exec: u64,
) -> Result<(), HipError> {
    let options = rocsim_graph_launch_options_t {
        kernels: launches.as_ptr(),
        count: launches.len(),
        stream,
        graph_exec,
    };
    // SAFETY: `kernels` is a valid array of `count` launches.
    check(unsafe { ffi::rocsim_graph_launch(&options, std::ptr::null_mut()) })
}

fn rocsim_copy(copy: &CopyWork) -> rocsim_copy_t {
    use rocsim_abi::*;
    let device = |d: Option<u32>| d.map_or(ROCSIM_DEVICE_DEFAULT, |d| d as i32);
    rocsim_copy_t {
        kind: match copy.kind {
            CopyKind::HostToHost => ROCSIM_COPY_HOST_TO_HOST,
            CopyKind::HostToDevice => ROCSIM_COPY_HOST_TO_DEVICE,
            CopyKind::DeviceToHost => ROCSIM_COPY_DEVICE_TO_HOST,
            CopyKind::DeviceToDevice => ROCSIM_COPY_DEVICE_TO_DEVICE,
        },
        bytes: copy.bytes,
        src_device: device(copy.src_device),
        dst_device: device(copy.dst_device),
        duration_ns: copy.duration_ns,
    }
}

/// A copy by HIP function `op` (0: the plain one), on `stream` or, with `sync`, `hipMemcpy`.
fn memcpy(
    sync: bool,
    op: i32,
    stream: Stream,
    copy: &CopyWork,
    call: &CopyCall,
) -> Result<(), HipError> {
    let options = rocsim_memcpy_options_t {
        copy: rocsim_copy(copy),
        sync: u32::from(sync),
        op,
        stream,
        host: if call.pageable {
            rocsim_abi::ROCSIM_HOST_PAGEABLE
        } else {
            rocsim_abi::ROCSIM_HOST_PINNED
        },
        has_hip_kind: 1,
        hip_kind: call.hip_kind,
        dst: call.dst,
        src: call.src,
    };
    // SAFETY: valid options; null correlation out-pointer.
    check(unsafe { ffi::rocsim_memcpy(&options, std::ptr::null_mut()) })
}

pub fn memcpy_async(stream: Stream, copy: &CopyWork, call: &CopyCall) -> Result<(), HipError> {
    memcpy(false, 0, stream, copy, call)
}

/// `hipMemcpy`: no SET; returns when the copy completed.
pub fn memcpy_sync(copy: &CopyWork, call: &CopyCall) -> Result<(), HipError> {
    memcpy(true, 0, 0, copy, call)
}

/// A stream copy traced as HIP function `op` (`hipMemcpyHtoDAsync`, `hipMemcpyWithStream`, ...).
pub fn memcpy_async_as(
    op: i32,
    stream: Stream,
    copy: &CopyWork,
    call: &CopyCall,
) -> Result<(), HipError> {
    memcpy(false, op, stream, copy, call)
}

/// A fill of `bytes`: on `stream` by HIP function `op` (0: `hipMemsetAsync`), or with `sync`
/// `hipMemset`.
fn memset(
    sync: bool,
    op: i32,
    stream: Stream,
    bytes: u64,
    duration_ns: u64,
) -> Result<(), HipError> {
    let options = rocsim_memset_options_t {
        bytes,
        duration_ns,
        sync: u32::from(sync),
        op,
        stream,
    };
    // SAFETY: valid options; null correlation out-pointer.
    check(unsafe { ffi::rocsim_memset(&options, std::ptr::null_mut()) })
}

/// `hipMemsetAsync`: a fill blit kernel on the stream.
pub fn memset_async(stream: Stream, bytes: u64, duration_ns: u64) -> Result<(), HipError> {
    memset(false, 0, stream, bytes, duration_ns)
}

/// A stream fill traced as HIP function `op` (`hipMemsetD32Async`, ...).
pub fn memset_async_as(
    op: i32,
    stream: Stream,
    bytes: u64,
    duration_ns: u64,
) -> Result<(), HipError> {
    memset(false, op, stream, bytes, duration_ns)
}

/// `hipMemset`: the fill kernel on the current device's null stream, no SET; returns when it
/// completed.
pub fn memset_sync(bytes: u64, duration_ns: u64) -> Result<(), HipError> {
    memset(true, 0, 0, bytes, duration_ns)
}

/// `hipEventRecord`, `hipEventRecordWithFlags` or `hipStreamWaitEvent` (`op`), traced with its
/// event and stream (docs/xla-interface.md#stream-waits).
pub fn event_call(op: i32, event: u64, stream: Stream, flags: u32) -> Result<(), HipError> {
    let mut corr = 0;
    // SAFETY: plain values and a local out-pointer.
    check(unsafe { ffi::rocsim_event_call(op, event, stream, flags, &mut corr) })
}

pub fn stream_synchronize(stream: Stream) -> Result<(), HipError> {
    // SAFETY: plain value call.
    check(unsafe { ffi::rocsim_stream_synchronize(stream) })
}

/// Waits, untraced, until the work submitted to `stream` so far finished on the device.
pub fn stream_wait(stream: Stream) -> Result<(), HipError> {
    // SAFETY: plain value call.
    check(unsafe { ffi::rocsim_stream_wait(stream) })
}

pub fn device_synchronize() -> Result<(), HipError> {
    // SAFETY: plain value call.
    check(unsafe { ffi::rocsim_device_synchronize() })
}

/// A HIP call without device work; `Some(stream)` gives it a SET (one stream argument).
pub fn api_call(op: i32, stream: Option<Stream>) -> Result<(), HipError> {
    call(op, stream, false)
}

/// A HIP call without device work, possibly rejected, on a stream HIP may not know: the SDK's
/// wrappers see it before HIP validates, so its SET follows the SDK's stream map.
pub fn api_call_failed(op: i32, stream: Option<Stream>) -> Result<(), HipError> {
    call(op, stream, true)
}

/// A HIP call without device work and without a stream, with its HIP API payload arguments
/// (`args`: the SDK's `rocprofiler_hip_api_args_t`, its function's member filled).
pub fn api_call_with_args(
    op: i32,
    args: &rocprofiler_sdk_sys::rocprofiler_hip_api_args_t,
) -> Result<(), HipError> {
    let options = rocsim_api_call_options_t {
        op,
        ..rocsim_api_call_options_t::default()
    };
    // SAFETY: valid options and arguments; null correlation out-pointer.
    check(unsafe {
        ffi::rocsim_api_call_with_args(
            &options,
            (args as *const rocprofiler_sdk_sys::rocprofiler_hip_api_args_t).cast(),
            std::ptr::null_mut(),
        )
    })
}

fn call(op: i32, stream: Option<Stream>, rejected: bool) -> Result<(), HipError> {
    let options = rocsim_api_call_options_t {
        op,
        has_stream: u32::from(stream.is_some()),
        stream: stream.unwrap_or(0),
        rejected: u32::from(rejected),
    };
    // SAFETY: valid options; null correlation out-pointer.
    check(unsafe { ffi::rocsim_api_call(&options, std::ptr::null_mut()) })
}

/// CLOCK_BOOTTIME in ns, the clock of the SDK's timestamps.
pub fn timestamp_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    (ts.tv_sec as u64).saturating_mul(1_000_000_000) + ts.tv_nsec as u64
}
