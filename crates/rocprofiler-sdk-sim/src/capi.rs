//! The driver API as a C ABI (`rocsim_*`), for C++ tests linking the cdylib and for the
//! simulated HIP runtime. Each function plays one HIP call of [`crate::driver`]; it returns 0
//! on success or a [`SimError::code`] (1..=6), and 7 if the sim panicked (the
//! `ROCSIM_STATUS_*` numbers). A call with choices (which HIP function, what the program
//! passed, a rejected call) takes one options struct, whose zero fields give the plain call.
//! The structs, numbers and declarations live once in the `rocsim-abi` crate; `tests/abi.rs`
//! checks that each function here has the signature declared there. Out-pointers may be null
//! when the caller does not want the value.
//!
//! ```c
//! typedef struct { uint64_t kernel; uint32_t grid[3]; uint32_t block[3];
//!                  uint32_t private_segment_size; uint32_t group_segment_size;
//!                  uint64_t duration_ns; } rocsim_kernel_launch_t;
//! typedef struct { uint32_t kind; /* 0 H2H, 1 H2D, 2 D2H, 3 D2D */ uint64_t bytes;
//!                  int32_t src_device; int32_t dst_device; /* -1 = default */
//!                  uint64_t duration_ns; } rocsim_copy_t;
//! typedef struct { const char* name; uint32_t kernarg_segment_size; uint32_t group_segment_size;
//!                  uint32_t private_segment_size; uint32_t sgpr_count; uint32_t arch_vgpr_count;
//!                  uint32_t accum_vgpr_count; } rocsim_kernel_symbol_t;
//! /* Options: 0 in a field is the plain call (rocsim-abi documents each field). */
//! typedef struct { int32_t op; /* 0 = hipStreamCreate */ uint32_t rejected;
//!                  uint32_t has_stream_out; uint64_t stream_out; } rocsim_stream_create_options_t;
//! typedef struct { uint32_t device; size_t count; const char* const* names;
//!                  const rocsim_kernel_symbol_t* symbols; /* or names */ } rocsim_code_object_options_t;
//! typedef struct { rocsim_kernel_launch_t launch; uint64_t stream; uint64_t function;
//!                  uint64_t args; int32_t op; /* 0 = hipLaunchKernel */ } rocsim_launch_options_t;
//! typedef struct { const rocsim_kernel_launch_t* kernels; size_t count; uint64_t stream;
//!                  uint64_t graph_exec; } rocsim_graph_launch_options_t;
//! typedef struct { rocsim_copy_t copy; uint32_t sync; int32_t op; /* 0 = hipMemcpyAsync */
//!                  uint64_t stream; uint32_t host; /* 0 pinned, 1 pageable */
//!                  uint32_t has_hip_kind; int32_t hip_kind; uint64_t dst; uint64_t src;
//!                } rocsim_memcpy_options_t;
//! typedef struct { uint64_t bytes; uint64_t duration_ns; uint32_t sync;
//!                  int32_t op; /* 0 = hipMemsetAsync */ uint64_t stream; } rocsim_memset_options_t;
//! typedef struct { int32_t op; uint32_t has_stream; uint64_t stream;
//!                  uint32_t rejected; } rocsim_api_call_options_t;
//! int32_t rocsim_set_device(uint32_t device);
//! uint32_t rocsim_current_device(void);
//! uint32_t rocsim_device_count(void);  /* HIP-visible GPUs, in HIP's order */
//! int32_t rocsim_device_gpu_ordinal(uint32_t device);  /* GPU ordinal of HIP device, -1: none */
//! int32_t rocsim_stream_create(const rocsim_stream_create_options_t*, uint64_t* stream);
//! int32_t rocsim_stream_destroy(uint64_t stream);
//! int32_t rocsim_bind_stream_to_queue(uint64_t stream, uint64_t queue);
//! int32_t rocsim_load_code_object(const rocsim_code_object_options_t*, uint64_t* code_object_id,
//!                                 uint64_t* kernel_ids /* count */);
//! int32_t rocsim_unload_code_object(uint64_t code_object_id);
//! int32_t rocsim_launch_kernel(const rocsim_launch_options_t*, uint64_t* corr);
//! int32_t rocsim_graph_launch(const rocsim_graph_launch_options_t*, uint64_t* corr);
//! int32_t rocsim_memcpy(const rocsim_memcpy_options_t*, uint64_t* corr);
//! int32_t rocsim_memset(const rocsim_memset_options_t*, uint64_t* corr);
//! int32_t rocsim_stream_wait(uint64_t stream);  /* untraced: waits for the stream's work so far */
//! int32_t rocsim_stream_synchronize(uint64_t stream);
//! int32_t rocsim_event_call(int32_t op /* hipEventRecord[WithFlags], hipStreamWaitEvent */,
//!                           uint64_t event, uint64_t stream, uint32_t flags, uint64_t* corr);
//! int32_t rocsim_device_synchronize(void);
//! int32_t rocsim_api_call(const rocsim_api_call_options_t*, uint64_t* corr);
//! int32_t rocsim_api_call_with_args(const rocsim_api_call_options_t*,
//!                                   const rocprofiler_hip_api_args_t*, uint64_t* corr);
//! void    rocsim_wait_idle(void);
//! void    rocsim_host_sleep_ns(uint64_t ns);
//! void    rocsim_fault_inject(const char* function, uint32_t status, uint32_t nth /* 0 = every call */);
//! void    rocsim_fault_clear(void);
//! int32_t rocsim_replay_scenario(const char* path, char* error, size_t error_len);
//! ```
#![allow(clippy::missing_safety_doc)]

use crate::driver::{
    self, Copy, CopyCall, CopyKind, HostMemory, KernelId, KernelLaunch, LaunchCall,
};
use crate::SimError;
use rocprofiler_sdk_sys as sys;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

// The structs, status numbers and declarations are the shared `rocsim-abi` crate's, so the
// simulated HIP runtime calling these functions uses the very same definitions.
pub use rocsim_abi::{
    rocsim_api_call_options_t, rocsim_code_object_options_t, rocsim_copy_t,
    rocsim_graph_launch_options_t, rocsim_kernel_launch_t, rocsim_kernel_symbol_t,
    rocsim_launch_options_t, rocsim_memcpy_options_t, rocsim_memset_options_t,
    rocsim_stream_create_options_t,
};
use rocsim_abi::{
    ROCSIM_COPY_DEVICE_TO_DEVICE, ROCSIM_COPY_DEVICE_TO_HOST, ROCSIM_COPY_HOST_TO_DEVICE,
    ROCSIM_COPY_HOST_TO_HOST, ROCSIM_HOST_PAGEABLE, ROCSIM_HOST_PINNED, ROCSIM_STATUS_PANICKED,
    ROCSIM_STATUS_SUCCESS,
};

fn run(body: impl FnOnce() -> Result<(), SimError>) -> i32 {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => ROCSIM_STATUS_SUCCESS,
        Ok(Err(e)) => e.code(),
        Err(_) => ROCSIM_STATUS_PANICKED,
    }
}

/// As [`run`], for a call that makes a value (a correlation id, a stream): stores it in `out`
/// (the caller's out-pointer, `None` when null).
fn run_storing(out: Option<&mut u64>, body: impl FnOnce() -> Result<u64, SimError>) -> i32 {
    run(|| {
        let value = body()?;
        if let Some(out) = out {
            *out = value;
        }
        Ok(())
    })
}

/// As [`run_storing`], for a call taking options: reads them, runs `body`, stores its value.
///
/// # Safety
/// `options` is null (rejected) or valid; `out` is null or valid for a write.
unsafe fn with_options<T>(
    options: *const T,
    out: *mut u64,
    body: impl FnOnce(&T) -> Result<u64, SimError>,
) -> i32 {
    // SAFETY: caller contract: `out` is null or valid for a write.
    let out = unsafe { out.as_mut() };
    run_storing(out, || {
        // SAFETY: caller contract: `options` is null (rejected) or valid.
        body(unsafe { read(options) }?)
    })
}

/// # Safety
/// `ptr` is null or valid for a write.
unsafe fn store<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: caller contract.
        unsafe { ptr.write(value) };
    }
}

/// # Safety
/// `ptr` is null (rejected) or points to a valid `T`.
unsafe fn read<'a, T>(ptr: *const T) -> Result<&'a T, SimError> {
    // SAFETY: caller contract.
    unsafe { ptr.as_ref() }.ok_or_else(|| SimError::InvalidArgument("null pointer".into()))
}

/// `op`, or the plain call's operation id when `op` is 0.
fn op_or(op: i32, plain: sys::rocprofiler_hip_runtime_api_id_t) -> i32 {
    if op == 0 {
        plain
    } else {
        op
    }
}

fn launch_of(l: &rocsim_kernel_launch_t) -> KernelLaunch {
    KernelLaunch {
        kernel: KernelId(l.kernel),
        grid: l.grid,
        block: l.block,
        private_segment_size: l.private_segment_size,
        group_segment_size: l.group_segment_size,
        duration_ns: l.duration_ns,
    }
}

fn copy_of(c: &rocsim_copy_t) -> Result<Copy, SimError> {
    let kind = match c.kind {
        ROCSIM_COPY_HOST_TO_HOST => CopyKind::HostToHost,
        ROCSIM_COPY_HOST_TO_DEVICE => CopyKind::HostToDevice,
        ROCSIM_COPY_DEVICE_TO_HOST => CopyKind::DeviceToHost,
        ROCSIM_COPY_DEVICE_TO_DEVICE => CopyKind::DeviceToDevice,
        k => return Err(SimError::InvalidArgument(format!("copy kind {k}"))),
    };
    let device = |d: i32| (d >= 0).then_some(d as u32);
    Ok(Copy {
        kind,
        bytes: c.bytes,
        src_device: device(c.src_device),
        dst_device: device(c.dst_device),
        duration_ns: c.duration_ns,
    })
}

/// What the program passed to a copy call, from its options.
fn copy_call_of(o: &rocsim_memcpy_options_t) -> Result<CopyCall, SimError> {
    let host = match o.host {
        ROCSIM_HOST_PINNED => HostMemory::Pinned,
        ROCSIM_HOST_PAGEABLE => HostMemory::Pageable,
        h => return Err(SimError::InvalidArgument(format!("host memory kind {h}"))),
    };
    Ok(CopyCall {
        host,
        dst: o.dst,
        src: o.src,
        hip_kind: (o.has_hip_kind != 0).then_some(o.hip_kind),
    })
}

/// A synchronous call (`hipMemcpy`, `hipMemset`) has no stream and one HIP function.
fn check_sync(what: &str, stream: u64, op: i32) -> Result<(), SimError> {
    if stream != 0 || op != 0 {
        return Err(SimError::InvalidArgument(format!(
            "a synchronous {what} takes no stream and no operation id"
        )));
    }
    Ok(())
}

/// The kernels of a code object: `count` names (default resources) or `count` symbols.
///
/// # Safety
/// `o.names` / `o.symbols` are null or valid for `o.count` entries with NUL-terminated names.
unsafe fn kernels_of(
    o: &rocsim_code_object_options_t,
) -> Result<Vec<(String, driver::KernelResources)>, SimError> {
    let name = |ptr: *const c_char, i: usize| {
        if ptr.is_null() {
            return Err(SimError::InvalidArgument(format!("kernel {i} has no name")));
        }
        // SAFETY: caller contract: a NUL-terminated name.
        Ok(unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned())
    };
    let mut kernels = Vec::with_capacity(o.count);
    match (o.names.is_null(), o.symbols.is_null()) {
        (_, _) if o.count == 0 => {}
        (false, true) => {
            for i in 0..o.count {
                // SAFETY: caller contract: `count` names.
                let n = name(unsafe { *o.names.add(i) }, i)?;
                kernels.push((n, driver::KernelResources::default()));
            }
        }
        (true, false) => {
            for i in 0..o.count {
                // SAFETY: caller contract: `count` symbols.
                let s = unsafe { &*o.symbols.add(i) };
                let resources = driver::KernelResources {
                    kernarg_segment_size: s.kernarg_segment_size,
                    group_segment_size: s.group_segment_size,
                    private_segment_size: s.private_segment_size,
                    sgpr_count: s.sgpr_count,
                    arch_vgpr_count: s.arch_vgpr_count,
                    accum_vgpr_count: s.accum_vgpr_count,
                };
                kernels.push((name(s.name, i)?, resources));
            }
        }
        _ => {
            return Err(SimError::InvalidArgument(
                "a code object's kernels are names or symbols, one of them".into(),
            ))
        }
    }
    Ok(kernels)
}

#[no_mangle]
pub extern "C" fn rocsim_set_device(device: u32) -> i32 {
    run(|| driver::set_device(device))
}

#[no_mangle]
pub extern "C" fn rocsim_current_device() -> u32 {
    driver::current_device()
}

/// The GPU ordinal of HIP device `device`; -1 if there is no such device.
#[no_mangle]
pub extern "C" fn rocsim_device_gpu_ordinal(device: u32) -> i32 {
    catch_unwind(|| driver::device_gpu_ordinal(device))
        .ok()
        .flatten()
        .map_or(-1, |ordinal| ordinal as i32)
}

/// The number of HIP devices (`hipGetDeviceCount`); 0 if the sim panicked.
#[no_mangle]
pub extern "C" fn rocsim_device_count() -> u32 {
    catch_unwind(driver::device_count).unwrap_or(0)
}

/// `hipStreamCreate` or another creating function; or a creation HIP rejected (see
/// `driver::stream_create_failed`), which writes no stream.
#[no_mangle]
pub unsafe extern "C" fn rocsim_stream_create(
    options: *const rocsim_stream_create_options_t,
    stream: *mut u64,
) -> i32 {
    // SAFETY: caller contract: `stream` is null or valid for a write.
    let out = unsafe { stream.as_mut() };
    run(|| {
        // SAFETY: caller contract: `options` is null (rejected) or valid.
        let o = unsafe { read(options) }?;
        let op = op_or(o.op, sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate);
        if o.rejected != 0 {
            return driver::stream_create_failed(
                op,
                (o.has_stream_out != 0).then_some(o.stream_out),
            );
        }
        let value = driver::stream_create_with(op)?;
        if let Some(out) = out {
            *out = value;
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn rocsim_stream_destroy(stream: u64) -> i32 {
    run(|| driver::stream_destroy(stream))
}

#[no_mangle]
pub extern "C" fn rocsim_bind_stream_to_queue(stream: u64, queue: u64) -> i32 {
    run(|| driver::bind_stream_to_queue(stream, queue))
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_load_code_object(
    options: *const rocsim_code_object_options_t,
    code_object_id: *mut u64,
    kernel_ids: *mut u64,
) -> i32 {
    run(|| {
        // SAFETY: caller contract: `options` null (rejected) or valid, its arrays valid for
        // `count` entries.
        let options = unsafe { read(options) }?;
        // SAFETY: as above.
        let kernels = unsafe { kernels_of(options) }?;
        let refs: Vec<(&str, driver::KernelResources)> =
            kernels.iter().map(|(n, r)| (n.as_str(), *r)).collect();
        let (id, kernels) = driver::load_code_object_with_resources(options.device, &refs)?;
        // SAFETY: caller contract: `kernel_ids` null or valid for `count` writes.
        unsafe {
            store(code_object_id, id);
            if !kernel_ids.is_null() {
                for (i, k) in kernels.iter().enumerate() {
                    kernel_ids.add(i).write(k.0);
                }
            }
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn rocsim_unload_code_object(code_object_id: u64) -> i32 {
    run(|| driver::unload_code_object(code_object_id))
}

/// `hipLaunchKernel` or `hipModuleLaunchKernel`.
#[no_mangle]
pub unsafe extern "C" fn rocsim_launch_kernel(
    options: *const rocsim_launch_options_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        with_options(options, corr, |o| {
            let launch = launch_of(&o.launch);
            let call = LaunchCall {
                function: o.function,
                args: o.args,
            };
            match o.op {
                0 | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel => {
                    driver::launch_kernel_with(o.stream, &launch, &call)
                }
                sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel => {
                    driver::module_launch_kernel_with(o.stream, &launch, &call)
                }
                op => Err(SimError::InvalidArgument(format!(
                    "HIP operation {op} does not launch one kernel"
                ))),
            }
        })
    }
}

/// `hipGraphLaunch`: the kernels under the call's one correlation id.
#[no_mangle]
pub unsafe extern "C" fn rocsim_graph_launch(
    options: *const rocsim_graph_launch_options_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        with_options(options, corr, |o| {
            if o.kernels.is_null() || o.count == 0 {
                return Err(SimError::InvalidArgument("a graph needs kernels".into()));
            }
            // `kernels` holds `count` valid launches (caller contract).
            let launches: Vec<KernelLaunch> = std::slice::from_raw_parts(o.kernels, o.count)
                .iter()
                .map(launch_of)
                .collect();
            driver::graph_launch_with(o.stream, &launches, o.graph_exec)
        })
    }
}

/// `hipMemcpyAsync` or another stream copy function, or `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn rocsim_memcpy(
    options: *const rocsim_memcpy_options_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        with_options(options, corr, |o| {
            let (copy, call) = (copy_of(&o.copy)?, copy_call_of(o)?);
            if o.sync != 0 {
                check_sync("copy", o.stream, o.op)?;
                return driver::memcpy_sync_with(&copy, &call);
            }
            let op = op_or(o.op, sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync);
            driver::memcpy_async_as(op, o.stream, &copy, &call)
        })
    }
}

/// `hipMemsetAsync` or another stream fill function, or `hipMemset`.
#[no_mangle]
pub unsafe extern "C" fn rocsim_memset(
    options: *const rocsim_memset_options_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        with_options(options, corr, |o| {
            if o.sync != 0 {
                check_sync("fill", o.stream, o.op)?;
                return driver::memset_sync(o.bytes, o.duration_ns);
            }
            let op = op_or(o.op, sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync);
            driver::memset_async_as(op, o.stream, o.bytes, o.duration_ns)
        })
    }
}

#[no_mangle]
pub extern "C" fn rocsim_stream_wait(stream: u64) -> i32 {
    run(|| driver::stream_wait(stream))
}

#[no_mangle]
pub extern "C" fn rocsim_stream_synchronize(stream: u64) -> i32 {
    run(|| driver::stream_synchronize(stream))
}

/// # Safety
/// `corr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rocsim_event_call(
    op: i32,
    event: u64,
    stream: u64,
    flags: u32,
    corr: *mut u64,
) -> i32 {
    // SAFETY: the caller's out-pointer, null or writable.
    let out = unsafe { corr.as_mut() };
    run_storing(out, || match op {
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord => driver::event_record(event, stream),
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecordWithFlags => {
            driver::event_record_with_flags(event, stream, flags)
        }
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent => {
            driver::stream_wait_event(stream, event, flags)
        }
        other => Err(SimError::InvalidArgument(format!(
            "HIP operation {other} neither records an event nor waits for one"
        ))),
    })
}

#[no_mangle]
pub extern "C" fn rocsim_device_synchronize() -> i32 {
    run(driver::device_synchronize)
}

/// Any other HIP call, by operation id; a rejected one as `driver::api_call_failed`.
#[no_mangle]
pub unsafe extern "C" fn rocsim_api_call(
    options: *const rocsim_api_call_options_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        with_options(options, corr, |o| {
            let stream = (o.has_stream != 0).then_some(o.stream);
            if o.rejected != 0 {
                driver::api_call_failed(o.op, stream)
            } else {
                driver::api_call(o.op, stream)
            }
        })
    }
}

/// # Safety
/// `options` is null or valid; `args` is null (a zeroed payload) or points at a
/// `rocprofiler_hip_api_args_t`; `corr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rocsim_api_call_with_args(
    options: *const rocsim_api_call_options_t,
    args: *const std::ffi::c_void,
    corr: *mut u64,
) -> i32 {
    let args = if args.is_null() {
        crate::hip::hip_args::zeroed()
    } else {
        // SAFETY: caller contract.
        unsafe { (args as *const sys::rocprofiler_hip_api_args_t).read_unaligned() }
    };
    // SAFETY: caller contract.
    unsafe {
        with_options(options, corr, |o| {
            let stream = (o.has_stream != 0).then_some(o.stream);
            driver::api_call_with_args(o.op, stream, args)
        })
    }
}

#[no_mangle]
pub extern "C" fn rocsim_wait_idle() {
    let _ = catch_unwind(driver::wait_idle);
}

/// `driver::host_sleep`: a host sleep that moves the virtual clock (a real sleep under the
/// real clock). For a C/C++ harness whose tool waits for records, as the tracer's `disable()`
/// does, to pass the simulator's time.
#[no_mangle]
pub extern "C" fn rocsim_host_sleep_ns(ns: u64) {
    let _ = catch_unwind(|| driver::host_sleep(std::time::Duration::from_nanos(ns)));
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_fault_inject(function: *const c_char, status: u32, nth: u32) {
    if function.is_null() {
        return;
    }
    let _ = catch_unwind(|| {
        // SAFETY: caller contract: a C string.
        let name = unsafe { CStr::from_ptr(function) }.to_string_lossy();
        crate::faults::inject(&name, status, (nth != 0).then_some(nth));
    });
}

#[no_mangle]
pub extern "C" fn rocsim_fault_clear() {
    let _ = catch_unwind(crate::faults::clear);
}

/// Loads and replays a scenario file. On failure writes the message (NUL-terminated,
/// truncated to `error_len`) and returns 6.
#[no_mangle]
pub unsafe extern "C" fn rocsim_replay_scenario(
    path: *const c_char,
    error: *mut c_char,
    error_len: usize,
) -> i32 {
    let result = catch_unwind(|| {
        if path.is_null() {
            return Err("null path".to_owned());
        }
        // SAFETY: caller contract: a C string.
        let path = unsafe { CStr::from_ptr(path) }
            .to_string_lossy()
            .into_owned();
        let scenario = crate::scenario::load(&path).map_err(|e| e.to_string())?;
        crate::scenario::replay(&scenario, &())
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    let message = match result {
        Ok(Ok(())) => return ROCSIM_STATUS_SUCCESS,
        Ok(Err(message)) => message,
        Err(_) => "the sim panicked".to_owned(),
    };
    if !error.is_null() && error_len > 0 {
        let bytes = message.as_bytes();
        let n = bytes.len().min(error_len - 1);
        // SAFETY: caller contract: `error` valid for `error_len` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), error.cast::<u8>(), n);
            error.add(n).write(0);
        }
    }
    SimError::InvalidArgument(String::new()).code()
}
