//! Device numbering from agent handles and per-device planes (docs/xla-interface.md#flush).
mod collector_support;

use collector_support::*;
use xla_rocm_tracer::collector::{Collector, CollectorOptions, DropReason};
use xla_rocm_tracer::event::EventType;
use xla_rocm_tracer::sink::EventSink;

#[test]
fn capture_of_only_the_second_gpu_is_exported_as_gpu_1() {
    let collector = collector(2);
    collector.add_events(&mut vec![
        api(1, 7, 2_000_000, "hipLaunchKernel"),
        kernel(1, AGENT1, 0, 2_010_000, "on_gpu1"),
    ]);
    let space = export(&collector);
    assert_eq!(
        plane_names(&space),
        [
            "/host:ROCTRACER",
            "/device:GPU:0",
            "/device:GPU:1",
            "/host:__ScopeRangeCallStack__"
        ]
    );
    assert!(plane(&space, "/device:GPU:0").lines.is_empty());
    let gpu1 = plane(&space, "/device:GPU:1");
    assert_eq!(gpu1.id, 1);
    assert_eq!(
        event_names(gpu1, line(gpu1, "Stream #0 (null)")),
        ["on_gpu1"]
    );
    // The API event's device_id stat is the plane ordinal, not the raw handle (docs/xla-interface.md#xla-edge-19).
    let host = plane(&space, "/host:ROCTRACER");
    assert_eq!(
        stat(host, &host.lines[0].events[0].stats, "device_id").as_deref(),
        Some("u64:1")
    );
}

#[test]
fn two_gpus_each_get_their_own_dense_lanes_and_copies_follow_device_id() {
    let collector = collector(2);
    let mut batch = vec![
        api(1, 7, 2_000_000, "hipLaunchKernel"),
        kernel(1, AGENT0, 5, 2_010_000, "k0"),
        api(2, 7, 2_000_000, "hipLaunchKernel"),
        kernel(2, AGENT1, 9, 2_020_000, "k1"),
        copy_api(3, 7, 2_100_000),
        // A GPU0 -> GPU1 copy: the tracer gives D2D copies the destination device (docs/xla-interface.md#copy-device-rules).
        memcpy(3, EventType::MemcpyD2D, AGENT1, 12, 2_200_000, 1 << 20),
    ];
    collector.add_events(&mut batch);
    let space = export(&collector);
    let gpu0 = plane(&space, "/device:GPU:0");
    let gpu1 = plane(&space, "/device:GPU:1");
    assert_eq!(line_names(gpu0), ["Stream #0"]);
    assert_eq!(line_names(gpu1), ["Stream #0", "Stream #1"]);
    assert_eq!(event_names(gpu1, line(gpu1, "Stream #1")), ["MemcpyD2D"]);
    let host = plane(&space, "/host:ROCTRACER");
    assert_eq!(line_names(host), ["Host Threads/7"]);
    assert_eq!(
        host.lines[0].events.len(),
        3,
        "one host line for API calls of both GPUs"
    );
    for (plane, name) in [(gpu0, "gfx942"), (gpu1, "gfx942")] {
        assert_eq!(
            stat(plane, &plane.stats, "gpu_device_name"),
            Some(format!("str:{name}"))
        );
    }
}

#[test]
fn unknown_agent_handle_is_an_invalid_device() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(1, 7, 2_000_000, "hipLaunchKernel"),
        kernel(1, 0x9999, 0, 2_010_000, "lost"),
    ]);
    let space = export(&collector);
    assert_eq!(all_events(plane(&space, "/device:GPU:0")).count(), 0);
    assert_eq!(
        collector.drop_counters().count(DropReason::InvalidDevice),
        2
    );
    assert!(space
        .warnings
        .iter()
        .any(|w| w == "Dropped 2 events: device is not one of the traced GPUs"));
}

#[test]
fn without_agents_xla_subtracts_the_smallest_handle() {
    let collector = Collector::new(
        CollectorOptions {
            num_gpus: 1,
            ..CollectorOptions::default()
        },
        start(),
    );
    collector.add_events(&mut vec![
        api(1, 7, 2_000_000, "hipLaunchKernel"),
        kernel(1, 301, 0, 2_010_000, "second_gpu_is_gpu0"),
        api(2, 7, 2_000_000, "hipLaunchKernel"),
        kernel(2, 302, 0, 2_020_000, "beyond_num_gpus"),
    ]);
    let space = export(&collector);
    let gpu0 = plane(&space, "/device:GPU:0");
    assert_eq!(event_names(gpu0, &gpu0.lines[0]), ["second_gpu_is_gpu0"]);
    assert_eq!(
        collector.drop_counters().count(DropReason::InvalidDevice),
        2
    );
}

/// Without agents a handle's ordinal must not depend on which flush its events came in: the
/// smallest handle of the whole capture is GPU 0, also when it arrives after a flush.
#[test]
fn without_agents_the_numbering_does_not_depend_on_flush_timing() {
    let one_flush = Collector::new(
        CollectorOptions {
            num_gpus: 2,
            ..CollectorOptions::default()
        },
        start(),
    );
    let two_flushes = Collector::new(one_flush.options(), start());
    let first = || {
        vec![
            api(1, 7, 2_000_000, "hipLaunchKernel"),
            kernel(1, 302, 0, 2_010_000, "on_302"),
            api(2, 7, 2_000_000, "hipLaunchKernel"),
            kernel(2, 303, 0, 2_020_000, "on_303"),
        ]
    };
    let second = || {
        vec![
            api(3, 7, 2_100_000, "hipLaunchKernel"),
            kernel(3, 301, 0, 2_110_000, "on_301"),
        ]
    };
    let mut all = first();
    all.extend(second());
    one_flush.add_events(&mut all);
    two_flushes.add_events(&mut first());
    two_flushes.flush();
    two_flushes.add_events(&mut second());
    let (a, b) = (export(&one_flush), export(&two_flushes));
    for space in [&a, &b] {
        let gpu0 = plane(space, "/device:GPU:0");
        let gpu1 = plane(space, "/device:GPU:1");
        assert_eq!(event_names(gpu0, &gpu0.lines[0]), ["on_301"]);
        assert_eq!(event_names(gpu1, &gpu1.lines[0]), ["on_302"]);
    }
    assert_eq!(a.warnings, b.warnings);
    assert_eq!(
        one_flush.drop_counters().count(DropReason::InvalidDevice),
        two_flushes.drop_counters().count(DropReason::InvalidDevice)
    );
    assert_eq!(
        two_flushes.drop_counters().count(DropReason::InvalidDevice),
        2,
        "handle 303 is beyond two GPUs: its kernel and API event"
    );
}
