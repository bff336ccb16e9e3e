//! `XLA_ROCM_TRACER_GROUP_BY` chooses the device lanes of the XLA path and the C ABI, where no
//! flag can be added: read once per process, so each value runs in a child of its own.
mod collector_support;

use collector_support::*;
use sim_test_kit::child;
use xla_rocm_tracer::event::RocmTracerEvent;
use xla_rocm_tracer::export::GroupBy;
use xla_rocm_tracer::ffi::{export_options, GROUP_BY_VARIABLE};
use xla_rocm_tracer::sink::EventSink;

fn lanes_with_the_process_options() -> Vec<String> {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(1, 1, 2_000_000, "hipLaunchKernel"),
        RocmTracerEvent {
            queue_id: 0x1000,
            ..kernel(1, AGENT0, 3, 2_010_000, "k")
        },
    ]);
    let space = collector.export(GPU_END, &export_options());
    line_names(plane(&space, "/device:GPU:0"))
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[test]
fn queue_groups_the_xla_paths_lanes_by_hsa_queue() {
    if !child::in_child(
        "queue_groups_the_xla_paths_lanes_by_hsa_queue",
        &[(GROUP_BY_VARIABLE, "queue")],
    ) {
        return;
    }
    assert_eq!(export_options().group_by, GroupBy::Queue);
    assert_eq!(lanes_with_the_process_options(), ["Queue #0"]);
}

#[test]
fn a_bad_value_keeps_stream_lanes() {
    if !child::in_child(
        "a_bad_value_keeps_stream_lanes",
        &[(GROUP_BY_VARIABLE, "hsa")],
    ) {
        return;
    }
    assert_eq!(export_options().group_by, GroupBy::Stream);
    assert_eq!(lanes_with_the_process_options(), ["Stream #0"]);
}
