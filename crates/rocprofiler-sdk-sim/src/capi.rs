//! The driver API as a C ABI (`rocsim_*`), for C++ tests linking the cdylib and for the
//! simulated HIP runtime. Each function mirrors one in [`crate::driver`]; it returns 0 on
//! success or a [`SimError::code`] (1..=6), and 7 if the sim panicked (the `ROCSIM_STATUS_*`
//! numbers). The structs, numbers and declarations live once in the `rocsim-abi` crate;
//! `tests/abi.rs` checks that each function here has the signature declared there. Out-pointers may be null when the caller does not want the value.
//!
//! ```c
//! typedef struct { uint64_t kernel; uint32_t grid[3]; uint32_t block[3];
//!                  uint32_t private_segment_size; uint32_t group_segment_size;
//!                  uint64_t duration_ns; } rocsim_kernel_launch_t;
//! typedef struct { uint32_t kind; /* 0 H2H, 1 H2D, 2 D2H, 3 D2D */ uint64_t bytes;
//!                  int32_t src_device; int32_t dst_device; /* -1 = default */
//!                  uint64_t duration_ns; } rocsim_copy_t;
//! int32_t rocsim_set_device(uint32_t device);
//! uint32_t rocsim_current_device(void);
//! uint32_t rocsim_device_count(void);  /* HIP-visible GPUs, in HIP's order */
//! int32_t rocsim_device_gpu_ordinal(uint32_t device);  /* GPU ordinal of HIP device, -1: none */
//! int32_t rocsim_stream_create(uint64_t* stream);
//! int32_t rocsim_stream_create_with(int32_t op /* a hipStreamCreate* operation id */, uint64_t* stream);
//! int32_t rocsim_stream_create_failed(int32_t op, int32_t has_stream_out, uint64_t stream_out);
//! int32_t rocsim_stream_destroy(uint64_t stream);
//! int32_t rocsim_bind_stream_to_queue(uint64_t stream, uint64_t queue);
//! int32_t rocsim_load_code_object(uint32_t device, const char* const* names, size_t count,
//!                                 uint64_t* code_object_id, uint64_t* kernel_ids /* count */);
//! typedef struct { const char* name; uint32_t kernarg_segment_size; uint32_t group_segment_size;
//!                  uint32_t private_segment_size; uint32_t sgpr_count; uint32_t arch_vgpr_count;
//!                  uint32_t accum_vgpr_count; } rocsim_kernel_symbol_t;
//! int32_t rocsim_load_code_object_ex(uint32_t device, const rocsim_kernel_symbol_t* symbols,
//!                                    size_t count, uint64_t* code_object_id, uint64_t* kernel_ids);
//! int32_t rocsim_unload_code_object(uint64_t code_object_id);
//! int32_t rocsim_launch_kernel(uint64_t stream, const rocsim_kernel_launch_t*, uint64_t* corr);
//! int32_t rocsim_module_launch_kernel(uint64_t stream, const rocsim_kernel_launch_t*, uint64_t* corr);
//! int32_t rocsim_graph_launch(uint64_t stream, const rocsim_kernel_launch_t*, size_t count, uint64_t* corr);
//! int32_t rocsim_memcpy_async(uint64_t stream, const rocsim_copy_t*, uint64_t* corr);
//! int32_t rocsim_memcpy_sync(const rocsim_copy_t*, uint64_t* corr);
//! typedef struct { uint32_t host; /* 0 pinned, 1 pageable */ int32_t hip_kind; /* -1 = from kind */
//!                  uint64_t dst; uint64_t src; /* as passed, 0 = made up */ } rocsim_copy_call_t;
//! int32_t rocsim_memcpy_async_ex(uint64_t stream, const rocsim_copy_t*, const rocsim_copy_call_t*, uint64_t* corr);
//! int32_t rocsim_memcpy_sync_ex(const rocsim_copy_t*, const rocsim_copy_call_t*, uint64_t* corr);
//! typedef struct { uint64_t function; uint64_t args; } rocsim_launch_call_t;
//! int32_t rocsim_launch_kernel_ex(uint64_t stream, const rocsim_kernel_launch_t*, const rocsim_launch_call_t*, uint64_t* corr);
//! int32_t rocsim_module_launch_kernel_ex(uint64_t stream, const rocsim_kernel_launch_t*, const rocsim_launch_call_t*, uint64_t* corr);
//! int32_t rocsim_graph_launch_ex(uint64_t stream, const rocsim_kernel_launch_t*, size_t count, uint64_t graph_exec, uint64_t* corr);
//! int32_t rocsim_memset_async(uint64_t stream, uint64_t bytes, uint64_t duration_ns, uint64_t* corr);
//! int32_t rocsim_memset_sync(uint64_t bytes, uint64_t duration_ns, uint64_t* corr);
//! int32_t rocsim_memcpy_async_as(int32_t op, uint64_t stream, const rocsim_copy_t*, const rocsim_copy_call_t*, uint64_t* corr);
//! int32_t rocsim_memset_async_as(int32_t op, uint64_t stream, uint64_t bytes, uint64_t duration_ns, uint64_t* corr);
//! int32_t rocsim_stream_wait(uint64_t stream);  /* untraced: waits for the stream's work so far */
//! int32_t rocsim_stream_synchronize(uint64_t stream);
//! int32_t rocsim_device_synchronize(void);
//! int32_t rocsim_api_call(int32_t op, int32_t has_stream, uint64_t stream, uint64_t* corr);
//! int32_t rocsim_api_call_failed(int32_t op, int32_t has_stream, uint64_t stream, uint64_t* corr);
//! void    rocsim_wait_idle(void);
//! void    rocsim_fault_inject(const char* function, uint32_t status, uint32_t nth /* 0 = every call */);
//! void    rocsim_fault_clear(void);
//! int32_t rocsim_replay_scenario(const char* path, char* error, size_t error_len);
//! ```
#![allow(clippy::missing_safety_doc)]

use crate::driver::{
    self, Copy, CopyCall, CopyKind, HostMemory, KernelId, KernelLaunch, LaunchCall,
};
use crate::SimError;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

// The structs, status numbers and declarations are the shared `rocsim-abi` crate's, so the
// simulated HIP runtime calling these functions uses the very same definitions.
pub use rocsim_abi::{
    rocsim_copy_call_t, rocsim_copy_t, rocsim_kernel_launch_t, rocsim_kernel_symbol_t,
    rocsim_launch_call_t,
};
use rocsim_abi::{
    ROCSIM_COPY_DEVICE_TO_DEVICE, ROCSIM_COPY_DEVICE_TO_HOST, ROCSIM_COPY_HOST_TO_DEVICE,
    ROCSIM_COPY_HOST_TO_HOST, ROCSIM_HOST_PAGEABLE, ROCSIM_HOST_PINNED, ROCSIM_STATUS_PANICKED,
    ROCSIM_STATUS_SUCCESS,
};

fn copy_call_of(c: &rocsim_copy_call_t) -> Result<CopyCall, SimError> {
    let host = match c.host {
        ROCSIM_HOST_PINNED => HostMemory::Pinned,
        ROCSIM_HOST_PAGEABLE => HostMemory::Pageable,
        h => return Err(SimError::InvalidArgument(format!("host memory kind {h}"))),
    };
    Ok(CopyCall {
        host,
        dst: c.dst,
        src: c.src,
        hip_kind: (c.hip_kind >= 0).then_some(c.hip_kind),
    })
}

fn launch_call_of(c: &rocsim_launch_call_t) -> LaunchCall {
    LaunchCall {
        function: c.function,
        args: c.args,
    }
}

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

/// The body of the launch calls: reads `launch` and `call`, runs `f`, stores the correlation id.
///
/// # Safety
/// `launch` and `call` are null (rejected) or valid; `corr` is null or valid for a write.
unsafe fn launch_call(
    launch: *const rocsim_kernel_launch_t,
    call: *const rocsim_launch_call_t,
    corr: *mut u64,
    f: impl FnOnce(&KernelLaunch, &LaunchCall) -> Result<u64, SimError>,
) -> i32 {
    // SAFETY: caller contract.
    run_storing(unsafe { corr.as_mut() }, || {
        // SAFETY: caller contract.
        let (launch, call) = unsafe { (launch_of(read(launch)?), launch_call_of(read(call)?)) };
        f(&launch, &call)
    })
}

/// The body of the copy calls: reads `copy` and `call`, runs `f`, stores the correlation id.
///
/// # Safety
/// `copy` and `call` are null (rejected) or valid; `corr` is null or valid for a write.
unsafe fn copy_call(
    copy: *const rocsim_copy_t,
    call: *const rocsim_copy_call_t,
    corr: *mut u64,
    f: impl FnOnce(&Copy, &CopyCall) -> Result<u64, SimError>,
) -> i32 {
    // SAFETY: caller contract.
    run_storing(unsafe { corr.as_mut() }, || {
        // SAFETY: caller contract.
        let (copy, call) = unsafe { (copy_of(read(copy)?)?, copy_call_of(read(call)?)?) };
        f(&copy, &call)
    })
}

/// The body of the graph launches: reads `count` launches, runs `f`, stores the correlation id.
///
/// # Safety
/// `launches` is null (rejected) or valid for `count` launches; `corr` is null or valid for a
/// write.
unsafe fn graph_call(
    launches: *const rocsim_kernel_launch_t,
    count: usize,
    corr: *mut u64,
    f: impl FnOnce(&[KernelLaunch]) -> Result<u64, SimError>,
) -> i32 {
    // SAFETY: caller contract.
    run_storing(unsafe { corr.as_mut() }, || {
        if launches.is_null() || count == 0 {
            return Err(SimError::InvalidArgument("a graph needs kernels".into()));
        }
        // SAFETY: caller contract: `count` valid launches.
        let launches: Vec<KernelLaunch> = unsafe { std::slice::from_raw_parts(launches, count) }
            .iter()
            .map(launch_of)
            .collect();
        f(&launches)
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

/// # Safety
/// `ptr` is null (rejected) or points to a valid `T`.
unsafe fn read<'a, T>(ptr: *const T) -> Result<&'a T, SimError> {
    // SAFETY: caller contract.
    unsafe { ptr.as_ref() }.ok_or_else(|| SimError::InvalidArgument("null pointer".into()))
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

#[no_mangle]
pub unsafe extern "C" fn rocsim_stream_create(stream: *mut u64) -> i32 {
    // SAFETY: caller contract: `stream` is null or valid for a write.
    run_storing(unsafe { stream.as_mut() }, driver::stream_create)
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_stream_create_with(op: i32, stream: *mut u64) -> i32 {
    // SAFETY: caller contract: `stream` is null or valid for a write.
    run_storing(unsafe { stream.as_mut() }, || {
        driver::stream_create_with(op)
    })
}

/// A rejected stream creation; `has_stream_out` = 0 for a null `hipStream_t*`, else
/// `stream_out` is what `*stream` held (see `driver::stream_create_failed`).
#[no_mangle]
pub extern "C" fn rocsim_stream_create_failed(
    op: i32,
    has_stream_out: i32,
    stream_out: u64,
) -> i32 {
    run(|| driver::stream_create_failed(op, (has_stream_out != 0).then_some(stream_out)))
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
    device: u32,
    names: *const *const c_char,
    count: usize,
    code_object_id: *mut u64,
    kernel_ids: *mut u64,
) -> i32 {
    run(|| {
        if names.is_null() && count > 0 {
            return Err(SimError::InvalidArgument("null names".into()));
        }
        let mut owned = Vec::with_capacity(count);
        for i in 0..count {
            // SAFETY: caller contract: `count` valid C strings.
            let name = unsafe { *names.add(i) };
            if name.is_null() {
                return Err(SimError::InvalidArgument(format!("name {i} is null")));
            }
            // SAFETY: as above.
            owned.push(
                unsafe { CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        let (id, kernels) = driver::load_code_object(device, &refs)?;
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
pub unsafe extern "C" fn rocsim_load_code_object_ex(
    device: u32,
    symbols: *const rocsim_kernel_symbol_t,
    count: usize,
    code_object_id: *mut u64,
    kernel_ids: *mut u64,
) -> i32 {
    run(|| {
        if symbols.is_null() && count > 0 {
            return Err(SimError::InvalidArgument("null symbols".into()));
        }
        let mut owned = Vec::with_capacity(count);
        for i in 0..count {
            // SAFETY: caller contract: `count` valid symbols.
            let symbol = unsafe { &*symbols.add(i) };
            if symbol.name.is_null() {
                return Err(SimError::InvalidArgument(format!("symbol {i} has no name")));
            }
            // SAFETY: caller contract: a NUL-terminated name.
            let name = unsafe { CStr::from_ptr(symbol.name) }
                .to_string_lossy()
                .into_owned();
            let resources = driver::KernelResources {
                kernarg_segment_size: symbol.kernarg_segment_size,
                group_segment_size: symbol.group_segment_size,
                private_segment_size: symbol.private_segment_size,
                sgpr_count: symbol.sgpr_count,
                arch_vgpr_count: symbol.arch_vgpr_count,
                accum_vgpr_count: symbol.accum_vgpr_count,
            };
            owned.push((name, resources));
        }
        let refs: Vec<(&str, driver::KernelResources)> =
            owned.iter().map(|(n, r)| (n.as_str(), *r)).collect();
        let (id, kernels) = driver::load_code_object_with_resources(device, &refs)?;
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

#[no_mangle]
pub unsafe extern "C" fn rocsim_launch_kernel(
    stream: u64,
    launch: *const rocsim_kernel_launch_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract: `corr` is null or valid for a write.
    run_storing(unsafe { corr.as_mut() }, || {
        // SAFETY: caller contract.
        driver::launch_kernel(stream, &launch_of(unsafe { read(launch) }?))
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_module_launch_kernel(
    stream: u64,
    launch: *const rocsim_kernel_launch_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract: `corr` is null or valid for a write.
    run_storing(unsafe { corr.as_mut() }, || {
        // SAFETY: caller contract.
        driver::module_launch_kernel(stream, &launch_of(unsafe { read(launch) }?))
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_graph_launch(
    stream: u64,
    launches: *const rocsim_kernel_launch_t,
    count: usize,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe { graph_call(launches, count, corr, |l| driver::graph_launch(stream, l)) }
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_memcpy_async(
    stream: u64,
    copy: *const rocsim_copy_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract: `corr` is null or valid for a write.
    run_storing(unsafe { corr.as_mut() }, || {
        // SAFETY: caller contract.
        driver::memcpy_async(stream, &copy_of(unsafe { read(copy) }?)?)
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_memcpy_sync(copy: *const rocsim_copy_t, corr: *mut u64) -> i32 {
    // SAFETY: caller contract: `corr` is null or valid for a write.
    run_storing(unsafe { corr.as_mut() }, || {
        // SAFETY: caller contract.
        driver::memcpy_sync(&copy_of(unsafe { read(copy) }?)?)
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_memcpy_async_ex(
    stream: u64,
    copy: *const rocsim_copy_t,
    call: *const rocsim_copy_call_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        copy_call(copy, call, corr, |c, k| {
            driver::memcpy_async_with(stream, c, k)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_memcpy_sync_ex(
    copy: *const rocsim_copy_t,
    call: *const rocsim_copy_call_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe { copy_call(copy, call, corr, driver::memcpy_sync_with) }
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_launch_kernel_ex(
    stream: u64,
    launch: *const rocsim_kernel_launch_t,
    call: *const rocsim_launch_call_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        launch_call(launch, call, corr, |l, c| {
            driver::launch_kernel_with(stream, l, c)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_module_launch_kernel_ex(
    stream: u64,
    launch: *const rocsim_kernel_launch_t,
    call: *const rocsim_launch_call_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        launch_call(launch, call, corr, |l, c| {
            driver::module_launch_kernel_with(stream, l, c)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_graph_launch_ex(
    stream: u64,
    launches: *const rocsim_kernel_launch_t,
    count: usize,
    graph_exec: u64,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        graph_call(launches, count, corr, |l| {
            driver::graph_launch_with(stream, l, graph_exec)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_memset_async(
    stream: u64,
    bytes: u64,
    duration_ns: u64,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract: `corr` is null or valid for a write.
    run_storing(unsafe { corr.as_mut() }, || {
        driver::memset_async(stream, bytes, duration_ns)
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_memcpy_async_as(
    op: i32,
    stream: u64,
    copy: *const rocsim_copy_t,
    call: *const rocsim_copy_call_t,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract.
    unsafe {
        copy_call(copy, call, corr, |c, k| {
            driver::memcpy_async_as(op, stream, c, k)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_memset_async_as(
    op: i32,
    stream: u64,
    bytes: u64,
    duration_ns: u64,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract: `corr` is null or valid for a write.
    run_storing(unsafe { corr.as_mut() }, || {
        driver::memset_async_as(op, stream, bytes, duration_ns)
    })
}

#[no_mangle]
pub extern "C" fn rocsim_stream_wait(stream: u64) -> i32 {
    run(|| driver::stream_wait(stream))
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_memset_sync(bytes: u64, duration_ns: u64, corr: *mut u64) -> i32 {
    // SAFETY: caller contract: `corr` is null or valid for a write.
    run_storing(unsafe { corr.as_mut() }, || {
        driver::memset_sync(bytes, duration_ns)
    })
}

#[no_mangle]
pub extern "C" fn rocsim_stream_synchronize(stream: u64) -> i32 {
    run(|| driver::stream_synchronize(stream))
}

#[no_mangle]
pub extern "C" fn rocsim_device_synchronize() -> i32 {
    run(driver::device_synchronize)
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_api_call_failed(
    op: i32,
    has_stream: i32,
    stream: u64,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract: `corr` is null or valid for a write.
    run_storing(unsafe { corr.as_mut() }, || {
        driver::api_call_failed(op, (has_stream != 0).then_some(stream))
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocsim_api_call(
    op: i32,
    has_stream: i32,
    stream: u64,
    corr: *mut u64,
) -> i32 {
    // SAFETY: caller contract: `corr` is null or valid for a write.
    run_storing(unsafe { corr.as_mut() }, || {
        driver::api_call(op, (has_stream != 0).then_some(stream))
    })
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
