//! The same events give byte-identical XSpace bytes, whatever their arrival order.
mod collector_support;

use std::sync::Arc;

use collector_support::*;
use proptest::prelude::*;
use xla_rocm_tracer::event::{EventType, RocmTracerEvent};
use xla_rocm_tracer::export::{encode_xspace, ExportOptions};
use xla_rocm_tracer::sink::EventSink;

fn workload() -> Vec<RocmTracerEvent> {
    let mut events = Vec::new();
    for step in 0..10u64 {
        let mut call = api(
            100 + step,
            11,
            2_000_000 + step * 300_000,
            "hipLaunchKernel",
        );
        call.annotation = Some(Arc::from(format!("jit_matmul::step_{step}#step={step}#")));
        let mut dispatch = kernel(
            100 + step,
            AGENT0,
            1,
            2_010_000 + step * 300_000,
            "Cijk_Alik_Bljk_BBS_BH",
        );
        dispatch.annotation = call.annotation.clone();
        events.extend([call, dispatch]);
    }
    events.extend([
        copy_api(200, 12, 2_000_000),
        memcpy(200, EventType::MemcpyH2D, AGENT0, 2, 2_005_000, 4 << 20),
        copy_api(201, 13, 6_000_000),
        memcpy(201, EventType::MemcpyD2H, AGENT1, 3, 6_005_000, 4096),
    ]);
    events
}

fn encode(events: Vec<RocmTracerEvent>, batch_size: usize) -> Vec<u8> {
    let collector = collector(2);
    for chunk in events.chunks(batch_size) {
        collector.add_events(&mut chunk.to_vec());
    }
    collector.flush();
    encode_xspace(&export(&collector))
}

#[test]
fn exporting_twice_gives_the_same_bytes() {
    let collector = collector(2);
    collector.add_events(&mut workload());
    let first = encode_xspace(&export(&collector));
    let second = encode_xspace(&export(&collector));
    assert_eq!(first, second);
    assert_eq!(first, encode(workload(), 7));
}

#[test]
fn the_streamed_file_is_one_encoding_of_the_whole_xspace() {
    let collector = collector(2);
    collector.add_events(&mut workload());
    let mut streamed = Vec::new();
    let written = collector
        .write_xspace_to(GPU_END, &ExportOptions::default(), &mut streamed)
        .unwrap();
    let whole = encode_xspace(&export(&collector));
    assert_eq!(streamed, whole);
    assert_eq!(written, whole.len() as u64);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arrival_order_and_batching_do_not_change_the_bytes(
        permutation in Just(workload()).prop_shuffle(),
        batch_size in 1usize..30,
    ) {
        prop_assert_eq!(encode(permutation, batch_size), encode(workload(), usize::MAX));
    }
}
