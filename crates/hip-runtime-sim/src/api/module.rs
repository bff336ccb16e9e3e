//! hipModuleLoadData, hipModuleGetFunction, hipModuleUnload, hipModuleLaunchKernel.

use super::{hip_call, write_out, Traced};
use crate::abi::Dim3;
use crate::error::{hipError_t, HipError, HIP_ERROR_INVALID_VALUE};
use crate::{code_object_image, device, driver, kernels, launch, streams};
use rocprofiler_sdk_sys::*;
use std::ffi::{c_char, c_uint, c_void, CStr};

/// Loads a simulator code-object image (see `code_object_image`) on the current device.
///
/// # Safety
/// `module` must be null or point to a writable `hipModule_t`; `image` must be null or a
/// complete image.
#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadData(module: *mut u64, image: *const c_void) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLoadData,
        None,
        || {
            if module.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            // SAFETY: caller contract.
            let names = unsafe { code_object_image::kernel_names(image.cast()) }?;
            let handle = kernels::load_module(device::current(), names);
            // SAFETY: caller contract; checked non-null.
            unsafe { write_out(module, handle) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `function` must be null or point to a writable `hipFunction_t`; `kname` must be null or a
/// NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn hipModuleGetFunction(
    function: *mut u64,
    module: u64,
    kname: *const c_char,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleGetFunction,
        None,
        || {
            if function.is_null() || kname.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            // SAFETY: caller contract: NUL-terminated.
            let name = unsafe { CStr::from_ptr(kname) }
                .to_str()
                .map_err(|_| HipError(HIP_ERROR_INVALID_VALUE))?;
            let handle = kernels::module_function(module, name)?;
            // SAFETY: caller contract; checked non-null.
            unsafe { write_out(function, handle) }?;
            Ok(Traced::No)
        },
    )
}

#[no_mangle]
pub extern "C" fn hipModuleUnload(module: u64) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleUnload, None, || {
        kernels::unregister(module)?;
        Ok(Traced::No)
    })
}

/// Grid in blocks, as for `hipLaunchKernel`. The `extra` argument form is not supported by the
/// simulator (its host bodies receive `kernelParams`).
///
/// # Safety
/// `kernel_params` must be the kernel's argument array (only passed on to its host body).
#[no_mangle]
pub unsafe extern "C" fn hipModuleLaunchKernel(
    f: u64,
    grid_dim_x: c_uint,
    grid_dim_y: c_uint,
    grid_dim_z: c_uint,
    block_dim_x: c_uint,
    block_dim_y: c_uint,
    block_dim_z: c_uint,
    shared_mem_bytes: c_uint,
    stream: u64,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel,
        Some(stream),
        || {
            if !extra.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            let device = streams::device_of(stream)?;
            let grid = Dim3 {
                x: grid_dim_x,
                y: grid_dim_y,
                z: grid_dim_z,
            };
            let block = Dim3 {
                x: block_dim_x,
                y: block_dim_y,
                z: block_dim_z,
            };
            let prepared = launch::prepare(f, device, grid, block, shared_mem_bytes as usize)?;
            // SAFETY: caller contract.
            unsafe { prepared.run_host_body(kernel_params) };
            let call = driver::LaunchCall {
                function: f,
                args: kernel_params as u64,
            };
            driver::module_launch_kernel(stream, &prepared.dispatch, &call)?;
            Ok(Traced::ByDriver)
        },
    )
}
