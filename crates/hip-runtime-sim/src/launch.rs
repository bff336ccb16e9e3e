//! Turning a HIP launch (grid in blocks, block in threads) into a simulated dispatch, and
//! running the kernel's optional host body.

use crate::abi::{Dim3, KernelHostBody};
use crate::device_props::MAX_THREADS_PER_BLOCK;
use crate::driver::KernelLaunch;
use crate::error::{HipError, HIP_ERROR_INVALID_CONFIGURATION, HIP_ERROR_INVALID_VALUE};
use crate::kernels::{self, ResolvedKernel};
use crate::timing_model;
use std::ffi::c_void;

/// A validated launch of a registered kernel on `device`.
pub struct PreparedLaunch {
    pub dispatch: KernelLaunch,
    grid: Dim3,
    block: Dim3,
    shared_mem_bytes: usize,
    host_body: Option<KernelHostBody>,
}

/// Checks the configuration and resolves the kernel on `device` (loading its code object
/// there on first use).
pub fn prepare(
    function: u64,
    device: u32,
    grid: Dim3,
    block: Dim3,
    shared_mem_bytes: usize,
) -> Result<PreparedLaunch, HipError> {
    if function == 0 {
        return Err(HipError(HIP_ERROR_INVALID_VALUE));
    }
    let blocks = grid
        .volume()
        .ok_or(HipError(HIP_ERROR_INVALID_CONFIGURATION))?;
    let threads = block
        .volume()
        .ok_or(HipError(HIP_ERROR_INVALID_CONFIGURATION))?;
    if threads > MAX_THREADS_PER_BLOCK as u64 {
        return Err(HipError(HIP_ERROR_INVALID_CONFIGURATION));
    }
    let group_segment_size =
        u32::try_from(shared_mem_bytes).map_err(|_| HipError(HIP_ERROR_INVALID_CONFIGURATION))?;
    let ResolvedKernel {
        kernel_id,
        resources,
        host_body,
        modelled_duration_ns,
    } = kernels::resolve(function, device)?;
    // The dispatch packet's LDS is the kernel's static LDS plus the launch's dynamic LDS, and
    // its scratch is the descriptor's per-work-item size (as HIP fills the AQL packet).
    let static_lds = resources.map_or(0, |r| r.group_segment_size);
    let group_segment_size = group_segment_size
        .checked_add(static_lds)
        .ok_or(HipError(HIP_ERROR_INVALID_CONFIGURATION))?;
    let private_segment_size = resources.map_or(0, |r| r.private_segment_size);
    let duration_ns = if modelled_duration_ns == 0 {
        timing_model::kernel_duration_ns(blocks.saturating_mul(threads))
    } else {
        modelled_duration_ns
    };
    // The SDK's dispatch packet carries the grid in work-items.
    let work_items = [
        grid.x.saturating_mul(block.x),
        grid.y.saturating_mul(block.y),
        grid.z.saturating_mul(block.z),
    ];
    Ok(PreparedLaunch {
        dispatch: KernelLaunch {
            kernel: kernel_id,
            grid: work_items,
            block: [block.x, block.y, block.z],
            group_segment_size,
            private_segment_size,
            duration_ns,
        },
        grid,
        block,
        shared_mem_bytes,
        host_body,
    })
}

impl PreparedLaunch {
    /// Runs the program's host body for this kernel, if it registered one.
    ///
    /// # Safety
    /// `args` must be what the program's kernel expects (the HIP launch contract).
    pub unsafe fn run_host_body(&self, args: *mut *mut c_void) {
        if let Some(body) = self.host_body {
            // SAFETY: the program registered `body` for this kernel and passes its own args.
            unsafe { body(self.grid, self.block, self.shared_mem_bytes, args) };
        }
    }
}
