//! The decoder on hand-made records.
use super::*;
use crate::tracer::hip_api::copy_calls::CopyCall;
use crate::tracer::sdk::agents::{AgentInfo, AgentKind};

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
    // What the call asked for at ENTER rides on its API event.
    let asked = CopyCall {
        direction: Some(EventType::MemcpyD2H),
        bytes: 4096,
        is_async: true,
        src_kind: crate::event::MemoryKind::Device,
        dst_kind: crate::event::MemoryKind::Pinned,
    };
    fixture.copy_calls.note(5, asked);
    let EventDetails::Memcpy(details) = decoder.hip_api_event(&record).details else {
        panic!("memcpy details expected");
    };
    assert_eq!(details.call_direction, Some(EventType::MemcpyD2H));
    assert_eq!(details.num_bytes, 4096);
    assert_eq!(
        fixture.copy_calls.get(5),
        Some(asked),
        "kept for the copy records"
    );
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
    // Between two GPUs: a peer copy, on its source GPU (rule 0).
    let p2p = event(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, GPU0, GPU1);
    assert_eq!(
        (p2p.event_type, p2p.device_id),
        (EventType::MemcpyP2P, GPU0 as u32)
    );
    assert_eq!(&*p2p.name, "MemcpyP2P");
    let d2d = event(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, GPU1, GPU1);
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
    let hidden_to_visible = copy_record(sys::ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, GPU0, GPU1);
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
    unsafe { decoder.decode_buffer(pointers.as_ptr(), pointers.len(), &mut events, &mut drops) };
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
    unsafe { decoder.decode_buffer(pointers.as_ptr(), pointers.len(), &mut events, &mut drops) };
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_type, EventType::MemcpyH2D);
    assert_eq!(drops.get(DropReason::PreviousSession), 1);
    assert_eq!(drops.get(DropReason::Truncated), 2);
    assert_eq!(drops.get(DropReason::NullRecord), 2);
    assert_eq!(drops.get(DropReason::UnsupportedCategory), 1);
    assert_eq!(drops.get(DropReason::UnsupportedKind), 1);
}

#[test]
fn a_record_at_an_unaligned_address_decodes_as_an_aligned_one() {
    let fixture = Fixture::new();
    fixture.annotations.add(12, "step_3", &[5, 6]);
    let decoder = fixture.decoder(0);
    let record = kernel_record();
    let size = std::mem::size_of_val(&record);
    // Eight-aligned storage with the record copied one byte in: an unaligned payload.
    let mut storage = vec![0u64; size / 8 + 2];
    let unaligned = storage.as_mut_ptr().cast::<u8>().wrapping_add(1);
    // SAFETY: `storage` has room for `size` bytes after its first byte; plain data.
    unsafe { std::ptr::copy_nonoverlapping(&record as *const _ as *const u8, unaligned, size) };
    let kind = sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
    let tracing = sys::ROCPROFILER_BUFFER_CATEGORY_TRACING;
    let headers = [
        crafted::header(
            tracing,
            kind,
            &record as *const _ as *const std::ffi::c_void,
        ),
        crafted::header(tracing, kind, unaligned as *const std::ffi::c_void),
    ];
    let pointers: Vec<*const sys::rocprofiler_record_header_t> =
        headers.iter().map(|h| h as *const _).collect();
    let mut events = Vec::new();
    let mut drops = DropCounts::default();
    // SAFETY: the headers, the record and `storage` live until the end of the test.
    unsafe { decoder.decode_buffer(pointers.as_ptr(), pointers.len(), &mut events, &mut drops) };
    assert!(drops.is_empty());
    assert_eq!(events.len(), 2);
    assert_eq!(events[0], events[1]);
    assert_eq!(events[1].annotation.as_deref(), Some("step_3"));
}

#[test]
fn decode_into_keeps_what_keep_accepts_and_reports_the_rest() {
    let fixture = Fixture::new();
    let decoder = fixture.decoder(0);
    let copy = copy_record(sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, CPU, GPU0);
    let kernel = kernel_record();
    let tracing = sys::ROCPROFILER_BUFFER_CATEGORY_TRACING;
    let headers = [
        crafted::header(
            tracing,
            sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
            &copy as *const _ as *const std::ffi::c_void,
        ),
        crafted::header(
            tracing,
            sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
            &kernel as *const _ as *const std::ffi::c_void,
        ),
        crafted::header(
            tracing,
            sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
            std::ptr::null(),
        ),
    ];
    let pointers: Vec<*const sys::rocprofiler_record_header_t> =
        headers.iter().map(|h| h as *const _).collect();
    // A batch that already holds an event keeps it.
    let mut batch = vec![RocmTracerEvent::default()];
    let (mut seen, mut failed) = (Vec::new(), Vec::new());
    // SAFETY: the headers and records live until the end of the test.
    unsafe {
        decoder.decode_into(
            pointers.as_ptr(),
            pointers.len(),
            &mut batch,
            |decoded| match decoded {
                Ok(event) => {
                    seen.push(event.event_type);
                    event.event_type == EventType::Kernel
                }
                Err(reason) => {
                    failed.push(reason);
                    false
                }
            },
        )
    };
    assert_eq!(seen, [EventType::MemcpyH2D, EventType::Kernel]);
    assert_eq!(failed, [DropReason::NullRecord]);
    assert_eq!(batch.len(), 2);
    assert_eq!(batch[0], RocmTracerEvent::default());
    assert_eq!(batch[1].event_type, EventType::Kernel);
    assert_eq!(batch[1].correlation_id, 12);
}
