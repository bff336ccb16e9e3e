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
use xla_rocm_tracer::agents::{AgentInfo, AgentKind, Agents, RawAgent};
use xla_rocm_tracer::annotation::AnnotationMap;
use xla_rocm_tracer::hip_api::HipApiNames;
use xla_rocm_tracer::kernel_names::KernelNames;
use xla_rocm_tracer::records::{DropCounts, RecordDecoder};

fn agent(handle: u64, kind: AgentKind) -> AgentInfo {
    // SAFETY: plain data; all-zero is a valid agent struct.
    let mut raw: sys::rocprofiler_agent_v0_t = unsafe { std::mem::zeroed() };
    raw.id.handle = handle;
    AgentInfo {
        handle,
        kind,
        logical_node_id: 0,
        name: String::new(),
        product_name: String::new(),
        cu_count: 0,
        max_engine_clk_fcompute: 0,
        gfx_target_version: 0,
        memory_size_bytes: 0,
        mem_clk_max_mhz: 0,
        mem_width_bits: 0,
        raw: RawAgent(raw),
    }
}

const KINDS: [u32; 4] = [
    sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
    sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
    sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
    sys::ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY,
];

fuzz_target!(|data: &[u8]| {
    let mut payloads: Vec<(u32, u32, Option<Box<[u64]>>)> = Vec::new();
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
            payloads.push((category, kind, None));
            continue;
        }
        let take = len.min(rest.len());
        let mut bytes = rest[..take].to_vec();
        rest = &rest[take..];
        bytes.resize(len, 0);
        let claimed = u64::from_ne_bytes(bytes[..8].try_into().unwrap());
        bytes[..8].copy_from_slice(&claimed.min(len as u64).to_ne_bytes());
        let mut words = vec![0u64; len.div_ceil(8)].into_boxed_slice();
        // SAFETY: `words` holds at least `len` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr().cast::<u8>(), len)
        };
        payloads.push((category, kind, Some(words)));
    }
    let headers: Vec<sys::rocprofiler_record_header_t> = payloads
        .iter()
        .map(|(category, kind, words)| sys::rocprofiler_record_header_t {
            id: sys::rocprofiler_record_header_id_t {
                hash: sys::rocprofiler_record_header_compute_hash(*category, *kind),
            },
            payload: words
                .as_ref()
                .map_or(std::ptr::null_mut(), |w| w.as_ptr() as *mut _),
        })
        .collect();
    let pointers: Vec<*const sys::rocprofiler_record_header_t> =
        headers.iter().map(|h| h as *const _).collect();

    let agents = Agents::from_list(vec![
        agent(300, AgentKind::Cpu),
        agent(301, AgentKind::Gpu),
        agent(0x1_0000_0005, AgentKind::Gpu),
    ]);
    let names = HipApiNames::from_pairs(
        sys::HIP_RUNTIME_API_NAMES
            .iter()
            .enumerate()
            .map(|(op, name)| (op as i32, name.to_string())),
    );
    let kernels = KernelNames::default();
    kernels.insert(7, "_Z6matmulPfS_");
    let annotations = AnnotationMap::new(4);
    let decoder = RecordDecoder {
        agents: &agents,
        hip_names: &names,
        kernel_names: &kernels,
        annotations: &annotations,
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
