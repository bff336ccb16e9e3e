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
    EventDetails, EventDomain, EventSource, EventType, KernelDetails, MemcpyDetails,
    RocmTracerEvent,
};
use crate::tracer::agents::Agents;
use crate::tracer::annotation::AnnotationMap;
use crate::tracer::copy_calls::CopyCalls;
use crate::tracer::hip_api::{self, HipApiNames, UNKNOWN_OP_NAME};
use crate::tracer::kernel_names::{KernelNames, UNKNOWN_KERNEL_NAME};

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

    pub fn get(&self, reason: DropReason) -> u64 {
        self.counts
            .iter()
            .find(|(r, _)| *r == reason)
            .map_or(0, |(_, c)| *c)
    }

    pub fn iter(&self) -> impl Iterator<Item = (DropReason, u64)> + '_ {
        self.counts.iter().copied()
    }

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

/// Reads a `T` whose first field is its `u64 size`, if that size covers all of `T`.
///
/// # Safety
/// `payload` is non-null and points to at least `size` readable bytes, where `size` is the
/// record's own first field (the SDK's guarantee for every buffer record).
unsafe fn read_sized<T: Copy>(payload: *const std::ffi::c_void) -> Option<T> {
    // SAFETY: every record starts with its u64 size.
    let size = unsafe { (payload as *const u64).read_unaligned() };
    if size < std::mem::size_of::<T>() as u64 {
        return None;
    }
    // SAFETY: the record is at least size_of::<T>() bytes long.
    Some(unsafe { (payload as *const T).read_unaligned() })
}

impl RecordDecoder<'_> {
    /// Decodes `num_headers` records, appending events to `events` and counting the rest.
    ///
    /// # Safety
    /// `headers` is null or an array of `num_headers` header pointers, each null or pointing
    /// to a header whose payload is a record of the header's (category, kind), all valid for
    /// the duration of the call (a buffer callback's arguments).
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
    pub unsafe fn for_each_record(
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

    /// # Safety
    /// As for [`RecordDecoder::decode_buffer`], for one header.
    pub unsafe fn decode(
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
    pub unsafe fn decode_record(
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
        let event = match header.kind() {
            sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API => {
                // SAFETY: a non-null HIP API record.
                let record = unsafe { read_sized(payload) }.ok_or(DropReason::Truncated)?;
                self.hip_api_event(&record)
            }
            sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => {
                // SAFETY: a non-null kernel dispatch record.
                let record: sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t =
                    unsafe { read_sized(payload) }.ok_or(DropReason::Truncated)?;
                if record.dispatch_info.size < sys::ROCPROFILER_KERNEL_DISPATCH_INFO_SIZE {
                    return Err(DropReason::Truncated);
                }
                if !self
                    .agents
                    .is_visible_gpu(record.dispatch_info.agent_id.handle)
                {
                    return Err(DropReason::NotVisibleGpu);
                }
                self.kernel_event(&record)
            }
            sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY => {
                // SAFETY: a non-null memory copy record.
                let record: sys::rocprofiler_buffer_tracing_memory_copy_record_t =
                    unsafe { read_sized(payload) }.ok_or(DropReason::Truncated)?;
                let event = self.memcpy_event(&record);
                let on_hidden_gpu =
                    |handle: u64| self.agents.is_gpu(handle) && !self.agents.is_visible_gpu(handle);
                if event.device_id == RocmTracerEvent::INVALID_DEVICE_ID
                    && (on_hidden_gpu(record.src_agent_id.handle)
                        || on_hidden_gpu(record.dst_agent_id.handle))
                {
                    return Err(DropReason::NotVisibleGpu);
                }
                event
            }
            _ => return Err(DropReason::UnsupportedKind),
        };
        Ok(event)
    }

    fn annotate(&self, event: &mut RocmTracerEvent) {
        (event.annotation, event.scope_range_id) = self
            .annotations
            .look_up_with_scope_range_id(event.correlation_id);
    }

    /// XLA's `HipApiEvent`. Every non-copy API is typed `Kernel` (docs/xla-interface.md#xla-edge-2, kept: the
    /// collector keeps only API events with an activity counterpart anyway).
    pub fn hip_api_event(
        &self,
        record: &sys::rocprofiler_buffer_tracing_hip_api_record_t,
    ) -> RocmTracerEvent {
        let is_copy = hip_api::is_copy_api(record.operation);
        let mut event = RocmTracerEvent {
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
                .unwrap_or_else(|| Arc::from(UNKNOWN_OP_NAME)),
            start_time_ns: record.start_timestamp,
            end_time_ns: record.end_timestamp,
            device_id: RocmTracerEvent::INVALID_DEVICE_ID,
            correlation_id: record.correlation_id.internal,
            thread_id: record.thread_id,
            stream_id: RocmTracerEvent::INVALID_STREAM_ID,
            details: if is_copy {
                let call = self
                    .copy_calls
                    .and_then(|calls| calls.take(record.correlation_id.internal));
                EventDetails::Memcpy(MemcpyDetails {
                    num_bytes: call.map_or(0, |call| call.bytes),
                    call_direction: call.map(|call| call.direction),
                    ..MemcpyDetails::default()
                })
            } else {
                EventDetails::Kernel(KernelDetails::default())
            },
            ..RocmTracerEvent::default()
        };
        self.annotate(&mut event);
        event
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
    pub fn kernel_event(
        &self,
        record: &sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t,
    ) -> RocmTracerEvent {
        let info = &record.dispatch_info;
        let mut event = RocmTracerEvent {
            event_type: EventType::Kernel,
            source: EventSource::Activity,
            domain: EventDomain::HipOps,
            name: self
                .kernel_names
                .get(info.kernel_id)
                .unwrap_or_else(|| Arc::from(UNKNOWN_KERNEL_NAME)),
            start_time_ns: record.start_timestamp,
            end_time_ns: record.end_timestamp,
            device_id: self.device_id_of_known_agent(info.agent_id.handle),
            correlation_id: record.correlation_id.internal,
            thread_id: record.thread_id,
            // SAFETY: every bit pattern is a valid u64; the request callback wrote `value`.
            stream_id: unsafe { record.correlation_id.external.value },
            queue_id: info.queue_id.handle,
            details: EventDetails::Kernel(KernelDetails {
                private_segment_size: info.private_segment_size,
                group_segment_size: info.group_segment_size,
                workgroup_x: info.workgroup_size.x,
                workgroup_y: info.workgroup_size.y,
                workgroup_z: info.workgroup_size.z,
                grid_x: info.grid_size.x,
                grid_y: info.grid_size.y,
                grid_z: info.grid_size.z,
            }),
            ..RocmTracerEvent::default()
        };
        self.annotate(&mut event);
        event
    }

    /// The device a copy is shown on: XLA's direction rules (docs/xla-interface.md#event-fields), first match wins; only
    /// GPUs HIP sees count as GPUs.
    pub fn memcpy_device_id(&self, event_type: EventType, src: u64, dst: u64) -> u32 {
        let dst_is_gpu = self.agents.is_visible_gpu(dst);
        let src_is_gpu = self.agents.is_visible_gpu(src);
        let chosen = match event_type {
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
    pub fn memcpy_event(
        &self,
        record: &sys::rocprofiler_buffer_tracing_memory_copy_record_t,
    ) -> RocmTracerEvent {
        let event_type = match record.operation {
            sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE => EventType::MemcpyH2D,
            sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST => EventType::MemcpyD2H,
            sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE => EventType::MemcpyD2D,
            // NONE, HOST_TO_HOST and any value a newer SDK adds.
            _ => EventType::MemcpyOther,
        };
        let dst = record.dst_agent_id.handle;
        let src = record.src_agent_id.handle;
        let mut event = RocmTracerEvent {
            event_type,
            source: EventSource::Activity,
            domain: EventDomain::HipOps,
            name: event_type.shared_name(),
            start_time_ns: record.start_timestamp,
            end_time_ns: record.end_timestamp,
            device_id: self.memcpy_device_id(event_type, src, dst),
            correlation_id: record.correlation_id.internal,
            thread_id: record.thread_id,
            // SAFETY: every bit pattern is a valid u64; the request callback wrote `value`.
            stream_id: unsafe { record.correlation_id.external.value },
            details: EventDetails::Memcpy(MemcpyDetails {
                num_bytes: record.bytes,
                // XLA's truncation of the destination handle (docs/xla-interface.md#xla-edge-7), kept for
                // identical `memcpy_details` strings.
                destination: dst as u32,
                is_async: false,
                ..MemcpyDetails::default()
            }),
            ..RocmTracerEvent::default()
        };
        self.annotate(&mut event);
        event
    }
}

/// Buffers of hand-made records, for running the decoder without an SDK (unit, property and
/// fuzz tests).
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
mod tests {
    use super::*;
    use crate::tracer::agents::{AgentInfo, AgentKind};
    use crate::tracer::copy_calls::CopyCall;

    struct Fixture {
        agents: Agents,
        names: HipApiNames,
        kernels: KernelNames,
        annotations: AnnotationMap,
        copy_calls: CopyCalls,
    }

    const CPU: u64 = 300;
    const GPU0: u64 = 301;
    const GPU1: u64 = 302;

    impl Fixture {
        fn new() -> Fixture {
            let kernels = KernelNames::default();
            kernels.insert(7, "_Z6matmulPfS_");
            Fixture {
                agents: Agents::from_list(vec![
                    AgentInfo::bare(CPU, AgentKind::Cpu),
                    AgentInfo::bare(GPU0, AgentKind::Gpu),
                    AgentInfo::bare(GPU1, AgentKind::Gpu),
                ]),
                names: HipApiNames::from_bindings(),
                kernels,
                annotations: AnnotationMap::new(100),
                copy_calls: CopyCalls::default(),
            }
        }
        fn decoder(&self, session_start_ns: u64) -> RecordDecoder<'_> {
            RecordDecoder {
                agents: &self.agents,
                hip_names: &self.names,
                kernel_names: &self.kernels,
                annotations: &self.annotations,
                copy_calls: Some(&self.copy_calls),
                session_start_ns,
            }
        }
    }

    fn copy_record(
        operation: i32,
        src: u64,
        dst: u64,
    ) -> sys::rocprofiler_buffer_tracing_memory_copy_record_t {
        // SAFETY: plain data, zero is valid.
        let mut record: sys::rocprofiler_buffer_tracing_memory_copy_record_t =
            unsafe { std::mem::zeroed() };
        record.size = std::mem::size_of_val(&record) as u64;
        record.kind = sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
        record.operation = operation;
        record.src_agent_id.handle = src;
        record.dst_agent_id.handle = dst;
        record.correlation_id.internal = 11;
        record.correlation_id.external.value = 4;
        record.bytes = 4096;
        record.start_timestamp = 100;
        record.end_timestamp = 200;
        record
    }

    fn kernel_record() -> sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t {
        // SAFETY: plain data, zero is valid.
        let mut record: sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t =
            unsafe { std::mem::zeroed() };
        record.size = std::mem::size_of_val(&record) as u64;
        record.kind = sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
        record.operation = sys::ROCPROFILER_KERNEL_DISPATCH_COMPLETE;
        record.correlation_id.internal = 12;
        record.correlation_id.external.value = 3;
        record.thread_id = 77;
        record.start_timestamp = 1_000;
        record.end_timestamp = 2_000;
        let info = &mut record.dispatch_info;
        info.size = sys::ROCPROFILER_KERNEL_DISPATCH_INFO_SIZE;
        info.agent_id.handle = GPU1;
        info.queue_id.handle = 0xdead_0000;
        info.kernel_id = 7;
        info.private_segment_size = 16;
        info.group_segment_size = 64;
        info.workgroup_size = sys::rocprofiler_dim3_t { x: 256, y: 1, z: 1 };
        info.grid_size = sys::rocprofiler_dim3_t {
            x: 4096,
            y: 2,
            z: 1,
        };
        record
    }

    #[test]
    fn kernel_fields_follow_the_table() {
        let fixture = Fixture::new();
        fixture.annotations.add(12, "step_3", &[5, 6]);
        let event = fixture.decoder(0).kernel_event(&kernel_record());
        assert_eq!(event.event_type, EventType::Kernel);
        assert_eq!(event.source, EventSource::Activity);
        assert_eq!(event.domain, EventDomain::HipOps);
        assert_eq!(&*event.name, "matmul(float*, float*)");
        assert_eq!(event.device_id, GPU1 as u32);
        assert_eq!(event.stream_id, 3);
        assert_eq!(event.queue_id, 0xdead_0000);
        assert_eq!(event.correlation_id, 12);
        assert_eq!(event.thread_id, 77);
        assert_eq!((event.start_time_ns, event.end_time_ns), (1_000, 2_000));
        assert_eq!(event.annotation.as_deref(), Some("step_3"));
        assert_eq!(event.scope_range_id, 6);
        let EventDetails::Kernel(k) = event.details else {
            panic!("kernel details expected")
        };
        assert_eq!((k.grid_x, k.grid_y, k.workgroup_x), (4096, 2, 256));
        assert_eq!((k.private_segment_size, k.group_segment_size), (16, 64));
    }

    #[test]
    fn kernel_on_unknown_agent_or_kernel_gets_invalid_device_and_placeholder_name() {
        let fixture = Fixture::new();
        let mut record = kernel_record();
        record.dispatch_info.agent_id.handle = 9_999;
        record.dispatch_info.kernel_id = 8;
        let event = fixture.decoder(0).kernel_event(&record);
        assert_eq!(event.device_id, RocmTracerEvent::INVALID_DEVICE_ID);
        assert_eq!(&*event.name, "??");
        // No zeroed agent was inserted by the lookup.
        assert!(fixture.agents.get(9_999).is_none());
    }

    #[test]
    fn hip_api_names_types_and_no_stream() {
        let fixture = Fixture::new();
        // SAFETY: plain data, zero is valid.
        let mut record: sys::rocprofiler_buffer_tracing_hip_api_record_t =
            unsafe { std::mem::zeroed() };
        record.operation = sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync;
        record.correlation_id.internal = 5;
        record.thread_id = 42;
        let decoder = fixture.decoder(0);
        let copy = decoder.hip_api_event(&record);
        assert_eq!(copy.event_type, EventType::MemcpyOther);
        assert_eq!(&*copy.name, "hipMemcpyAsync");
        assert_eq!(copy.source, EventSource::ApiCallback);
        assert_eq!(copy.domain, EventDomain::HipApi);
        assert_eq!(copy.stream_id, RocmTracerEvent::INVALID_STREAM_ID);
        assert_eq!(copy.device_id, RocmTracerEvent::INVALID_DEVICE_ID);
        assert_eq!(copy.thread_id, 42);
        assert_eq!(
            copy.details,
            EventDetails::Memcpy(MemcpyDetails::default()),
            "no call noted"
        );
        // What the call asked for at ENTER rides on its API event, once.
        let asked = CopyCall {
            direction: EventType::MemcpyD2H,
            bytes: 4096,
        };
        fixture.copy_calls.note(5, asked);
        let EventDetails::Memcpy(details) = decoder.hip_api_event(&record).details else {
            panic!("memcpy details expected");
        };
        assert_eq!(details.call_direction, Some(EventType::MemcpyD2H));
        assert_eq!(details.num_bytes, 4096);
        assert_eq!(fixture.copy_calls.take(5), None, "taken by the decoder");
        record.operation = sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel;
        assert_eq!(decoder.hip_api_event(&record).event_type, EventType::Kernel);
        record.operation = 100_000;
        assert_eq!(&*decoder.hip_api_event(&record).name, "HIP_UNKNOWN_OP");
    }

    #[test]
    fn memcpy_direction_and_device_rules() {
        let fixture = Fixture::new();
        let decoder = fixture.decoder(0);
        let event = |op, src, dst| decoder.memcpy_event(&copy_record(op, src, dst));

        let h2d = event(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, CPU, GPU1);
        assert_eq!(
            (h2d.event_type, h2d.device_id),
            (EventType::MemcpyH2D, GPU1 as u32)
        );
        assert_eq!(&*h2d.name, "MemcpyH2D");
        assert_eq!(h2d.stream_id, 4);
        assert_eq!(h2d.queue_id, 0);
        assert_eq!(
            h2d.details,
            EventDetails::Memcpy(MemcpyDetails {
                num_bytes: 4096,
                destination: GPU1 as u32,
                is_async: false,
                ..MemcpyDetails::default()
            })
        );
        let d2h = event(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST, GPU0, CPU);
        assert_eq!(
            (d2h.event_type, d2h.device_id),
            (EventType::MemcpyD2H, GPU0 as u32)
        );
        let d2d = event(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, GPU0, GPU1);
        assert_eq!(
            (d2d.event_type, d2d.device_id),
            (EventType::MemcpyD2D, GPU1 as u32)
        );
        // D2D whose destination is unknown: falls through to the source GPU.
        let d2d_unknown = event(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, GPU0, 9_999);
        assert_eq!(d2d_unknown.device_id, GPU0 as u32);
        // Rule 4: a mislabelled H2D whose GPU is the source.
        let odd = event(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, GPU0, CPU);
        assert_eq!(odd.device_id, GPU0 as u32);
        let none = event(sys::ROCPROFILER_MEMORY_COPY_NONE, CPU, GPU0);
        assert_eq!(
            (none.event_type, none.device_id),
            (EventType::MemcpyOther, GPU0 as u32)
        );
        let future = event(99, CPU, GPU0);
        assert_eq!(future.event_type, EventType::MemcpyOther);
        // Rule 5, changed on purpose: no GPU side -> invalid device, not 0.
        let h2h = event(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_HOST, CPU, CPU);
        assert_eq!(h2h.event_type, EventType::MemcpyOther);
        assert_eq!(h2h.device_id, RocmTracerEvent::INVALID_DEVICE_ID);
    }

    #[test]
    fn records_of_gpus_hip_does_not_see_are_dropped_under_their_own_reason() {
        const HIDDEN: u64 = 303;
        let with_bits = |handle, kind, bits| {
            let mut agent = AgentInfo::bare(handle, kind);
            agent.raw.0.runtime_visibility = bits;
            agent
        };
        let mut fixture = Fixture::new();
        // GPU0 is hidden (hsa bit only), GPU1 is HIP device 0, HIDDEN has no bit at all.
        fixture.agents = Agents::from_list(vec![
            with_bits(CPU, AgentKind::Cpu, 0xF),
            with_bits(GPU0, AgentKind::Gpu, 0x1),
            with_bits(GPU1, AgentKind::Gpu, 0xF),
            with_bits(HIDDEN, AgentKind::Gpu, 0x0),
        ]);
        assert_eq!(fixture.agents.gpus().len(), 1);
        let decoder = fixture.decoder(0);
        let tracing = sys::ROCPROFILER_BUFFER_CATEGORY_TRACING;
        let kernel_kind = sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
        let copy_kind = sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
        let visible = kernel_record();
        let mut on_hidden = kernel_record();
        on_hidden.dispatch_info.agent_id.handle = GPU0;
        let mut on_unknown = kernel_record();
        on_unknown.dispatch_info.agent_id.handle = 9_999;
        let to_hidden = copy_record(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, CPU, HIDDEN);
        let hidden_to_visible =
            copy_record(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, GPU0, GPU1);
        let ptr = |r: *const u8| r as *const std::ffi::c_void;
        let headers = [
            crafted::header(tracing, kernel_kind, ptr(&visible as *const _ as _)),
            crafted::header(tracing, kernel_kind, ptr(&on_hidden as *const _ as _)),
            crafted::header(tracing, kernel_kind, ptr(&on_unknown as *const _ as _)),
            crafted::header(tracing, copy_kind, ptr(&to_hidden as *const _ as _)),
            crafted::header(tracing, copy_kind, ptr(&hidden_to_visible as *const _ as _)),
        ];
        let pointers: Vec<*const sys::rocprofiler_record_header_t> =
            headers.iter().map(|h| h as *const _).collect();
        let mut events = Vec::new();
        let mut drops = DropCounts::default();
        // SAFETY: every header and payload above lives until the end of the test.
        unsafe {
            decoder.decode_buffer(pointers.as_ptr(), pointers.len(), &mut events, &mut drops)
        };
        assert_eq!(drops.get(DropReason::NotVisibleGpu), 3);
        let devices: Vec<(EventType, u32)> =
            events.iter().map(|e| (e.event_type, e.device_id)).collect();
        assert_eq!(
            devices,
            [
                (EventType::Kernel, GPU1 as u32),
                (EventType::MemcpyD2D, GPU1 as u32)
            ]
        );
    }

    #[test]
    fn malformed_and_stale_records_are_counted_drops() {
        let fixture = Fixture::new();
        let decoder = fixture.decoder(150);
        let mut good = copy_record(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, CPU, GPU0);
        good.start_timestamp = 150;
        let stale = copy_record(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, CPU, GPU0);
        let mut short = good;
        short.size = 80; // a pre-1.0 copy record
        let mut kernel_short_info = kernel_record();
        kernel_short_info.dispatch_info.size = 40;
        use crafted::header;
        let tracing = sys::ROCPROFILER_BUFFER_CATEGORY_TRACING;
        let copy_kind = sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
        let ptr = |r: &sys::rocprofiler_buffer_tracing_memory_copy_record_t| {
            r as *const _ as *const std::ffi::c_void
        };
        let headers = [
            header(tracing, copy_kind, ptr(&good)),
            header(tracing, copy_kind, ptr(&stale)),
            header(tracing, copy_kind, ptr(&short)),
            header(tracing, copy_kind, std::ptr::null()),
            header(
                sys::ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING,
                copy_kind,
                ptr(&good),
            ),
            header(
                tracing,
                sys::ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY,
                ptr(&good),
            ),
            header(
                tracing,
                sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                &kernel_short_info as *const _ as *const std::ffi::c_void,
            ),
        ];
        let mut pointers: Vec<*const sys::rocprofiler_record_header_t> =
            headers.iter().map(|h| h as *const _).collect();
        pointers.push(std::ptr::null());
        let mut events = Vec::new();
        let mut drops = DropCounts::default();
        // SAFETY: every header and payload above lives until the end of the test.
        unsafe {
            decoder.decode_buffer(pointers.as_ptr(), pointers.len(), &mut events, &mut drops)
        };
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type, EventType::MemcpyH2D);
        assert_eq!(drops.get(DropReason::PreviousSession), 1);
        assert_eq!(drops.get(DropReason::Truncated), 2);
        assert_eq!(drops.get(DropReason::NullRecord), 2);
        assert_eq!(drops.get(DropReason::UnsupportedCategory), 1);
        assert_eq!(drops.get(DropReason::UnsupportedKind), 1);
    }
}
