//! The names API (docs/sdk-facts.md#names-api): kind names and operation names for callback and buffer tracing.
//! HIP runtime operation names come from `HIP_RUNTIME_API_NAMES`, so ids and names match the
//! headers the tracer is compiled against (docs/sdk-facts.md#hip-operation-ids, docs/simulator-fidelity.md#names).
use rocprofiler_sdk_sys as sys;
use std::ffi::{CStr, CString};
use std::sync::LazyLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Domain {
    Callback,
    Buffer,
}

static CALLBACK_KINDS: [&CStr; sys::ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH as usize + 1] = [
    c"NONE",
    c"HSA_CORE_API",
    c"HSA_AMD_EXT_API",
    c"HSA_IMAGE_EXT_API",
    c"HSA_FINALIZE_EXT_API",
    c"HIP_RUNTIME_API",
    c"HIP_COMPILER_API",
    c"MARKER_CORE_API",
    c"MARKER_CONTROL_API",
    c"MARKER_NAME_API",
    c"CODE_OBJECT",
    c"SCRATCH_MEMORY",
    c"KERNEL_DISPATCH",
    c"MEMORY_COPY",
    c"RCCL_API",
    c"OMPT",
    c"MEMORY_ALLOCATION",
    c"RUNTIME_INITIALIZATION",
    c"ROCDECODE_API",
    c"ROCJPEG_API",
    c"HIP_STREAM",
    c"MARKER_CORE_RANGE_API",
    c"HIP_GRAPH",
];

static BUFFER_KINDS: [&CStr; sys::ROCPROFILER_BUFFER_TRACING_HIP_GRAPH as usize + 1] = [
    c"NONE",
    c"HSA_CORE_API",
    c"HSA_AMD_EXT_API",
    c"HSA_IMAGE_EXT_API",
    c"HSA_FINALIZE_EXT_API",
    c"HIP_RUNTIME_API",
    c"HIP_COMPILER_API",
    c"MARKER_CORE_API",
    c"MARKER_CONTROL_API",
    c"MARKER_NAME_API",
    c"MEMORY_COPY",
    c"KERNEL_DISPATCH",
    c"SCRATCH_MEMORY",
    c"CORRELATION_ID_RETIREMENT",
    c"RCCL_API",
    c"OMPT",
    c"MEMORY_ALLOCATION",
    c"RUNTIME_INITIALIZATION",
    c"ROCDECODE_API",
    c"ROCJPEG_API",
    c"HIP_STREAM",
    c"HIP_RUNTIME_API_EXT",
    c"HIP_COMPILER_API_EXT",
    c"ROCDECODE_API_EXT",
    c"KFD_EVENT_PAGE_MIGRATE",
    c"KFD_EVENT_PAGE_FAULT",
    c"KFD_EVENT_QUEUE",
    c"KFD_EVENT_UNMAP_FROM_GPU",
    c"KFD_EVENT_DROPPED_EVENTS",
    c"KFD_PAGE_MIGRATE",
    c"KFD_PAGE_FAULT",
    c"KFD_QUEUE",
    c"MARKER_CORE_RANGE_API",
    c"HIP_GRAPH",
];

static CODE_OBJECT_OPS: [&CStr; 4] = [
    c"CODE_OBJECT_NONE",
    c"CODE_OBJECT_LOAD",
    c"CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER",
    c"CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER",
];
static KERNEL_DISPATCH_OPS: [&CStr; 3] = [
    c"KERNEL_DISPATCH_NONE",
    c"KERNEL_DISPATCH_ENQUEUE",
    c"KERNEL_DISPATCH_COMPLETE",
];
static MEMORY_COPY_OPS: [&CStr; 5] = [
    c"MEMORY_COPY_NONE",
    c"MEMORY_COPY_HOST_TO_HOST",
    c"MEMORY_COPY_HOST_TO_DEVICE",
    c"MEMORY_COPY_DEVICE_TO_HOST",
    c"MEMORY_COPY_DEVICE_TO_DEVICE",
];
static HIP_GRAPH_OPS: [&CStr; 4] = [
    c"HIP_GRAPH_OPERATION_NONE",
    c"HIP_GRAPH_OPERATION_EXEC_CREATE",
    c"HIP_GRAPH_OPERATION_EXEC_DESTROY",
    c"HIP_GRAPH_OPERATION_EXEC_LAUNCH",
];

static HIP_STREAM_OPS: [&CStr; 4] = [
    c"HIP_STREAM_NONE",
    c"HIP_STREAM_CREATE",
    c"HIP_STREAM_DESTROY",
    c"HIP_STREAM_SET",
];

/// `rocprofiler_marker_name_api_id_t`: NONE is -1, so 0 is a real operation.
static MARKER_NAME_OPS: [&CStr; 4] = [
    c"roctxNameOsThread",
    c"roctxNameHsaAgent",
    c"roctxNameHipDevice",
    c"roctxNameHipStream",
];

static HIP_RUNTIME_OPS: LazyLock<Vec<CString>> = LazyLock::new(|| {
    sys::HIP_RUNTIME_API_NAMES
        .iter()
        .map(|name| CString::new(*name).unwrap_or_default())
        .collect()
});

/// The operations of one tracing kind.
#[derive(Clone, Copy)]
pub(crate) enum Operations {
    /// HIP runtime API ids: 0 (`hipApiName`) is a real operation.
    HipRuntime,
    /// An operation enum whose 0 is the `NONE` sentinel, not iterated.
    Enum(&'static [&'static CStr]),
    /// An operation enum whose NONE is -1: every value from 0 is an operation.
    FromZero(&'static [&'static CStr]),
}

impl Operations {
    /// Values an iteration visits.
    pub(crate) fn iter(self) -> std::ops::Range<i32> {
        match self {
            Operations::HipRuntime => 0..HIP_RUNTIME_OPS.len() as i32,
            Operations::Enum(table) => 1..table.len() as i32,
            Operations::FromZero(table) => 0..table.len() as i32,
        }
    }

    /// Whether `op` is a value of this enum (including `NONE`).
    pub(crate) fn contains(self, op: i32) -> bool {
        op >= 0 && (op as usize) < self.len()
    }

    fn len(self) -> usize {
        match self {
            Operations::HipRuntime => HIP_RUNTIME_OPS.len(),
            Operations::Enum(table) | Operations::FromZero(table) => table.len(),
        }
    }

    pub(crate) fn name(self, op: i32) -> Option<&'static CStr> {
        if !self.contains(op) {
            return None;
        }
        match self {
            Operations::HipRuntime => Some(HIP_RUNTIME_OPS[op as usize].as_c_str()),
            Operations::Enum(table) | Operations::FromZero(table) => Some(table[op as usize]),
        }
    }
}

/// The kinds of the release's SDK, NONE included: up to MARKER_CORE_RANGE_API, and HIP_GRAPH
/// (callback 22, buffer 33) from SDK 1.3.2 (ROCm 7.14; docs/simulator-fidelity.md, "Tracing
/// kinds"). Of the later kinds of the newer headers only buffer kind HIP_EVENT is modelled
/// (10.1, [`is_hip_event_kind`]), outside this count.
pub(crate) fn kind_count(domain: Domain) -> u32 {
    let graph = hip_graph_tracing();
    match domain {
        Domain::Callback if graph => sys::ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH + 1,
        Domain::Callback => sys::ROCPROFILER_CALLBACK_TRACING_LAST,
        Domain::Buffer if graph => sys::ROCPROFILER_BUFFER_TRACING_HIP_GRAPH + 1,
        Domain::Buffer => sys::ROCPROFILER_BUFFER_TRACING_LAST,
    }
}

/// The first SDK version with HIP_GRAPH tracing, as the ledger has it (ROCm 7.14).
pub const HIP_GRAPH_SDK_VERSION: crate::machine::Version = crate::machine::Version(1, 3, 2);

/// Whether the release's SDK has HIP_GRAPH tracing (`sdk_version` >= 1.3.2).
pub(crate) fn hip_graph_tracing() -> bool {
    crate::machine::machine().sdk_version >= HIP_GRAPH_SDK_VERSION
}

pub(crate) fn kind_name(domain: Domain, kind: u32) -> Option<&'static CStr> {
    if kind >= kind_count(domain) {
        return None;
    }
    match domain {
        Domain::Callback => CALLBACK_KINDS.get(kind as usize).copied(),
        Domain::Buffer => BUFFER_KINDS.get(kind as usize).copied(),
    }
}

/// The operation enum of `kind`, or `None` for kinds whose operations the sim does not name
/// (HSA, the other marker kinds, ...: they are accepted by configuration but never produced).
pub(crate) fn operations(domain: Domain, kind: u32) -> Option<Operations> {
    if is_hip_event_kind(domain, kind) {
        return Some(Operations::Enum(&HIP_EVENT_OPS));
    }
    match (domain, kind) {
        (Domain::Callback, sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API)
        | (Domain::Buffer, sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API)
        | (Domain::Buffer, sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API_EXT) => {
            Some(Operations::HipRuntime)
        }
        (Domain::Callback, sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT) => {
            Some(Operations::Enum(&CODE_OBJECT_OPS))
        }
        (Domain::Callback, sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH)
        | (Domain::Buffer, sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH) => {
            Some(Operations::Enum(&KERNEL_DISPATCH_OPS))
        }
        (Domain::Callback, sys::ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY)
        | (Domain::Buffer, sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY) => {
            Some(Operations::Enum(&MEMORY_COPY_OPS))
        }
        (Domain::Callback, sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM)
        | (Domain::Buffer, sys::ROCPROFILER_BUFFER_TRACING_HIP_STREAM) => {
            Some(Operations::Enum(&HIP_STREAM_OPS))
        }
        (Domain::Callback, sys::ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH)
        | (Domain::Buffer, sys::ROCPROFILER_BUFFER_TRACING_HIP_GRAPH)
            if hip_graph_tracing() =>
        {
            Some(Operations::Enum(&HIP_GRAPH_OPS))
        }
        (Domain::Callback, sys::ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API)
        | (Domain::Buffer, sys::ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API) => {
            Some(Operations::FromZero(&MARKER_NAME_OPS))
        }
        _ => None,
    }
}

/// Whether `kind` is a real (non-NONE, non-LAST) kind of `domain`.
pub(crate) fn is_valid_kind(domain: Domain, kind: u32) -> bool {
    kind != 0 && kind < kind_count(domain) || is_hip_event_kind(domain, kind)
}

/// The name of `kind` where it is HIP_EVENT ([`is_hip_event_kind`]), which [`kind_name`]'s
/// tables, up to the older headers' LAST, do not hold.
pub(crate) fn hip_event_kind_name(domain: Domain, kind: u32) -> Option<&'static CStr> {
    is_hip_event_kind(domain, kind).then_some(c"HIP_EVENT")
}

/// `rocprofiler_hip_event_operation_t` (`hip/event.cpp` @ rocm-systems db83d540).
static HIP_EVENT_OPS: [&CStr; 3] = [c"HIP_EVENT_NONE", c"HIP_EVENT_RECORD", c"HIP_EVENT_WAIT"];

/// Whether `kind` is buffer kind HIP_EVENT (38) on a release whose SDK has it (10.1,
/// `RocmRelease::hip_event_tracing`; docs/simulator-fidelity.md, row "Tracing kinds"). Only
/// this kind past the older headers' LAST is named and accepted: the kinds between (33-37)
/// are not modelled, and iterating the kinds does not visit it.
pub(crate) fn is_hip_event_kind(domain: Domain, kind: u32) -> bool {
    domain == Domain::Buffer
        && kind == sys::ROCPROFILER_BUFFER_TRACING_HIP_EVENT
        && crate::machine::machine().rocm.hip_event_tracing()
}
