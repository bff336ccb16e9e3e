//! Dense stream renumbering and lane names (docs/xla-interface.md#planes-and-lines, #cupti-lane-names).
mod collector_support;

use collector_support::*;
use xla_rocm_tracer::collector::DropReason;
use xla_rocm_tracer::event::{EventType, RocmTracerEvent};
use xla_rocm_tracer::export::ExportOptions;
use xla_rocm_tracer::sink::EventSink;

/// Raw stream 7 starts last; 3 and 9 start together, so the lower raw id comes first.
fn three_streams() -> Vec<RocmTracerEvent> {
    vec![
        api(1, 1, 2_000_000, "hipLaunchKernel"),
        kernel(1, AGENT0, 7, 2_300_000, "late"),
        api(2, 1, 2_000_000, "hipLaunchKernel"),
        kernel(2, AGENT0, 9, 2_100_000, "tie_high"),
        api(3, 1, 2_000_000, "hipLaunchKernel"),
        kernel(3, AGENT0, 3, 2_100_000, "tie_low"),
        api(4, 1, 2_000_000, "hipLaunchKernel"),
        kernel(4, AGENT0, 3, 2_050_000 + 600_000, "tie_low_again"),
        copy_api(5, 1, 2_000_000),
        memcpy(5, EventType::MemcpyH2D, AGENT0, 7, 2_900_000, 64),
    ]
}

#[test]
fn lanes_are_numbered_by_first_start_then_raw_id() {
    let collector = collector(1);
    collector.add_events(&mut three_streams());
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(line_names(gpu), ["Stream #0", "Stream #1", "Stream #2"]);
    // Line ids from LANE_LINE_ID_BASE, clear of the display ids xprof gives its busiest lanes.
    let base = xla_rocm_tracer::export::LANE_LINE_ID_BASE;
    assert_eq!(
        gpu.lines.iter().map(|l| l.id).collect::<Vec<_>>(),
        [base, base + 1, base + 2]
    );
    assert_eq!(
        event_names(gpu, line(gpu, "Stream #0")),
        ["tie_low", "tie_low_again"]
    );
    assert_eq!(event_names(gpu, line(gpu, "Stream #1")), ["tie_high"]);
    assert_eq!(
        event_names(gpu, line(gpu, "Stream #2")),
        ["late", "MemcpyH2D"]
    );
    assert!(
        gpu.lines.iter().all(|l| !l.name.contains('(')),
        "no raw handles or types by default"
    );
}

#[test]
fn cuda_style_names_list_the_lane_types_in_enum_order() {
    let collector = collector(1);
    let mut events = three_streams();
    let mut unsupported = kernel(6, AGENT0, 9, 2_500_000, "odd");
    unsupported.event_type = EventType::Unsupported;
    events.extend([api(6, 1, 2_000_000, "hipLaunchKernel"), unsupported]);
    collector.add_events(&mut events);
    let space = collector.export(
        GPU_END,
        &ExportOptions {
            cuda_style_line_names: true,
            ..ExportOptions::default()
        },
    );
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(
        line_names(gpu),
        [
            "Stream #0(Kernel)",
            "Stream #1(Kernel)",
            "Stream #2(Kernel,MemcpyH2D)"
        ]
    );
}

#[test]
fn activity_without_stream_has_no_lane_and_is_counted() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(1, 1, 2_000_000, "hipLaunchKernel"),
        kernel(
            1,
            AGENT0,
            RocmTracerEvent::INVALID_STREAM_ID,
            2_100_000,
            "nowhere",
        ),
    ]);
    let space = export(&collector);
    assert!(plane(&space, "/device:GPU:0").lines.is_empty());
    assert!(
        space
            .warnings
            .iter()
            .any(|w| w.starts_with("Dropped 1 events: no stream")),
        "{:?}",
        space.warnings
    );
    // Export-time drops are reported in the trace; the collector's own counters are unchanged.
    assert_eq!(collector.drop_counters().count(DropReason::NoLane), 0);
}
