//! hipLaunchKernel, hipFuncGetAttributes, hipFuncGetAttribute, hipGetFuncBySymbol and the
//! occupancy queries.

use super::{hip_call, write_out, Traced};
use crate::abi::{Dim3, HipFuncAttributes};
use crate::device_props::{MAX_THREADS_PER_BLOCK, SHARED_MEM_PER_BLOCK};
use crate::error::{
    hipError_t, HipError, HIP_ERROR_INVALID_DEVICE_FUNCTION, HIP_ERROR_INVALID_VALUE,
};
use crate::{driver, kernels, launch, occupancy, streams};
use rocprofiler_sdk_sys::*;
use std::ffi::{c_int, c_void};

/// `function_address` is the kernel's host stub as registered by `__hipRegisterFunction`.
///
/// # Safety
/// `args` must be the kernel's argument array (only passed on to its host body).
#[no_mangle]
pub unsafe extern "C" fn hipLaunchKernel(
    function_address: *const c_void,
    num_blocks: Dim3,
    dim_blocks: Dim3,
    args: *mut *mut c_void,
    shared_mem_bytes: usize,
    stream: u64,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel,
        Some(stream),
        || {
            let device = streams::device_of(stream)?;
            let prepared = launch::prepare(
                function_address as u64,
                device,
                num_blocks,
                dim_blocks,
                shared_mem_bytes,
            )?;
            // SAFETY: caller contract.
            unsafe { prepared.run_host_body(args) };
            let call = driver::LaunchCall {
                function: function_address as u64,
                args: args as u64,
            };
            driver::launch_kernel(stream, &prepared.dispatch, &call)?;
            Ok(Traced::ByDriver)
        },
    )
}

fn registered(func: *const c_void) -> Result<(), HipError> {
    if func.is_null() || !kernels::is_registered(func as u64) {
        return Err(HipError(HIP_ERROR_INVALID_DEVICE_FUNCTION));
    }
    Ok(())
}

/// A kernel's attributes: from its descriptor when its code object declared one, else those of
/// a small kernel (32 VGPRs, no LDS or scratch).
fn attributes_of(func: *const c_void) -> Result<HipFuncAttributes, HipError> {
    registered(func)?;
    let resources = kernels::resources_of(func as u64)?;
    let static_lds = resources.map_or(0, |r| r.group_segment_size as usize);
    Ok(HipFuncAttributes {
        binaryVersion: 94,
        localSizeBytes: resources.map_or(0, |r| r.private_segment_size as usize),
        sharedSizeBytes: static_lds,
        maxDynamicSharedSizeBytes: SHARED_MEM_PER_BLOCK.saturating_sub(static_lds) as c_int,
        maxThreadsPerBlock: MAX_THREADS_PER_BLOCK,
        numRegs: resources.map_or(32, |r| r.arch_vgpr_count as c_int),
        ptxVersion: 94,
        ..HipFuncAttributes::default()
    })
}

/// # Safety
/// `attr` must be null or point to a writable `hipFuncAttributes`.
#[no_mangle]
pub unsafe extern "C" fn hipFuncGetAttributes(
    attr: *mut HipFuncAttributes,
    func: *const c_void,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipFuncGetAttributes,
        None,
        || {
            let attributes = attributes_of(func)?;
            // SAFETY: caller contract.
            unsafe { write_out(attr, attributes) }?;
            Ok(Traced::No)
        },
    )
}

/// `hipFunction_attribute` values, in HIP's order from 0.
const FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: c_int = 0;
const FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: c_int = 1;
const FUNC_ATTRIBUTE_CONST_SIZE_BYTES: c_int = 2;
const FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: c_int = 3;
const FUNC_ATTRIBUTE_NUM_REGS: c_int = 4;
const FUNC_ATTRIBUTE_PTX_VERSION: c_int = 5;
const FUNC_ATTRIBUTE_BINARY_VERSION: c_int = 6;
const FUNC_ATTRIBUTE_CACHE_MODE_CA: c_int = 7;
const FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: c_int = 8;
const FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: c_int = 9;

/// One attribute of a kernel (`hipFunction_t`, or a host stub: both name registered kernels).
///
/// # Safety
/// `value` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipFuncGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    func: *const c_void,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipFuncGetAttribute,
        None,
        || {
            let a = attributes_of(func)?;
            let clamp = |v: usize| c_int::try_from(v).unwrap_or(c_int::MAX);
            let answer = match attribute {
                FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK => a.maxThreadsPerBlock,
                FUNC_ATTRIBUTE_SHARED_SIZE_BYTES => clamp(a.sharedSizeBytes),
                FUNC_ATTRIBUTE_CONST_SIZE_BYTES => clamp(a.constSizeBytes),
                FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES => clamp(a.localSizeBytes),
                FUNC_ATTRIBUTE_NUM_REGS => a.numRegs,
                FUNC_ATTRIBUTE_PTX_VERSION => a.ptxVersion,
                FUNC_ATTRIBUTE_BINARY_VERSION => a.binaryVersion,
                FUNC_ATTRIBUTE_CACHE_MODE_CA => a.cacheModeCA,
                FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => a.maxDynamicSharedSizeBytes,
                FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => a.preferredShmemCarveout,
                _ => return Err(HipError(HIP_ERROR_INVALID_VALUE)),
            };
            // SAFETY: caller contract.
            unsafe { write_out(value, answer) }?;
            Ok(Traced::No)
        },
    )
}

/// The `hipFunction_t` of a kernel registered with `__hipRegisterFunction`: its host stub,
/// which the module launch and attribute calls accept as well.
///
/// # Safety
/// `function` must be null or point to a writable `hipFunction_t`.
#[no_mangle]
pub unsafe extern "C" fn hipGetFuncBySymbol(
    function: *mut u64,
    symbol: *const c_void,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGetFuncBySymbol,
        None,
        || {
            registered(symbol)?;
            // SAFETY: caller contract.
            unsafe { write_out(function, symbol as u64) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `num_blocks` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
    num_blocks: *mut c_int,
    f: u64,
    block_size: c_int,
    dyn_shared_mem_per_blk: usize,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleOccupancyMaxActiveBlocksPerMultiprocessor,
        None,
        || {
            let a = attributes_of(f as *const c_void)?;
            let shared = dyn_shared_mem_per_blk.saturating_add(a.sharedSizeBytes);
            let blocks = occupancy::max_active_blocks_per_cu(block_size, shared)
                .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
            // SAFETY: caller contract.
            unsafe { write_out(num_blocks, blocks) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `num_blocks` must be null or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxActiveBlocksPerMultiprocessor(
    num_blocks: *mut c_int,
    f: *const c_void,
    block_size: c_int,
    dyn_shared_mem_per_blk: usize,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipOccupancyMaxActiveBlocksPerMultiprocessor,
        None,
        || {
            registered(f)?;
            let blocks = occupancy::max_active_blocks_per_cu(block_size, dyn_shared_mem_per_blk)
                .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
            // SAFETY: caller contract.
            unsafe { write_out(num_blocks, blocks) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `grid_size` and `block_size` must be null or point to writable `int`s.
#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxPotentialBlockSize(
    grid_size: *mut c_int,
    block_size: *mut c_int,
    f: *const c_void,
    dyn_shared_mem_per_blk: usize,
    block_size_limit: c_int,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipOccupancyMaxPotentialBlockSize,
        None,
        || {
            registered(f)?;
            if grid_size.is_null() || block_size.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            let (grid, block) =
                occupancy::max_potential_block_size(dyn_shared_mem_per_blk, block_size_limit)
                    .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
            // SAFETY: caller contract; both checked non-null.
            unsafe {
                write_out(grid_size, grid)?;
                write_out(block_size, block)?;
            }
            Ok(Traced::No)
        },
    )
}
