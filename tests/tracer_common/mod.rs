//! Shared by the `tracer_*` integration tests: a recording sink and small helpers.
#![allow(dead_code)]
use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;
use xla_rocm_tracer::event::{EventSource, RocmTracerEvent};
use xla_rocm_tracer::sink::EventSink;

/// Keeps every event, batch size, drop and flush it is given.
#[derive(Default)]
pub struct RecordingSink {
    pub events: Mutex<Vec<RocmTracerEvent>>,
    pub batches: Mutex<Vec<usize>>,
    pub drops: Mutex<BTreeMap<String, u64>>,
    pub flushes: Mutex<u32>,
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

    fn on_events_dropped(&self, reason: &str, count: u64) {
        *self.drops.lock().entry(reason.to_owned()).or_default() += count;
    }

    fn flush(&self) {
        *self.flushes.lock() += 1;
    }
}

/// The OS thread id, as rocprofiler reports it in records.
pub fn gettid() -> u64 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
}

/// Environment variable that marks a re-executed child test process.
pub const CHILD_MARKER: &str = "XLA_ROCM_TRACER_TEST_CHILD";

pub fn is_child() -> bool {
    std::env::var_os(CHILD_MARKER).is_some()
}

/// Runs the single test `test_name` of this test binary in a fresh process with `envs` set
/// (the SDK, and with it the tracer, initializes once per process, before `main`).
pub fn rerun_test_with_env(test_name: &str, envs: &[(&str, &str)]) -> std::process::Output {
    let exe = std::env::current_exe().expect("test binary path");
    let mut command = std::process::Command::new(exe);
    command
        .args([test_name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_MARKER, "1");
    for (key, value) in envs {
        command.env(key, value);
    }
    command.output().expect("re-run the test binary")
}

/// Fails with the child's output unless it passed.
pub fn assert_child_passed(what: &str, output: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{what}: child failed ({:?})\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
}
