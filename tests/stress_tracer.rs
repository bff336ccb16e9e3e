//! Load on the tracer through the simulated SDK, with exact accounting: every record the
//! simulator wrote into the tracer's buffer is an event at a sink, a drop counted by reason,
//! or a record counted as arriving without a session (`reliability_support`).
//!
//! Release only (`cargo test --release --test 'stress_*'`); in debug builds they are ignored
//! so that `cargo test --workspace` stays fast. Sizes can be scaled with `STRESS_SCALE`
//! (a float, default 1).
mod reliability_support;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use reliability_support::*;
use rocprofiler_sdk_sys as sys;
use xla_rocm_tracer::collector::CollectorOptions;
use xla_rocm_tracer::drop_reason::DropReason;
use xla_rocm_tracer::tracer::{Tracer, TracerOptions, BUFFER_SIZE_BYTES};

/// One stress test at a time: they share the process-wide tracer and the sim's counters.
static SERIAL: Mutex<()> = Mutex::new(());

fn scaled(n: u64) -> u64 {
    let scale: f64 = std::env::var("STRESS_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    ((n as f64 * scale) as u64).max(1)
}

/// One measured stress run: the simulator's ledger and the clock at its start.
struct Run {
    before: Ledger,
    started: Instant,
}

impl Run {
    /// Loads the kernels and drains earlier work, so that the ledger counts this run only.
    fn begin() -> Run {
        stress_kernels();
        allocate_pinned_staging();
        settle();
        Run {
            before: ledger(),
            started: Instant::now(),
        }
    }

    /// Waits for the device, ends the session, and returns [`Run::finish`].
    fn end_session(&self, what: &str) -> Ledger {
        rocprofiler_sdk_sim::driver::wait_idle();
        Tracer::get().disable();
        self.finish(what)
    }

    /// Drains the tracer's buffer, prints the run's figures, and returns what it wrote.
    fn finish(&self, what: &str) -> Ledger {
        settle();
        let delta = ledger().since(&self.before);
        eprintln!(
            "{what}: {:.1}s, records written {:?} (HIP API, kernel, copy), delivered {}, \
             without session {}",
            self.started.elapsed().as_secs_f64(),
            delta.written,
            delta.delivered,
            delta.without_session
        );
        delta
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release-only stress test")]
fn sixteen_threads_of_random_hip_traffic_lose_nothing() {
    // hipStreamPerThread traffic: valid only under the newer SDKs' stream map.
    if !under_newer_stream_map("sixteen_threads_of_random_hip_traffic_lose_nothing") {
        return;
    }
    let _serial = SERIAL.lock();
    let tracer = Tracer::get();
    let run = Run::begin();
    let sink = CountingSink::new();
    tracer
        .enable(TracerOptions::default(), sink.clone())
        .unwrap();
    let calls_per_thread = scaled(100_000);
    let threads: Vec<_> = (0..16)
        .map(|seed| std::thread::spawn(move || random_hip_traffic(seed, calls_per_thread, 4)))
        .collect();
    let issued = join_traffic(threads);
    let delta = run.end_session("16 threads");

    assert_every_record_accounted(&delta, &[&sink]);
    // Nothing was lost at all, and the records are exactly the calls the program made.
    assert_eq!(sink.total_drops(), 0, "{:?}", sink.drops.lock().clone());
    assert_eq!(delta.without_session, 0);
    assert!(issued.hip_calls >= 16 * calls_per_thread);
    assert_eq!(delta.written, issued.records());
    assert_eq!(sink.api_events.load(Ordering::Relaxed), issued.hip_calls);
    assert_eq!(
        sink.kernel_events.load(Ordering::Relaxed),
        issued.kernel_dispatches
    );
    assert_eq!(sink.copy_events.load(Ordering::Relaxed), issued.sdma_copies);
    assert_eq!(sink.other_events.load(Ordering::Relaxed), 0);
    assert_eq!(sink.flushes.load(Ordering::Relaxed), 1);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release-only stress test")]
fn a_thousand_enable_disable_cycles_under_traffic_account_for_every_record() {
    // hipStreamPerThread traffic: valid only under the newer SDKs' stream map.
    if !under_newer_stream_map(
        "a_thousand_enable_disable_cycles_under_traffic_account_for_every_record",
    ) {
        return;
    }
    let _serial = SERIAL.lock();
    let tracer = Tracer::get();
    let run = Run::begin();
    let stop = Arc::new(AtomicBool::new(false));
    let traffic: Vec<_> = (0..4)
        .map(|seed| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut issued = Issued::default();
                let mut round = 0;
                while !stop.load(Ordering::Relaxed) {
                    issued += random_hip_traffic(100 + seed * 1000 + round, 200, 2);
                    round += 1;
                }
                issued
            })
        })
        .collect();
    let cycles = scaled(1000);
    let mut sessions = Vec::with_capacity(cycles as usize);
    let mut rng = Rng::new(7);
    for cycle in 0..cycles {
        // Every tenth session feeds a real collector and is checked through its export.
        let collector =
            (cycle % 10 == 0).then(|| collector_for_session(CollectorOptions::default()));
        let sink = match &collector {
            Some(collector) => CountingSink::forwarding(collector.clone()),
            None => CountingSink::new(),
        };
        tracer
            .enable(TracerOptions::default(), sink.clone())
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.below(300)));
        tracer.disable();
        assert_eq!(sink.flushes.load(Ordering::Relaxed), 1);
        if let Some(collector) = collector {
            assert_collector_accounts(&collector, &sink);
        }
        sessions.push(sink);
    }
    stop.store(true, Ordering::Relaxed);
    let issued = join_traffic(traffic);
    let delta = run.finish("1000 cycles");
    let sinks: Vec<&CountingSink> = sessions.iter().map(|s| s.as_ref()).collect();
    assert_every_record_accounted(&delta, &sinks);
    // Between sessions the main context is stopped, so the program made more calls than
    // there were records, and some records straddled a session boundary.
    assert!(issued.hip_calls >= delta.written[0]);
    let delivered_to_sessions: u64 = sinks.iter().map(|s| s.events()).sum();
    assert!(delivered_to_sessions > 0, "the sessions saw traffic");
    assert!(tracer.is_available());
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release-only stress test")]
fn threads_that_exit_mid_session_lose_nothing() {
    // hipStreamPerThread traffic: valid only under the newer SDKs' stream map.
    if !under_newer_stream_map("threads_that_exit_mid_session_lose_nothing") {
        return;
    }
    let _serial = SERIAL.lock();
    let tracer = Tracer::get();
    let run = Run::begin();
    let collector = collector_for_session(CollectorOptions::default());
    let sink = CountingSink::forwarding(collector.clone());
    tracer
        .enable(TracerOptions::default(), sink.clone())
        .unwrap();
    let mut issued = Issued::default();
    // Waves of short-lived threads: each exits with its kernels still on the device and its
    // thread-local stream stack torn down while the session runs.
    for wave in 0..scaled(40) {
        let threads: Vec<_> = (0..8)
            .map(|i| {
                std::thread::spawn(move || {
                    let stream = rocprofiler_sdk_sim::driver::stream_create().unwrap();
                    let kernel = stress_kernels()[0];
                    for _ in 0..50 {
                        rocprofiler_sdk_sim::driver::launch_kernel(
                            stream,
                            &rocprofiler_sdk_sim::driver::KernelLaunch {
                                kernel,
                                grid: [64, 1, 1],
                                block: [64, 1, 1],
                                private_segment_size: 0,
                                group_segment_size: 0,
                                duration_ns: 20_000,
                            },
                        )
                        .unwrap();
                    }
                    let mut issued = Issued {
                        hip_calls: 51,
                        kernel_dispatches: 50,
                        sdma_copies: 0,
                    };
                    issued += random_hip_traffic(wave * 8 + i, 50, 1);
                    issued
                })
            })
            .collect();
        issued += join_traffic(threads);
    }
    let delta = run.end_session("exiting threads");
    assert_every_record_accounted(&delta, &[&sink]);
    assert_eq!(sink.total_drops(), 0);
    assert_eq!(delta.written, issued.records());
    let space = assert_collector_accounts(&collector, &sink);
    // Each activity found its API call: no activity was lost to a missing counterpart.
    assert_eq!(
        warned_count(
            &space,
            xla_rocm_tracer::collector::DropReason::NoApiCounterpart.describe()
        ),
        0
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release-only stress test")]
fn a_slow_collector_with_the_lossless_buffer_full_blocks_producers_and_loses_nothing() {
    // hipStreamPerThread traffic: valid only under the newer SDKs' stream map.
    if !under_newer_stream_map(
        "a_slow_collector_with_the_lossless_buffer_full_blocks_producers_and_loses_nothing",
    ) {
        return;
    }
    let _serial = SERIAL.lock();
    let tracer = Tracer::get();
    let run = Run::begin();
    let collector = collector_for_session(CollectorOptions::default());
    let slow = Arc::new(CountingSink {
        delay_per_batch: Duration::from_millis(25),
        forward_to: Some(collector.clone()),
        ..CountingSink::default()
    });
    tracer
        .enable(TracerOptions::default(), slow.clone())
        .unwrap();
    // One HIP API record is 64 bytes: a half-buffer holds 6400, so 8 x 5000 calls overrun
    // both halves several times while each callback sleeps.
    let api_record = std::mem::size_of::<sys::rocprofiler_buffer_tracing_hip_api_record_t>();
    let calls = scaled(5_000);
    assert!(8 * calls as usize * api_record > 4 * BUFFER_SIZE_BYTES);
    let longest_call_ns = Arc::new(AtomicU64::new(0));
    let threads: Vec<_> = (0..8)
        .map(|seed| {
            let longest = longest_call_ns.clone();
            std::thread::spawn(move || {
                let op = rocprofiler_sdk_sim::driver::hip_operation("hipGetLastError").unwrap();
                for _ in 0..calls {
                    let t = Instant::now();
                    rocprofiler_sdk_sim::driver::api_call(op, None).unwrap();
                    longest.fetch_max(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
                }
                let mut issued = random_hip_traffic(500 + seed, 200, 2);
                issued.hip_calls += calls;
                issued
            })
        })
        .collect();
    let issued = join_traffic(threads);
    let delta = run.end_session("slow collector");
    assert_every_record_accounted(&delta, &[&slow]);
    assert_eq!(delta.discarded, 0, "LOSSLESS never discards");
    assert_eq!(slow.total_drops(), 0, "{:?}", slow.drops.lock().clone());
    assert_eq!(delta.written, issued.records());
    // A producer waited for the sleeping callback: the buffer really was full.
    assert!(
        longest_call_ns.load(Ordering::Relaxed) >= 10_000_000,
        "no HIP call blocked on the full buffer (longest {} ns)",
        longest_call_ns.load(Ordering::Relaxed)
    );
    assert_eq!(
        slow.drop_count(DropReason::SdkDropped.describe()),
        0,
        "the LOSSLESS buffer dropped records"
    );
    assert_collector_accounts(&collector, &slow);
}
