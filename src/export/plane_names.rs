//! Plane names and the vendor string of XLA's `xplane_schema.h` (docs/xla-interface.md#schema-names).

use crate::event::RocmTracerEvent;

/// `kRoctracerApiPlaneName`: HIP API calls, one line per host thread.
pub const HOST_PLANE_NAME: &str = "/host:ROCTRACER";
/// `kHostThreadsPlaneName`: where a profiler session merges the host planes.
pub const HOST_CPU_PLANE_NAME: &str = "/host:CPU";
/// `kGpuPlanePrefix`; planes are `"/device:GPU:<ordinal>"`.
pub const GPU_PLANE_PREFIX: &str = "/device:GPU:";
/// `kScopeRangeIdTreePlaneName`.
pub const SCOPE_RANGE_TREE_PLANE_NAME: &str = "/host:__ScopeRangeCallStack__";
/// `kDeviceVendorAMD`.
pub const DEVICE_VENDOR_AMD: &str = "AMD";

/// Stat names of XLA's `xplane_schema.h` that carry an event's type-specific details
/// (docs/xla-interface.md#event-fields); readers of foreign traces infer the event's type from them.
pub const KERNEL_DETAILS_STAT: &str = "kernel_details";
pub const MEMCPY_DETAILS_STAT: &str = "memcpy_details";
pub const MEMALLOC_DETAILS_STAT: &str = "memalloc_details";
pub const MEMFREE_DETAILS_STAT: &str = "MemFree_details";
pub const MEMSET_DETAILS_STAT: &str = "Memset_details";
/// `kCudaGraphId` of XLA's `xplane_schema.cc` ("cuda_graph_id"): on a kernel or copy of a graph
/// launch, the SDK's id of the graph executable (docs/xla-interface.md#graph-nodes).
pub const CUDA_GRAPH_ID_STAT: &str = "cuda_graph_id";
/// A graph node's ordinal in its launch. The schema names no node stat (it has
/// `cuda_graph_id`, `cuda_graph_exec_id` and `cuda_graph_orig_id` only), so the name is this
/// tracer's.
pub const GRAPH_NODE_ID_STAT: &str = "graph_node_id";
/// A flow between two events (tsl's `StatType::kFlow`, an `XFlow` value): the stream waits' arrows
/// (`flows.rs`).
pub const FLOW_STAT: &str = "flow";

/// XLA's `GpuPlaneName(ordinal)`.
pub fn gpu_plane_name(ordinal: u32) -> String {
    format!("{GPU_PLANE_PREFIX}{ordinal}")
}

/// `"Host Threads/<tid>"`.
pub fn host_line_name(thread_id: u64) -> String {
    format!("Host Threads/{thread_id}")
}

/// `"Host Threads/<tid>/ROCTX"`: the ROCTx ranges and marks of a host thread.
pub fn roctx_line_name(thread_id: u64) -> String {
    format!("Host Threads/{thread_id}/ROCTX")
}

/// The host plane's line of ROCTx process ranges (`roctxRangeStartA` / `roctxRangeStop`):
/// started and stopped on any threads, they belong to no thread's line; after the threads'
/// lines.
pub const ROCTX_PROCESS_LINE_NAME: &str = "ROCTX Process Ranges";

/// The line id of [`ROCTX_PROCESS_LINE_NAME`]: just below the threads' ROCTx lines (thread
/// ids are positive), so no thread's line has it.
pub const ROCTX_PROCESS_LINE_ID: i64 = ROCTX_LINE_ID_BASE - 1;

/// The id and name of the ROCTx line of the events with this `thread_id`: the thread's, or the
/// process ranges' line for [`RocmTracerEvent::PROCESS_RANGE_THREAD_ID`].
pub fn roctx_line(thread_id: u64) -> (i64, String) {
    if thread_id == RocmTracerEvent::PROCESS_RANGE_THREAD_ID {
        (ROCTX_PROCESS_LINE_ID, ROCTX_PROCESS_LINE_NAME.to_owned())
    } else {
        (
            ROCTX_LINE_ID_BASE.saturating_add(thread_id as i64),
            roctx_line_name(thread_id),
        )
    }
}

/// Where ROCTx line ids start (plus the thread id): XLA writes them on a plane of their own
/// with the thread id as line id, which tsl merges into the host plane; the export writes the
/// merged result. Not tsl's `1 << 32`: xprof's trace viewer keeps 32 bits of a line id as the
/// row's thread id, which would put the bands on their thread's own row. Linux thread ids stay
/// below `1 << 22`.
pub const ROCTX_LINE_ID_BASE: i64 = 1 << 30;
