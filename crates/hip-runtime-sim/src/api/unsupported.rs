//! HIP functions the real JAX ROCm plugin imports that the simulator does not model (graph
//! editing, stream capture, IPC, virtual memory management, stream memory operations). Each is
//! exported so the plugin links and loads; a call is traced under its HIP operation id, returns
//! `hipErrorNotSupported`, and names itself once on stderr, so a program that needs one fails
//! with a clear error instead of a crash (docs/simulator-fidelity.md#hip-coverage).
//!
//! They read none of their arguments, so they are declared without parameters: under the
//! x86-64 C calling convention the caller owns its arguments, and a callee that ignores them
//! is correct for any signature.

use super::hip_call;
use crate::error::{hipError_t, HipError, HIP_ERROR_NOT_SUPPORTED};
use parking_lot::Mutex;
use rocprofiler_sdk_sys::*;
use std::collections::HashSet;

/// Names already reported on stderr.
static REPORTED: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);

fn not_supported(name: &'static str, op: i32) -> hipError_t {
    if REPORTED
        .lock()
        .get_or_insert_with(HashSet::new)
        .insert(name)
    {
        eprintln!(
            "hip-runtime-sim: {name} is not supported by the simulated HIP runtime \
             (returns hipErrorNotSupported)"
        );
    }
    hip_call(op, None, || Err(HipError(HIP_ERROR_NOT_SUPPORTED)))
}

macro_rules! not_supported {
    ($($name:ident => $op:ident,)*) => {
        $(
            #[no_mangle]
            pub extern "C" fn $name() -> hipError_t {
                not_supported(stringify!($name), $op)
            }
        )*

        /// The functions this file exports, for tests.
        pub const NAMES: &[&str] = &[$(stringify!($name)),*];
    };
}

not_supported! {
    hipGraphAddChildGraphNode => ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddChildGraphNode,
    hipGraphAddEmptyNode => ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddEmptyNode,
    hipGraphAddMemcpyNode1D => ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemcpyNode1D,
    hipGraphAddMemsetNode => ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemsetNode,
    hipGraphDebugDotPrint => ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDebugDotPrint,
    hipGraphExecChildGraphNodeSetParams =>
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecChildGraphNodeSetParams,
    hipGraphExecKernelNodeSetParams =>
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecKernelNodeSetParams,
    hipGraphExecMemcpyNodeSetParams1D =>
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecMemcpyNodeSetParams1D,
    hipGraphExecMemsetNodeSetParams =>
        ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecMemsetNodeSetParams,
    hipGraphGetNodes => ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphGetNodes,
    hipGraphGetRootNodes => ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphGetRootNodes,
    hipIpcCloseMemHandle => ROCPROFILER_HIP_RUNTIME_API_ID_hipIpcCloseMemHandle,
    hipIpcGetMemHandle => ROCPROFILER_HIP_RUNTIME_API_ID_hipIpcGetMemHandle,
    hipIpcOpenMemHandle => ROCPROFILER_HIP_RUNTIME_API_ID_hipIpcOpenMemHandle,
    hipMemAddressFree => ROCPROFILER_HIP_RUNTIME_API_ID_hipMemAddressFree,
    hipMemAddressReserve => ROCPROFILER_HIP_RUNTIME_API_ID_hipMemAddressReserve,
    hipMemCreate => ROCPROFILER_HIP_RUNTIME_API_ID_hipMemCreate,
    hipMemExportToShareableHandle =>
        ROCPROFILER_HIP_RUNTIME_API_ID_hipMemExportToShareableHandle,
    hipMemGetAllocationGranularity =>
        ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetAllocationGranularity,
    hipMemGetHandleForAddressRange =>
        ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetHandleForAddressRange,
    hipMemImportFromShareableHandle =>
        ROCPROFILER_HIP_RUNTIME_API_ID_hipMemImportFromShareableHandle,
    hipMemMap => ROCPROFILER_HIP_RUNTIME_API_ID_hipMemMap,
    hipMemRelease => ROCPROFILER_HIP_RUNTIME_API_ID_hipMemRelease,
    hipMemSetAccess => ROCPROFILER_HIP_RUNTIME_API_ID_hipMemSetAccess,
    hipMemUnmap => ROCPROFILER_HIP_RUNTIME_API_ID_hipMemUnmap,
    hipStreamBeginCapture => ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCapture,
    hipStreamEndCapture => ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamEndCapture,
    hipStreamWriteValue64 => ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWriteValue64,
}
