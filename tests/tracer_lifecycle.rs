//! The tracer's lifecycle against the simulator: enable/disable cycles isolate sessions,
//! `disable()` alone is safe, SDK failures at start/stop/flush produce errors (with the SDK's
//! status string) and leave the tracer usable, options are honoured.
mod tracer_common;

use sim_test_kit::child;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;
use rocprofiler_sdk_sim::driver::{self, CopyKind, KernelId, KernelLaunch};
use rocprofiler_sdk_sim::faults;
use rocprofiler_sdk_sys as sys;
use tracer_common::{start_recording, wait_on_simulated_time, RecordingSink, VIRTUAL_CLOCK};
use xla_rocm_tracer::drop_reason::DropReason;
use xla_rocm_tracer::event::EventSource;
use xla_rocm_tracer::testing::sdk;
use xla_rocm_tracer::tracer::annotation::{pop_annotation, push_annotation};
use xla_rocm_tracer::tracer::{Tracer, TracerError, TracerOptions};

static SESSION: Mutex<()> = Mutex::new(());

fn kernel() -> KernelId {
    static KERNEL: OnceLock<KernelId> = OnceLock::new();
    *KERNEL.get_or_init(|| {
        let (_, ids) = driver::load_code_object(0, &["_Z4stepv"]).unwrap();
        ids[0]
    })
}

fn launch(duration_ns: u64) -> KernelLaunch {
    KernelLaunch {
        kernel: kernel(),
        grid: [64, 1, 1],
        block: [64, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns,
    }
}

/// One session around one kernel launch yields its API event and its activity.
fn assert_a_session_traces_a_kernel(tracer: &Tracer) {
    let sink = start_recording(tracer);
    let id = driver::launch_kernel(driver::NULL_STREAM, &launch(1_000)).unwrap();
    driver::device_synchronize().unwrap();
    tracer.disable();
    assert_eq!(sink.by_correlation(id).len(), 2);
}

fn correlations(sink: &RecordingSink) -> BTreeSet<u64> {
    sink.events().iter().map(|e| e.correlation_id).collect()
}

#[test]
fn disable_without_enable_is_a_no_op() {
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    tracer.disable();
    tracer.disable();
    assert!(tracer.is_available());
}

#[test]
fn initialization_facts() {
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    assert!(tracer.init_error().is_none(), "{:?}", tracer.init_error());
    assert_eq!(tracer.num_gpus(), 1);
    let gpu = &tracer.gpu_agents()[0];
    assert_eq!(gpu.name, "gfx942");
    assert!(gpu.cu_count > 0 && gpu.capabilities.memory_size_bytes > 0);
    assert!(gpu.handle >= 255, "agent handles carry the SDK's offset");
    assert!(
        tracer.agents().unwrap().len() >= 2,
        "CPU agents are kept too"
    );
    assert!(tracer.sdk_version().unwrap().is_supported());
    let handle = xla_rocm_tracer::testing::registration::client_handle();
    assert!(rocprofiler_sdk_sim::client_names()
        .contains(&(handle, Some("XLA-with-rocprofiler-sdk".to_owned()))));
    // Utility and stream contexts run for the whole process; the main one only in a session.
    assert!(sdk::context_is_active(tracer.utility_context().unwrap()).unwrap());
    assert!(sdk::context_is_active(tracer.stream_context().unwrap()).unwrap());
    assert!(!sdk::context_is_active(tracer.main_context().unwrap()).unwrap());
    let t0 = Tracer::timestamp();
    let t1 = Tracer::timestamp();
    assert!(t0 > 0 && t1 >= t0);
}

#[test]
fn enable_twice_is_already_exists_and_the_main_context_runs_only_in_a_session() {
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    let sink = start_recording(tracer);
    assert!(!tracer.is_available());
    assert!(sdk::context_is_active(tracer.main_context().unwrap()).unwrap());
    let second = tracer.enable(TracerOptions::default(), RecordingSink::new());
    assert_eq!(second, Err(TracerError::AlreadyExists));
    tracer.disable();
    assert!(tracer.is_available());
    assert!(!sdk::context_is_active(tracer.main_context().unwrap()).unwrap());
    assert_eq!(*sink.flushes.lock(), 1);
}

#[test]
fn sessions_are_isolated() {
    // In its own process: another test's session ending just before this one could still
    // deliver late records into this test's first session, rightly counted as drops from an
    // earlier session, which the assertions below would blame on this test's sessions.
    if !child::in_child("sessions_are_isolated", &[]) {
        return;
    }
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    let stream = driver::stream_create().unwrap();

    let first = start_recording(tracer);
    let in_first = driver::launch_kernel(stream, &launch(1_000)).unwrap();
    driver::stream_synchronize(stream).unwrap();
    // Still running on the device when the session ends.
    let long_stream = driver::stream_create().unwrap();
    let straddling = driver::launch_kernel(long_stream, &launch(80_000_000)).unwrap();
    tracer.disable();

    let between = driver::launch_kernel(stream, &launch(1_000)).unwrap();

    let second = start_recording(tracer);
    let in_second = driver::launch_kernel(stream, &launch(1_000)).unwrap();
    driver::device_synchronize().unwrap();
    tracer.disable();

    let first_ids = correlations(&first);
    let second_ids = correlations(&second);
    assert!(first_ids.contains(&in_first));
    assert!(!first_ids.contains(&between) && !first_ids.contains(&in_second));
    assert!(second_ids.contains(&in_second));
    assert!(!second_ids.contains(&in_first) && !second_ids.contains(&between));
    assert!(
        !second
            .activities()
            .iter()
            .any(|e| e.correlation_id == straddling),
        "a kernel of the first session leaked into the second"
    );
    // The straddling kernel was in flight at the first disable(), which waited for it:
    // it belongs to the first session (assigned by correlation id), and nothing of the
    // first session shows up among the second's drops.
    assert!(
        first_ids.contains(&straddling),
        "disable() waited for the in-flight kernel"
    );
    // One lock for value and message: locking again while the first guard lives (as
    // this assertion used to) deadlocks exactly when the assertion fails.
    let first_drops = first.drops.lock().clone();
    assert!(first_drops.is_empty(), "{first_drops:?}");
    let second_drops = second.drops.lock().clone();
    assert!(second_drops.is_empty(), "{second_drops:?}");
}

#[test]
fn start_context_failure_is_internal_with_the_sdk_message_and_recoverable() {
    if !child::in_child(
        "start_context_failure_is_internal_with_the_sdk_message_and_recoverable",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    faults::inject(
        "rocprofiler_start_context",
        sys::ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES,
        None,
    );
    let sink = RecordingSink::new();
    let error = tracer.enable(TracerOptions::default(), sink.clone());
    faults::clear();
    let Err(TracerError::Internal(error)) = error else {
        panic!("expected an internal error, got {error:?}");
    };
    assert_eq!(error.call, "rocprofiler_start_context");
    assert_eq!(error.status, sys::ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES);
    let message = TracerError::Internal(error.clone()).to_string();
    assert!(
        message.starts_with("rocprofiler_start_context failed: "),
        "{message}"
    );
    assert!(
        message.contains(&sdk::status_string(
            sys::ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES
        )),
        "{message}"
    );
    assert!(tracer.is_available(), "state was reset");
    tracer.disable(); // nothing to disable
    assert_eq!(*sink.flushes.lock(), 0);

    assert_a_session_traces_a_kernel(tracer);
}

#[test]
fn stop_and_flush_failures_still_end_the_session() {
    if !child::in_child(
        "stop_and_flush_failures_still_end_the_session",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    for failing in ["rocprofiler_stop_context", "rocprofiler_flush_buffer"] {
        let sink = start_recording(tracer);
        faults::inject(failing, sys::ROCPROFILER_STATUS_ERROR, None);
        tracer.disable();
        faults::clear();
        assert!(tracer.is_available(), "{failing}");
        assert_eq!(*sink.flushes.lock(), 1, "{failing}");
    }
    // And the next session works normally.
    assert_a_session_traces_a_kernel(tracer);
}

#[test]
fn max_annotation_strings_is_honoured() {
    if !child::in_child("max_annotation_strings_is_honoured", &[VIRTUAL_CLOCK]) {
        return;
    }
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    wait_on_simulated_time();
    let sink = RecordingSink::new();
    tracer
        .enable(
            TracerOptions {
                max_annotation_strings: 2,
                ..TracerOptions::default()
            },
            sink.clone(),
        )
        .unwrap();
    let mut ids = Vec::new();
    for name in ["a", "b", "c", "a"] {
        push_annotation(name);
        ids.push(driver::launch_kernel(driver::NULL_STREAM, &launch(1_000)).unwrap());
        pop_annotation();
    }
    driver::device_synchronize().unwrap();
    tracer.disable();
    let annotation_of = |id| {
        sink.by_correlation(id)
            .into_iter()
            .find(|e| e.source == EventSource::Activity)
            .unwrap()
            .annotation
    };
    assert_eq!(annotation_of(ids[0]).as_deref(), Some("a"));
    assert_eq!(annotation_of(ids[1]).as_deref(), Some("b"));
    assert_eq!(annotation_of(ids[2]), None, "the map was full");
    assert_eq!(tracer.annotation_map().max_strings(), 2);
    assert!(tracer.annotation_map().dropped() >= 1);

    // The next session gets a fresh, larger map.
    let sink = start_recording(tracer);
    push_annotation("c");
    let id = driver::launch_kernel(driver::NULL_STREAM, &launch(1_000)).unwrap();
    pop_annotation();
    driver::device_synchronize().unwrap();
    tracer.disable();
    assert!(sink
        .by_correlation(id)
        .iter()
        .all(|e| e.annotation.as_deref() == Some("c")));
}

/// A sink that tries to end the session from inside its own callback.
struct ReentrantSink(RecordingSink);

impl xla_rocm_tracer::sink::EventSink for ReentrantSink {
    fn add_events(&self, batch: &mut Vec<xla_rocm_tracer::event::RocmTracerEvent>) {
        let tracer = Tracer::get();
        assert!(!tracer.is_available());
        assert_eq!(
            tracer.enable(TracerOptions::default(), RecordingSink::new()),
            Err(TracerError::AlreadyExists)
        );
        tracer.disable();
        self.0.add_events(batch);
    }
    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        self.0.on_events_dropped(reason, count);
    }
    fn end_session(&self, end: xla_rocm_tracer::sink::SessionEnd) {
        self.0.end_session(end);
    }
}

#[test]
fn disable_from_inside_the_sink_does_not_deadlock() {
    if !child::in_child(
        "disable_from_inside_the_sink_does_not_deadlock",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    wait_on_simulated_time();
    let sink = Arc::new(ReentrantSink(RecordingSink::default()));
    tracer
        .enable(TracerOptions::default(), sink.clone())
        .unwrap();
    let id = driver::launch_kernel(driver::NULL_STREAM, &launch(1_000)).unwrap();
    driver::device_synchronize().unwrap();
    tracer.disable();
    assert_eq!(sink.0.by_correlation(id).len(), 2);
    assert!(tracer.is_available());
}

#[test]
fn concurrent_hip_traffic_across_many_enable_disable_cycles() {
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    let stop = Arc::new(AtomicBool::new(false));
    let issued: Arc<Mutex<BTreeSet<u64>>> = Arc::default();
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (stop, issued) = (stop.clone(), issued.clone());
            std::thread::spawn(move || {
                let stream = driver::stream_create().unwrap();
                while !stop.load(Ordering::Relaxed) {
                    let id = driver::launch_kernel(stream, &launch(5_000)).unwrap();
                    let copy = driver::Copy {
                        kind: CopyKind::HostToDevice,
                        bytes: 4096,
                        src_device: None,
                        dst_device: None,
                        duration_ns: 5_000,
                    };
                    let copy_id = driver::memcpy_async(stream, &copy).unwrap();
                    issued.lock().extend([id, copy_id]);
                }
                driver::stream_synchronize(stream).unwrap();
            })
        })
        .collect();
    let mut sessions = Vec::new();
    for _ in 0..20 {
        let sink = RecordingSink::new();
        let start = Tracer::timestamp();
        tracer
            .enable(TracerOptions::default(), sink.clone())
            .unwrap();
        std::thread::sleep(Duration::from_millis(3));
        tracer.disable();
        sessions.push((start, sink));
    }
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        worker.join().unwrap();
    }
    let issued = issued.lock();
    let mut all = BTreeSet::new();
    let mut total = 0;
    for (start, sink) in &sessions {
        assert_eq!(*sink.flushes.lock(), 1);
        for event in sink.events() {
            assert!(
                event.start_time_ns >= *start,
                "event older than its session"
            );
            if event.source == EventSource::Activity {
                assert!(issued.contains(&event.correlation_id));
                assert!(all.insert(event.correlation_id), "activity in two sessions");
            }
            total += 1;
        }
    }
    assert!(total > 0, "the sessions saw traffic");
    assert!(tracer.is_available());
}

/// Launches `n` kernels of 1 ms on a fresh stream and returns their correlation ids.
fn launch_in_flight(n: usize) -> Vec<u64> {
    let stream = driver::stream_create().unwrap();
    (0..n)
        .map(|_| driver::launch_kernel(stream, &launch(1_000_000)).unwrap())
        .collect()
}

#[test]
fn disable_waits_for_kernels_in_flight() {
    if !child::in_child("disable_waits_for_kernels_in_flight", &[VIRTUAL_CLOCK]) {
        return;
    }
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    let sink = start_recording(tracer);
    let ids = launch_in_flight(5);
    // No synchronize: the session ends while the five kernels still run (and their records
    // come a lag after they end, as on the real SDK).
    tracer.disable();
    for id in &ids {
        assert_eq!(sink.by_correlation(*id).len(), 2, "kernel {id} is complete");
    }
    assert_eq!(sink.total_drops(), 0, "{:?}", sink.drops.lock());
    assert_eq!(tracer.records_in_flight(), 0);
}

#[test]
fn disable_without_waiting_counts_the_kernels_in_flight_and_keeps_them_out_of_the_next_session() {
    if !child::in_child(
        "disable_without_waiting_counts_the_kernels_in_flight_and_keeps_them_out_of_the_next_session",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    let _session = SESSION.lock();
    let tracer = Tracer::get();
    wait_on_simulated_time();
    let first = RecordingSink::new();
    let no_wait = TracerOptions {
        disable_wait: Duration::ZERO,
        ..TracerOptions::default()
    };
    tracer.enable(no_wait, first.clone()).unwrap();
    let ids = launch_in_flight(5);
    tracer.disable();
    let first_drops = first.drops.lock().clone();
    assert_eq!(
        first_drops
            .get(DropReason::InFlightAtDisable.describe())
            .copied(),
        Some(5),
        "{first_drops:?}"
    );
    assert!(first.activities().is_empty());
    for id in &ids {
        let events = first.by_correlation(*id);
        assert_eq!(events.len(), 1, "the launch itself was traced: {events:?}");
        assert_eq!(events[0].source, EventSource::ApiCallback);
    }

    let second = start_recording(tracer);
    let own = driver::launch_kernel(driver::NULL_STREAM, &launch(1_000)).unwrap();
    driver::wait_idle(); // the first session's kernels land now, in the second session
    tracer.disable();
    let second_ids = correlations(&second);
    assert!(second_ids.contains(&own));
    assert!(
        ids.iter().all(|id| !second_ids.contains(id)),
        "{second_ids:?}"
    );
    assert_eq!(second.total_drops(), 0, "{:?}", second.drops.lock());
    assert_eq!(tracer.late_records_of_ended_sessions(), 5);
}

#[test]
fn disable_wait_comes_from_the_environment() {
    use xla_rocm_tracer::tracer::{disable_wait_from_env, DEFAULT_DISABLE_WAIT, DISABLE_WAIT_ENV};
    if !child::in_child(
        "disable_wait_comes_from_the_environment",
        &[(DISABLE_WAIT_ENV, "250")],
    ) {
        return;
    }
    assert_eq!(disable_wait_from_env(), Duration::from_millis(250));
    assert_eq!(
        TracerOptions::default().disable_wait,
        Duration::from_millis(250)
    );
    assert_eq!(DEFAULT_DISABLE_WAIT, Duration::from_secs(1));
}
