//! SDK faults during sessions, sink panics and finalization while a buffer callback is in
//! flight. Initialization faults are covered by `tracer_init_faults.rs`, start/stop/flush
//! errors and their messages by `tracer_lifecycle.rs`; here every such fault also runs under
//! HIP traffic with the exact record accounting of `reliability_support`.
mod reliability_support;

use sim_test_kit::child;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use reliability_support::*;
use rocprofiler_sdk_sim::{driver, faults};
use rocprofiler_sdk_sys as sys;
use xla_rocm_tracer::drop_reason::DropReason;
use xla_rocm_tracer::event::RocmTracerEvent;
use xla_rocm_tracer::sink::{EventSink, SessionEnd};
use xla_rocm_tracer::testing::sdk;
use xla_rocm_tracer::tracer::{Tracer, TracerError, TracerOptions};

static SERIAL: Mutex<()> = Mutex::new(());

fn main_context_active() -> bool {
    sdk::context_is_active(Tracer::get().main_context().unwrap()).unwrap()
}

/// Fails the next call of `function` only.
fn fail_next(function: &str, status: u32) {
    faults::inject(function, status, Some(faults::call_count(function) + 1));
}

fn traffic(seed: u64) -> Issued {
    random_hip_traffic(seed, 300, 2)
}

#[test]
fn a_failed_start_leaves_nothing_running_and_the_next_session_is_complete() {
    // hipStreamPerThread traffic: valid only under the newer SDKs' stream map.
    if !under_newer_stream_map(
        "a_failed_start_leaves_nothing_running_and_the_next_session_is_complete",
    ) {
        return;
    }
    let _serial = SERIAL.lock();
    let tracer = Tracer::get();
    settle();
    let before = ledger();
    for status in [
        sys::ROCPROFILER_STATUS_ERROR,
        sys::ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID,
        sys::ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES,
    ] {
        fail_next("rocprofiler_start_context", status);
        let refused = CountingSink::new();
        let error = tracer
            .enable(TracerOptions::default(), refused.clone())
            .unwrap_err();
        let TracerError::Internal(sdk_error) = &error else {
            panic!("internal error expected, got {error:?}");
        };
        assert_eq!(sdk_error.status, status);
        assert!(error.to_string().contains(&sdk::status_string(status)));
        assert!(error.to_string().contains(&sdk::status_name(status)));
        // Nothing half-configured: no session, main context stopped, traffic unrecorded.
        assert!(tracer.is_available());
        assert!(!main_context_active());
        traffic(status as u64);
        settle();
        assert_eq!(ledger().since(&before).total_written(), 0);
        tracer.disable();
        assert_eq!(refused.flushes.load(Ordering::Relaxed), 0);
        assert_eq!(refused.events() + refused.total_drops(), 0);
    }
    faults::clear();
    let sink = CountingSink::new();
    tracer
        .enable(TracerOptions::default(), sink.clone())
        .unwrap();
    let issued = traffic(99);
    driver::wait_idle();
    tracer.disable();
    settle();
    let delta = ledger().since(&before);
    assert_every_record_accounted(&delta, &[&sink]);
    assert_eq!(delta.written, issued.records());
    assert_eq!(sink.total_drops(), 0);
}

#[test]
fn stop_and_flush_faults_under_traffic_lose_no_record_uncounted() {
    // hipStreamPerThread traffic: valid only under the newer SDKs' stream map.
    if !under_newer_stream_map("stop_and_flush_faults_under_traffic_lose_no_record_uncounted") {
        return;
    }
    let _serial = SERIAL.lock();
    let tracer = Tracer::get();
    settle();
    let before = ledger();
    let mut sinks = Vec::new();
    for failing in [
        "rocprofiler_stop_context",
        "rocprofiler_flush_buffer",
        "rocprofiler_get_timestamp",
    ] {
        let sink = CountingSink::new();
        if failing == "rocprofiler_get_timestamp" {
            fail_next(failing, sys::ROCPROFILER_STATUS_ERROR);
        }
        tracer
            .enable(TracerOptions::default(), sink.clone())
            .unwrap();
        traffic(1);
        if failing != "rocprofiler_get_timestamp" {
            fail_next(failing, sys::ROCPROFILER_STATUS_ERROR);
        }
        tracer.disable();
        faults::clear();
        assert!(tracer.is_available(), "{failing}");
        assert_eq!(sink.flushes.load(Ordering::Relaxed), 1, "{failing}");
        if failing == "rocprofiler_stop_context" {
            // The SDK refused to stop: the context still records, into no session...
            assert!(main_context_active());
            let during = ledger();
            traffic(2);
            settle();
            assert!(ledger().since(&during).without_session > 0);
        }
        sinks.push(sink);
        // ...until the next session, which starts and stops it normally.
        let next = CountingSink::new();
        tracer
            .enable(TracerOptions::default(), next.clone())
            .unwrap();
        let issued = traffic(3);
        driver::wait_idle();
        tracer.disable();
        assert!(!main_context_active(), "{failing}");
        assert!(
            next.api_events.load(Ordering::Relaxed) >= issued.hip_calls,
            "{failing}"
        );
        sinks.push(next);
    }
    settle();
    let delta = ledger().since(&before);
    let sinks: Vec<&CountingSink> = sinks.iter().map(|s| s.as_ref()).collect();
    assert_every_record_accounted(&delta, &sinks);
}

/// A user sink that panics: in `add_events` on every `panic_every`-th batch (before taking
/// anything), in `on_events_dropped` when told to, and in `end_session`.
#[derive(Default)]
struct PanickingSink {
    counted: CountingSink,
    batches: AtomicU64,
    panic_every: u64,
    panic_on_drops: bool,
}

impl EventSink for PanickingSink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        if self
            .batches
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(self.panic_every)
        {
            panic!("user collector failure (injected)");
        }
        self.counted.add_events(batch);
    }
    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        if self.panic_on_drops {
            panic!("user collector failure in on_events_dropped (injected)");
        }
        self.counted.on_events_dropped(reason, count);
    }
    fn end_session(&self, _end: SessionEnd) {
        panic!("user collector failure in end_session (injected)");
    }
}

#[test]
fn a_panicking_sink_does_not_take_the_process_down_and_its_events_are_counted() {
    // hipStreamPerThread traffic: valid only under the newer SDKs' stream map.
    if !under_newer_stream_map(
        "a_panicking_sink_does_not_take_the_process_down_and_its_events_are_counted",
    ) {
        return;
    }
    let _serial = SERIAL.lock();
    let tracer = Tracer::get();
    settle();
    let before = ledger();
    let lost_before = tracer.drops_lost_to_sink_panics();

    let sink = Arc::new(PanickingSink {
        panic_every: 2,
        ..PanickingSink::default()
    });
    tracer
        .enable(TracerOptions::default(), sink.clone())
        .unwrap();
    // Many small callbacks: batches alternate between panicking and not.
    for seed in 0..20 {
        traffic(seed);
        driver::wait_idle();
        sdk::flush_buffer(tracer.buffer().unwrap()).unwrap();
    }
    tracer.disable(); // end_session() panics: the session still ends
    assert!(
        tracer.is_available(),
        "a panicking flush left the tracer running"
    );
    assert!(sink.batches.load(Ordering::Relaxed) >= 4);
    let panicked = sink.counted.drop_count(DropReason::SinkPanicked.describe());
    assert!(panicked > 0 && sink.counted.events() > 0);

    // A sink that panics everywhere: its lost batches are counted by the tracer itself.
    let hopeless = Arc::new(PanickingSink {
        panic_every: 1,
        panic_on_drops: true,
        ..PanickingSink::default()
    });
    tracer
        .enable(TracerOptions::default(), hopeless.clone())
        .unwrap();
    traffic(50);
    driver::wait_idle();
    tracer.disable();
    settle();
    let delta = ledger().since(&before);
    let lost = tracer.drops_lost_to_sink_panics() - lost_before;
    assert!(lost > 0);
    assert_eq!(
        hopeless.counted.events() + hopeless.counted.total_drops(),
        0
    );
    assert_eq!(
        delta.total_written(),
        delta.delivered,
        "every record reached the tracer"
    );
    assert_eq!(
        delta.delivered,
        sink.counted.records_accounted() + lost + delta.without_session,
        "delivered = events + counted drops (SINK_PANICKED included) + counts the tracer kept"
    );

    // And tracing goes on normally.
    let healthy = CountingSink::new();
    tracer
        .enable(TracerOptions::default(), healthy.clone())
        .unwrap();
    let issued = traffic(77);
    driver::wait_idle();
    tracer.disable();
    assert_eq!(healthy.api_events.load(Ordering::Relaxed), issued.hip_calls);
}

/// Set once the child's test body is done, so the sink can tell callbacks that run during
/// process exit (the SDK's atexit finalization) from earlier ones.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Prints a marker for every callback that finished during exit.
struct SlowExitSink(CountingSink);

impl EventSink for SlowExitSink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        let exiting_at_start = EXITING.load(Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(300));
        let n = batch.len();
        self.0.add_events(batch);
        if EXITING.load(Ordering::SeqCst) {
            eprintln!(
                "SLOW-CALLBACK-DONE-DURING-EXIT events={n} started_during_exit={exiting_at_start}"
            );
        }
    }
    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        self.0.on_events_dropped(reason, count);
    }
    fn end_session(&self, end: SessionEnd) {
        self.0.end_session(end);
    }
}

#[test]
fn finalization_at_exit_during_a_slow_buffer_callback_is_clean() {
    if child::is_any_child() {
        return;
    }
    for mode in ["return", "exit-with-traffic"] {
        // The child's traffic uses hipStreamPerThread, valid only under the newer SDKs' stream
        // map (SDK 1.0.0 aborts on it).
        let output = child::rerun(
            "child_exits_during_a_slow_callback",
            &[("MODE", mode), ("ROCSIM_MACHINE", "stream_map = \"newer\"")],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        if mode == "return" {
            child::assert_passed_without_panic(mode, &output);
        } else {
            assert!(
                output.status.success() && !stderr.contains("panicked"),
                "{mode}: {:?}\n{stderr}",
                output.status
            );
        }
        assert!(
            stderr.contains("SLOW-CALLBACK-DONE-DURING-EXIT"),
            "{mode}: no buffer callback was in flight at exit\n{stderr}"
        );
    }
}

/// Runs only in a child: leaves a session running with a buffer callback sleeping in the
/// sink, then lets the process exit; the simulated SDK's atexit handler finalizes (stops the
/// contexts, waits for the callback, flushes the rest, calls the tool's finalize).
#[test]
fn child_exits_during_a_slow_callback() {
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    let sink = Arc::new(SlowExitSink(CountingSink::default()));
    tracer
        .enable(TracerOptions::default(), sink.clone())
        .unwrap();
    // Fill past the watermark so that a callback starts (and sleeps), then add more records
    // that only the finalization flush can deliver.
    traffic(1);
    let op = driver::hip_operation("hipGetLastError").unwrap();
    for _ in 0..3_000 {
        driver::api_call(op, None).unwrap();
    }
    let mode = std::env::var("MODE").unwrap();
    if mode == "exit-with-traffic" {
        // HIP calls go on while the process exits (no device work: finalization waits for
        // the device to drain, and endless kernels would keep it busy).
        for _ in 0..3 {
            std::thread::spawn(move || while driver::api_call(op, None).is_ok() {});
        }
        std::thread::sleep(Duration::from_millis(20));
        EXITING.store(true, Ordering::SeqCst);
        std::process::exit(0);
    }
    EXITING.store(true, Ordering::SeqCst);
}
