//! hipGraphCreate, hipGraphAddKernelNode, hipGraphInstantiate, hipGraphLaunch,
//! hipGraphExecDestroy, hipGraphDestroy (kernel nodes only, see `graphs`).

use super::{hip_call, write_out, Traced};
use crate::abi::HipKernelNodeParams;
use crate::error::{hipError_t, HipError, HIP_ERROR_INVALID_VALUE};
use crate::graphs::{self, KernelNode};
use crate::{driver, launch, streams};
use rocprofiler_sdk_sys::*;
use std::ffi::{c_char, c_uint};

/// # Safety
/// `graph` must be null or point to a writable `hipGraph_t`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphCreate(graph: *mut u64, flags: c_uint) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphCreate, None, || {
        if graph.is_null() || flags != 0 {
            return Err(HipError(HIP_ERROR_INVALID_VALUE));
        }
        // SAFETY: caller contract; checked non-null.
        unsafe { write_out(graph, graphs::create()) }?;
        Ok(Traced::No)
    })
}

/// # Safety
/// `node` must be null or writable; `dependencies` must be null or hold
/// `num_dependencies` handles; `params` must be null or readable.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddKernelNode(
    node: *mut u64,
    graph: u64,
    dependencies: *const u64,
    num_dependencies: usize,
    params: *const HipKernelNodeParams,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddKernelNode,
        None,
        || {
            if node.is_null()
                || params.is_null()
                || (dependencies.is_null() && num_dependencies != 0)
            {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            let dependencies = if num_dependencies == 0 {
                &[][..]
            } else {
                // SAFETY: caller contract; checked non-null.
                unsafe { std::slice::from_raw_parts(dependencies, num_dependencies) }
            };
            // SAFETY: caller contract; checked non-null.
            let params = unsafe { &*params };
            if params.func.is_null() || !params.extra.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            let handle =
                graphs::add_kernel_node(graph, dependencies, KernelNode::from_params(params))?;
            // SAFETY: caller contract; checked non-null.
            unsafe { write_out(node, handle) }?;
            Ok(Traced::No)
        },
    )
}

/// # Safety
/// `exec` must be null or point to a writable `hipGraphExec_t`; the error outputs are unused.
#[no_mangle]
pub unsafe extern "C" fn hipGraphInstantiate(
    exec: *mut u64,
    graph: u64,
    _error_node: *mut u64,
    _log_buffer: *mut c_char,
    _buffer_size: usize,
) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiate,
        None,
        || {
            if exec.is_null() {
                return Err(HipError(HIP_ERROR_INVALID_VALUE));
            }
            let handle = graphs::instantiate(graph)?;
            // SAFETY: caller contract; checked non-null.
            unsafe { write_out(exec, handle) }?;
            Ok(Traced::No)
        },
    )
}

/// All kernel nodes dispatch under the one correlation id of this call (docs/simulator-fidelity.md#record-contents), in node order.
#[no_mangle]
pub extern "C" fn hipGraphLaunch(exec: u64, stream: u64) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch,
        Some(stream),
        || {
            let device = streams::device_of(stream)?;
            let nodes = graphs::executable_nodes(exec)?;
            let prepared = nodes
                .iter()
                .map(|n| {
                    launch::prepare(
                        n.function,
                        device,
                        n.grid,
                        n.block,
                        n.shared_mem_bytes as usize,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            for (node, launch) in nodes.iter().zip(&prepared) {
                // SAFETY: the program's own argument array for its own kernel (HIP contract for
                // kernelParams, which must outlive the launch here, see `graphs`).
                unsafe { launch.run_host_body(node.args) };
            }
            let dispatches: Vec<_> = prepared.iter().map(|p| p.dispatch).collect();
            if dispatches.is_empty() {
                return Ok(Traced::No);
            }
            driver::graph_launch(stream, &dispatches, exec)?;
            Ok(Traced::ByDriver)
        },
    )
}

#[no_mangle]
pub extern "C" fn hipGraphExecDestroy(exec: u64) -> hipError_t {
    hip_call(
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecDestroy,
        None,
        || {
            graphs::destroy_executable(exec)?;
            Ok(Traced::No)
        },
    )
}

#[no_mangle]
pub extern "C" fn hipGraphDestroy(graph: u64) -> hipError_t {
    hip_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDestroy, None, || {
        graphs::destroy(graph)?;
        Ok(Traced::No)
    })
}
