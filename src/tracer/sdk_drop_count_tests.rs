//! End to end, on the simulated SDK: the tracer's reading of the SDK's cumulative drop count
//! (`callbacks.rs`) over several sessions, through the one-page DISCARD buffer of the unit
//! tests' seam (`setup.rs`). A sibling of both, so that neither needs the other.

/// End to end: the simulated SDK's DISCARD buffer drops records and passes its running
/// total with every callback; over three sessions the sinks are told each drop once, and
/// a kernel record the SDK dropped is not counted again as in flight at disable.
#[test]
fn records_the_sdk_drops_are_reported_once_across_sessions() {
    use crate::drop_reason::DropReason;
    use crate::event::EventSource;
    use crate::sink::{EventSink, SessionEnd};
    use crate::tracer::setup::DISCARD_BUFFER_TEST_ENV;
    use crate::tracer::{Tracer, TracerOptions};
    use parking_lot::Mutex;
    use rocprofiler_sdk_sim::driver::{self, KernelLaunch};
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    /// Kernel records delivered, and what the tracer counted lost, by reason.
    #[derive(Default)]
    struct Tally {
        events: AtomicU64,
        activities: AtomicU64,
        drops: Mutex<BTreeMap<DropReason, u64>>,
    }
    impl Tally {
        fn count(&self, reason: DropReason) -> u64 {
            self.drops.lock().get(&reason).copied().unwrap_or(0)
        }
    }
    impl EventSink for Tally {
        fn add_events(&self, batch: &mut Vec<crate::event::RocmTracerEvent>) {
            self.events.fetch_add(batch.len() as u64, Ordering::Relaxed);
            let activities = batch
                .drain(..)
                .filter(|event| event.source == EventSource::Activity)
                .count();
            self.activities
                .fetch_add(activities as u64, Ordering::Relaxed);
        }
        fn on_events_dropped(&self, reason: DropReason, count: u64) {
            *self.drops.lock().entry(reason).or_insert(0) += count;
        }
        fn end_session(&self, end: SessionEnd) {
            self.on_events_dropped(DropReason::InFlightAtDisable, end.in_flight);
        }
    }

    const NAME: &str =
        "tracer::sdk_drop_count_tests::records_the_sdk_drops_are_reported_once_across_sessions";
    // The buffer is made once per process, at the tool's initialize: in a child process.
    if std::env::var_os(DISCARD_BUFFER_TEST_ENV).is_none() {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
            .env(DISCARD_BUFFER_TEST_ENV, "1")
            .env("ROCSIM_MACHINE", "clock = \"virtual\"")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("1 passed"),
            "{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        return;
    }
    let tracer = Tracer::get();
    let buffer = tracer.buffer().expect("the tracer is set up");
    let (_, kernels) = driver::load_code_object(0, &["_Z4stepv"]).unwrap();
    let stream = driver::stream_create().unwrap();
    let launch = KernelLaunch {
        kernel: kernels[0],
        grid: [64, 1, 1],
        block: [64, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 1_000,
    };
    let discarded = || {
        rocprofiler_sdk_sim::record_counts(buffer.handle)
            .expect("the tracer's buffer")
            .total_discarded()
    };
    let mut reported = Vec::new();
    let mut discarded_before = 0;
    // The first session fills the page (drops counted); the later ones' records the SDK
    // loses uncounted or delivers, and their sinks must not be told the first one's drops
    // again, though every callback passes the SDK's running total.
    for session in 0..3 {
        let sink = Arc::new(Tally::default());
        let options = TracerOptions {
            disable_wait: Duration::ZERO,
            ..TracerOptions::default()
        };
        tracer.enable(options, sink.clone()).unwrap();
        for _ in 0..100 {
            driver::launch_kernel(stream, &launch).unwrap();
        }
        driver::stream_synchronize(stream).unwrap();
        tracer.disable();
        let now = discarded();
        let drops = &sink;
        assert_eq!(
            drops.count(DropReason::SdkDropped),
            now - discarded_before,
            "session {session}: each record the SDK dropped, once: {:?}",
            drops.drops.lock()
        );
        reported.push(drops.count(DropReason::SdkDropped));
        let arrived = sink.activities.load(Ordering::Relaxed);
        let counted = arrived
            + drops.count(DropReason::InFlightAtDisable)
            + drops.count(DropReason::SdkDropped);
        if session == 0 {
            // The one page fills: the SDK drops (and counts) the rest of the session's
            // records, kernels among them, which are also missing at disable.
            assert!(now > 0, "the one-page buffer dropped records");
            assert!(drops.count(DropReason::SdkDropped) < 100);
            assert_eq!(counted, 100, "{:?}", drops.drops.lock());
        } else {
            // After a flush DISCARD writes into its unallocated half: the SDK loses
            // records without counting them, and only the in-flight count tells.
            assert_eq!(now, discarded_before);
            assert_eq!(counted, 100, "{:?}", drops.drops.lock());
        }
        if session == 2 {
            // This session had a callback, which carried the first session's total.
            assert!(sink.events.load(Ordering::Relaxed) > 0);
        }
        discarded_before = now;
    }
    assert_eq!(reported.iter().sum::<u64>(), discarded());
}
