//! Bad buffer records, through the tracer's public decoder (`RecordDecoder::decode_buffer`,
//! what the buffer callback runs): random categories and kinds, wrong `size` fields, short
//! payloads, unknown operations, agents and kernel ids, null headers and payloads. Every
//! record becomes an event or a drop counted by a known reason; nothing panics or reads past
//! a payload (each payload is its own heap allocation rounded up to 8 bytes, so a read past
//! one is caught when this test runs under AddressSanitizer; see RELIABILITY.md).
use proptest::prelude::*;
// The library leaves the SDK's symbols to the final link: the simulator provides them.
use rocprofiler_sdk_sim as _;
use rocprofiler_sdk_sys as sys;
use xla_rocm_tracer::drop_reason::DropReason;
use xla_rocm_tracer::event::{EventDetails, EventSource, RocmTracerEvent};
use xla_rocm_tracer::testing::agents::{AgentInfo, AgentKind, Agents};
use xla_rocm_tracer::testing::hip_api::HipApiNames;
use xla_rocm_tracer::testing::kernel_names::KernelNames;
use xla_rocm_tracer::testing::record_decoder::crafted::CraftedRecords;
use xla_rocm_tracer::testing::record_decoder::{DropCounts, RecordDecoder};
use xla_rocm_tracer::tracer::annotation::AnnotationMap;

const KNOWN_KERNEL: u64 = 42;
const SESSION_START_NS: u64 = 1_000;

const REASONS: [DropReason; 6] = [
    DropReason::NullRecord,
    DropReason::NotVisibleGpu,
    DropReason::UnsupportedCategory,
    DropReason::UnsupportedKind,
    DropReason::Truncated,
    DropReason::PreviousSession,
];

/// One crafted record: header fields and the payload's bytes (None = null payload).
#[derive(Clone, Debug)]
struct Crafted {
    category: u32,
    kind: u32,
    payload: Option<Vec<u8>>,
}

fn as_bytes<T: Copy>(value: &T) -> Vec<u8> {
    // SAFETY: T is a plain-data SDK struct; reading its bytes (padding included) is only
    // copying them, and the SDK structs here have no padding holes that matter to the test.
    unsafe { std::slice::from_raw_parts(value as *const T as *const u8, std::mem::size_of::<T>()) }
        .to_vec()
}

#[derive(Clone, Debug)]
struct Fields {
    operation: i32,
    agent: u64,
    other_agent: u64,
    kernel_id: u64,
    info_size: u64,
    start: u64,
    end: u64,
    correlation: u64,
}

fn fields(known_agents: Vec<u64>) -> impl Strategy<Value = Fields> {
    let agent = prop_oneof![
        proptest::sample::select(known_agents),
        any::<u64>(),
        Just(0u64)
    ];
    (
        prop_oneof![0..400i32, any::<i32>()],
        agent.clone(),
        agent,
        prop_oneof![Just(KNOWN_KERNEL), any::<u64>()],
        prop_oneof![
            Just(sys::ROCPROFILER_KERNEL_DISPATCH_INFO_SIZE),
            any::<u64>()
        ],
        prop_oneof![SESSION_START_NS..u64::MAX / 2, any::<u64>()],
        any::<u64>(),
        any::<u64>(),
    )
        .prop_map(
            |(operation, agent, other_agent, kernel_id, info_size, start, end, correlation)| {
                Fields {
                    operation,
                    agent,
                    other_agent,
                    kernel_id,
                    info_size,
                    start,
                    end,
                    correlation,
                }
            },
        )
}

/// A well-formed record of `kind` with the given field values.
fn record_bytes(kind: u32, f: &Fields) -> Vec<u8> {
    match kind {
        sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API => {
            // SAFETY: plain data; all-zero is valid.
            let mut r: sys::rocprofiler_buffer_tracing_hip_api_record_t =
                unsafe { std::mem::zeroed() };
            r.size = std::mem::size_of_val(&r) as u64;
            r.kind = kind;
            r.operation = f.operation;
            r.correlation_id.internal = f.correlation;
            r.start_timestamp = f.start;
            r.end_timestamp = f.end;
            as_bytes(&r)
        }
        sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => {
            // SAFETY: as above.
            let mut r: sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t =
                unsafe { std::mem::zeroed() };
            r.size = std::mem::size_of_val(&r) as u64;
            r.kind = kind;
            r.operation = f.operation;
            r.correlation_id.internal = f.correlation;
            r.start_timestamp = f.start;
            r.end_timestamp = f.end;
            r.dispatch_info.size = f.info_size;
            r.dispatch_info.agent_id.handle = f.agent;
            r.dispatch_info.kernel_id = f.kernel_id;
            as_bytes(&r)
        }
        _ => {
            // SAFETY: as above.
            let mut r: sys::rocprofiler_buffer_tracing_memory_copy_record_t =
                unsafe { std::mem::zeroed() };
            r.size = std::mem::size_of_val(&r) as u64;
            r.kind = kind;
            r.operation = f.operation;
            r.correlation_id.internal = f.correlation;
            r.start_timestamp = f.start;
            r.end_timestamp = f.end;
            r.src_agent_id.handle = f.agent;
            r.dst_agent_id.handle = f.other_agent;
            r.bytes = f.correlation;
            as_bytes(&r)
        }
    }
}

/// How a payload is spoiled: its `size` field replaced, its bytes cut short (the size field
/// then tells the truth about the shorter record, as the SDK's contract requires: `size`
/// never exceeds the bytes there are), or both.
fn spoil(mut bytes: Vec<u8>, new_size: Option<u64>, keep: Option<usize>) -> Vec<u8> {
    if let Some(keep) = keep {
        bytes.truncate(keep.max(8));
        let len = bytes.len() as u64;
        bytes[..8].copy_from_slice(&len.to_ne_bytes());
    }
    if let Some(size) = new_size {
        let size = size.min(bytes.len() as u64);
        bytes[..8].copy_from_slice(&size.to_ne_bytes());
    }
    bytes
}

fn crafted(known_agents: Vec<u64>) -> impl Strategy<Value = Crafted> {
    let traced_kind = proptest::sample::select(vec![
        sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
        sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
        sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
    ]);
    let structured = (
        traced_kind.clone(),
        fields(known_agents),
        proptest::option::weighted(0.3, any::<u64>()),
        proptest::option::weighted(0.3, 0usize..300),
    )
        .prop_map(|(kind, f, new_size, keep)| Crafted {
            category: sys::ROCPROFILER_BUFFER_CATEGORY_TRACING,
            kind,
            payload: Some(spoil(record_bytes(kind, &f), new_size, keep)),
        });
    let random_bytes = (
        prop_oneof![Just(sys::ROCPROFILER_BUFFER_CATEGORY_TRACING), any::<u32>()],
        prop_oneof![traced_kind, any::<u32>()],
        proptest::collection::vec(any::<u8>(), 8..400),
    )
        .prop_map(|(category, kind, bytes)| {
            let len = bytes.len() as u64;
            let size = u64::from_ne_bytes(bytes[..8].try_into().unwrap()) % (len + 1);
            Crafted {
                category,
                kind,
                payload: Some(spoil(bytes, Some(size), None)),
            }
        });
    let null_payload = (any::<u32>(), any::<u32>()).prop_map(|(category, kind)| Crafted {
        category,
        kind,
        payload: None,
    });
    prop_oneof![6 => structured, 3 => random_bytes, 1 => null_payload]
}

struct Context {
    agents: Agents,
    names: HipApiNames,
    kernels: KernelNames,
    annotations: AnnotationMap,
}

fn context() -> Context {
    let kernels = KernelNames::default();
    kernels.insert(KNOWN_KERNEL, "_Z6matmulPfS_");
    Context {
        agents: Agents::from_list(
            KNOWN_AGENTS
                .iter()
                .map(|&(handle, kind)| AgentInfo::bare(handle, kind))
                .collect(),
        ),
        names: HipApiNames::from_bindings(),
        kernels,
        annotations: AnnotationMap::new(16),
    }
}

/// A CPU, two GPUs, and a GPU whose handle does not fit the events' 32-bit device id.
const KNOWN_AGENTS: [(u64, AgentKind); 4] = [
    (300, AgentKind::Cpu),
    (301, AgentKind::Gpu),
    (302, AgentKind::Gpu),
    (0x1_0000_0005, AgentKind::Gpu),
];

fn known_agent_handles() -> Vec<u64> {
    KNOWN_AGENTS.iter().map(|&(handle, _)| handle).collect()
}

/// Decodes `records` (plus `null_headers` null header pointers) and checks the invariants.
fn decode_and_check(context: &Context, records: &[Crafted], null_headers: usize) {
    let mut crafted = CraftedRecords::default();
    for record in records {
        crafted.push(record.category, record.kind, record.payload.as_deref());
    }
    let mut pointers = crafted.header_pointers();
    pointers.extend(std::iter::repeat_n(std::ptr::null(), null_headers));

    let decoder = RecordDecoder {
        agents: &context.agents,
        hip_names: &context.names,
        kernel_names: &context.kernels,
        annotations: &context.annotations,
        copy_calls: None,
        session_start_ns: SESSION_START_NS,
    };
    let mut events = Vec::new();
    let mut drops = DropCounts::default();
    // SAFETY: every header and payload lives until the end of this function, and each
    // payload holds at least the `size` bytes its first field claims (see `spoil`).
    unsafe { decoder.decode_buffer(pointers.as_ptr(), pointers.len(), &mut events, &mut drops) };

    let dropped: u64 = drops.iter().map(|(_, count)| count).sum();
    assert_eq!(
        events.len() as u64 + dropped,
        pointers.len() as u64,
        "every record is an event or a counted drop: {drops:?}"
    );
    for (reason, _) in drops.iter() {
        assert!(REASONS.contains(&reason), "unexpected drop reason {reason}");
    }
    assert!(drops.get(DropReason::NullRecord) >= null_headers as u64);
    for event in &events {
        check_event(context, event);
    }
}

fn check_event(context: &Context, event: &RocmTracerEvent) {
    assert!(event.start_time_ns >= SESSION_START_NS);
    assert!(!event.name.is_empty());
    match event.source {
        EventSource::ApiCallback => {
            assert_eq!(event.device_id, RocmTracerEvent::INVALID_DEVICE_ID);
        }
        EventSource::Activity => {
            // A device id is either invalid or the (truncated) handle of a known agent;
            // unknown agents never turn into device 0 or a made-up agent.
            if event.device_id != RocmTracerEvent::INVALID_DEVICE_ID {
                assert!(
                    context.agents.get(u64::from(event.device_id)).is_some(),
                    "device {} is no known agent",
                    event.device_id
                );
            }
            if let EventDetails::Kernel(_) = event.details {
                let known = context.kernels.get(KNOWN_KERNEL).unwrap();
                assert!(event.name == known || &*event.name == "??");
            }
        }
        EventSource::Invalid => panic!("decoder produced an event without source"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(debug_assertions) { 256 } else { 2048 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_crafted_record_is_an_event_or_a_counted_drop(
        records in proptest::collection::vec(crafted(known_agent_handles()), 0..40),
        null_headers in 0usize..3,
    ) {
        let context = context();
        decode_and_check(&context, &records, null_headers);
    }
}

#[test]
fn a_null_header_array_or_zero_count_decodes_nothing() {
    let context = context();
    let decoder = RecordDecoder {
        agents: &context.agents,
        hip_names: &context.names,
        kernel_names: &context.kernels,
        annotations: &context.annotations,
        copy_calls: None,
        session_start_ns: 0,
    };
    let mut events = Vec::new();
    let mut drops = DropCounts::default();
    // SAFETY: a null array is allowed by the contract; a zero count reads nothing.
    unsafe {
        decoder.decode_buffer(std::ptr::null(), 5, &mut events, &mut drops);
        let one: *const sys::rocprofiler_record_header_t = std::ptr::null();
        decoder.decode_buffer(&one, 0, &mut events, &mut drops);
    }
    assert!(events.is_empty() && drops.is_empty());
}
