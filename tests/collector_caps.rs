//! Caps bound memory, drop counters by reason, and both reach the exported trace.
mod collector_support;

use std::cell::Cell;
use std::sync::Arc;

use collector_support::*;
use xla_rocm_tracer::collector::{Collector, CollectorOptions, DropReason, MAX_TRACE_EVENTS_FLAG};
use xla_rocm_tracer::event::RocmTracerEvent;
use xla_rocm_tracer::export::XSpace;
use xla_rocm_tracer::sink::EventSink;

/// Counts warnings that name the XLA flag, per thread: tests run in parallel, and the
/// collector logs on the thread that adds the events.
struct FlagWarningCounter;
thread_local! {
    static FLAG_WARNINGS: Cell<usize> = const { Cell::new(0) };
}

impl log::Log for FlagWarningCounter {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn
    }
    fn log(&self, record: &log::Record<'_>) {
        if record.level() == log::Level::Warn
            && record.args().to_string().contains(MAX_TRACE_EVENTS_FLAG)
        {
            FLAG_WARNINGS.with(|count| count.set(count.get() + 1));
        }
    }
    fn flush(&self) {}
}

fn capped(callback: u64, activity: u64, annotations: u64) -> Collector {
    Collector::new(
        CollectorOptions {
            max_callback_api_events: callback,
            max_activity_api_events: activity,
            max_annotation_strings: annotations,
            num_gpus: 1,
        },
        start(),
    )
}

#[test]
fn caps_drop_count_export_and_warn_once_per_cap() {
    log::set_logger(&FlagWarningCounter).expect("the only logger of this process");
    log::set_max_level(log::LevelFilter::Warn);

    let collector = capped(2, 3, 100);
    let mut batch = Vec::new();
    for id in 0..10u64 {
        batch.push(api(id, 1, 2_000_000 + id * 10_000, "hipLaunchKernel"));
        batch.push(kernel(id, AGENT0, 0, 2_000_000 + id * 10_000, "k"));
    }
    collector.add_events(&mut batch);
    let drops = collector.drop_counters();
    assert_eq!(drops.count(DropReason::CallbackCapReached), 8);
    // Every activity counts against the cap, HIP_OPS ones included (XLA counts none, docs/xla-interface.md#xla-edge-12).
    assert_eq!(drops.count(DropReason::ActivityCapReached), 7);
    // Joined at export: activity 2, whose API event the callback cap took, is left out with
    // it, counted apart: each cap counts only its own kind.
    collector.flush();
    let drops = collector.drop_counters();
    assert_eq!(drops.count(DropReason::CallbackCapReached), 8);
    assert_eq!(drops.count(DropReason::ActivityCapReached), 7);
    assert_eq!(drops.count(DropReason::ActivityOfCappedApi), 1);
    assert_eq!(drops.count(DropReason::ApiOfCappedActivity), 0);
    assert_eq!(drops.count(DropReason::NoApiCounterpart), 0);
    // One warning per cap for the whole capture, not one per dropped event.
    assert_eq!(FLAG_WARNINGS.with(Cell::get), 2);

    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    // Kept: activities 0..3; of those, only 0 and 1 have their API event.
    let kept_activities = all_events(gpu).count() as u64;
    let kept_api = all_events(plane(&space, "/host:ROCTRACER")).count() as u64;
    assert_eq!((kept_api, kept_activities), (2, 2));
    // Kept + dropped = produced, for each kind.
    let drops = collector.drop_counters();
    assert_eq!(
        kept_api
            + drops.count(DropReason::CallbackCapReached)
            + drops.count(DropReason::ApiOfCappedActivity),
        10
    );
    assert_eq!(
        kept_activities
            + drops.count(DropReason::ActivityCapReached)
            + drops.count(DropReason::ActivityOfCappedApi),
        10
    );
    let cap_warnings: Vec<_> = space
        .warnings
        .iter()
        .filter(|w| w.contains(MAX_TRACE_EVENTS_FLAG))
        .collect();
    assert_eq!(cap_warnings.len(), 3, "{:?}", space.warnings);
    assert!(space.warnings.contains(&format!(
        "Dropped 8 events: HIP API events over the HIP API event cap (max_callback_api_events). \
         To collect more GPU events, set XLA_FLAGS={MAX_TRACE_EVENTS_FLAG}=<larger value>"
    )));
    assert!(space
        .warnings
        .iter()
        .any(|w| w.starts_with("Dropped 7 events: GPU activities over the GPU activity cap")));
    assert!(space.warnings.iter().any(
        |w| w.starts_with("Dropped 1 event: GPU activities left out because the HIP API event cap")
    ));
    assert!(!space
        .warnings
        .iter()
        .any(|w| w.contains("GPU activity without a matching HIP API event")));
}

#[test]
fn a_kernel_the_activity_cap_dropped_is_counted_once_and_its_launch_apart() {
    let collector = capped(u64::MAX, 3, 100);
    let mut batch = Vec::new();
    for id in 0..10u64 {
        batch.push(api(id, 1, 2_000_000 + id * 10_000, "hipLaunchKernel"));
        batch.push(kernel(id, AGENT0, 0, 2_000_000 + id * 10_000, "k"));
    }
    collector.add_events(&mut batch);
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(all_events(gpu).count(), 3);
    assert_eq!(all_events(plane(&space, "/host:ROCTRACER")).count(), 3);
    // 7 kernels over the cap, and their 7 launches left out with them: each kind once
    // (not "Dropped 14 events" under the activity cap).
    let drops = collector.drop_counters();
    assert_eq!(drops.count(DropReason::ActivityCapReached), 7);
    assert_eq!(drops.count(DropReason::ApiOfCappedActivity), 7);
    assert_eq!(drops.count(DropReason::CallbackCapReached), 0);
    assert_eq!(drops.count(DropReason::ApiWithoutActivity), 0);
    assert!(space
        .warnings
        .iter()
        .any(|w| w.starts_with("Dropped 7 events: GPU activities over the GPU activity cap")));
    assert!(space.warnings.iter().any(
        |w| w.starts_with("Dropped 7 events: HIP API events left out because the GPU activity cap")
    ));
}

#[test]
fn with_the_api_cap_alone_lost_kernels_are_not_counted_under_it() {
    let collector = capped(4, u64::MAX, 100);
    // API records come first (their own buffer flush), then the kernels.
    let mut calls: Vec<_> = (0..10u64)
        .map(|id| api(id, 1, 2_000_000 + id * 10_000, "hipLaunchKernel"))
        .collect();
    let mut kernels: Vec<_> = (0..10u64)
        .map(|id| kernel(id, AGENT0, 0, 2_000_000 + id * 10_000, "k"))
        .collect();
    collector.add_events(&mut calls);
    collector.add_events(&mut kernels);
    let space = export(&collector);
    assert_eq!(all_events(plane(&space, "/device:GPU:0")).count(), 4);
    assert_eq!(all_events(plane(&space, "/host:ROCTRACER")).count(), 4);
    let drops = collector.drop_counters();
    assert_eq!(drops.count(DropReason::CallbackCapReached), 6);
    assert_eq!(drops.count(DropReason::ActivityOfCappedApi), 6);
    assert_eq!(drops.count(DropReason::ActivityCapReached), 0);
    assert_eq!(drops.count(DropReason::NoApiCounterpart), 0);
}

#[test]
fn annotation_cap_keeps_the_first_strings_in_launch_order_not_arrival_order() {
    let collector = capped(100, 100, 3);
    // Batches arrive out of launch order (two threads' buffers, say): ids 7, 3, 0..10.
    let annotated = |id: u64| annotated_launch(id, &format!("ann_{id}"));
    collector.add_events(&mut annotated(7));
    collector.add_events(&mut annotated(3));
    for id in (0..10).filter(|id| ![3, 7].contains(id)) {
        collector.add_events(&mut annotated(id));
    }
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    let mut kept: Vec<_> = all_events(gpu)
        .filter_map(|event| stat(gpu, &event.stats, "tf_op"))
        .collect();
    kept.sort();
    kept.dedup();
    assert_eq!(kept, ["ref:ann_0", "ref:ann_1", "ref:ann_2"]);
    assert_eq!(
        collector
            .drop_counters()
            .count(DropReason::AnnotationCapReached),
        14,
        "7 launches and their 7 kernels lost their annotation"
    );
}

#[test]
fn activity_cap_bounds_what_is_stored() {
    let collector = capped(u64::MAX, 100, 100);
    for round in 0..50u64 {
        let mut batch: Vec<_> = (0..100)
            .map(|i| kernel(round * 100 + i, AGENT0, 0, 2_000_000, "k"))
            .collect();
        collector.add_events(&mut batch);
    }
    collector.flush();
    let stored = collector.with_collected(|trace| trace.num_device_events());
    assert_eq!(stored, 0, "activities without API events are not kept");
    let drops = collector.drop_counters();
    assert_eq!(drops.count(DropReason::ActivityCapReached), 4_900);
    assert_eq!(drops.count(DropReason::NoApiCounterpart), 100);
}

#[test]
fn annotation_cap_keeps_the_event_without_its_annotation() {
    let collector = capped(100, 100, 1);
    let mut batch = Vec::new();
    for (id, annotation) in [(1u64, "first_op"), (2, "second_op"), (3, "first_op")] {
        batch.extend(annotated_launch(id, annotation));
    }
    collector.add_events(&mut batch);
    let space = export(&collector);
    let tf_ops = gpu_tf_ops(&space);
    assert_eq!(
        tf_ops,
        [
            Some("ref:first_op".to_owned()),
            None,
            Some("ref:first_op".to_owned())
        ]
    );
    assert_eq!(
        collector
            .drop_counters()
            .count(DropReason::AnnotationCapReached),
        2
    );
    // The events are kept: the warning must not call them dropped. XLA sets this cap from the
    // same flag as the event caps.
    let annotation_warnings: Vec<_> = space
        .warnings
        .iter()
        .filter(|w| w.contains("max_annotation_strings"))
        .collect();
    let expected = format!(
        "Kept 2 events without their annotation: the annotation string cap \
         (max_annotation_strings) was reached. To keep more annotations, set \
         XLA_FLAGS={MAX_TRACE_EVENTS_FLAG}=<larger value>"
    );
    assert_eq!(annotation_warnings, [&expected]);
}

#[test]
fn tracer_side_drops_are_exported_by_reason() {
    let collector = collector(1);
    collector.on_events_dropped(DropReason::Truncated, 3);
    collector.on_events_dropped(DropReason::Truncated, 2);
    collector.on_events_dropped(DropReason::SdkDropped, 7);
    collector.on_events_dropped(DropReason::NoSession, 0);
    collector.add_reported_drop("lost by the caller", 4);
    let space = export(&collector);
    assert_eq!(
        space.warnings,
        [
            "Dropped 5 events: lost in the tracer: rocprofiler record smaller than its struct",
            "Dropped 7 events: lost in the tracer: records dropped by rocprofiler-sdk (buffer full)",
            "Dropped 4 events: lost by the caller",
        ]
    );
}

#[test]
fn annotation_cap_counts_strings_across_flushes() {
    let collector = capped(100, 100, 2);
    collector.add_events(&mut annotated_launch(1, "a"));
    collector.add_events(&mut annotated_launch(2, "b"));
    collector.flush();
    // "a" was admitted by the first flush; "c" would be a third string.
    collector.add_events(&mut annotated_launch(3, "a"));
    collector.add_events(&mut annotated_launch(4, "c"));
    let tf_ops = gpu_tf_ops(&export(&collector));
    assert_eq!(
        tf_ops,
        [
            Some("ref:a".to_owned()),
            Some("ref:b".to_owned()),
            Some("ref:a".to_owned()),
            None
        ]
    );
    assert_eq!(
        collector
            .drop_counters()
            .count(DropReason::AnnotationCapReached),
        2
    );
}

/// A kernel launch (its API event and its dispatch) under `annotation`.
fn annotated_launch(id: u64, annotation: &str) -> Vec<RocmTracerEvent> {
    let mut call = api(id, 1, 2_000_000 + id * 100_000, "hipLaunchKernel");
    call.annotation = Some(Arc::from(annotation));
    let mut dispatch = kernel(id, AGENT0, 0, 2_000_000 + id * 100_000, "k");
    dispatch.annotation = call.annotation.clone();
    vec![call, dispatch]
}

/// The `tf_op` stat of every event on GPU 0's plane.
fn gpu_tf_ops(space: &XSpace) -> Vec<Option<String>> {
    let gpu = plane(space, "/device:GPU:0");
    all_events(gpu)
        .map(|event| stat(gpu, &event.stats, "tf_op"))
        .collect()
}
