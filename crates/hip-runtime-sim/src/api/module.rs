//! hipModuleLoad(Data), hipModuleGetFunction, hipModuleGetGlobal, hipModuleUnload,
//! hipModuleLaunchKernel.

use super::{hip_call, write_out, Traced};
use crate::abi::Dim3;
use crate::error::{hipError_t, HipError, HIP_ERROR_FILE_NOT_FOUND, HIP_ERROR_INVALID_VALUE};
use crate::memory::{self, Placement};
use crate::{code_object, device, driver, kernels, launch, streams};
use parking_lot::Mutex;
use rocprofiler_sdk_sys::*;
use std::collections::HashMap;
use std::ffi::{c_char, c_uint, c_void, CStr};

/// Loads a code object (an AMDGPU ELF, a clang offload bundle, or the simulator's stand-in
/// image, see `code_object`) on the current device.
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
            let contents = unsafe { code_object::parse_in_memory(image.cast()) }?;
            let handle = kernels::load_module(device::current(), contents);
            // SAFETY: caller contract; checked non-null.
            unsafe { write_out(module, handle) }?;
            Ok(Traced::No)
        },
    )
}

/// Loads the code object in file `path`.
///
/// # Safety
/// `module` must be null or point to a writable `hipModule_t`; `path` must be null or a
/// NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn hipModuleLoad(module: *mut u64, path: *const c_char) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLoad, None, || {
        if module.is_null() || path.is_null() {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        // SAFETY: caller contract: NUL-terminated.
        let path = unsafe { CStr::from_ptr(path) };
        let path = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(
            path.to_bytes(),
        ));
        let bytes = std::fs::read(path).map_err(|_| HipError(HIP_ERROR_FILE_NOT_FOUND))?;
        let contents = code_object::parse(&bytes)?;
        let handle = kernels::load_module(device::current(), contents);
        // SAFETY: caller contract; checked non-null.
        unsafe { write_out(module, handle) }?;
        Ok(Traced::No)
    })
}

/// Device memory of each (module, global) asked for, zeroed at first request: the simulator
/// runs no kernel bodies, so a global only needs an address and its size.
static GLOBALS: Mutex<Option<HashMap<(u64, String), usize>>> = Mutex::new(None);

/// # Safety
/// `dptr` and `bytes` must be null (not wanted) or writable; `name` NUL-terminated or null.
#[no_mangle]
pub unsafe extern "C" fn hipModuleGetGlobal(
    dptr: *mut *mut c_void,
    bytes: *mut usize,
    module: u64,
    name: *const c_char,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleGetGlobal,
        None,
        || {
            if name.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            // SAFETY: caller contract: NUL-terminated.
            let name = unsafe { CStr::from_ptr(name) }
                .to_str()
                .map_err(|_| HipError(HIP_ERROR_INVALID_VALUE))?;
            let size = kernels::module_global_size(module, name)?;
            let mut globals = GLOBALS.lock();
            let globals = globals.get_or_insert_with(HashMap::new);
            let key = (module, name.to_owned());
            let address = match globals.get(&key) {
                Some(a) => *a,
                None => {
                    let p = memory::allocate(size.max(1), Placement::Device(device::current()))?;
                    globals.insert(key, p as usize);
                    p as usize
                }
            };
            // SAFETY: caller contract; each may be null.
            unsafe {
                if !dptr.is_null() {
                    dptr.write(address as *mut c_void);
                }
                if !bytes.is_null() {
                    bytes.write(size);
                }
            }
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
