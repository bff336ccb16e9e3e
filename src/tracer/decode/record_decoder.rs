//! Buffer records -> [`RocmTracerEvent`]s, field by field as XLA's `HipApiEvent`,
//! `KernelEvent` and `MemcpyEvent` fill them (docs/xla-interface.md#event-fields).
//!
//! A record is read only after its header, payload pointer and `size` field have been
//! checked; anything malformed or unexpected is a counted drop with a reason, never a read
//! past the record. Deliberate differences from XLA, each tested below:
//! * unknown agent handles never create zeroed agents (docs/xla-interface.md#xla-edge-6), and handles are compared with
//!   all 64 bits;
//! * a copy between two non-GPU agents, or whose GPU side is unknown, gets
//!   `INVALID_DEVICE_ID` instead of 0 (docs/xla-interface.md#xla-edge-8: a 0 lowers the collector's minimum device id and
//!   makes every other event's device number exceed `num_gpus`); the collector then drops
//!   only that event, counted as an invalid device;
//! * a kernel whose agent is not a GPU HIP sees (unknown, or hidden by `HIP_VISIBLE_DEVICES`
//!   and the like) is a counted drop of its own reason, and so is a copy whose only GPU side
//!   is hidden: such a GPU has no device ordinal in this process;
//! * [`RecordDecoder::decode`] drops records that started before the current session was
//!   enabled; the tracer itself uses [`RecordDecoder::for_each_record`] and assigns kernel and
//!   copy records to sessions by correlation id first (a kernel queued before `disable()` can
//!   complete after it), so sessions stay isolated.
use std::sync::Arc;

use rocprofiler_sdk_sys as sys;

use crate::drop_reason::DropReason;
use crate::event::{
    EventDetails, EventDomain, EventSource, EventType, GraphNode, KernelDetails, MemcpyDetails,
    RocmTracerEvent,
};
use crate::tracer::annotation::{AnnotationMap, CallAnnotation};
use crate::tracer::decode::kernel_names::{KernelNames, KernelResources, UNKNOWN_KERNEL_NAME};
use crate::tracer::hip_api::copy_calls::{CopyCall, CopyCalls};
use crate::tracer::hip_api::event_calls;
use crate::tracer::hip_api::names::{self as hip_api, HipApiNames, UNKNOWN_OP_NAME};
use crate::tracer::sdk::agents::Agents;
use crate::tracer::streams::graph_nodes;

/// Drop counts of one buffer callback, by reason.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DropCounts {
    counts: Vec<(DropReason, u64)>,
}

impl DropCounts {
    pub fn add(&mut self, reason: DropReason, count: u64) {
        if count == 0 {
            return;
        }
        match self.counts.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, total)) => *total += count,
            None => self.counts.push((reason, count)),
        }
    }

    #[cfg(any(test, feature = "testing"))]
    pub fn get(&self, reason: DropReason) -> u64 {
        self.counts
            .iter()
            .find(|(r, _)| *r == reason)
            .map_or(0, |(_, c)| *c)
    }

    pub fn iter(&self) -> impl Iterator<Item = (DropReason, u64)> + '_ {
        self.counts.iter().copied()
    }

    #[cfg(any(test, feature = "testing"))]
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

/// Everything a record needs to become an event.
pub struct RecordDecoder<'a> {
    pub agents: &'a Agents,
    pub hip_names: &'a HipApiNames,
    pub kernel_names: &'a KernelNames,
    pub annotations: &'a AnnotationMap,
    /// What copy calls asked for, noted at their ENTER; `None` decodes API records without
    /// (a record decoded outside the session's buffer callback).
    pub copy_calls: Option<&'a CopyCalls>,
    /// SDK timestamp taken just before the main context was started for this session.
    pub session_start_ns: u64,
}

/// Hands `read` the `T` at `payload` if the record's own `u64 size` covers all of `T` (else
/// the record is truncated): in place when it is aligned (the SDK's records are; no copy of
/// the record per event), else a copy of it.
///
/// # Safety
/// `payload` is non-null and points to at least `size` readable bytes, where `size` is the
/// record's own first field (the SDK's guarantee for every buffer record), valid during the
/// call.
#[inline(always)]
unsafe fn with_sized<T: Copy>(
    payload: *const std::ffi::c_void,
    read: impl FnOnce(&T) -> Result<RocmTracerEvent, DropReason>,
) -> Result<RocmTracerEvent, DropReason> {
    // SAFETY: every record starts with its u64 size.
    let size = unsafe { (payload as *const u64).read_unaligned() };
    if size < std::mem::size_of::<T>() as u64 {
        return Err(DropReason::Truncated);
    }
    let record = payload.cast::<T>();
    if record.is_aligned() {
        // SAFETY: aligned, and at least size_of::<T>() readable bytes of a plain-data record
        // that nothing writes while the callback runs.
        read(unsafe { &*record })
    } else {
        // SAFETY: the record is at least size_of::<T>() bytes long.
        read(&unsafe { record.read_unaligned() })
    }
}

/// A HIP_EVENT record (rocprofiler-sdk 1.4, configured only where the SDK names the kind):
/// notes its barrier's GPU time for the call of its internal correlation id
/// (`hip_api/event_calls.rs`) and says `true`; any other record, `false`. A HIP_EVENT record
/// is no event of its own: its times go on the record or wait call
/// (docs/xla-interface.md#stream-waits). One too short, of another operation, or ending before
/// it starts is passed over.
///
/// # Safety
/// `header` is null or a header whose payload is a record of its (category, kind), valid
/// during the call.
#[inline]
unsafe fn note_if_barrier(header: *const sys::rocprofiler_record_header_t) -> bool {
    // SAFETY: null or valid during the call (this function's contract).
    let Some(header) = (unsafe { header.as_ref() }) else {
        return false;
    };
    if header.kind() != sys::ROCPROFILER_BUFFER_TRACING_HIP_EVENT
        || header.category() != sys::ROCPROFILER_BUFFER_CATEGORY_TRACING
    {
        return false;
    }
    type Record = sys::rocprofiler_buffer_tracing_hip_event_record_t;
    let payload = header.payload as *const Record;
    if payload.is_null() {
        return true;
    }
    // SAFETY: every record starts with its u64 size.
    let size = unsafe { (payload as *const u64).read_unaligned() };
    if size < std::mem::size_of::<Record>() as u64 {
        return true;
    }
    // SAFETY: a HIP_EVENT record of at least `size_of::<Record>()` bytes.
    let record = unsafe { payload.read_unaligned() };
    let kind = match record.operation {
        sys::ROCPROFILER_HIP_EVENT_RECORD => crate::event::EventCallKind::Record,
        sys::ROCPROFILER_HIP_EVENT_WAIT => crate::event::EventCallKind::Wait,
        _ => return true,
    };
    if record.end_timestamp >= record.start_timestamp {
        event_calls::note_barrier(
            record.correlation_id.internal,
            kind,
            crate::event::BarrierSpan {
                start_ns: record.start_timestamp,
                end_ns: record.end_timestamp,
            },
        );
    }
    true
}

/// The name of a HIP API operation the SDK did not name, shared: no allocation per record.
fn unknown_op_name() -> Arc<str> {
    static NAME: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    NAME.get_or_init(|| Arc::from(UNKNOWN_OP_NAME)).clone()
}

/// The name of a kernel whose symbol was never registered, shared like [`unknown_op_name`].
fn unknown_kernel_name() -> Arc<str> {
    static NAME: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    NAME.get_or_init(|| Arc::from(UNKNOWN_KERNEL_NAME)).clone()
}

impl RecordDecoder<'_> {
    /// Decodes `num_headers` records, appending events to `events` and counting the rest.
    ///
    /// # Safety
    /// `headers` is null or an array of `num_headers` header pointers, each null or pointing
    /// to a header whose payload is a record of the header's (category, kind), all valid for
    /// the duration of the call (a buffer callback's arguments).
    #[cfg(any(test, feature = "testing"))]
    pub unsafe fn decode_buffer(
        &self,
        headers: *const *const sys::rocprofiler_record_header_t,
        num_headers: usize,
        events: &mut Vec<RocmTracerEvent>,
        drops: &mut DropCounts,
    ) {
        if headers.is_null() || num_headers == 0 {
            return;
        }
        // SAFETY: per this function's contract.
        let headers = unsafe { std::slice::from_raw_parts(headers, num_headers) };
        events.reserve(headers.len());
        for &header in headers {
            // SAFETY: per this function's contract.
            if unsafe { note_if_barrier(header) } {
                continue;
            }
            // SAFETY: per this function's contract.
            match unsafe { self.decode(header) } {
                Ok(event) => events.push(event),
                Err(reason) => drops.add(reason, 1),
            }
        }
    }

    /// Decodes `num_headers` records, handing each result to `each` without the session-start
    /// check (the tracer assigns kernel and copy records to sessions by correlation id).
    ///
    /// # Safety
    /// As for [`RecordDecoder::decode_buffer`].
    pub(crate) unsafe fn for_each_record(
        &self,
        headers: *const *const sys::rocprofiler_record_header_t,
        num_headers: usize,
        mut each: impl FnMut(Result<RocmTracerEvent, DropReason>),
    ) {
        if headers.is_null() || num_headers == 0 {
            return;
        }
        // SAFETY: per this function's contract.
        let headers = unsafe { std::slice::from_raw_parts(headers, num_headers) };
        for &header in headers {
            // SAFETY: per this function's contract.
            each(unsafe { self.decode_record(header) });
        }
    }

    /// Decodes `num_headers` records straight into `batch` without the session-start check,
    /// keeping each event only if `keep` says so once it is there (the tracer's attribution to
    /// sessions); `keep` also sees every record that failed to decode. An event is moved once,
    /// into `batch`, not passed along by value (at 200 bytes, each move is a `memcpy`).
    ///
    /// # Safety
    /// As for [`RecordDecoder::decode_buffer`].
    pub(crate) unsafe fn decode_into(
        &self,
        headers: *const *const sys::rocprofiler_record_header_t,
        num_headers: usize,
        batch: &mut Vec<RocmTracerEvent>,
        mut keep: impl FnMut(Result<&RocmTracerEvent, DropReason>) -> bool,
    ) {
        if headers.is_null() || num_headers == 0 {
            return;
        }
        // SAFETY: per this function's contract.
        let headers = unsafe { std::slice::from_raw_parts(headers, num_headers) };
        batch.reserve(headers.len());
        for &header in headers {
            // SAFETY: per this function's contract.
            if unsafe { note_if_barrier(header) } {
                continue;
            }
            // SAFETY: per this function's contract.
            match unsafe { self.decode_record(header) } {
                Ok(event) => {
                    batch.push(event);
                    if !batch.last().is_some_and(|event| keep(Ok(event))) {
                        batch.pop();
                    }
                }
                Err(reason) => {
                    keep(Err(reason));
                }
            }
        }
    }

    /// # Safety
    /// As for [`RecordDecoder::decode_buffer`], for one header.
    pub(crate) unsafe fn decode(
        &self,
        header: *const sys::rocprofiler_record_header_t,
    ) -> Result<RocmTracerEvent, DropReason> {
        // SAFETY: forwarded.
        let event = unsafe { self.decode_record(header) }?;
        if event.start_time_ns < self.session_start_ns {
            return Err(DropReason::PreviousSession);
        }
        Ok(event)
    }

    /// [`RecordDecoder::decode`] without the session-start check.
    ///
    /// # Safety
    /// As for [`RecordDecoder::decode_buffer`], for one header.
    #[inline]
    pub(crate) unsafe fn decode_record(
        &self,
        header: *const sys::rocprofiler_record_header_t,
    ) -> Result<RocmTracerEvent, DropReason> {
        if header.is_null() {
            return Err(DropReason::NullRecord);
        }
        // SAFETY: non-null header valid during the callback.
        let header = unsafe { &*header };
        if header.payload.is_null() {
            return Err(DropReason::NullRecord);
        }
        if header.category() != sys::ROCPROFILER_BUFFER_CATEGORY_TRACING {
            return Err(DropReason::UnsupportedCategory);
        }
        let payload = header.payload as *const std::ffi::c_void;
        match header.kind() {
            sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API => {
                // SAFETY: a non-null HIP API record.
                unsafe { with_sized(payload, |record| Ok(self.hip_api_event(record))) }
            }
            sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => {
                let kernel = |record: &sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t| {
                    if record.dispatch_info.size < sys::ROCPROFILER_KERNEL_DISPATCH_INFO_SIZE {
                        return Err(DropReason::Truncated);
                    }
                    if !self
                        .agents
                        .is_visible_gpu(record.dispatch_info.agent_id.handle)
                    {
                        return Err(DropReason::NotVisibleGpu);
                    }
                    Ok(self.kernel_event(record))
                };
                // SAFETY: a non-null kernel dispatch record.
                unsafe { with_sized(payload, kernel) }
            }
            sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY => {
                let copy = |record: &sys::rocprofiler_buffer_tracing_memory_copy_record_t| {
                    let event = self.memcpy_event(record);
                    let on_hidden_gpu = |handle: u64| {
                        self.agents.is_gpu(handle) && !self.agents.is_visible_gpu(handle)
                    };
                    if event.device_id == RocmTracerEvent::INVALID_DEVICE_ID
                        && (on_hidden_gpu(record.src_agent_id.handle)
                            || on_hidden_gpu(record.dst_agent_id.handle))
                    {
                        return Err(DropReason::NotVisibleGpu);
                    }
                    Ok(event)
                };
                // SAFETY: a non-null memory copy record.
                unsafe { with_sized(payload, copy) }
            }
            _ => Err(DropReason::UnsupportedKind),
        }
    }

    /// What the call of `correlation_id` ran under (annotation, scope range, ROCTx range).
    fn call_annotation(&self, correlation_id: u64) -> CallAnnotation {
        self.annotations.look_up_call(correlation_id)
    }

    /// XLA's `HipApiEvent`. Every non-copy API is typed `Kernel` (docs/xla-interface.md#xla-edge-2, kept: the
    /// collector keeps only API events with an activity counterpart anyway).
    ///
    /// The three events are built field by field, never from `RocmTracerEvent::default()`,
    /// whose empty name is an allocation: one per record on the buffer thread.
    #[inline]
    pub(crate) fn hip_api_event(
        &self,
        record: &sys::rocprofiler_buffer_tracing_hip_api_record_t,
    ) -> RocmTracerEvent {
        let is_copy = hip_api::is_copy_api(record.operation);
        let correlation_id = record.correlation_id.internal;
        let call = self.call_annotation(correlation_id);
        RocmTracerEvent {
            event_type: if is_copy {
                EventType::MemcpyOther
            } else {
                EventType::Kernel
            },
            source: EventSource::ApiCallback,
            domain: EventDomain::HipApi,
            name: self
                .hip_names
                .name(record.operation)
                .cloned()
                .unwrap_or_else(unknown_op_name),
            annotation: call.annotation,
            roctx_range: call.roctx_label,
            start_time_ns: record.start_timestamp,
            end_time_ns: record.end_timestamp,
            device_id: RocmTracerEvent::INVALID_DEVICE_ID,
            correlation_id,
            thread_id: record.thread_id,
            stream_id: RocmTracerEvent::INVALID_STREAM_ID,
            queue_id: 0,
            scope_range_id: call.scope_range_id,
            details: if is_copy {
                let call = self.copy_calls.and_then(|calls| calls.get(correlation_id));
                EventDetails::Memcpy(MemcpyDetails {
                    num_bytes: call.map_or(0, |call| call.bytes),
                    call_direction: call.and_then(|call| call.direction),
                    ..call.map(CopyCall::facts).unwrap_or_default()
                })
            } else {
                EventDetails::Kernel(KernelDetails::default())
            },
            graph: None,
        }
    }

    fn device_id_of_known_agent(&self, handle: u64) -> u32 {
        match self.agents.get(handle) {
            Some(agent) => {
                u32::try_from(agent.handle).unwrap_or(RocmTracerEvent::INVALID_DEVICE_ID)
            }
            None => RocmTracerEvent::INVALID_DEVICE_ID,
        }
    }

    /// XLA's `KernelEvent`: the stream is the external correlation value the request callback
    /// wrote; the HSA queue is kept apart in `queue_id`.
    #[inline]
    pub(crate) fn kernel_event(
        &self,
        record: &sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t,
    ) -> RocmTracerEvent {
        let info = &record.dispatch_info;
        let correlation_id = record.correlation_id.internal;
        let (name, resources) = self
            .kernel_names
            .symbol(info.kernel_id)
            .unwrap_or_else(|| (unknown_kernel_name(), KernelResources::default()));
        let device_id = self.device_id_of_known_agent(info.agent_id.handle);
        // A copy HIP ran as a blit kernel carries its call's facts (size, direction), which
        // the collector's copy rules name it by (`collector/copies.rs`).
        let blit_call = if name.starts_with(BLIT_COPY_KERNEL_PREFIX) {
            self.copy_calls.and_then(|calls| calls.get(correlation_id))
        } else {
            None
        };
        let details = match blit_call {
            Some(call) => EventDetails::Memcpy(MemcpyDetails {
                num_bytes: call.bytes,
                destination: device_id,
                call_direction: call.direction,
                ..call.facts()
            }),
            None => EventDetails::Kernel(KernelDetails {
                private_segment_size: info.private_segment_size,
                group_segment_size: info.group_segment_size,
                workgroup_x: info.workgroup_size.x,
                workgroup_y: info.workgroup_size.y,
                workgroup_z: info.workgroup_size.z,
                grid_x: info.grid_size.x,
                grid_y: info.grid_size.y,
                grid_z: info.grid_size.z,
                arch_vgpr_count: resources.arch_vgpr_count,
                accum_vgpr_count: resources.accum_vgpr_count,
                sgpr_count: resources.sgpr_count,
                static_group_segment_size: resources.group_segment_size,
            }),
        };
        let call = self.call_annotation(correlation_id);
        // SAFETY: every bit pattern is a valid u64; the request callback wrote `value`.
        let (stream_id, graph) = graph_node_of(correlation_id, unsafe {
            record.correlation_id.external.value
        });
        RocmTracerEvent {
            event_type: EventType::Kernel,
            source: EventSource::Activity,
            domain: EventDomain::HipOps,
            name,
            annotation: call.annotation,
            roctx_range: call.roctx_label,
            start_time_ns: record.start_timestamp,
            end_time_ns: record.end_timestamp,
            device_id,
            correlation_id,
            thread_id: record.thread_id,
            stream_id,
            queue_id: info.queue_id.handle,
            scope_range_id: call.scope_range_id,
            details,
            graph,
        }
    }

    /// Whether a device-to-device copy ran between two GPUs HIP sees: a peer copy, whatever
    /// call made it (`hipMemcpyPeer*`, or `hipMemcpy*` device to device across GPUs), as CUPTI
    /// records every copy between two devices as peer-to-peer (docs/xla-interface.md#copy-details).
    fn between_gpus(&self, src: u64, dst: u64) -> bool {
        src != dst && self.agents.is_visible_gpu(src) && self.agents.is_visible_gpu(dst)
    }

    /// The device a copy is shown on: XLA's direction rules (docs/xla-interface.md#event-fields), first match wins; only
    /// GPUs HIP sees count as GPUs.
    pub(crate) fn memcpy_device_id(&self, event_type: EventType, src: u64, dst: u64) -> u32 {
        let dst_is_gpu = self.agents.is_visible_gpu(dst);
        let src_is_gpu = self.agents.is_visible_gpu(src);
        let chosen = match event_type {
            // CUPTI's peer record is on its source device (`device_id = srcDeviceId`), its
            // destination in `dest` (docs/xla-interface.md#copy-details).
            EventType::MemcpyP2P if src_is_gpu => Some(src),
            EventType::MemcpyH2D if dst_is_gpu => Some(dst),
            EventType::MemcpyD2H if src_is_gpu => Some(src),
            EventType::MemcpyD2D
                if self.agents.get(dst).is_some() && (dst_is_gpu || !self.agents.is_gpu(dst)) =>
            {
                Some(dst)
            }
            _ if dst_is_gpu => Some(dst),
            _ if src_is_gpu => Some(src),
            _ => None,
        };
        chosen.map_or(RocmTracerEvent::INVALID_DEVICE_ID, |handle| {
            self.device_id_of_known_agent(handle)
        })
    }

    /// XLA's `MemcpyEvent`.
    #[inline]
    pub(crate) fn memcpy_event(
        &self,
        record: &sys::rocprofiler_buffer_tracing_memory_copy_record_t,
    ) -> RocmTracerEvent {
        let dst = record.dst_agent_id.handle;
        let src = record.src_agent_id.handle;
        let event_type = match record.operation {
            sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE => EventType::MemcpyH2D,
            sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST => EventType::MemcpyD2H,
            sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE if self.between_gpus(src, dst) => {
                EventType::MemcpyP2P
            }
            sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE => EventType::MemcpyD2D,
            // NONE, HOST_TO_HOST and any value a newer SDK adds.
            _ => EventType::MemcpyOther,
        };
        let correlation_id = record.correlation_id.internal;
        let call = self.call_annotation(correlation_id);
        // SAFETY: every bit pattern is a valid u64; the request callback wrote `value`.
        let (stream_id, graph) = graph_node_of(correlation_id, unsafe {
            record.correlation_id.external.value
        });
        RocmTracerEvent {
            event_type,
            source: EventSource::Activity,
            domain: EventDomain::HipOps,
            name: event_type.shared_name(),
            annotation: call.annotation,
            roctx_range: call.roctx_label,
            start_time_ns: record.start_timestamp,
            end_time_ns: record.end_timestamp,
            device_id: self.memcpy_device_id(event_type, src, dst),
            correlation_id,
            thread_id: record.thread_id,
            stream_id,
            queue_id: 0,
            scope_range_id: call.scope_range_id,
            details: EventDetails::Memcpy(MemcpyDetails {
                num_bytes: record.bytes,
                // XLA's truncation of the destination handle (docs/xla-interface.md#xla-edge-7), kept for
                // identical `memcpy_details` strings.
                destination: dst as u32,
                ..match self.copy_calls.and_then(|calls| calls.get(correlation_id)) {
                    Some(call) => MemcpyDetails {
                        call_direction: call.direction,
                        ..call.facts()
                    },
                    None => MemcpyDetails::default(),
                }
            }),
            graph,
        }
    }
}

/// The stream of an activity's external value and, when the value carries a node ordinal,
/// its graph node (the executable from the launch's HIP_GRAPH ENTER, `graph_nodes.rs`).
#[inline]
fn graph_node_of(correlation_id: u64, external: u64) -> (u64, Option<GraphNode>) {
    let (stream_id, ordinal) = graph_nodes::unpack(external);
    let graph = ordinal.map(|ordinal| GraphNode {
        exec_id: graph_nodes::exec_of_launch(correlation_id),
        ordinal,
    });
    (stream_id, graph)
}

/// The HIP runtime's copy blit kernels (`__amd_rocclr_copyBuffer`, `...Aligned`, ...).
const BLIT_COPY_KERNEL_PREFIX: &str = "__amd_rocclr_copy";

/// Buffers of hand-made records, for running the decoder without an SDK (unit, property and
/// fuzz tests).
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod crafted {
    use std::ffi::c_void;

    use rocprofiler_sdk_sys as sys;

    /// A record header as the SDK writes one.
    pub fn header(
        category: u32,
        kind: u32,
        payload: *const c_void,
    ) -> sys::rocprofiler_record_header_t {
        sys::rocprofiler_record_header_t {
            id: sys::rocprofiler_record_header_id_t {
                hash: sys::rocprofiler_record_header_compute_hash(category, kind),
            },
            payload: payload.cast_mut(),
        }
    }

    /// Records whose payloads each sit in their own 8-aligned heap allocation, only rounded
    /// up to 8 bytes, so that AddressSanitizer catches a read past one.
    #[derive(Default)]
    pub struct CraftedRecords {
        payloads: Vec<Option<Box<[u64]>>>,
        headers: Vec<sys::rocprofiler_record_header_t>,
    }

    impl CraftedRecords {
        /// Adds a record of `category` and `kind` with a copy of `payload` (None: a null one).
        pub fn push(&mut self, category: u32, kind: u32, payload: Option<&[u8]>) {
            let words = payload.map(|bytes| {
                let mut words = vec![0u64; bytes.len().div_ceil(8)].into_boxed_slice();
                // SAFETY: `words` has at least `bytes.len()` bytes and is a new allocation.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        bytes.as_ptr(),
                        words.as_mut_ptr().cast::<u8>(),
                        bytes.len(),
                    )
                };
                words
            });
            // The boxed words do not move when `payloads` grows.
            let pointer = words
                .as_ref()
                .map_or(std::ptr::null(), |w| w.as_ptr().cast::<c_void>());
            self.headers.push(header(category, kind, pointer));
            self.payloads.push(words);
        }

        /// One pointer per record, valid while `self` lives: what the buffer callback gets.
        pub fn header_pointers(&self) -> Vec<*const sys::rocprofiler_record_header_t> {
            self.headers.iter().map(|h| h as *const _).collect()
        }

        pub fn len(&self) -> usize {
            self.headers.len()
        }

        pub fn is_empty(&self) -> bool {
            self.headers.is_empty()
        }
    }
}

#[cfg(test)]
mod tests;
