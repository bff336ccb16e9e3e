//! hipLaunchKernel, hipFuncGetAttributes and the occupancy queries.

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
            registered(func)?;
            let attributes = HipFuncAttributes {
                binaryVersion: 94,
                maxDynamicSharedSizeBytes: SHARED_MEM_PER_BLOCK as c_int,
                maxThreadsPerBlock: MAX_THREADS_PER_BLOCK,
                numRegs: 32,
                ptxVersion: 94,
                ..HipFuncAttributes::default()
            };
            // SAFETY: caller contract.
            unsafe { write_out(attr, attributes) }?;
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
