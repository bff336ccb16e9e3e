//! The profiler-session merge of `/host:ROCTRACER` into `/host:CPU` used by the file writer.
mod collector_support;

use collector_support::*;
use xla_rocm_tracer::export::xplane_proto::{x_event, x_stat};
use xla_rocm_tracer::export::{
    merge_host_api_plane, XEvent, XEventMetadata, XLine, XPlane, XStat, XStatMetadata,
};
use xla_rocm_tracer::sink::EventSink;

fn traced() -> xla_rocm_tracer::export::XSpace {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(1, 4242, 2_000_000, "hipLaunchKernel"),
        kernel(1, AGENT0, 0, 2_010_000, "k"),
    ]);
    export(&collector)
}

#[test]
fn roctracer_plane_becomes_host_cpu_when_there_is_none() {
    let mut space = traced();
    merge_host_api_plane(&mut space);
    assert_eq!(
        plane_names(&space),
        [
            "/host:CPU",
            "/device:GPU:0",
            "/host:__ScopeRangeCallStack__"
        ]
    );
    let host = plane(&space, "/host:CPU");
    assert_eq!(
        event_names(host, line(host, "Host Threads/4242")),
        ["hipLaunchKernel"]
    );
}

#[test]
fn merging_into_an_existing_host_cpu_plane_remaps_metadata_and_joins_lines() {
    let mut space = traced();
    // A CPU plane with a colliding metadata id and the same thread line, starting 1 us later.
    let cpu = XPlane {
        id: 9,
        name: "/host:CPU".to_owned(),
        lines: vec![XLine {
            id: 4242,
            name: "python3".to_owned(),
            timestamp_ns: WALL_START as i64 + 1_000,
            events: vec![XEvent {
                metadata_id: 1,
                data: Some(x_event::Data::OffsetPs(0)),
                duration_ps: 5,
                stats: vec![XStat {
                    metadata_id: 1,
                    value: Some(x_stat::Value::Int64Value(3)),
                }],
            }],
            ..XLine::default()
        }],
        event_metadata: [(
            1,
            XEventMetadata {
                id: 1,
                name: "PyCall".to_owned(),
                ..Default::default()
            },
        )]
        .into(),
        stat_metadata: [(
            1,
            XStatMetadata {
                id: 1,
                name: "python_depth".to_owned(),
                ..Default::default()
            },
        )]
        .into(),
        ..XPlane::default()
    };
    space.planes.push(cpu);
    merge_host_api_plane(&mut space);
    assert!(!plane_names(&space).contains(&"/host:ROCTRACER"));
    let host = plane(&space, "/host:CPU");
    assert_eq!(host.lines.len(), 1);
    let line = &host.lines[0];
    assert_eq!(event_names(host, line), ["PyCall", "hipLaunchKernel"]);
    let api_event = &line.events[1];
    assert_eq!(
        stat(host, &api_event.stats, "correlation_id").as_deref(),
        Some("u64:1")
    );
    assert_eq!(
        stat(host, &line.events[0].stats, "python_depth").as_deref(),
        Some("i64:3")
    );
    // The API event started 1 ms after the GPU start; the line starts 1 us after the capture.
    assert_eq!(
        api_event.data,
        Some(x_event::Data::OffsetPs(
            (2_000_000 - GPU_START as i64) * 1000 - 1_000_000
        ))
    );
}

#[test]
fn foreign_ids_and_times_at_the_limits_do_not_overflow() {
    let mut space = traced();
    let hostile = XPlane {
        id: 9,
        name: "/host:CPU".to_owned(),
        lines: vec![XLine {
            id: 4242,
            name: "Host Threads/4242".to_owned(),
            timestamp_ns: i64::MIN,
            ..Default::default()
        }],
        event_metadata: [(
            i64::MAX,
            XEventMetadata {
                id: i64::MAX,
                name: "foreign".to_owned(),
                ..Default::default()
            },
        )]
        .into(),
        stat_metadata: [(
            i64::MAX,
            XStatMetadata {
                id: i64::MAX,
                name: "foreign_stat".to_owned(),
                ..Default::default()
            },
        )]
        .into(),
        ..Default::default()
    };
    space.planes.insert(0, hostile);
    merge_host_api_plane(&mut space);
    let host = plane(&space, "/host:CPU");
    // The traced names were added under fresh ids that collide with nothing.
    assert!(host
        .event_metadata
        .values()
        .any(|m| m.name == "hipLaunchKernel"));
    assert!(host.event_metadata.values().any(|m| m.name == "foreign"));
    assert!(host.event_metadata.iter().all(|(id, m)| *id == m.id));
    assert!(host.stat_metadata.iter().all(|(id, m)| *id == m.id));
    assert_eq!(
        event_names(host, line(host, "Host Threads/4242")),
        ["hipLaunchKernel"]
    );
}
