//! A session still enabled when the process exits: the SDK finalizes without flushing any
//! buffer, and the tracer's finalize flushes before it stops, so the session's sink gets what
//! the buffer held; the SDK has stopped the tracer's contexts by then, and the
//! CONTEXT_NOT_FOUND answers to the tracer's own stop calls are expected, so not warned about.
mod tracer_common;

use sim_test_kit::child;
use std::sync::Mutex;

use rocprofiler_sdk_sim::driver::{self, KernelLaunch};
use tracer_common::{start_recording, VIRTUAL_CLOCK};
use xla_rocm_tracer::event::EventSource;
use xla_rocm_tracer::tracer::Tracer;

/// Keeps every warning and error logged in this process.
struct Warnings(Mutex<Vec<String>>);

impl log::Log for Warnings {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn
    }
    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            self.0.lock().unwrap().push(record.args().to_string());
        }
    }
    fn flush(&self) {}
}

static WARNINGS: Warnings = Warnings(Mutex::new(Vec::new()));

#[test]
fn a_session_running_at_exit_delivers_its_tail_quietly() {
    if !child::in_child(
        "a_session_running_at_exit_delivers_its_tail_quietly",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    log::set_logger(&WARNINGS).unwrap();
    log::set_max_level(log::LevelFilter::Warn);
    let (_, kernels) = driver::load_code_object(0, &["_Z4stepv"]).unwrap();
    let tracer = Tracer::get();
    let sink = start_recording(tracer);
    let stream = driver::stream_create().unwrap();
    let ids: Vec<u64> = (0..4)
        .map(|_| {
            driver::launch_kernel(
                stream,
                &KernelLaunch {
                    kernel: kernels[0],
                    grid: [64, 1, 1],
                    block: [64, 1, 1],
                    private_segment_size: 0,
                    group_segment_size: 0,
                    duration_ns: 5_000,
                },
            )
            .unwrap()
        })
        .collect();
    driver::stream_synchronize(stream).unwrap();
    assert!(
        sink.events().is_empty(),
        "below the watermark: nothing delivered yet"
    );
    // What the SDK does at process exit, without exiting.
    rocprofiler_sdk_sim::finalize_as_at_exit();
    for id in &ids {
        let events = sink.by_correlation(*id);
        assert_eq!(events.len(), 2, "kernel {id}: {events:?}");
        assert!(events.iter().any(|e| e.source == EventSource::Activity));
    }
    let warnings = WARNINGS.0.lock().unwrap().clone();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(!tracer.is_available(), "finalized");
}
