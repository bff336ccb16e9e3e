//! Shared by the `tracer_*` integration tests: a recording sink and small helpers.
#![allow(dead_code)]
use std::collections::BTreeMap;
use std::sync::Arc;
use xla_rocm_tracer::collector::{CaptureStart, Collector, CollectorOptions};
use xla_rocm_tracer::drop_reason::DropReason;

use parking_lot::Mutex;
use xla_rocm_tracer::event::{EventSource, RocmTracerEvent};
use xla_rocm_tracer::sink::{EventSink, SessionEnd};
use xla_rocm_tracer::tracer::{Tracer, TracerOptions};

/// The simulator's virtual clock (read once per process, so for a child): virtual time moves
/// only with HIP calls, sleeps and synchronizes, so a kernel record due after its lag is
/// pushed only when later work moves time past it, the same way on every run.
pub const VIRTUAL_CLOCK: (&str, &str) = ("ROCSIM_MACHINE", "clock = \"virtual\"");

/// Keeps every event, batch size, drop and session end it is given.
#[derive(Default)]
pub struct RecordingSink {
    pub events: Mutex<Vec<RocmTracerEvent>>,
    pub batches: Mutex<Vec<usize>>,
    pub drops: Mutex<BTreeMap<String, u64>>,
    pub flushes: Mutex<u32>,
    /// What the last session's end carried.
    pub end: Mutex<Option<SessionEnd>>,
}

impl RecordingSink {
    pub fn new() -> Arc<RecordingSink> {
        Arc::new(RecordingSink::default())
    }

    pub fn events(&self) -> Vec<RocmTracerEvent> {
        self.events.lock().clone()
    }

    pub fn activities(&self) -> Vec<RocmTracerEvent> {
        self.events()
            .into_iter()
            .filter(|e| e.source == EventSource::Activity)
            .collect()
    }

    pub fn api_events(&self) -> Vec<RocmTracerEvent> {
        self.events()
            .into_iter()
            .filter(|e| e.source == EventSource::ApiCallback)
            .collect()
    }

    pub fn by_correlation(&self, correlation_id: u64) -> Vec<RocmTracerEvent> {
        self.events()
            .into_iter()
            .filter(|e| e.correlation_id == correlation_id)
            .collect()
    }

    pub fn total_drops(&self) -> u64 {
        self.drops.lock().values().sum()
    }
}

impl EventSink for RecordingSink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        self.batches.lock().push(batch.len());
        self.events.lock().append(batch);
    }

    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        *self
            .drops
            .lock()
            .entry(reason.describe().to_owned())
            .or_default() += count;
    }

    fn end_session(&self, end: SessionEnd) {
        self.on_events_dropped(DropReason::InFlightAtDisable, end.in_flight);
        self.drops.lock().retain(|_, count| *count > 0);
        *self.flushes.lock() += 1;
        *self.end.lock() = Some(end);
    }
}

/// Lets `disable()`'s wait for in-flight records move the simulator's clock (under the
/// virtual clock, time stands still otherwise; under the real clock this is a real sleep).
pub fn wait_on_simulated_time() {
    xla_rocm_tracer::tracer::set_wait_sleeper(rocprofiler_sdk_sim::driver::host_sleep);
}

/// Enables `tracer` with the default options and a new [`RecordingSink`], and returns the sink.
pub fn start_recording(tracer: &Tracer) -> Arc<RecordingSink> {
    wait_on_simulated_time();
    let sink = RecordingSink::new();
    tracer
        .enable(TracerOptions::default(), sink.clone())
        .expect("enable the tracer");
    sink
}

/// The OS thread id, as rocprofiler reports it in records.
pub fn gettid() -> u64 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
}

/// Enables `tracer` with the default options and a new Rust collector: the tracer's events
/// as the collector joins them (copies named by their call, pieces merged).
pub fn start_collecting(tracer: &Tracer) -> Arc<Collector> {
    wait_on_simulated_time();
    let collector = Arc::new(Collector::new(
        CollectorOptions {
            num_gpus: tracer.num_gpus(),
            ..CollectorOptions::default()
        },
        CaptureStart {
            walltime_ns: 0,
            gputime_ns: Tracer::timestamp(),
        },
    ));
    tracer
        .enable(TracerOptions::default(), collector.clone())
        .expect("enable the tracer");
    collector
}

/// The joined events of `correlation_id` the collector keeps, on devices or host only.
pub fn joined(collector: &Collector, correlation_id: u64) -> Vec<RocmTracerEvent> {
    collector.with_collected(|trace| {
        trace
            .device_ordinals()
            .flat_map(|ordinal| trace.device_events(ordinal))
            .chain(trace.host_only.iter().cloned())
            .filter(|e| e.correlation_id == correlation_id)
            .collect()
    })
}
