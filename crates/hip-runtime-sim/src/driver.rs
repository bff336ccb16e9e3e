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

/// `rocsim_launch_call_t`: the host stub or `hipFunction_t`, and the argument array.
pub use rocsim_abi::rocsim_launch_call_t as LaunchCall;

/// `rocsim_kernel_launch_t` (`kernel` is the SDK's kernel id; `grid` counts work-items per
/// dimension).
pub use rocsim_abi::rocsim_kernel_launch_t as KernelLaunch;

use rocsim_abi::{rocsim_copy_call_t, rocsim_copy_t};

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
    // SAFETY: `stream` is a valid out-pointer.
    check(unsafe { ffi::rocsim_stream_create_with(op, &mut stream) })?;
    Ok(stream)
}

/// A stream creation HIP rejected, traced with the SDK's CREATE bookkeeping; `stream_out` is
/// what the program's `*stream` held (`None`: a null `hipStream_t*`).
pub fn stream_create_failed(op: i32, stream_out: Option<Stream>) -> Result<(), HipError> {
    // SAFETY: plain value call.
    check(unsafe {
        ffi::rocsim_stream_create_failed(
            op,
            i32::from(stream_out.is_some()),
            stream_out.unwrap_or(0),
        )
    })
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
    let status = if described {
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
        // SAFETY: `symbols` holds `len` symbols whose names live in `owned` for the call;
        // `kernel_ids` has room for `len` ids.
        unsafe {
            ffi::rocsim_load_code_object_ex(
                device,
                symbols.as_ptr(),
                symbols.len(),
                &mut id,
                kernel_ids.as_mut_ptr(),
            )
        }
    } else {
        let pointers: Vec<*const c_char> = owned.iter().map(|n| n.as_ptr()).collect();
        // SAFETY: `pointers` holds `len` C strings alive for the call; `kernel_ids` has room
        // for `len` ids.
        unsafe {
            ffi::rocsim_load_code_object(
                device,
                pointers.as_ptr(),
                pointers.len(),
                &mut id,
                kernel_ids.as_mut_ptr(),
            )
        }
    };
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
    // SAFETY: valid `rocsim_kernel_launch_t` and `rocsim_launch_call_t`; null correlation
    // out-pointer.
    check(unsafe { ffi::rocsim_launch_kernel_ex(stream, launch, call, std::ptr::null_mut()) })
}

pub fn module_launch_kernel(
    stream: Stream,
    launch: &KernelLaunch,
    call: &LaunchCall,
) -> Result<(), HipError> {
    // SAFETY: as `launch_kernel`.
    check(unsafe {
        ffi::rocsim_module_launch_kernel_ex(stream, launch, call, std::ptr::null_mut())
    })
}

/// All kernels under the one correlation id of the hipGraphLaunch call.
pub fn graph_launch(
    stream: Stream,
    launches: &[KernelLaunch],
    graph_exec: u64,
) -> Result<(), HipError> {
    // SAFETY: `launches` is a valid array of `len` launches.
    check(unsafe {
        ffi::rocsim_graph_launch_ex(
            stream,
            launches.as_ptr(),
            launches.len(),
            graph_exec,
            std::ptr::null_mut(),
        )
    })
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

fn rocsim_copy_call(call: &CopyCall) -> rocsim_copy_call_t {
    rocsim_copy_call_t {
        host: if call.pageable {
            rocsim_abi::ROCSIM_HOST_PAGEABLE
        } else {
            rocsim_abi::ROCSIM_HOST_PINNED
        },
        hip_kind: call.hip_kind,
        dst: call.dst,
        src: call.src,
    }
}

pub fn memcpy_async(stream: Stream, copy: &CopyWork, call: &CopyCall) -> Result<(), HipError> {
    let (copy, call) = (rocsim_copy(copy), rocsim_copy_call(call));
    // SAFETY: valid `rocsim_copy_t` and `rocsim_copy_call_t`.
    check(unsafe { ffi::rocsim_memcpy_async_ex(stream, &copy, &call, std::ptr::null_mut()) })
}

/// `hipMemcpy`: no SET; returns when the copy completed.
pub fn memcpy_sync(copy: &CopyWork, call: &CopyCall) -> Result<(), HipError> {
    let (copy, call) = (rocsim_copy(copy), rocsim_copy_call(call));
    // SAFETY: valid `rocsim_copy_t` and `rocsim_copy_call_t`.
    check(unsafe { ffi::rocsim_memcpy_sync_ex(&copy, &call, std::ptr::null_mut()) })
}

/// `hipMemsetAsync`: a fill blit kernel on the stream.
pub fn memset_async(stream: Stream, bytes: u64, duration_ns: u64) -> Result<(), HipError> {
    // SAFETY: plain value call.
    check(unsafe { ffi::rocsim_memset_async(stream, bytes, duration_ns, std::ptr::null_mut()) })
}

/// A stream copy traced as HIP function `op` (`hipMemcpyHtoDAsync`, `hipMemcpyWithStream`, ...).
pub fn memcpy_async_as(
    op: i32,
    stream: Stream,
    copy: &CopyWork,
    call: &CopyCall,
) -> Result<(), HipError> {
    let (copy, call) = (rocsim_copy(copy), rocsim_copy_call(call));
    // SAFETY: valid `rocsim_copy_t` and `rocsim_copy_call_t`.
    check(unsafe { ffi::rocsim_memcpy_async_as(op, stream, &copy, &call, std::ptr::null_mut()) })
}

/// A stream fill traced as HIP function `op` (`hipMemsetD32Async`, ...).
pub fn memset_async_as(
    op: i32,
    stream: Stream,
    bytes: u64,
    duration_ns: u64,
) -> Result<(), HipError> {
    // SAFETY: plain value call.
    check(unsafe {
        ffi::rocsim_memset_async_as(op, stream, bytes, duration_ns, std::ptr::null_mut())
    })
}

/// `hipMemset`: the fill kernel on the current device's null stream, no SET; returns when it
/// completed.
pub fn memset_sync(bytes: u64, duration_ns: u64) -> Result<(), HipError> {
    // SAFETY: plain value call; null correlation out-pointer.
    check(unsafe { ffi::rocsim_memset_sync(bytes, duration_ns, std::ptr::null_mut()) })
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
    // SAFETY: plain value call; null correlation out-pointer.
    check(unsafe {
        ffi::rocsim_api_call(
            op,
            i32::from(stream.is_some()),
            stream.unwrap_or(0),
            std::ptr::null_mut(),
        )
    })
}

/// A HIP call without device work, possibly rejected, on a stream HIP may not know: the SDK's
/// wrappers see it before HIP validates, so its SET follows the SDK's stream map.
pub fn api_call_failed(op: i32, stream: Option<Stream>) -> Result<(), HipError> {
    // SAFETY: plain value call; null correlation out-pointer.
    check(unsafe {
        ffi::rocsim_api_call_failed(
            op,
            i32::from(stream.is_some()),
            stream.unwrap_or(0),
            std::ptr::null_mut(),
        )
    })
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
