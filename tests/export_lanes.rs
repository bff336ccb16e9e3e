//! Dense stream renumbering and lane names (docs/xla-interface.md#planes-and-lines, #cupti-lane-names).
mod collector_support;

use collector_support::*;
use std::sync::Arc;
use xla_rocm_tracer::collector::DropReason;
use xla_rocm_tracer::event::{EventType, RocmTracerEvent, StreamKind, StreamLabel};
use xla_rocm_tracer::export::{ExportOptions, GroupBy, LANE_LINE_ID_BASE};
use xla_rocm_tracer::sink::{EventSink, SessionEnd};

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
            .any(|w| w.starts_with("Dropped 1 event: no stream")),
        "{:?}",
        space.warnings
    );
    // Export-time drops are reported in the trace; the collector's own counters are unchanged.
    assert_eq!(collector.drop_counters().count(DropReason::NoLane), 0);
}

fn label(stream_id: u64, handle: u64, name: Option<&str>) -> StreamLabel {
    StreamLabel {
        stream_id,
        handle,
        kind: StreamKind::of_handle(handle),
        name: name.map(Arc::from),
    }
}

#[test]
fn null_per_thread_and_named_streams_show_in_lane_labels_and_stats() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(1, 1, 2_000_000, "hipLaunchKernel"),
        kernel(1, AGENT0, 4, 2_010_000, "on_named"),
        api(2, 1, 2_100_000, "hipLaunchKernel"),
        kernel(2, AGENT0, 0, 2_110_000, "on_null"),
        api(3, 1, 2_200_000, "hipLaunchKernel"),
        kernel(3, AGENT0, 6, 2_210_000, "on_per_thread"),
        api(4, 1, 2_300_000, "hipLaunchKernel"),
        kernel(4, AGENT0, 5, 2_310_000, "on_unnamed"),
    ]);
    collector.end_session(SessionEnd {
        stream_labels: vec![
            label(0, 0, Some("main")),
            label(4, 0x7f00_0000_0100, Some("h2d")),
            label(5, 0x7f00_0000_0200, None),
            label(6, 2, None),
        ],
        ..SessionEnd::default()
    });
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(
        line_names(gpu),
        [
            "Stream #0 \"h2d\"",
            "Stream #1 (null) \"main\"",
            "Stream #2 (per-thread)",
            "Stream #3"
        ]
    );
    let first = |name: &str| &line(gpu, name).events[0].stats;
    let null = first("Stream #1 (null) \"main\"");
    assert_eq!(stat(gpu, null, "stream_kind").as_deref(), Some("ref:null"));
    assert_eq!(stat(gpu, null, "stream_name").as_deref(), Some("ref:main"));
    let named = first("Stream #0 \"h2d\"");
    assert_eq!(stat(gpu, named, "stream_name").as_deref(), Some("ref:h2d"));
    assert_eq!(stat(gpu, named, "stream_kind"), None);
    let plain = first("Stream #3");
    assert_eq!(stat(gpu, plain, "stream_name"), None);
    assert_eq!(stat(gpu, plain, "stream_kind"), None);

    // The lanes say which SDK stream each line shows.
    let lanes = collector.lanes(GPU_END, &ExportOptions::default());
    let streams: Vec<(u32, i64, Option<u64>)> = lanes
        .iter()
        .map(|lane| (lane.lane, lane.line_id, lane.stream_id))
        .collect();
    assert_eq!(
        streams,
        [
            (0, LANE_LINE_ID_BASE, Some(4)),
            (1, LANE_LINE_ID_BASE + 1, Some(0)),
            (2, LANE_LINE_ID_BASE + 2, Some(6)),
            (3, LANE_LINE_ID_BASE + 3, Some(5)),
        ]
    );
    assert_eq!(lanes[0].line_name, "Stream #0 \"h2d\"");
}

#[test]
fn stream_zero_is_the_null_stream_even_without_labels() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(1, 1, 2_000_000, "hipMemset"),
        kernel(1, AGENT0, 0, 2_010_000, "fill"),
    ]);
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(line_names(gpu), ["Stream #0 (null)"]);
}

#[test]
fn group_by_queue_puts_each_hsa_queue_on_its_own_lane() {
    let collector = collector(1);
    let on_queue = |event: RocmTracerEvent, queue: u64| RocmTracerEvent {
        queue_id: queue,
        ..event
    };
    collector.add_events(&mut vec![
        api(1, 1, 2_000_000, "hipLaunchKernel"),
        on_queue(kernel(1, AGENT0, 1, 2_010_000, "a_on_q2"), 0x2000),
        api(2, 1, 2_100_000, "hipLaunchKernel"),
        on_queue(kernel(2, AGENT0, 2, 2_020_000, "b_on_q2"), 0x2000),
        api(3, 1, 2_200_000, "hipLaunchKernel"),
        on_queue(kernel(3, AGENT0, 1, 2_400_000, "a_on_q1"), 0x1000),
        copy_api(4, 1, 2_300_000),
        memcpy(4, EventType::MemcpyH2D, AGENT0, 2, 2_300_000, 64),
    ]);
    let options = ExportOptions {
        group_by: GroupBy::Queue,
        ..ExportOptions::default()
    };
    let space = collector.export(GPU_END, &options);
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(line_names(gpu), ["Queue #0", "Queue #1", "Queue (copies)"]);
    assert_eq!(
        event_names(gpu, line(gpu, "Queue #0")),
        ["a_on_q2", "b_on_q2"]
    );
    assert_eq!(event_names(gpu, line(gpu, "Queue #1")), ["a_on_q1"]);
    assert_eq!(event_names(gpu, line(gpu, "Queue (copies)")), ["MemcpyH2D"]);
    let lanes = collector.lanes(GPU_END, &options);
    let queues: Vec<(String, Option<u64>, i64)> = lanes
        .iter()
        .map(|lane| (lane.line_name.clone(), lane.queue_id, lane.line_id))
        .collect();
    assert_eq!(
        queues,
        [
            ("Queue #0".to_owned(), Some(0x2000), LANE_LINE_ID_BASE),
            ("Queue #1".to_owned(), Some(0x1000), LANE_LINE_ID_BASE + 1),
            ("Queue (copies)".to_owned(), None, LANE_LINE_ID_BASE + 2),
        ]
    );
    // Grouped by stream, the same events are on stream lanes.
    let by_stream = export(&collector);
    assert_eq!(
        line_names(plane(&by_stream, "/device:GPU:0")),
        ["Stream #0", "Stream #1"]
    );
}
