//! API/activity join by correlation id (docs/xla-interface.md#addevent, #flush).
mod collector_support;

use collector_support::*;
use xla_rocm_tracer::collector::DropReason;
use xla_rocm_tracer::event::{EventDetails, EventType, RocmTracerEvent};
use xla_rocm_tracer::export::kernel_details_string;
use xla_rocm_tracer::sink::EventSink;

#[test]
fn api_event_and_its_kernel_land_on_host_and_device_planes() {
    let collector = collector(1);
    let mut batch = vec![
        api(10, 4242, 2_000_000, "hipLaunchKernel"),
        kernel(10, AGENT0, 0, 2_010_000, "gemm"),
    ];
    collector.add_events(&mut batch);
    assert!(batch.is_empty(), "add_events drains the batch");
    collector.flush();
    let space = export(&collector);

    let host = plane(&space, "/host:ROCTRACER");
    let host_line = line(host, "Host Threads/4242");
    assert_eq!(host_line.id, 4242);
    assert_eq!(event_names(host, host_line), ["hipLaunchKernel"]);
    assert_eq!(
        stat(host, &host_line.events[0].stats, "correlation_id").as_deref(),
        Some("u64:10")
    );

    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(gpu.id, 0);
    // SDK stream id 0 is the null stream.
    let stream = line(gpu, "Stream #0 (null)");
    assert_eq!(event_names(gpu, stream), ["gemm"]);
    assert!(space.warnings.is_empty(), "{:?}", space.warnings);
}

#[test]
fn every_hipgraph_dispatch_is_exported_with_its_own_kernel_details() {
    let collector = collector(1);
    let mut batch = vec![api(20, 1, 2_000_000, "hipGraphLaunch")];
    let grids = [1024u32, 2048, 4096];
    for (index, &grid) in grids.iter().enumerate() {
        let mut dispatch = kernel(
            20,
            AGENT0,
            1,
            2_100_000 + index as u64 * 200_000,
            &format!("node_{index}"),
        );
        dispatch.details = EventDetails::Kernel(kernel_details(grid, 64));
        batch.push(dispatch);
    }
    collector.add_events(&mut batch);
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    let stream = line(gpu, "Stream #0");
    assert_eq!(event_names(gpu, stream), ["node_0", "node_1", "node_2"]);
    for (event, &grid) in stream.events.iter().zip(&grids) {
        let expected = kernel_details_string(&kernel_details(grid, 64), None);
        assert_eq!(
            stat(gpu, &event.stats, "kernel_details"),
            Some(format!("ref:{expected}"))
        );
        assert_eq!(
            stat(gpu, &event.stats, "correlation_id").as_deref(),
            Some("u64:20")
        );
    }
    // XLA gives every node the first node's sizes (docs/xla-interface.md#xla-edge-15); the sizes differ here.
    assert!(kernel_details_string(&kernel_details(2048, 64), None).contains("grid:32,2,1"));
}

#[test]
fn activity_without_api_event_is_dropped_and_reported() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        kernel(30, AGENT0, 0, 2_000_000, "orphan"),
        kernel(30, AGENT0, 0, 2_500_000, "orphan"),
    ]);
    let space = export(&collector);
    assert!(plane(&space, "/device:GPU:0").lines.is_empty());
    assert_eq!(
        collector
            .drop_counters()
            .count(DropReason::NoApiCounterpart),
        2
    );
    assert!(
        space
            .warnings
            .iter()
            .any(|w| w
                .starts_with("Dropped 2 events: GPU activity without a matching HIP API event")),
        "{:?}",
        space.warnings
    );
}

#[test]
fn auxiliary_api_events_lend_their_data_but_are_not_exported() {
    let collector = collector(1);
    collector.add_event(api(31, 5, 2_000_000, "hipLaunchKernel"), true);
    collector.add_events(&mut vec![kernel(31, AGENT0, 0, 2_010_000, "k")]);
    let space = export(&collector);
    assert!(plane(&space, "/host:ROCTRACER").lines.is_empty());
    assert_eq!(
        event_names(
            plane(&space, "/device:GPU:0"),
            &plane(&space, "/device:GPU:0").lines[0]
        ),
        ["k"]
    );
}

#[test]
fn duplicate_correlation_id_keeps_the_first_api_event() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(40, 1, 2_000_000, "hipLaunchKernel"),
        api(40, 1, 2_100_000, "hipModuleLaunchKernel"),
        kernel(40, AGENT0, 0, 2_200_000, "k"),
    ]);
    let space = export(&collector);
    let host = plane(&space, "/host:ROCTRACER");
    assert_eq!(event_names(host, &host.lines[0]), ["hipLaunchKernel"]);
    assert_eq!(
        collector
            .drop_counters()
            .count(DropReason::DuplicateCorrelationId),
        1
    );
    assert!(space
        .warnings
        .iter()
        .any(|w| w.contains("duplicate correlation id")));
}

#[test]
fn api_call_without_gpu_work_is_counted_but_not_a_warning() {
    let collector = collector(1);
    collector.add_events(&mut vec![api(50, 1, 2_000_000, "hipStreamSynchronize")]);
    let space = export(&collector);
    assert!(plane(&space, "/host:ROCTRACER").lines.is_empty());
    assert_eq!(
        collector
            .drop_counters()
            .count(DropReason::ApiWithoutActivity),
        1
    );
    assert!(space.warnings.is_empty(), "{:?}", space.warnings);
}

#[test]
fn copy_api_takes_the_copy_details_of_its_activity() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        copy_api(60, 9, 2_000_000),
        memcpy(60, EventType::MemcpyH2D, AGENT0, 2, 2_001_000, 4 << 20),
    ]);
    let space = export(&collector);
    let host = plane(&space, "/host:ROCTRACER");
    let event = &host.lines[0].events[0];
    // `dest` is the destination GPU's plane ordinal, not its agent handle.
    let expected = format!(
        "ref:kind_src:unknown kind_dst:unknown size:{} dest:0 async:0",
        4 << 20
    );
    assert_eq!(
        stat(host, &event.stats, "memcpy_details"),
        Some(expected.clone())
    );
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(
        stat(gpu, &gpu.lines[0].events[0].stats, "memcpy_details"),
        Some(expected)
    );
}

#[test]
fn events_sent_after_a_flush_are_joined_by_the_next_one() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        api(70, 1, 2_000_000, "hipLaunchKernel"),
        kernel(70, AGENT0, 0, 2_010_000, "a"),
    ]);
    collector.flush();
    collector.add_events(&mut vec![
        api(71, 1, 3_000_000, "hipLaunchKernel"),
        kernel(71, AGENT0, 0, 3_010_000, "b"),
    ]);
    collector.flush();
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(event_names(gpu, &gpu.lines[0]), ["a", "b"]);
}

/// Work HIP's worker thread submitted (indirect dispatch) has correlation ids no API call
/// made and the tracer's `UNATTRIBUTED_STREAM_ID`: it is kept on an "Unattributed" lane of
/// its queue, with one warning; other activities without an API event are still dropped.
#[test]
fn unattributed_activities_get_a_lane_of_their_queue_and_one_warning() {
    let collector = collector(1);
    let unattributed = |id, queue, start| RocmTracerEvent {
        stream_id: RocmTracerEvent::UNATTRIBUTED_STREAM_ID,
        queue_id: queue,
        ..kernel(id, AGENT0, 0, start, "worker_kernel")
    };
    collector.add_events(&mut vec![
        api(1, 5, 2_000_000, "hipLaunchKernel"),
        kernel(1, AGENT0, 3, 2_010_000, "attributed"),
        unattributed(40, 0xbeef_0000, 2_300_000),
        unattributed(41, 0xbeef_0000, 2_600_000),
        unattributed(42, 0xcafe_0000, 2_400_000),
        RocmTracerEvent {
            stream_id: RocmTracerEvent::UNATTRIBUTED_STREAM_ID,
            ..memcpy(43, EventType::MemcpyH2D, AGENT0, 0, 2_500_000, 64)
        },
        kernel(44, AGENT0, 3, 2_700_000, "orphan"),
    ]);
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(
        line_names(gpu),
        [
            "Stream #0",
            "Unattributed (copies)",
            "Unattributed (queue #0)",
            "Unattributed (queue #1)"
        ]
    );
    assert_eq!(event_names(gpu, line(gpu, "Stream #0")), ["attributed"]);
    assert_eq!(
        event_names(gpu, line(gpu, "Unattributed (queue #0)")),
        ["worker_kernel", "worker_kernel"]
    );
    assert_eq!(
        event_names(gpu, line(gpu, "Unattributed (copies)")),
        ["MemcpyH2D"]
    );
    let ids: Vec<i64> = gpu.lines.iter().map(|line| line.id).collect();
    let base = xla_rocm_tracer::export::LANE_LINE_ID_BASE;
    assert_eq!(
        ids,
        [base, base + 1, base + 2, base + 3],
        "unique line ids after the stream lanes"
    );
    let attribution: Vec<_> = space
        .warnings
        .iter()
        .filter(|w| w.contains("stream attribution needs direct dispatch"))
        .collect();
    assert_eq!(attribution.len(), 1, "{:?}", space.warnings);
    assert!(attribution[0].starts_with("4 GPU activities"));
    assert_eq!(
        collector
            .drop_counters()
            .count(DropReason::NoApiCounterpart),
        1,
        "an attributed activity without its API event is still a loss"
    );
}

/// A HIP copy call without a device record (the CPU copied) stays on its host thread with a
/// `copy_done_by` stat and no device, counted under its own reason, not as a loss.
#[test]
fn copy_calls_without_a_record_stay_on_the_host_as_cpu_copies() {
    let collector = collector(1);
    collector.add_events(&mut vec![
        copy_api(1, 5, 2_000_000),
        api(2, 5, 2_100_000, "hipLaunchKernel"),
    ]);
    let space = export(&collector);
    let host = plane(&space, "/host:ROCTRACER");
    assert_eq!(event_names(host, &host.lines[0]), ["hipMemcpyAsync"]);
    let event = &host.lines[0].events[0];
    assert_eq!(
        stat(host, &event.stats, "copy_done_by").as_deref(),
        Some("ref:CPU")
    );
    assert_eq!(stat(host, &event.stats, "device_id"), None);
    assert_eq!(
        space.warnings,
        [
            "1 HIP copy call has no device record: copy done by the CPU (the HIP runtime copied \
          without a device record); it is shown on its host thread only"
        ]
    );
    let drops = collector.drop_counters();
    assert_eq!(drops.count(DropReason::ApiWithoutActivity), 1, "the launch");
    assert_eq!(drops.count(DropReason::NoApiCounterpart), 0);
}
