//! Fuzz bytes -> a buffer of records -> the tracer's decoder: every record is an event or a
//! counted drop, never a panic or a read past a payload (run with cargo fuzz's ASan).
//!
//! Input format, repeated: category selector (1 byte), kind selector (1 byte), payload length
//! (1 byte, x2), payload bytes. The payload's `size` field is clamped to its length, as the
//! SDK guarantees; everything else is the fuzzer's.
#![no_main]
use libfuzzer_sys::fuzz_target;
// The tracer library leaves the SDK symbols to the final link; the simulator supplies them.
use rocprofiler_sdk_sim as _;
use rocprofiler_sdk_sys as sys;
use xla_rocm_tracer::testing::agents::{AgentInfo, AgentKind, Agents};
use xla_rocm_tracer::tracer::annotation::AnnotationMap;
use xla_rocm_tracer::testing::hip_api::HipApiNames;
use xla_rocm_tracer::testing::kernel_names::KernelNames;
use xla_rocm_tracer::testing::record_decoder::crafted::CraftedRecords;
use xla_rocm_tracer::testing::record_decoder::{DropCounts, RecordDecoder};

const KINDS: [u32; 4] = [
    sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
    sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
    sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
    sys::ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY,
];

fuzz_target!(|data: &[u8]| {
    let mut records = CraftedRecords::default();
    let mut rest = data;
    while rest.len() >= 3 {
        let (category_byte, kind_byte, len) = (rest[0], rest[1], rest[2] as usize * 2);
        rest = &rest[3..];
        let category = if category_byte < 200 {
            sys::ROCPROFILER_BUFFER_CATEGORY_TRACING
        } else {
            u32::from(category_byte)
        };
        let kind = KINDS
            .get(kind_byte as usize % 5)
            .copied()
            .unwrap_or(u32::from(kind_byte));
        if len < 8 {
            records.push(category, kind, None);
            continue;
        }
        let take = len.min(rest.len());
        let mut bytes = rest[..take].to_vec();
        rest = &rest[take..];
        bytes.resize(len, 0);
        let claimed = u64::from_ne_bytes(bytes[..8].try_into().unwrap());
        bytes[..8].copy_from_slice(&claimed.min(len as u64).to_ne_bytes());
        records.push(category, kind, Some(&bytes));
    }
    let pointers = records.header_pointers();

    let agents = Agents::from_list(vec![
        AgentInfo::bare(300, AgentKind::Cpu),
        AgentInfo::bare(301, AgentKind::Gpu),
        AgentInfo::bare(0x1_0000_0005, AgentKind::Gpu),
    ]);
    let names = HipApiNames::from_bindings();
    let kernels = KernelNames::default();
    kernels.insert(7, "_Z6matmulPfS_");
    let annotations = AnnotationMap::new(4);
    let decoder = RecordDecoder {
        agents: &agents,
        hip_names: &names,
        kernel_names: &kernels,
        annotations: &annotations,
        copy_calls: None,
        session_start_ns: 1_000,
    };
    let mut events = Vec::new();
    let mut drops = DropCounts::default();
    // SAFETY: every header and payload outlives the call; each payload holds at least the
    // `size` bytes its first field claims.
    unsafe { decoder.decode_buffer(pointers.as_ptr(), pointers.len(), &mut events, &mut drops) };
    let dropped: u64 = drops.iter().map(|(_, n)| n).sum();
    assert_eq!(events.len() as u64 + dropped, pointers.len() as u64);
});
