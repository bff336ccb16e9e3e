//! `RocmTracerEvent`: one HIP API call or one GPU activity, with every field of XLA's
//! `rocm_tracer_utils.h` (docs/xla-interface.md#utilities-header, #event-fields).
use std::sync::Arc;

/// XLA's `RocmTracerEventType`; the discriminants are XLA's values.
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventType {
    Unsupported = 0,
    Kernel = 1,
    MemcpyH2D = 2,
    MemcpyD2H = 3,
    MemcpyD2D = 4,
    MemcpyP2P = 5,
    MemcpyOther = 6,
    MemoryAlloc = 7,
    MemoryFree = 8,
    Memset = 9,
    Synchronization = 10,
    Generic = 11,
}

impl EventType {
    /// The enumerator's spelling. Unlike XLA's `GetRocmTracerEventTypeName`, every value has a
    /// name (XLA returns "" for `Unsupported` and `MemcpyP2P`, docs/xla-interface.md).
    pub fn name(self) -> &'static str {
        match self {
            EventType::Unsupported => "Unsupported",
            EventType::Kernel => "Kernel",
            EventType::MemcpyH2D => "MemcpyH2D",
            EventType::MemcpyD2H => "MemcpyD2H",
            EventType::MemcpyD2D => "MemcpyD2D",
            EventType::MemcpyP2P => "MemcpyP2P",
            EventType::MemcpyOther => "MemcpyOther",
            EventType::MemoryAlloc => "MemoryAlloc",
            EventType::MemoryFree => "MemoryFree",
            EventType::Memset => "Memset",
            EventType::Synchronization => "Synchronization",
            EventType::Generic => "Generic",
        }
    }

    /// The name as a shared string, allocated once per type for the process: memcpy events are
    /// named after their type, and this keeps the buffer thread from allocating per record.
    pub fn shared_name(self) -> Arc<str> {
        static NAMES: std::sync::OnceLock<Vec<Arc<str>>> = std::sync::OnceLock::new();
        let names = NAMES.get_or_init(|| {
            (0..=EventType::Generic as u32)
                .filter_map(EventType::from_u32)
                .map(|t| Arc::from(t.name()))
                .collect()
        });
        names[self as usize].clone()
    }

    pub fn from_u32(value: u32) -> Option<EventType> {
        use EventType::*;
        const ALL: [EventType; 12] = [
            Unsupported,
            Kernel,
            MemcpyH2D,
            MemcpyD2H,
            MemcpyD2D,
            MemcpyP2P,
            MemcpyOther,
            MemoryAlloc,
            MemoryFree,
            Memset,
            Synchronization,
            Generic,
        ];
        ALL.get(value as usize).copied()
    }

    pub fn is_memcpy(self) -> bool {
        matches!(
            self,
            EventType::MemcpyH2D
                | EventType::MemcpyD2H
                | EventType::MemcpyD2D
                | EventType::MemcpyP2P
                | EventType::MemcpyOther
        )
    }
}

/// XLA's `RocmTracerEventSource`.
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventSource {
    Invalid = 0,
    ApiCallback = 1,
    Activity = 2,
}

impl EventSource {
    pub fn from_u32(value: u32) -> Option<EventSource> {
        [
            EventSource::Invalid,
            EventSource::ApiCallback,
            EventSource::Activity,
        ]
        .get(value as usize)
        .copied()
    }

    pub fn name(self) -> &'static str {
        match self {
            EventSource::Invalid => "Invalid",
            EventSource::ApiCallback => "ApiCallback",
            EventSource::Activity => "Activity",
        }
    }
}

/// XLA's `RocmTracerEventDomain`.
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventDomain {
    InvalidDomain = 0,
    HipApi = 1,
    HipOps = 2,
}

impl EventDomain {
    pub fn from_u32(value: u32) -> Option<EventDomain> {
        [
            EventDomain::InvalidDomain,
            EventDomain::HipApi,
            EventDomain::HipOps,
        ]
        .get(value as usize)
        .copied()
    }

    pub fn name(self) -> &'static str {
        match self {
            EventDomain::InvalidDomain => "InvalidDomain",
            EventDomain::HipApi => "HIP_API",
            EventDomain::HipOps => "HIP_OPS",
        }
    }
}

/// A kernel dispatch's facts: the dispatch's own (segment sizes, geometry) and its kernel
/// symbol's resources (registers, static LDS), as the newer XLA's `KernelDetails` has them
/// (docs/xla-interface.md#kernel-resources-and-occupancy).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KernelDetails {
    /// Scratch bytes per work-item, at dispatch.
    pub private_segment_size: u32,
    /// LDS bytes per workgroup at dispatch: static plus dynamic.
    pub group_segment_size: u32,
    pub workgroup_x: u32,
    pub workgroup_y: u32,
    pub workgroup_z: u32,
    /// Total work-items, not blocks (as the AQL packet has them).
    pub grid_x: u32,
    pub grid_y: u32,
    pub grid_z: u32,
    /// Architectural VGPRs per work-item, from the kernel symbol (0: symbol unknown).
    pub arch_vgpr_count: u32,
    /// Accumulation VGPRs (AGPRs) per work-item, from the kernel symbol.
    pub accum_vgpr_count: u32,
    /// SGPRs per wave, from the kernel symbol (the SDK rounds it to 16).
    pub sgpr_count: u32,
    /// Static LDS bytes per workgroup, from the kernel symbol.
    pub static_group_segment_size: u32,
}

/// How many words `KernelDetails::to_array` gives: the length of the C ABI's
/// `XrtEvent::kernel`, written once here (cbindgen exports it to include/xla_rocm_tracer.h as
/// `XRT_KERNEL_WORDS`, which the C++ shims use too).
pub const KERNEL_WORDS: usize = 12;

impl KernelDetails {
    /// The fields in the order of the C ABI's `XrtEvent::kernel` array: private and group
    /// segment sizes, workgroup x/y/z, grid x/y/z, arch and accumulation VGPRs, SGPRs, static
    /// LDS. The one place that order is written.
    #[inline]
    pub fn to_array(self) -> [u32; KERNEL_WORDS] {
        [
            self.private_segment_size,
            self.group_segment_size,
            self.workgroup_x,
            self.workgroup_y,
            self.workgroup_z,
            self.grid_x,
            self.grid_y,
            self.grid_z,
            self.arch_vgpr_count,
            self.accum_vgpr_count,
            self.sgpr_count,
            self.static_group_segment_size,
        ]
    }

    #[inline]
    pub fn from_array(fields: [u32; KERNEL_WORDS]) -> KernelDetails {
        let [private_segment_size, group_segment_size, workgroup_x, workgroup_y, workgroup_z, grid_x, grid_y, grid_z, arch_vgpr_count, accum_vgpr_count, sgpr_count, static_group_segment_size] =
            fields;
        KernelDetails {
            private_segment_size,
            group_segment_size,
            workgroup_x,
            workgroup_y,
            workgroup_z,
            grid_x,
            grid_y,
            grid_z,
            arch_vgpr_count,
            accum_vgpr_count,
            sgpr_count,
            static_group_segment_size,
        }
    }

    /// Dynamic LDS: the dispatch's total less the symbol's static part (all of it when the
    /// symbol is unknown; 0 if the static part is the larger).
    pub fn dynamic_group_segment_size(&self) -> u32 {
        self.group_segment_size
            .saturating_sub(self.static_group_segment_size)
    }
}

/// A copy's facts, like CUPTI's `MemcpyDetails` carrying its copy kinds: what the HIP call
/// asked for and what the SDK recorded travel with the event (docs/ARCHITECTURE.md#a-copy).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemcpyDetails {
    /// The record's bytes on an activity; the call's `sizeBytes` on a HIP API event (0 when
    /// its arguments were not available).
    pub num_bytes: u64,
    /// XLA stores the destination agent handle truncated to 32 bits here (docs/xla-interface.md#xla-edge-7).
    pub destination: u32,
    pub is_async: bool,
    /// The direction the HIP call asked for (its function, or its `kind` argument), noted by
    /// the tracer at the call's ENTER; `None` when unknown (`hipMemcpyDefault`).
    pub call_direction: Option<EventType>,
    /// Set by the collector on an activity it named by `call_direction`: the direction the SDK
    /// record said (a small host-to-device copy done by a GPU blit is recorded device-to-device).
    pub recorded_direction: Option<EventType>,
    /// The memory each side of the call is in, from the pointers the call passed
    /// (`tracer/hip_api/memory_kinds.rs`); `Unknown` when the call was not noted.
    pub src_kind: MemoryKind,
    pub dst_kind: MemoryKind,
}

/// The memory a copy's side is in, named as CUPTI's memory kinds are in XLA's `memcpy_details`
/// (`kind_src:pinned`, docs/xla-interface.md#copy-details).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MemoryKind {
    #[default]
    Unknown = 0,
    /// Host memory HIP did not allocate or register (`malloc`, the stack).
    Pageable = 1,
    /// `hipHostMalloc`, `hipHostAlloc`, `hipExtHostAlloc` or `hipHostRegister` memory.
    Pinned = 2,
    /// `hipMalloc` or `hipExtMallocWithFlags` memory.
    Device = 3,
    /// `hipMallocManaged` memory.
    Managed = 4,
}

impl MemoryKind {
    /// CUPTI's name of the kind, as XLA's `GetMemoryKindName` writes it.
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Unknown => "unknown",
            MemoryKind::Pageable => "pageable",
            MemoryKind::Pinned => "pinned",
            MemoryKind::Device => "device",
            MemoryKind::Managed => "managed",
        }
    }

    /// The kind coded by [`MemoryKind::code`]; unknown codes are `Unknown`.
    pub fn from_code(code: u64) -> MemoryKind {
        match code {
            1 => MemoryKind::Pageable,
            2 => MemoryKind::Pinned,
            3 => MemoryKind::Device,
            4 => MemoryKind::Managed,
            _ => MemoryKind::Unknown,
        }
    }

    pub fn code(self) -> u64 {
        self as u64
    }
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemsetDetails {
    pub num_bytes: u64,
    pub is_async: bool,
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemAllocDetails {
    pub num_bytes: u64,
}

/// Where in a HIP graph launch a kernel or copy ran (docs/xla-interface.md#graph-nodes).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GraphNode {
    /// The SDK's id of the graph executable (`rocprofiler_graph_exec_id_t`, counting from 1);
    /// 0 where the SDK has no HIP_GRAPH tracing (before ROCm 7.14) and the launch's
    /// executable is not known.
    pub exec_id: u64,
    /// The node's ordinal within its launch, from 0: the order the launch dispatched its
    /// nodes in.
    pub ordinal: u32,
}

/// The C++ union of detail structs, as a tagged enum.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EventDetails {
    #[default]
    None,
    Kernel(KernelDetails),
    Memcpy(MemcpyDetails),
    Memset(MemsetDetails),
    MemAlloc(MemAllocDetails),
}

#[derive(Clone, Debug, PartialEq)]
pub struct RocmTracerEvent {
    pub event_type: EventType,
    pub source: EventSource,
    pub domain: EventDomain,
    /// Shared with the kernel-name table: one allocation per kernel, not per event.
    pub name: Arc<str>,
    pub annotation: Option<Arc<str>>,
    pub roctx_range: Option<Arc<str>>,
    pub start_time_ns: u64,
    pub end_time_ns: u64,
    /// A rocprofiler agent handle, not an ordinal; the collector normalises it.
    pub device_id: u32,
    pub correlation_id: u64,
    pub thread_id: u64,
    /// The SDK stream id delivered through the external correlation; `INVALID_STREAM_ID` for
    /// HIP API events.
    pub stream_id: u64,
    /// The HSA queue handle (kernels only).
    pub queue_id: u64,
    pub scope_range_id: i64,
    pub details: EventDetails,
    /// The graph node a kernel or copy of a `hipGraphLaunch` ran as; `None` for work launched
    /// outside a graph, and for HIP API events.
    pub graph: Option<GraphNode>,
}

impl RocmTracerEvent {
    pub const INVALID_DEVICE_ID: u32 = u32::MAX;
    pub const INVALID_THREAD_ID: u64 = u64::MAX;
    pub const INVALID_CORRELATION_ID: u64 = u64::MAX;
    pub const INVALID_STREAM_ID: u64 = u64::MAX;
    /// The `stream_id` of a kernel or copy that no HIP API call submitted (HIP's worker thread
    /// under `AMD_DIRECT_DISPATCH=0`): its stream is unknown, and the collector places it on an
    /// "unattributed" lane of its queue instead of dropping it.
    pub const UNATTRIBUTED_STREAM_ID: u64 = u64::MAX - 1;
    /// The `thread_id` of a ROCTx process range (`roctxRangeStartA` / `roctxRangeStop`): it
    /// belongs to no one thread (any thread may stop it), so the export puts it on the host
    /// plane's process-wide ROCTx line (docs/xla-interface.md#roctx-ranges-and-marks).
    pub const PROCESS_RANGE_THREAD_ID: u64 = u64::MAX - 2;
}

impl Default for RocmTracerEvent {
    fn default() -> Self {
        RocmTracerEvent {
            event_type: EventType::Unsupported,
            source: EventSource::Invalid,
            domain: EventDomain::InvalidDomain,
            name: Arc::from(""),
            annotation: None,
            roctx_range: None,
            start_time_ns: 0,
            end_time_ns: 0,
            device_id: Self::INVALID_DEVICE_ID,
            correlation_id: Self::INVALID_CORRELATION_ID,
            thread_id: Self::INVALID_THREAD_ID,
            stream_id: Self::INVALID_STREAM_ID,
            queue_id: 0,
            scope_range_id: 0,
            details: EventDetails::None,
            graph: None,
        }
    }
}

/// What kind of HIP stream an SDK stream id stands for, as far as the tracer could tell from
/// the HIP_STREAM callbacks (docs/xla-interface.md#stream-lanes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StreamKind {
    /// A stream the program created (`hipStreamCreate*`).
    Created,
    /// The null stream (`hipStream_t` 0), SDK stream id 0.
    Null,
    /// `hipStreamLegacy` (0x1).
    Legacy,
    /// `hipStreamPerThread` (0x2) of some thread.
    PerThread,
}

impl StreamKind {
    /// The `hipStream_t` values HIP reserves, by kind; `Created` for any other value.
    pub fn of_handle(handle: u64) -> StreamKind {
        match handle {
            0 => StreamKind::Null,
            1 => StreamKind::Legacy,
            2 => StreamKind::PerThread,
            _ => StreamKind::Created,
        }
    }

    /// The word shown in a lane label and the `stream_kind` stat; `None` for created streams.
    pub fn label(self) -> Option<&'static str> {
        match self {
            StreamKind::Created => None,
            StreamKind::Null => Some("null"),
            StreamKind::Legacy => Some("legacy"),
            StreamKind::PerThread => Some("per-thread"),
        }
    }
}

/// What the tracer knows about one SDK stream id: the `hipStream_t` it was seen with, its kind
/// and the name the program gave it with `roctxNameHipStream`, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamLabel {
    pub stream_id: u64,
    pub handle: u64,
    pub kind: StreamKind,
    pub name: Option<Arc<str>>,
}

/// What a `hipEventRecord` or `hipStreamWaitEvent` call did with its event: the session's end
/// carries the calls (`SessionEnd::event_calls`); the export pairs each wait with its record
/// and draws a flow (docs/xla-interface.md#stream-waits).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventCallKind {
    /// `hipEventRecord` / `hipEventRecordWithFlags`: the event marks the work submitted to the
    /// stream so far.
    Record,
    /// `hipStreamWaitEvent`: the stream's later work waits for the event's latest record.
    Wait,
}

/// One record or wait call.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventCall {
    /// The call's internal correlation id: calls and submitted work are ordered by it.
    pub correlation_id: u64,
    pub kind: EventCallKind,
    /// The `hipEvent_t`.
    pub event: u64,
    /// The SDK stream id of the call's stream (its HIP_STREAM SET).
    pub stream_id: u64,
    /// The GPU-side time of the barrier packet the call enqueued, from its HIP_EVENT record
    /// (rocprofiler-sdk 1.4, ROCm 10.1), matched by the call's internal correlation id; `None`
    /// without HIP_EVENT tracing, or when the call enqueued no barrier (a wait on an event
    /// already complete) or its record did not arrive by the session's end
    /// (docs/xla-interface.md#stream-waits).
    pub barrier: Option<BarrierSpan>,
}

/// When a barrier packet ran on its queue: `[start_ns, end_ns]`, the SDK's clock. For a wait,
/// from when the waiting queue reached it to when the recorded event completed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct BarrierSpan {
    pub start_ns: u64,
    pub end_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_names_are_the_type_names_and_allocated_once() {
        for value in 0..=EventType::Generic as u32 {
            let t = EventType::from_u32(value).unwrap();
            assert_eq!(&*t.shared_name(), t.name());
            assert!(Arc::ptr_eq(&t.shared_name(), &t.shared_name()));
        }
        assert_eq!(EventType::from_u32(EventType::Generic as u32 + 1), None);
    }

    #[test]
    fn the_event_size_the_docs_quote() {
        // `collector/stored_event.rs` and the decoder quote it (each move is a `memcpy`).
        assert_eq!(std::mem::size_of::<RocmTracerEvent>(), 200);
    }

    #[test]
    fn domains_round_trip_through_their_values() {
        for domain in [
            EventDomain::InvalidDomain,
            EventDomain::HipApi,
            EventDomain::HipOps,
        ] {
            assert_eq!(EventDomain::from_u32(domain as u32), Some(domain));
        }
        assert_eq!(EventDomain::from_u32(3), None);
    }
}
