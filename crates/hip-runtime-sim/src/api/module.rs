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
        let path = std::path::Path::new(
            <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path.to_bytes()),
        );
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

#[cfg(test)]
mod tests {
    //! A real-shaped AMDGPU ELF through hipModuleLoadData, hipModuleLoad and a clang offload
    //! bundle: the kernels its `.kd` symbols name, with their descriptors' resources, reach the
    //! SDK's kernel-symbol callback and the KERNEL_DISPATCH payload as the real SDK fills them.
    use super::*;
    use crate::api::launch::hipFuncGetAttribute;
    use crate::code_object::kernel_descriptor;
    use crate::code_object::{elf, offload_bundle};
    use crate::error::HIP_SUCCESS;
    use sim_test_kit::{callback_context, register_tool, start, sys};
    use std::sync::Mutex as StdMutex;

    /// (name, kernarg, group, private, sgpr, arch vgpr, accum vgpr) per symbol registered.
    type Symbol = (String, u32, u32, u32, u32, u32, u32);
    static SYMBOLS: StdMutex<Vec<Symbol>> = StdMutex::new(Vec::new());
    /// (kernel id, group segment, private segment) per dispatch enqueued.
    static DISPATCHES: StdMutex<Vec<(u64, u32, u32)>> = StdMutex::new(Vec::new());
    static KERNEL_IDS: StdMutex<Vec<(String, u64)>> = StdMutex::new(Vec::new());

    unsafe extern "C" fn on_callback(
        record: sys::rocprofiler_callback_tracing_record_t,
        _user: *mut sys::rocprofiler_user_data_t,
        _data: *mut c_void,
    ) {
        if record.kind == sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT
            && record.operation == sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER
            && record.phase == sys::ROCPROFILER_CALLBACK_PHASE_LOAD
        {
            // SAFETY: this operation's payload, live for the callback.
            let s = unsafe {
                &*record
                    .payload
                    .cast::<sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t>()
            };
            // SAFETY: the kernel name is valid while the code object is loaded.
            let name = unsafe { CStr::from_ptr(s.kernel_name) }
                .to_string_lossy()
                .into_owned();
            KERNEL_IDS.lock().unwrap().push((name.clone(), s.kernel_id));
            SYMBOLS.lock().unwrap().push((
                name,
                s.kernarg_segment_size,
                s.group_segment_size,
                s.private_segment_size,
                s.sgpr_count,
                s.arch_vgpr_count,
                s.accum_vgpr_count,
            ));
        }
        if record.kind == sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH
            && record.operation == sys::ROCPROFILER_KERNEL_DISPATCH_ENQUEUE
            && record.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER
        {
            // SAFETY: this kind's payload, live for the callback.
            let d = unsafe {
                &(*record
                    .payload
                    .cast::<sys::rocprofiler_callback_tracing_kernel_dispatch_data_t>())
                .dispatch_info
            };
            DISPATCHES.lock().unwrap().push((
                d.kernel_id,
                d.group_segment_size,
                d.private_segment_size,
            ));
        }
    }

    unsafe extern "C" fn init(
        _fini: sys::rocprofiler_client_finalize_t,
        _data: *mut c_void,
    ) -> std::ffi::c_int {
        let ctx = callback_context(
            &[
                sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
            ],
            Some(on_callback),
        );
        start(ctx);
        0
    }

    fn sample_elf() -> Vec<u8> {
        elf::build::elf(
            &[
                elf::build::TestKernel {
                    name: "gemm_fusion_dot_general_1",
                    // 8 KiB LDS, 16 B scratch, 280 B kernargs, 128 VGPRs split at 96, 32 SGPRs.
                    descriptor: kernel_descriptor::encode(8192, 16, 280, 16, 4, 24),
                },
                elf::build::TestKernel {
                    name: "loop_add_fusion",
                    descriptor: kernel_descriptor::encode(0, 0, 24, 2, 2, 4),
                },
            ],
            ("buffer_for_constant", 16),
        )
    }

    fn kernel_id(name: &str) -> u64 {
        KERNEL_IDS
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
            .unwrap()
    }

    #[test]
    fn elf_kernels_and_descriptor_resources_reach_the_sdk() {
        register_tool(c"module-test", init, None);
        let image = sample_elf();
        let (mut module, mut function, mut regs, mut lds) = (0u64, 0u64, 0, 0);
        let mut global: *mut c_void = std::ptr::null_mut();
        let mut global_size = 0usize;
        // SAFETY: a complete image; live locals; NUL-terminated names.
        unsafe {
            assert_eq!(
                hipModuleLoadData(&mut module, image.as_ptr().cast()),
                HIP_SUCCESS
            );
            assert_eq!(
                hipModuleGetFunction(&mut function, module, c"gemm_fusion_dot_general_1".as_ptr()),
                HIP_SUCCESS
            );
            assert_eq!(
                hipFuncGetAttribute(&mut regs, 4, function as *const c_void),
                HIP_SUCCESS
            );
            assert_eq!(
                hipFuncGetAttribute(&mut lds, 1, function as *const c_void),
                HIP_SUCCESS
            );
            assert_eq!(
                hipModuleGetGlobal(
                    &mut global,
                    &mut global_size,
                    module,
                    c"buffer_for_constant".as_ptr()
                ),
                HIP_SUCCESS
            );
            assert_eq!(
                hipModuleLaunchKernel(
                    function,
                    4,
                    1,
                    1,
                    128,
                    1,
                    1,
                    1024,
                    0,
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                ),
                HIP_SUCCESS
            );
        }
        assert_eq!((regs, lds), (96, 8192));
        assert!(!global.is_null());
        assert_eq!(global_size, 16);
        assert_eq!(crate::api::device::hipDeviceSynchronize(), HIP_SUCCESS);

        let symbols = SYMBOLS.lock().unwrap().clone();
        let gemm = symbols
            .iter()
            .find(|s| s.0 == "gemm_fusion_dot_general_1")
            .expect("kernel symbol registered");
        assert_eq!(
            gemm,
            &(
                "gemm_fusion_dot_general_1".to_owned(),
                280,
                8192,
                16,
                32,
                96,
                32
            )
        );
        assert!(symbols
            .iter()
            .any(|s| s.0 == "loop_add_fusion" && s.5 == 16));
        // The dispatch's LDS is static plus dynamic; its scratch is the descriptor's.
        let id = kernel_id("gemm_fusion_dot_general_1");
        let dispatches = DISPATCHES.lock().unwrap().clone();
        assert!(
            dispatches.contains(&(id, 8192 + 1024, 16)),
            "{dispatches:?} lacks kernel {id}"
        );
        assert_eq!(hipModuleUnload(module), HIP_SUCCESS);

        // The same object in a clang offload bundle, and from a file.
        let bundle =
            offload_bundle::bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx942", image.as_slice())]);
        let path = std::env::temp_dir().join(format!("rocsim-module-{}.hsaco", std::process::id()));
        std::fs::write(&path, &image).unwrap();
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: complete images; live locals; NUL-terminated names.
        unsafe {
            assert_eq!(
                hipModuleLoadData(&mut module, bundle.as_ptr().cast()),
                HIP_SUCCESS
            );
            assert_eq!(
                hipModuleGetFunction(&mut function, module, c"loop_add_fusion".as_ptr()),
                HIP_SUCCESS
            );
            assert_eq!(hipModuleUnload(module), HIP_SUCCESS);
            assert_eq!(hipModuleLoad(&mut module, c_path.as_ptr()), HIP_SUCCESS);
            assert_eq!(
                hipModuleGetFunction(&mut function, module, c"no_such_kernel".as_ptr()),
                crate::error::HIP_ERROR_NOT_FOUND
            );
            assert_eq!(hipModuleUnload(module), HIP_SUCCESS);
            assert_eq!(
                hipModuleLoad(&mut module, c"/nonexistent/x.hsaco".as_ptr()),
                HIP_ERROR_FILE_NOT_FOUND
            );
            let garbage = [0x7fu8, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
            let mut short = [0u8; 64];
            short[..16].copy_from_slice(&garbage);
            assert_eq!(
                hipModuleLoadData(&mut module, short.as_ptr().cast()),
                crate::error::HIP_ERROR_INVALID_IMAGE
            );
        }
        let _ = std::fs::remove_file(&path);
    }
}
