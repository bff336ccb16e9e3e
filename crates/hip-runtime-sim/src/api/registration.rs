//! What hipcc-generated host code calls: `__hipRegisterFatBinary`, `__hipRegisterFunction`,
//! `__hipUnregisterFatBinary`, `__hipPushCallConfiguration`/`__hipPopCallConfiguration`.
//! These belong to HIP's compiler dispatch table, which rocprofiler-sdk does not trace (docs/sdk-facts.md#wrapped-calls),
//! so they produce no API records. Plus the simulator's `rocsimHipSetKernelHostBody`.

use crate::abi::{Dim3, HipFatbinWrapper, KernelHostBody, HIP_FATBIN_MAGIC};
use crate::error::{
    self, hipError_t, HipError, HIP_ERROR_INVALID_VALUE, HIP_ERROR_UNKNOWN, HIP_SUCCESS,
};
use crate::kernels;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Returns the handle hipcc code passes back to the other registration calls, or null for a
/// wrapper without HIP's magic.
///
/// # Safety
/// `data` must be null or point to a `__hip_fatbin_wrapper`.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterFatBinary(data: *const c_void) -> *mut *mut c_void {
    let wrapper = data.cast::<HipFatbinWrapper>();
    // SAFETY: caller contract; checked non-null.
    if wrapper.is_null() || unsafe { (*wrapper).magic } != HIP_FATBIN_MAGIC {
        return std::ptr::null_mut();
    }
    catch_unwind(kernels::register_fat_binary)
        .map(|handle| handle as *mut *mut c_void)
        .unwrap_or(std::ptr::null_mut())
}

/// Registers `host_function` (the kernel's host stub) as kernel `device_name` (mangled).
///
/// # Safety
/// `device_name` must be null or NUL-terminated. The other pointers are not read.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterFunction(
    modules: *mut *mut c_void,
    host_function: *const c_void,
    _device_function: *mut c_char,
    device_name: *const c_char,
    _thread_limit: c_uint,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _block_dim: *mut Dim3,
    _grid_dim: *mut Dim3,
    _w_size: *mut c_int,
) {
    if modules.is_null() || host_function.is_null() || device_name.is_null() {
        return;
    }
    // SAFETY: caller contract.
    let Ok(name) = unsafe { CStr::from_ptr(device_name) }.to_str() else {
        return;
    };
    let _ = catch_unwind(|| kernels::register_function(modules as u64, host_function as u64, name));
}

/// Registers a device variable of a fat binary. The simulator keeps none: no kernel body runs
/// on a device, and the host variable `host_var` is the only copy programs can reach.
///
/// No pointer is read.
#[no_mangle]
pub extern "C" fn __hipRegisterVar(
    _modules: *mut *mut c_void,
    _host_var: *mut c_void,
    _device_address: *mut c_char,
    _device_name: *const c_char,
    _ext: c_int,
    _size: usize,
    _constant: c_int,
    _global: c_int,
) {
}

#[no_mangle]
pub extern "C" fn __hipUnregisterFatBinary(modules: *mut *mut c_void) {
    let _ = catch_unwind(|| kernels::unregister(modules as u64));
}

/// Simulator extension (tests/hip-include/rocsim/hip_host_kernels.h): gives a registered
/// kernel a host body, run at launch, and a modelled duration (0 = from the grid size).
/// Unlike HIP calls this is no HIP API call: not traced.
#[no_mangle]
pub extern "C" fn rocsimHipSetKernelHostBody(
    host_function: *const c_void,
    body: Option<KernelHostBody>,
    modelled_duration_ns: u64,
) -> hipError_t {
    let result =
        catch_unwind(|| kernels::set_host_body(host_function as u64, body, modelled_duration_ns));
    let code = match result {
        Ok(Ok(())) => HIP_SUCCESS,
        Ok(Err(HipError(code))) => code,
        Err(_) => HIP_ERROR_UNKNOWN,
    };
    error::record(code);
    code
}

#[derive(Clone, Copy)]
struct CallConfiguration {
    grid: Dim3,
    block: Dim3,
    shared_mem: usize,
    stream: u64,
}

thread_local! {
    /// `kernel<<<grid, block, shmem, stream>>>(...)` pushes; the kernel's host stub pops.
    static CALL_CONFIGURATIONS: RefCell<Vec<CallConfiguration>> = const { RefCell::new(Vec::new()) };
}

#[no_mangle]
pub extern "C" fn __hipPushCallConfiguration(
    grid_dim: Dim3,
    block_dim: Dim3,
    shared_mem: usize,
    stream: u64,
) -> hipError_t {
    let config = CallConfiguration {
        grid: grid_dim,
        block: block_dim,
        shared_mem,
        stream,
    };
    let pushed = catch_unwind(|| {
        CALL_CONFIGURATIONS
            .try_with(|c| c.borrow_mut().push(config))
            .is_ok()
    });
    if matches!(pushed, Ok(true)) {
        HIP_SUCCESS
    } else {
        HIP_ERROR_UNKNOWN
    }
}

/// # Safety
/// Each output must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn __hipPopCallConfiguration(
    grid_dim: *mut Dim3,
    block_dim: *mut Dim3,
    shared_mem: *mut usize,
    stream: *mut u64,
) -> hipError_t {
    let popped = catch_unwind(AssertUnwindSafe(|| {
        CALL_CONFIGURATIONS
            .try_with(|c| c.borrow_mut().pop())
            .ok()
            .flatten()
    }));
    let Ok(Some(config)) = popped else {
        return HIP_ERROR_INVALID_VALUE;
    };
    // SAFETY: caller contract; each checked non-null.
    unsafe {
        if !grid_dim.is_null() {
            grid_dim.write(config.grid);
        }
        if !block_dim.is_null() {
            block_dim.write(config.block);
        }
        if !shared_mem.is_null() {
            shared_mem.write(config.shared_mem);
        }
        if !stream.is_null() {
            stream.write(config.stream);
        }
    }
    HIP_SUCCESS
}
