//! Raw bindings to the rocprofiler-sdk C API, for SDK >= 1.0.0 with ROCm 7.1 layouts.
//!
//! Names are the SDK's C names, so code reads like the SDK's documentation. C enums are
//! integer aliases plus constants, never Rust enums: a newer library can deliver values this
//! crate does not know. Only the subset an XLA-style tracer needs is declared; the sizes and
//! offsets are asserted against the SDK's x86-64 layout table in `tests/layout.rs`.
//!
//! Linking: with `ROCPROFILER_SDK_LIB_DIR` or `ROCM_PATH` set, `build.rs` links the real
//! `librocprofiler-sdk.so`. Otherwise nothing is linked here and the final link must supply
//! the symbols, normally from the simulated library built in this workspace
//! (`crates/rocprofiler-sdk-sim`).
#![no_std]
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use core::ffi::{c_char, c_int, c_uint, c_void};

#[allow(non_camel_case_types, non_upper_case_globals)]
mod hip_runtime_api_id;
pub use hip_runtime_api_id::*;

// ---------------------------------------------------------------------------------------
// Scalars and unions (fwd.h)
// ---------------------------------------------------------------------------------------

pub type rocprofiler_thread_id_t = u64;
pub type rocprofiler_timestamp_t = u64;
pub type rocprofiler_tracing_operation_t = i32;
pub type rocprofiler_kernel_id_t = u64;
pub type rocprofiler_dispatch_id_t = u64;

#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_user_data_t {
    pub value: u64,
    pub ptr: *mut c_void,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_address_t {
    pub handle: u64,
    pub value: u64,
    pub ptr: *const c_void,
}

macro_rules! handle_types {
    ($($name:ident),* $(,)?) => {$(
        #[repr(C)]
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name {
            pub handle: u64,
        }
    )*};
}

handle_types!(
    rocprofiler_context_id_t,
    rocprofiler_buffer_id_t,
    rocprofiler_agent_id_t,
    rocprofiler_queue_id_t,
    rocprofiler_stream_id_t,
    rocprofiler_graph_exec_id_t,
    rocprofiler_callback_thread_t,
    rocprofiler_counter_id_t,
);

/// `ROCPROFILER_CONTEXT_NONE` as of ROCm 7.1 (it was `UINT64_MAX` up to 7.0).
pub const ROCPROFILER_CONTEXT_NONE: rocprofiler_context_id_t =
    rocprofiler_context_id_t { handle: 0 };

#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct rocprofiler_dim3_t {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_correlation_id_t {
    pub internal: u64,
    pub external: rocprofiler_user_data_t,
    pub ancestor: u64,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_async_correlation_id_t {
    pub internal: u64,
    pub external: rocprofiler_user_data_t,
}

pub const ROCPROFILER_CORRELATION_ID_INTERNAL_NONE: u64 = 0;
pub const ROCPROFILER_CORRELATION_ID_ANCESTOR_NONE: u64 = 0;

#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct rocprofiler_version_triplet_t {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

// ---------------------------------------------------------------------------------------
// Status codes
// ---------------------------------------------------------------------------------------

pub type rocprofiler_status_t = u32;
pub const ROCPROFILER_STATUS_SUCCESS: rocprofiler_status_t = 0;
pub const ROCPROFILER_STATUS_ERROR: rocprofiler_status_t = 1;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND: rocprofiler_status_t = 2;
pub const ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND: rocprofiler_status_t = 3;
pub const ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND: rocprofiler_status_t = 4;
pub const ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND: rocprofiler_status_t = 5;
pub const ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND: rocprofiler_status_t = 6;
pub const ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND: rocprofiler_status_t = 7;
pub const ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND: rocprofiler_status_t = 8;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR: rocprofiler_status_t = 9;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID: rocprofiler_status_t = 10;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED: rocprofiler_status_t = 11;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT: rocprofiler_status_t = 12;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO: rocprofiler_status_t = 13;
pub const ROCPROFILER_STATUS_ERROR_BUFFER_BUSY: rocprofiler_status_t = 14;
pub const ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED: rocprofiler_status_t = 15;
pub const ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED: rocprofiler_status_t = 16;
pub const ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED: rocprofiler_status_t = 17;
pub const ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI: rocprofiler_status_t = 18;
pub const ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT: rocprofiler_status_t = 19;
pub const ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT: rocprofiler_status_t = 20;
pub const ROCPROFILER_STATUS_ERROR_FINALIZED: rocprofiler_status_t = 21;
pub const ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED: rocprofiler_status_t = 22;
pub const ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND: rocprofiler_status_t = 23;
pub const ROCPROFILER_STATUS_ERROR_PROFILE_COUNTER_NOT_FOUND: rocprofiler_status_t = 24;
pub const ROCPROFILER_STATUS_ERROR_AST_GENERATION_FAILED: rocprofiler_status_t = 25;
pub const ROCPROFILER_STATUS_ERROR_AST_NOT_FOUND: rocprofiler_status_t = 26;
pub const ROCPROFILER_STATUS_ERROR_AQL_NO_EVENT_COORD: rocprofiler_status_t = 27;
pub const ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_KERNEL: rocprofiler_status_t = 28;
pub const ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES: rocprofiler_status_t = 29;
pub const ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND: rocprofiler_status_t = 30;
pub const ROCPROFILER_STATUS_ERROR_AGENT_DISPATCH_CONFLICT: rocprofiler_status_t = 31;
pub const ROCPROFILER_STATUS_INTERNAL_NO_AGENT_CONTEXT: rocprofiler_status_t = 32;
pub const ROCPROFILER_STATUS_ERROR_SAMPLE_RATE_EXCEEDED: rocprofiler_status_t = 33;
pub const ROCPROFILER_STATUS_ERROR_NO_PROFILE_QUEUE: rocprofiler_status_t = 34;
pub const ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS: rocprofiler_status_t = 35;
pub const ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH: rocprofiler_status_t = 36;
pub const ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE: rocprofiler_status_t = 37;
pub const ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT: rocprofiler_status_t = 38;
pub const ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED: rocprofiler_status_t = 39;
pub const ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED: rocprofiler_status_t = 40;
pub const ROCPROFILER_STATUS_LAST: rocprofiler_status_t = 41;

// ---------------------------------------------------------------------------------------
// Tracing kinds, phases and operations
// ---------------------------------------------------------------------------------------

pub type rocprofiler_callback_tracing_kind_t = u32;
pub const ROCPROFILER_CALLBACK_TRACING_NONE: rocprofiler_callback_tracing_kind_t = 0;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API: rocprofiler_callback_tracing_kind_t = 1;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API: rocprofiler_callback_tracing_kind_t = 2;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API: rocprofiler_callback_tracing_kind_t = 3;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API: rocprofiler_callback_tracing_kind_t =
    4;
pub const ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API: rocprofiler_callback_tracing_kind_t = 5;
pub const ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API: rocprofiler_callback_tracing_kind_t = 6;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API: rocprofiler_callback_tracing_kind_t = 7;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API: rocprofiler_callback_tracing_kind_t = 8;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API: rocprofiler_callback_tracing_kind_t = 9;
pub const ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT: rocprofiler_callback_tracing_kind_t = 10;
pub const ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY: rocprofiler_callback_tracing_kind_t = 11;
pub const ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH: rocprofiler_callback_tracing_kind_t = 12;
pub const ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY: rocprofiler_callback_tracing_kind_t = 13;
pub const ROCPROFILER_CALLBACK_TRACING_RCCL_API: rocprofiler_callback_tracing_kind_t = 14;
pub const ROCPROFILER_CALLBACK_TRACING_OMPT: rocprofiler_callback_tracing_kind_t = 15;
pub const ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION: rocprofiler_callback_tracing_kind_t = 16;
pub const ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION: rocprofiler_callback_tracing_kind_t =
    17;
pub const ROCPROFILER_CALLBACK_TRACING_ROCDECODE_API: rocprofiler_callback_tracing_kind_t = 18;
pub const ROCPROFILER_CALLBACK_TRACING_ROCJPEG_API: rocprofiler_callback_tracing_kind_t = 19;
pub const ROCPROFILER_CALLBACK_TRACING_HIP_STREAM: rocprofiler_callback_tracing_kind_t = 20;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API: rocprofiler_callback_tracing_kind_t =
    21;
pub const ROCPROFILER_CALLBACK_TRACING_LAST: rocprofiler_callback_tracing_kind_t = 22;
// Kinds of SDK 1.3.2 and later (ROCm 7.14 on): the headers this crate follows end at 21 and
// keep LAST at 22 (the releases the tracer is built against); the newer values are pinned to
// radhaksri/rocm-systems@6a0bbe3a73d7 `projects/rocprofiler-sdk/source/include/rocprofiler-sdk/fwd.h`,
// where LAST is 27. A tool asks for them only on an SDK that has them.
pub const ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH: rocprofiler_callback_tracing_kind_t = 22;
pub const ROCPROFILER_CALLBACK_TRACING_ROCSHMEM_API: rocprofiler_callback_tracing_kind_t = 23;
pub const ROCPROFILER_CALLBACK_TRACING_HIPFILE_API: rocprofiler_callback_tracing_kind_t = 24;
pub const ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY: rocprofiler_callback_tracing_kind_t = 25;
pub const ROCPROFILER_CALLBACK_TRACING_HIP_EVENT: rocprofiler_callback_tracing_kind_t = 26;
pub const ROCPROFILER_CALLBACK_TRACING_LAST_WITH_HIP_GRAPH: rocprofiler_callback_tracing_kind_t =
    27;

pub type rocprofiler_buffer_tracing_kind_t = u32;
pub const ROCPROFILER_BUFFER_TRACING_NONE: rocprofiler_buffer_tracing_kind_t = 0;
pub const ROCPROFILER_BUFFER_TRACING_HSA_CORE_API: rocprofiler_buffer_tracing_kind_t = 1;
pub const ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API: rocprofiler_buffer_tracing_kind_t = 2;
pub const ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API: rocprofiler_buffer_tracing_kind_t = 3;
pub const ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API: rocprofiler_buffer_tracing_kind_t = 4;
pub const ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API: rocprofiler_buffer_tracing_kind_t = 5;
pub const ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API: rocprofiler_buffer_tracing_kind_t = 6;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API: rocprofiler_buffer_tracing_kind_t = 7;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API: rocprofiler_buffer_tracing_kind_t = 8;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API: rocprofiler_buffer_tracing_kind_t = 9;
pub const ROCPROFILER_BUFFER_TRACING_MEMORY_COPY: rocprofiler_buffer_tracing_kind_t = 10;
pub const ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH: rocprofiler_buffer_tracing_kind_t = 11;
pub const ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY: rocprofiler_buffer_tracing_kind_t = 12;
pub const ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT: rocprofiler_buffer_tracing_kind_t =
    13;
pub const ROCPROFILER_BUFFER_TRACING_RCCL_API: rocprofiler_buffer_tracing_kind_t = 14;
pub const ROCPROFILER_BUFFER_TRACING_OMPT: rocprofiler_buffer_tracing_kind_t = 15;
pub const ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION: rocprofiler_buffer_tracing_kind_t = 16;
pub const ROCPROFILER_BUFFER_TRACING_RUNTIME_INITIALIZATION: rocprofiler_buffer_tracing_kind_t = 17;
pub const ROCPROFILER_BUFFER_TRACING_ROCDECODE_API: rocprofiler_buffer_tracing_kind_t = 18;
pub const ROCPROFILER_BUFFER_TRACING_ROCJPEG_API: rocprofiler_buffer_tracing_kind_t = 19;
pub const ROCPROFILER_BUFFER_TRACING_HIP_STREAM: rocprofiler_buffer_tracing_kind_t = 20;
pub const ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API_EXT: rocprofiler_buffer_tracing_kind_t = 21;
pub const ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API_EXT: rocprofiler_buffer_tracing_kind_t = 22;
pub const ROCPROFILER_BUFFER_TRACING_ROCDECODE_API_EXT: rocprofiler_buffer_tracing_kind_t = 23;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_MIGRATE: rocprofiler_buffer_tracing_kind_t = 24;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_FAULT: rocprofiler_buffer_tracing_kind_t = 25;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_QUEUE: rocprofiler_buffer_tracing_kind_t = 26;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_UNMAP_FROM_GPU: rocprofiler_buffer_tracing_kind_t =
    27;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_DROPPED_EVENTS: rocprofiler_buffer_tracing_kind_t =
    28;
pub const ROCPROFILER_BUFFER_TRACING_KFD_PAGE_MIGRATE: rocprofiler_buffer_tracing_kind_t = 29;
pub const ROCPROFILER_BUFFER_TRACING_KFD_PAGE_FAULT: rocprofiler_buffer_tracing_kind_t = 30;
pub const ROCPROFILER_BUFFER_TRACING_KFD_QUEUE: rocprofiler_buffer_tracing_kind_t = 31;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_CORE_RANGE_API: rocprofiler_buffer_tracing_kind_t = 32;
pub const ROCPROFILER_BUFFER_TRACING_LAST: rocprofiler_buffer_tracing_kind_t = 33;
// Buffer kinds of SDK 1.3.2 and later, pinned as the callback kinds above (LAST 39 there).
pub const ROCPROFILER_BUFFER_TRACING_HIP_GRAPH: rocprofiler_buffer_tracing_kind_t = 33;
pub const ROCPROFILER_BUFFER_TRACING_ROCSHMEM: rocprofiler_buffer_tracing_kind_t = 34;
pub const ROCPROFILER_BUFFER_TRACING_ROCSHMEM_EXT: rocprofiler_buffer_tracing_kind_t = 35;
pub const ROCPROFILER_BUFFER_TRACING_HIPFILE: rocprofiler_buffer_tracing_kind_t = 36;
pub const ROCPROFILER_BUFFER_TRACING_HIPFILE_EXT: rocprofiler_buffer_tracing_kind_t = 37;
pub const ROCPROFILER_BUFFER_TRACING_LAST_WITH_HIP_GRAPH: rocprofiler_buffer_tracing_kind_t = 39;

pub type rocprofiler_callback_phase_t = u32;
pub const ROCPROFILER_CALLBACK_PHASE_NONE: rocprofiler_callback_phase_t = 0;
pub const ROCPROFILER_CALLBACK_PHASE_ENTER: rocprofiler_callback_phase_t = 1;
pub const ROCPROFILER_CALLBACK_PHASE_LOAD: rocprofiler_callback_phase_t = 1;
pub const ROCPROFILER_CALLBACK_PHASE_EXIT: rocprofiler_callback_phase_t = 2;
pub const ROCPROFILER_CALLBACK_PHASE_UNLOAD: rocprofiler_callback_phase_t = 2;
pub const ROCPROFILER_CALLBACK_PHASE_LAST: rocprofiler_callback_phase_t = 3;

pub type rocprofiler_buffer_category_t = u32;
pub const ROCPROFILER_BUFFER_CATEGORY_NONE: rocprofiler_buffer_category_t = 0;
pub const ROCPROFILER_BUFFER_CATEGORY_TRACING: rocprofiler_buffer_category_t = 1;
pub const ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING: rocprofiler_buffer_category_t = 2;
pub const ROCPROFILER_BUFFER_CATEGORY_COUNTERS: rocprofiler_buffer_category_t = 3;
pub const ROCPROFILER_BUFFER_CATEGORY_LAST: rocprofiler_buffer_category_t = 4;

pub type rocprofiler_buffer_policy_t = u32;
pub const ROCPROFILER_BUFFER_POLICY_NONE: rocprofiler_buffer_policy_t = 0;
pub const ROCPROFILER_BUFFER_POLICY_DISCARD: rocprofiler_buffer_policy_t = 1;
pub const ROCPROFILER_BUFFER_POLICY_LOSSLESS: rocprofiler_buffer_policy_t = 2;
pub const ROCPROFILER_BUFFER_POLICY_LAST: rocprofiler_buffer_policy_t = 3;

pub type rocprofiler_code_object_operation_t = i32;
pub const ROCPROFILER_CODE_OBJECT_NONE: rocprofiler_code_object_operation_t = 0;
pub const ROCPROFILER_CODE_OBJECT_LOAD: rocprofiler_code_object_operation_t = 1;
pub const ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER:
    rocprofiler_code_object_operation_t = 2;
pub const ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER: rocprofiler_code_object_operation_t =
    3;
pub const ROCPROFILER_CODE_OBJECT_LAST: rocprofiler_code_object_operation_t = 4;

/// `rocprofiler_runtime_initialization_operation_t` (`callback_tracing.h`): which runtime
/// reported its initialization to the SDK.
pub type rocprofiler_runtime_initialization_operation_t = i32;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_NONE: rocprofiler_runtime_initialization_operation_t =
    0;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_HSA: rocprofiler_runtime_initialization_operation_t =
    1;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_HIP: rocprofiler_runtime_initialization_operation_t =
    2;

pub type rocprofiler_kernel_dispatch_operation_t = i32;
pub const ROCPROFILER_KERNEL_DISPATCH_NONE: rocprofiler_kernel_dispatch_operation_t = 0;
pub const ROCPROFILER_KERNEL_DISPATCH_ENQUEUE: rocprofiler_kernel_dispatch_operation_t = 1;
pub const ROCPROFILER_KERNEL_DISPATCH_COMPLETE: rocprofiler_kernel_dispatch_operation_t = 2;
pub const ROCPROFILER_KERNEL_DISPATCH_LAST: rocprofiler_kernel_dispatch_operation_t = 3;

pub type rocprofiler_memory_copy_operation_t = i32;
pub const ROCPROFILER_MEMORY_COPY_NONE: rocprofiler_memory_copy_operation_t = 0;
pub const ROCPROFILER_MEMORY_COPY_HOST_TO_HOST: rocprofiler_memory_copy_operation_t = 1;
pub const ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE: rocprofiler_memory_copy_operation_t = 2;
pub const ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST: rocprofiler_memory_copy_operation_t = 3;
pub const ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE: rocprofiler_memory_copy_operation_t = 4;
pub const ROCPROFILER_MEMORY_COPY_LAST: rocprofiler_memory_copy_operation_t = 5;

pub type rocprofiler_hip_stream_operation_t = i32;
pub const ROCPROFILER_HIP_STREAM_NONE: rocprofiler_hip_stream_operation_t = 0;
pub const ROCPROFILER_HIP_STREAM_CREATE: rocprofiler_hip_stream_operation_t = 1;
pub const ROCPROFILER_HIP_STREAM_DESTROY: rocprofiler_hip_stream_operation_t = 2;
pub const ROCPROFILER_HIP_STREAM_SET: rocprofiler_hip_stream_operation_t = 3;
pub const ROCPROFILER_HIP_STREAM_LAST: rocprofiler_hip_stream_operation_t = 4;

// HIP_GRAPH operations (ROCm/rocm-systems@3d3121e0470f `projects/rocprofiler-sdk/source/lib/
// rocprofiler-sdk/hip/graph.cpp`): CREATE and DESTROY are phase-NONE callbacks after
// `hipGraphInstantiate*` / `hipGraphExecDestroy`; LAUNCH is an ENTER/EXIT pair around
// `hipGraphLaunch` and one buffer record per successful launch.
pub type rocprofiler_hip_graph_operation_t = i32;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_NONE: rocprofiler_hip_graph_operation_t = 0;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_CREATE: rocprofiler_hip_graph_operation_t = 1;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_DESTROY: rocprofiler_hip_graph_operation_t = 2;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH: rocprofiler_hip_graph_operation_t = 3;
pub const ROCPROFILER_HIP_GRAPH_OPERATION_LAST: rocprofiler_hip_graph_operation_t = 4;

// ROCTx name API operations (`marker/api_id.h` `rocprofiler_marker_name_api_id_t`), traced as
// callback kind MARKER_NAME_API. Unlike most operation enums, NONE is -1 and 0 is a real call.
pub type rocprofiler_marker_name_api_id_t = i32;
pub const ROCPROFILER_MARKER_NAME_API_ID_NONE: rocprofiler_marker_name_api_id_t = -1;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread: rocprofiler_marker_name_api_id_t = 0;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameHsaAgent: rocprofiler_marker_name_api_id_t = 1;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipDevice: rocprofiler_marker_name_api_id_t = 2;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream: rocprofiler_marker_name_api_id_t = 3;
pub const ROCPROFILER_MARKER_NAME_API_ID_LAST: rocprofiler_marker_name_api_id_t = 4;

// ROCTx core operations (`marker/api_id.h` `rocprofiler_marker_core_api_id_t`), traced as
// callback kind MARKER_CORE_API; NONE is -1 here too.
pub type rocprofiler_marker_core_api_id_t = i32;
pub const ROCPROFILER_MARKER_CORE_API_ID_NONE: rocprofiler_marker_core_api_id_t = -1;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA: rocprofiler_marker_core_api_id_t = 0;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA: rocprofiler_marker_core_api_id_t = 1;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop: rocprofiler_marker_core_api_id_t = 2;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA: rocprofiler_marker_core_api_id_t = 3;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop: rocprofiler_marker_core_api_id_t = 4;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxGetThreadId: rocprofiler_marker_core_api_id_t = 5;
pub const ROCPROFILER_MARKER_CORE_API_ID_LAST: rocprofiler_marker_core_api_id_t = 6;

// ROCTx range operations (`marker/api_id.h` `rocprofiler_marker_core_range_api_id_t`), traced as
// callback kind MARKER_CORE_RANGE_API (21) and buffer kind 32. A range is one operation: ENTER
// at its push (thread range) or start (process range), EXIT at its pop or stop, one correlation
// id for both (docs/xla-interface.md#roctx-ranges-and-marks).
pub type rocprofiler_marker_core_range_api_id_t = i32;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_NONE: rocprofiler_marker_core_range_api_id_t = -1;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA: rocprofiler_marker_core_range_api_id_t =
    0;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA:
    rocprofiler_marker_core_range_api_id_t = 1;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA:
    rocprofiler_marker_core_range_api_id_t = 2;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxGetThreadId:
    rocprofiler_marker_core_range_api_id_t = 3;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_LAST: rocprofiler_marker_core_range_api_id_t = 4;

pub type rocprofiler_external_correlation_id_request_kind_t = u32;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE:
    rocprofiler_external_correlation_id_request_kind_t = 0;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_CORE_API:
    rocprofiler_external_correlation_id_request_kind_t = 1;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_AMD_EXT_API:
    rocprofiler_external_correlation_id_request_kind_t = 2;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_IMAGE_EXT_API:
    rocprofiler_external_correlation_id_request_kind_t = 3;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_FINALIZE_EXT_API:
    rocprofiler_external_correlation_id_request_kind_t = 4;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API:
    rocprofiler_external_correlation_id_request_kind_t = 5;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_COMPILER_API:
    rocprofiler_external_correlation_id_request_kind_t = 6;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_API:
    rocprofiler_external_correlation_id_request_kind_t = 7;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CONTROL_API:
    rocprofiler_external_correlation_id_request_kind_t = 8;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_NAME_API:
    rocprofiler_external_correlation_id_request_kind_t = 9;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY:
    rocprofiler_external_correlation_id_request_kind_t = 10;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH:
    rocprofiler_external_correlation_id_request_kind_t = 11;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_SCRATCH_MEMORY:
    rocprofiler_external_correlation_id_request_kind_t = 12;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_RCCL_API:
    rocprofiler_external_correlation_id_request_kind_t = 13;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_OMPT:
    rocprofiler_external_correlation_id_request_kind_t = 14;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_ALLOCATION:
    rocprofiler_external_correlation_id_request_kind_t = 15;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_ROCDECODE_API:
    rocprofiler_external_correlation_id_request_kind_t = 16;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_ROCJPEG_API:
    rocprofiler_external_correlation_id_request_kind_t = 17;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_RANGE_API:
    rocprofiler_external_correlation_id_request_kind_t = 18;
pub const ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST:
    rocprofiler_external_correlation_id_request_kind_t = 19;

pub type rocprofiler_agent_type_t = u32;
pub const ROCPROFILER_AGENT_TYPE_NONE: rocprofiler_agent_type_t = 0;
pub const ROCPROFILER_AGENT_TYPE_CPU: rocprofiler_agent_type_t = 1;
pub const ROCPROFILER_AGENT_TYPE_GPU: rocprofiler_agent_type_t = 2;
pub const ROCPROFILER_AGENT_TYPE_LAST: rocprofiler_agent_type_t = 3;

pub type rocprofiler_agent_version_t = u32;
pub const ROCPROFILER_AGENT_INFO_VERSION_NONE: rocprofiler_agent_version_t = 0;
pub const ROCPROFILER_AGENT_INFO_VERSION_0: rocprofiler_agent_version_t = 1;
pub const ROCPROFILER_AGENT_INFO_VERSION_LAST: rocprofiler_agent_version_t = 2;

/// `HSA_HEAPTYPE` of `hsakmttypes.h`, the `heap_type` of an agent memory bank.
pub type HSA_HEAPTYPE = u32;
pub const HSA_HEAPTYPE_SYSTEM: HSA_HEAPTYPE = 0;
pub const HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC: HSA_HEAPTYPE = 1;
pub const HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE: HSA_HEAPTYPE = 2;
pub const HSA_HEAPTYPE_GPU_GDS: HSA_HEAPTYPE = 3;
pub const HSA_HEAPTYPE_GPU_LDS: HSA_HEAPTYPE = 4;
pub const HSA_HEAPTYPE_GPU_SCRATCH: HSA_HEAPTYPE = 5;
pub const HSA_HEAPTYPE_DEVICE_SVM: HSA_HEAPTYPE = 6;
pub const HSA_HEAPTYPE_MMIO_REMAP: HSA_HEAPTYPE = 7;

// ---------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_record_t {
    pub context_id: rocprofiler_context_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub correlation_id: rocprofiler_correlation_id_t,
    pub kind: rocprofiler_callback_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub phase: rocprofiler_callback_phase_t,
    pub payload: *mut c_void,
}

#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct rocprofiler_record_header_category_kind_t {
    pub category: u32,
    pub kind: u32,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_record_header_id_t {
    pub ck: rocprofiler_record_header_category_kind_t,
    pub hash: u64,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_record_header_t {
    pub id: rocprofiler_record_header_id_t,
    pub payload: *mut c_void,
}

impl rocprofiler_record_header_t {
    pub fn category(&self) -> rocprofiler_buffer_category_t {
        // SAFETY: both union members are plain integers covering the same 8 bytes.
        unsafe { self.id.ck.category }
    }
    pub fn kind(&self) -> u32 {
        // SAFETY: as above.
        unsafe { self.id.ck.kind }
    }
}

/// The C header's inline `rocprofiler_record_header_compute_hash`.
pub const fn rocprofiler_record_header_compute_hash(category: u32, kind: u32) -> u64 {
    (category as u64) | ((kind as u64) << 32)
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_kernel_dispatch_info_t {
    pub size: u64,
    pub agent_id: rocprofiler_agent_id_t,
    pub queue_id: rocprofiler_queue_id_t,
    pub kernel_id: rocprofiler_kernel_id_t,
    pub dispatch_id: rocprofiler_dispatch_id_t,
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub workgroup_size: rocprofiler_dim3_t,
    pub grid_size: rocprofiler_dim3_t,
    pub reserved_padding: [u8; 56],
}

/// `dispatch_info.size`: the struct size minus its reserved padding.
pub const ROCPROFILER_KERNEL_DISPATCH_INFO_SIZE: u64 = 72;

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_kernel_dispatch_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_kernel_dispatch_operation_t,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_memory_copy_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_memory_copy_operation_t,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dst_agent_id: rocprofiler_agent_id_t,
    pub src_agent_id: rocprofiler_agent_id_t,
    pub bytes: u64,
    pub dst_address: rocprofiler_address_t,
    pub src_address: rocprofiler_address_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_hip_api_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub correlation_id: rocprofiler_correlation_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub thread_id: rocprofiler_thread_id_t,
}

// HIP_EVENT tracing (SDK 1.4, ROCm 10.1: ROCm/rocm-systems#10276). The buffer kind is pinned to
// radhaksri/rocm-systems@6a0bbe3a73d7 `projects/rocprofiler-sdk/source/include/rocprofiler-sdk/fwd.h`
// (a fork of develop; LAST 39 there); the operations and the record's fields, in order, to
// ROCm/rocm-systems@db83d5405396 `projects/rocprofiler-sdk/source/lib/rocprofiler-sdk/hip/event.cpp`
// (`barrier_complete`). A tool asks for the kind only on an SDK that names it HIP_EVENT.
pub const ROCPROFILER_BUFFER_TRACING_HIP_EVENT: rocprofiler_buffer_tracing_kind_t = 38;
pub type rocprofiler_hip_event_operation_t = u32;
pub const ROCPROFILER_HIP_EVENT_NONE: rocprofiler_hip_event_operation_t = 0;
/// The barrier `hipEventRecord*` enqueues: it completes when the recording stream's earlier
/// work has.
pub const ROCPROFILER_HIP_EVENT_RECORD: rocprofiler_hip_event_operation_t = 1;
/// The barrier `hipStreamWaitEvent*` enqueues on the waiting stream: it completes when the
/// recorded event has.
pub const ROCPROFILER_HIP_EVENT_WAIT: rocprofiler_hip_event_operation_t = 2;
pub const ROCPROFILER_HIP_EVENT_LAST: rocprofiler_hip_event_operation_t = 3;

/// One HIP_EVENT barrier's GPU-side time, written when the barrier completed and its time query
/// succeeded; `correlation_id.internal` is the HIP call's.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_hip_event_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_hip_event_operation_t,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub agent_id: rocprofiler_agent_id_t,
    pub queue_id: rocprofiler_queue_id_t,
    /// The `hipEvent_t`.
    pub hip_event_handle: u64,
    /// For a WAIT, the queue of the recording stream.
    pub source_queue_id: rocprofiler_queue_id_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_memory_allocation_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub correlation_id: rocprofiler_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub agent_id: rocprofiler_agent_id_t,
    pub address: rocprofiler_address_t,
    pub allocation_size: u64,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_correlation_id_retirement_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub timestamp: rocprofiler_timestamp_t,
    pub internal_correlation_id: u64,
}

// ---------------------------------------------------------------------------------------
// Callback payloads
// ---------------------------------------------------------------------------------------

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_hip_stream_data_t {
    pub size: u64,
    pub stream_id: rocprofiler_stream_id_t,
    pub stream_value: rocprofiler_address_t,
}

/// The HIP_GRAPH callback payload (pin as `ROCPROFILER_HIP_GRAPH_OPERATION_*`): the SDK's id of
/// the `hipGraphExec_t` (process-wide, counting from 1; 0 is "not from a graph") and the
/// handle itself.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_hip_graph_data_t {
    pub size: u64,
    pub graph_exec_id: rocprofiler_graph_exec_id_t,
    pub graph_exec_value: rocprofiler_address_t,
}

/// The HIP_GRAPH buffer record, one per successful `hipGraphLaunch` (pin as above): the
/// 24-byte correlation id (the launch's HIP call), the launching thread, the call's span, the
/// stream's GPU agent, `queue_id` 0 (a launch may span queues) and how many dispatches the
/// launch made.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_hip_graph_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub correlation_id: rocprofiler_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub agent_id: rocprofiler_agent_id_t,
    pub queue_id: rocprofiler_queue_id_t,
    pub graph_exec_id: rocprofiler_graph_exec_id_t,
    pub kernel_dispatch_count: u64,
}

// HIP API payload (`callback_tracing.h` `rocprofiler_callback_tracing_hip_api_data_t`, with
// the argument union of `hip/api_args.h`). Only the members of the functions the simulator
// models are spelled out; `hipExtModuleLaunchKernel`, the largest member with HIP runtime
// table step 12 (88 bytes), is included so the union has the real size.

/// `hipStream_t`, `hipFunction_t`, `hipGraphExec_t`, `hipEvent_t`: opaque handles.
pub type hipStream_t = *mut c_void;
pub type hipFunction_t = *mut c_void;
pub type hipGraphExec_t = *mut c_void;
pub type hipEvent_t = *mut c_void;
/// `hipError_t`, `hipMemcpyKind`: C enums.
pub type hipError_t = c_int;
pub type hipMemcpyKind = c_int;

/// Stand-in member for functions without arguments (1 byte, as in C++).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_no_args {
    pub empty: c_char,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipSetDevice_t {
    pub deviceId: c_int,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipStreamCreate_t {
    pub stream: *mut hipStream_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipStreamCreateWithFlags_t {
    pub stream: *mut hipStream_t,
    pub flags: c_uint,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipStreamCreateWithPriority_t {
    pub stream: *mut hipStream_t,
    pub flags: c_uint,
    pub priority: c_int,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipExtStreamCreateWithCUMask_t {
    pub stream: *mut hipStream_t,
    pub cuMaskSize: u32,
    pub cuMask: *const u32,
}

/// `hipStreamDestroy` and `hipStreamSynchronize` (one `hipStream_t`).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_stream_t {
    pub stream: hipStream_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipLaunchKernel_t {
    pub function_address: *const c_void,
    pub numBlocks: rocprofiler_dim3_t,
    pub dimBlocks: rocprofiler_dim3_t,
    pub args: *mut *mut c_void,
    pub sharedMemBytes: usize,
    pub stream: hipStream_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipModuleLaunchKernel_t {
    pub func: hipFunction_t,
    pub gridDimX: c_uint,
    pub gridDimY: c_uint,
    pub gridDimZ: c_uint,
    pub blockDimX: c_uint,
    pub blockDimY: c_uint,
    pub blockDimZ: c_uint,
    pub sharedMemBytes: c_uint,
    pub stream: hipStream_t,
    pub kernelParams: *mut *mut c_void,
    pub extra: *mut *mut c_void,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipExtModuleLaunchKernel_t {
    pub func: hipFunction_t,
    pub globalWorkSizeX: u32,
    pub globalWorkSizeY: u32,
    pub globalWorkSizeZ: u32,
    pub localWorkSizeX: u32,
    pub localWorkSizeY: u32,
    pub localWorkSizeZ: u32,
    pub sharedMemBytes: usize,
    pub stream: hipStream_t,
    pub kernelParams: *mut *mut c_void,
    pub extra: *mut *mut c_void,
    pub startEvent: hipEvent_t,
    pub stopEvent: hipEvent_t,
    pub flags: u32,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipGraphLaunch_t {
    pub graphExec: hipGraphExec_t,
    pub stream: hipStream_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipMemset_t {
    pub dst: *mut c_void,
    pub value: c_int,
    pub sizeBytes: usize,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipMemsetAsync_t {
    pub dst: *mut c_void,
    pub value: c_int,
    pub sizeBytes: usize,
    pub stream: hipStream_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipMemcpy_t {
    pub dst: *mut c_void,
    pub src: *const c_void,
    pub sizeBytes: usize,
    pub kind: hipMemcpyKind,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipMemcpyAsync_t {
    pub dst: *mut c_void,
    pub src: *const c_void,
    pub sizeBytes: usize,
    pub kind: hipMemcpyKind,
    pub stream: hipStream_t,
}

/// The arguments of `hipMemcpyHtoD`, `hipMemcpyDtoH` and `hipMemcpyDtoD`, in the order of
/// their HIP signatures `(dst, src, sizeBytes)` (`hipDeviceptr_t` is a `void*`).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipMemcpyFixed_t {
    pub dst: *mut c_void,
    pub src: *const c_void,
    pub sizeBytes: usize,
}

/// The arguments of `hipMemcpyHtoDAsync`, `hipMemcpyDtoHAsync` and `hipMemcpyDtoDAsync`:
/// `(dst, src, sizeBytes, stream)`, the stream where `hipMemcpyAsync` has its `kind`.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipMemcpyFixedAsync_t {
    pub dst: *mut c_void,
    pub src: *const c_void,
    pub sizeBytes: usize,
    pub stream: hipStream_t,
}

/// The arguments of `hipEventRecord(hipEvent_t event, hipStream_t stream)`, in its signature's
/// order.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipEventRecord_t {
    pub event: hipEvent_t,
    pub stream: hipStream_t,
}

/// The arguments of `hipEventRecordWithFlags(hipEvent_t event, hipStream_t stream,
/// unsigned int flags)`.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipEventRecordWithFlags_t {
    pub event: hipEvent_t,
    pub stream: hipStream_t,
    pub flags: c_uint,
}

/// The arguments of `hipStreamWaitEvent(hipStream_t stream, hipEvent_t event,
/// unsigned int flags)`: the stream first, unlike the record calls.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipStreamWaitEvent_t {
    pub stream: hipStream_t,
    pub event: hipEvent_t,
    pub flags: c_uint,
}

/// The arguments of `hipMalloc(void** ptr, size_t size)`.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipMalloc_t {
    pub ptr: *mut *mut c_void,
    pub size: usize,
}

/// The arguments of the allocation functions with flags, in their HIP signatures' order
/// `(void** ptr, size_t size, unsigned int flags)`: `hipHostMalloc`, `hipHostAlloc`,
/// `hipExtHostAlloc`, `hipMallocManaged` and `hipExtMallocWithFlags`.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipMallocFlags_t {
    pub ptr: *mut *mut c_void,
    pub size: usize,
    pub flags: c_uint,
}

/// The arguments of `hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags)`.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipHostRegister_t {
    pub hostPtr: *mut c_void,
    pub sizeBytes: usize,
    pub flags: c_uint,
}

/// The argument of `hipFree(void* ptr)`, `hipHostFree(void* ptr)` and
/// `hipHostUnregister(void* hostPtr)`: one pointer.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipFree_t {
    pub ptr: *mut c_void,
}

/// The arguments of `hipMemcpyPeer(void* dst, int dstDeviceId, const void* src,
/// int srcDeviceId, size_t sizeBytes)` and of `hipMemcpyPeerAsync`, which adds the stream.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_hip_api_args_hipMemcpyPeer_t {
    pub dst: *mut c_void,
    pub dstDeviceId: c_int,
    pub src: *const c_void,
    pub srcDeviceId: c_int,
    pub sizeBytes: usize,
    /// `hipMemcpyPeerAsync` only.
    pub stream: hipStream_t,
}

/// `rocprofiler_hip_api_args_t` (88 bytes, align 8 with HIP runtime table step 12).
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_hip_api_args_t {
    pub hipSetDevice: rocprofiler_hip_api_args_hipSetDevice_t,
    pub hipStreamCreate: rocprofiler_hip_api_args_hipStreamCreate_t,
    pub hipStreamCreateWithFlags: rocprofiler_hip_api_args_hipStreamCreateWithFlags_t,
    pub hipStreamCreateWithPriority: rocprofiler_hip_api_args_hipStreamCreateWithPriority_t,
    pub hipExtStreamCreateWithCUMask: rocprofiler_hip_api_args_hipExtStreamCreateWithCUMask_t,
    pub hipStreamDestroy: rocprofiler_hip_api_args_stream_t,
    pub hipStreamSynchronize: rocprofiler_hip_api_args_stream_t,
    pub hipDeviceSynchronize: rocprofiler_hip_api_no_args,
    pub hipLaunchKernel: rocprofiler_hip_api_args_hipLaunchKernel_t,
    pub hipModuleLaunchKernel: rocprofiler_hip_api_args_hipModuleLaunchKernel_t,
    pub hipExtModuleLaunchKernel: rocprofiler_hip_api_args_hipExtModuleLaunchKernel_t,
    pub hipGraphLaunch: rocprofiler_hip_api_args_hipGraphLaunch_t,
    pub hipMemset: rocprofiler_hip_api_args_hipMemset_t,
    pub hipMemsetAsync: rocprofiler_hip_api_args_hipMemsetAsync_t,
    pub hipMemcpy: rocprofiler_hip_api_args_hipMemcpy_t,
    pub hipMemcpyAsync: rocprofiler_hip_api_args_hipMemcpyAsync_t,
    /// `hipMemcpyHtoD`, `hipMemcpyDtoH`, `hipMemcpyDtoD`.
    pub hipMemcpyFixed: rocprofiler_hip_api_args_hipMemcpyFixed_t,
    /// `hipMemcpyHtoDAsync`, `hipMemcpyDtoHAsync`, `hipMemcpyDtoDAsync`.
    pub hipMemcpyFixedAsync: rocprofiler_hip_api_args_hipMemcpyFixedAsync_t,
    pub hipEventRecord: rocprofiler_hip_api_args_hipEventRecord_t,
    pub hipEventRecordWithFlags: rocprofiler_hip_api_args_hipEventRecordWithFlags_t,
    pub hipStreamWaitEvent: rocprofiler_hip_api_args_hipStreamWaitEvent_t,
    pub hipMalloc: rocprofiler_hip_api_args_hipMalloc_t,
    /// `hipHostMalloc`, `hipHostAlloc`, `hipExtHostAlloc`, `hipMallocManaged`,
    /// `hipExtMallocWithFlags`.
    pub hipMallocFlags: rocprofiler_hip_api_args_hipMallocFlags_t,
    pub hipHostRegister: rocprofiler_hip_api_args_hipHostRegister_t,
    /// `hipFree`, `hipHostFree`, `hipHostUnregister`.
    pub hipFree: rocprofiler_hip_api_args_hipFree_t,
    /// `hipMemcpyPeer`, `hipMemcpyPeerAsync`.
    pub hipMemcpyPeer: rocprofiler_hip_api_args_hipMemcpyPeer_t,
}

/// `hipChannelFormatDesc` (a `retval` member): four `int`s and an enum.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct hipChannelFormatDesc {
    pub x: c_int,
    pub y: c_int,
    pub z: c_int,
    pub w: c_int,
    pub f: c_int,
}

/// `rocprofiler_hip_api_retval_t` (24 bytes, align 8).
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_hip_api_retval_t {
    pub uint64_t_retval: u64,
    pub int_retval: c_int,
    pub const_charp_retval: *const c_char,
    pub hipError_t_retval: hipError_t,
    pub hipChannelFormatDesc_retval: hipChannelFormatDesc,
    pub voidpp_retval: *mut *mut c_void,
}

/// `rocprofiler_callback_tracing_hip_api_data_t` (120 bytes): the HIP API callback payload.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_hip_api_data_t {
    pub size: u64,
    pub args: rocprofiler_hip_api_args_t,
    pub retval: rocprofiler_hip_api_retval_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_kernel_dispatch_data_t {
    pub size: u64,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_memory_copy_data_t {
    pub size: u64,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dst_agent_id: rocprofiler_agent_id_t,
    pub src_agent_id: rocprofiler_agent_id_t,
    pub bytes: u64,
    pub dst_address: rocprofiler_address_t,
    pub src_address: rocprofiler_address_t,
}

/// The payload of a RUNTIME_INITIALIZATION callback: the runtime's version and instance.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct rocprofiler_callback_tracing_runtime_initialization_data_t {
    pub size: u64,
    pub version: u64,
    pub instance: u64,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
    pub size: u64,
    pub kernel_id: u64,
    pub code_object_id: u64,
    pub kernel_name: *const c_char,
    pub kernel_object: u64,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_alignment: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
    pub kernel_code_entry_byte_offset: i64,
    pub kernel_address: rocprofiler_address_t,
}

// ---------------------------------------------------------------------------------------
// Agents (agent.h, ROCm 7.1 layout)
// ---------------------------------------------------------------------------------------

#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct rocprofiler_uuid_t {
    pub bytes: [u8; 16],
}

#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct rocprofiler_agent_mem_bank_t {
    pub heap_type: HSA_HEAPTYPE,
    pub flags: u32,
    pub width: u32,
    pub mem_clk_max: u32,
    pub size_in_bytes: u64,
}

#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct rocprofiler_agent_cache_t {
    pub processor_id_low: u32,
    pub size: u64,
    pub level: u32,
    pub cache_line_size: u32,
    pub cache_lines_per_tag: u32,
    pub association: u32,
    pub latency: u32,
    pub type_: u32,
}

#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct rocprofiler_agent_io_link_t {
    pub type_: u32,
    pub version_major: u32,
    pub version_minor: u32,
    pub node_from: u32,
    pub node_to: u32,
    pub weight: u32,
    pub min_latency: u32,
    pub max_latency: u32,
    pub min_bandwidth: u32,
    pub max_bandwidth: u32,
    pub recommended_transfer_size: u32,
    pub flags: u32,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_agent_v0_t {
    pub size: u64,
    pub id: rocprofiler_agent_id_t,
    pub type_: rocprofiler_agent_type_t,
    pub cpu_cores_count: u32,
    pub simd_count: u32,
    pub mem_banks_count: u32,
    pub caches_count: u32,
    pub io_links_count: u32,
    pub cpu_core_id_base: u32,
    pub simd_id_base: u32,
    pub max_waves_per_simd: u32,
    pub lds_size_in_kb: u32,
    pub gds_size_in_kb: u32,
    pub num_gws: u32,
    pub wave_front_size: u32,
    pub num_xcc: u32,
    pub cu_count: u32,
    pub array_count: u32,
    pub num_shader_banks: u32,
    pub simd_arrays_per_engine: u32,
    pub cu_per_simd_array: u32,
    pub simd_per_cu: u32,
    pub max_slots_scratch_cu: u32,
    pub gfx_target_version: u32,
    pub vendor_id: u16,
    pub device_id: u16,
    pub location_id: u32,
    pub domain: u32,
    pub drm_render_minor: u32,
    pub num_sdma_engines: u32,
    pub num_sdma_xgmi_engines: u32,
    pub num_sdma_queues_per_engine: u32,
    pub num_cp_queues: u32,
    pub max_engine_clk_ccompute: u32,
    pub max_engine_clk_fcompute: u32,
    /// `HSA_ENGINE_VERSION`, a 4-byte union.
    pub sdma_fw_version: u32,
    /// `HSA_ENGINE_ID`, a 4-byte union.
    pub fw_version: u32,
    /// `HSA_CAPABILITY`, a 4-byte union.
    pub capability: u32,
    pub cu_per_engine: u32,
    pub max_waves_per_cu: u32,
    pub family_id: u32,
    pub workgroup_max_size: u32,
    pub grid_max_size: u32,
    pub local_mem_size: u64,
    pub hive_id: u64,
    pub gpu_id: u64,
    pub workgroup_max_dim: rocprofiler_dim3_t,
    pub grid_max_dim: rocprofiler_dim3_t,
    pub mem_banks: *const rocprofiler_agent_mem_bank_t,
    pub caches: *const rocprofiler_agent_cache_t,
    pub io_links: *const rocprofiler_agent_io_link_t,
    pub name: *const c_char,
    pub vendor_name: *const c_char,
    pub product_name: *const c_char,
    pub model_name: *const c_char,
    pub node_id: u32,
    pub logical_node_id: i32,
    pub logical_node_type_id: i32,
    /// `rocprofiler_agent_runtime_visiblity_t`, a 32-bit bitfield.
    pub runtime_visibility: u32,
    pub uuid: rocprofiler_uuid_t,
}

pub type rocprofiler_agent_t = rocprofiler_agent_v0_t;

// ---------------------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------------------

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_client_id_t {
    pub size: usize,
    pub name: *const c_char,
    pub handle: u32,
}

pub type rocprofiler_client_finalize_t = Option<unsafe extern "C" fn(rocprofiler_client_id_t)>;
pub type rocprofiler_tool_initialize_t = Option<
    unsafe extern "C" fn(
        finalize_func: rocprofiler_client_finalize_t,
        tool_data: *mut c_void,
    ) -> c_int,
>;
pub type rocprofiler_tool_finalize_t = Option<unsafe extern "C" fn(tool_data: *mut c_void)>;

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_tool_configure_result_t {
    pub size: usize,
    pub initialize: rocprofiler_tool_initialize_t,
    pub finalize: rocprofiler_tool_finalize_t,
    pub tool_data: *mut c_void,
}

pub type rocprofiler_configure_func_t = Option<
    unsafe extern "C" fn(
        version: u32,
        runtime_version: *const c_char,
        priority: u32,
        client_id: *mut rocprofiler_client_id_t,
    ) -> *mut rocprofiler_tool_configure_result_t,
>;

// ---------------------------------------------------------------------------------------
// Callback types
// ---------------------------------------------------------------------------------------

pub type rocprofiler_callback_tracing_cb_t = Option<
    unsafe extern "C" fn(
        record: rocprofiler_callback_tracing_record_t,
        user_data: *mut rocprofiler_user_data_t,
        callback_data: *mut c_void,
    ),
>;

pub type rocprofiler_buffer_tracing_cb_t = Option<
    unsafe extern "C" fn(
        context: rocprofiler_context_id_t,
        buffer_id: rocprofiler_buffer_id_t,
        headers: *mut *mut rocprofiler_record_header_t,
        num_headers: usize,
        data: *mut c_void,
        drop_count: u64,
    ),
>;

pub type rocprofiler_external_correlation_id_request_cb_t = Option<
    unsafe extern "C" fn(
        thread_id: rocprofiler_thread_id_t,
        context_id: rocprofiler_context_id_t,
        kind: rocprofiler_external_correlation_id_request_kind_t,
        operation: rocprofiler_tracing_operation_t,
        internal_corr_id_value: u64,
        external_corr_id_value: *mut rocprofiler_user_data_t,
        data: *mut c_void,
    ) -> c_int,
>;

pub type rocprofiler_query_available_agents_cb_t = Option<
    unsafe extern "C" fn(
        version: rocprofiler_agent_version_t,
        agents: *mut *const c_void,
        num_agents: usize,
        user_data: *mut c_void,
    ) -> rocprofiler_status_t,
>;

pub type rocprofiler_callback_tracing_kind_cb_t = Option<
    unsafe extern "C" fn(kind: rocprofiler_callback_tracing_kind_t, data: *mut c_void) -> c_int,
>;

pub type rocprofiler_callback_tracing_kind_operation_cb_t = Option<
    unsafe extern "C" fn(
        kind: rocprofiler_callback_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        data: *mut c_void,
    ) -> c_int,
>;

/// One argument of a traced call (`callback_tracing.h`): kind, operation, argument number
/// from 0, address of the stored value, indirection level (`int*` = 1), the type's `typeid`
/// name, the argument name, its value as text, and how many times it was dereferenced to
/// make that text. A non-zero return stops the iteration.
pub type rocprofiler_callback_tracing_operation_args_cb_t = Option<
    unsafe extern "C" fn(
        kind: rocprofiler_callback_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        arg_number: u32,
        arg_value_addr: *const c_void,
        arg_indirection_count: i32,
        arg_type: *const c_char,
        arg_name: *const c_char,
        arg_value_str: *const c_char,
        arg_dereference_count: i32,
        data: *mut c_void,
    ) -> c_int,
>;

pub type rocprofiler_buffer_tracing_kind_cb_t = Option<
    unsafe extern "C" fn(kind: rocprofiler_buffer_tracing_kind_t, data: *mut c_void) -> c_int,
>;

pub type rocprofiler_buffer_tracing_kind_operation_cb_t = Option<
    unsafe extern "C" fn(
        kind: rocprofiler_buffer_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        data: *mut c_void,
    ) -> c_int,
>;

// ---------------------------------------------------------------------------------------
// Functions: the minimum subset of the spec (docs/sdk-facts.md#api-subset), plus a few neighbours.
// ---------------------------------------------------------------------------------------

extern "C" {
    // registration.h
    pub fn rocprofiler_force_configure(
        configure_func: rocprofiler_configure_func_t,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_is_initialized(status: *mut c_int) -> rocprofiler_status_t;
    pub fn rocprofiler_is_finalized(status: *mut c_int) -> rocprofiler_status_t;

    // context.h
    pub fn rocprofiler_create_context(
        context_id: *mut rocprofiler_context_id_t,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_start_context(context_id: rocprofiler_context_id_t) -> rocprofiler_status_t;
    pub fn rocprofiler_stop_context(context_id: rocprofiler_context_id_t) -> rocprofiler_status_t;
    pub fn rocprofiler_context_is_active(
        context_id: rocprofiler_context_id_t,
        status: *mut c_int,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_context_is_valid(
        context_id: rocprofiler_context_id_t,
        status: *mut c_int,
    ) -> rocprofiler_status_t;

    // buffer.h
    pub fn rocprofiler_create_buffer(
        context: rocprofiler_context_id_t,
        size: usize,
        watermark: usize,
        policy: rocprofiler_buffer_policy_t,
        callback: rocprofiler_buffer_tracing_cb_t,
        callback_data: *mut c_void,
        buffer_id: *mut rocprofiler_buffer_id_t,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_destroy_buffer(buffer_id: rocprofiler_buffer_id_t) -> rocprofiler_status_t;
    pub fn rocprofiler_flush_buffer(buffer_id: rocprofiler_buffer_id_t) -> rocprofiler_status_t;

    // buffer_tracing.h
    pub fn rocprofiler_configure_buffer_tracing_service(
        context_id: rocprofiler_context_id_t,
        kind: rocprofiler_buffer_tracing_kind_t,
        operations: *const rocprofiler_tracing_operation_t,
        operations_count: usize,
        buffer_id: rocprofiler_buffer_id_t,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_query_buffer_tracing_kind_name(
        kind: rocprofiler_buffer_tracing_kind_t,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_query_buffer_tracing_kind_operation_name(
        kind: rocprofiler_buffer_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_iterate_buffer_tracing_kinds(
        callback: rocprofiler_buffer_tracing_kind_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_iterate_buffer_tracing_kind_operations(
        kind: rocprofiler_buffer_tracing_kind_t,
        callback: rocprofiler_buffer_tracing_kind_operation_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t;

    // callback_tracing.h
    pub fn rocprofiler_configure_callback_tracing_service(
        context_id: rocprofiler_context_id_t,
        kind: rocprofiler_callback_tracing_kind_t,
        operations: *const rocprofiler_tracing_operation_t,
        operations_count: usize,
        callback: rocprofiler_callback_tracing_cb_t,
        callback_args: *mut c_void,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_query_callback_tracing_kind_name(
        kind: rocprofiler_callback_tracing_kind_t,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_query_callback_tracing_kind_operation_name(
        kind: rocprofiler_callback_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_iterate_callback_tracing_kinds(
        callback: rocprofiler_callback_tracing_kind_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_iterate_callback_tracing_kind_operations(
        kind: rocprofiler_callback_tracing_kind_t,
        callback: rocprofiler_callback_tracing_kind_operation_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_iterate_callback_tracing_kind_operation_args(
        record: rocprofiler_callback_tracing_record_t,
        callback: rocprofiler_callback_tracing_operation_args_cb_t,
        max_dereference_count: i32,
        user_data: *mut c_void,
    ) -> rocprofiler_status_t;

    // external_correlation.h
    pub fn rocprofiler_configure_external_correlation_id_request_service(
        context_id: rocprofiler_context_id_t,
        kinds: *const rocprofiler_external_correlation_id_request_kind_t,
        kinds_count: usize,
        callback: rocprofiler_external_correlation_id_request_cb_t,
        callback_args: *mut c_void,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_push_external_correlation_id(
        context: rocprofiler_context_id_t,
        tid: rocprofiler_thread_id_t,
        external_correlation_id: rocprofiler_user_data_t,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_pop_external_correlation_id(
        context: rocprofiler_context_id_t,
        tid: rocprofiler_thread_id_t,
        external_correlation_id: *mut rocprofiler_user_data_t,
    ) -> rocprofiler_status_t;

    // internal_threading.h
    pub fn rocprofiler_create_callback_thread(
        cb_thread_id: *mut rocprofiler_callback_thread_t,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_assign_callback_thread(
        buffer_id: rocprofiler_buffer_id_t,
        cb_thread_id: rocprofiler_callback_thread_t,
    ) -> rocprofiler_status_t;

    // agent.h
    pub fn rocprofiler_query_available_agents(
        version: rocprofiler_agent_version_t,
        callback: rocprofiler_query_available_agents_cb_t,
        agent_size: usize,
        user_data: *mut c_void,
    ) -> rocprofiler_status_t;

    // rocprofiler.h
    pub fn rocprofiler_get_timestamp(ts: *mut rocprofiler_timestamp_t) -> rocprofiler_status_t;
    pub fn rocprofiler_get_thread_id(tid: *mut rocprofiler_thread_id_t) -> rocprofiler_status_t;
    pub fn rocprofiler_get_version(
        major: *mut u32,
        minor: *mut u32,
        patch: *mut u32,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_get_version_triplet(
        info: *mut rocprofiler_version_triplet_t,
    ) -> rocprofiler_status_t;
    pub fn rocprofiler_get_status_name(status: rocprofiler_status_t) -> *const c_char;
    pub fn rocprofiler_get_status_string(status: rocprofiler_status_t) -> *const c_char;
}

/// The tool entry point the SDK looks for (implemented by the tool, not the library).
pub type rocprofiler_configure_t = unsafe extern "C" fn(
    version: u32,
    runtime_version: *const c_char,
    priority: u32,
    client_id: *mut rocprofiler_client_id_t,
)
    -> *mut rocprofiler_tool_configure_result_t;

// Marker (ROCTx) API payload (`callback_tracing.h` `rocprofiler_callback_tracing_marker_api_data_t`,
// with the argument union of `marker/api_args.h`). The name API members are spelled out; the
// others are single pointers or 8-byte ids, which `roctxMarkA` stands for in size and alignment.

/// `roctxMarkA`, `roctxRangePushA`, `roctxRangeStartA`, `roctxThreadRangeA`,
/// `roctxProcessRangeA`: one message.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_message_t {
    pub message: *const c_char,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_roctxNameOsThread_t {
    pub name: *const c_char,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_roctxNameHsaAgent_t {
    pub name: *const c_char,
    /// `const struct hsa_agent_s*`.
    pub agent: *const c_void,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_roctxNameHipDevice_t {
    pub name: *const c_char,
    pub device_id: c_int,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_roctxNameHipStream_t {
    pub name: *const c_char,
    /// `const struct ihipStream_t*`: the `hipStream_t` value.
    pub stream: *const c_void,
}

/// `rocprofiler_marker_api_args_t` (16 bytes, 8-aligned).
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_marker_api_args_t {
    pub roctxMarkA: rocprofiler_marker_api_args_message_t,
    pub roctxRangePushA: rocprofiler_marker_api_args_message_t,
    /// `roctxRangePop` takes no argument: the SDK's member is a one-byte placeholder.
    pub roctxRangePop: u8,
    pub roctxNameOsThread: rocprofiler_marker_api_args_roctxNameOsThread_t,
    pub roctxNameHsaAgent: rocprofiler_marker_api_args_roctxNameHsaAgent_t,
    pub roctxNameHipDevice: rocprofiler_marker_api_args_roctxNameHipDevice_t,
    pub roctxNameHipStream: rocprofiler_marker_api_args_roctxNameHipStream_t,
    pub roctxRangeStartA: rocprofiler_marker_api_args_message_t,
    pub roctxRangeStop: rocprofiler_marker_api_args_roctxRangeStop_t,
    /// MARKER_CORE_RANGE_API: the message of the push that opened the thread range.
    pub roctxThreadRangeA: rocprofiler_marker_api_args_message_t,
    /// MARKER_CORE_RANGE_API: the message of the start that opened the process range.
    pub roctxProcessRangeA: rocprofiler_marker_api_args_message_t,
}

/// `roctxRangeStop(id)`'s argument: the `roctx_range_id_t` its `roctxRangeStartA` returned.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_marker_api_args_roctxRangeStop_t {
    pub id: u64,
}

/// `rocprofiler_marker_api_retval_t` (8 bytes).
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_marker_api_retval_t {
    pub int32_t_retval: i32,
    pub int64_t_retval: i64,
    /// `roctx_range_id_t`.
    pub roctx_range_id_t_retval: u64,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_marker_api_data_t {
    pub size: u64,
    pub args: rocprofiler_marker_api_args_t,
    pub retval: rocprofiler_marker_api_retval_t,
}
