//! Shared by the `stress_*` and `reliability_*` tests: sinks that count what they get, the
//! simulator's record ledger, and the accounting equations those tests assert exactly.
#![allow(dead_code)]
use sim_test_kit::child;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use rocprofiler_sdk_sim::driver;
use rocprofiler_sdk_sys as sys;
use xla_rocm_tracer::collector::{
    CaptureStart, Collector, CollectorOptions, DropReason, GpuAgentInfo,
};
use xla_rocm_tracer::event::{EventSource, EventType, RocmTracerEvent};
use xla_rocm_tracer::export::{ExportOptions, XSpace};
use xla_rocm_tracer::sink::{EventSink, SessionEnd};
use xla_rocm_tracer::testing::sdk;
use xla_rocm_tracer::tracer::Tracer;

/// The three kinds of buffer record the tracer asks for.
pub const TRACED_KINDS: [u32; 3] = [
    sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
    sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
    sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
];

/// Counts every event and drop it is given; optionally sleeps per batch (a slow collector)
/// and forwards to a [`Collector`].
#[derive(Default)]
pub struct CountingSink {
    pub api_events: AtomicU64,
    pub kernel_events: AtomicU64,
    pub copy_events: AtomicU64,
    pub other_events: AtomicU64,
    pub batches: AtomicU64,
    pub flushes: AtomicU64,
    pub drops: Mutex<BTreeMap<String, u64>>,
    pub delay_per_batch: Duration,
    pub forward_to: Option<Arc<Collector>>,
}

impl CountingSink {
    pub fn new() -> Arc<CountingSink> {
        Arc::new(CountingSink::default())
    }

    pub fn slow(delay_per_batch: Duration) -> Arc<CountingSink> {
        Arc::new(CountingSink {
            delay_per_batch,
            ..CountingSink::default()
        })
    }

    pub fn forwarding(collector: Arc<Collector>) -> Arc<CountingSink> {
        Arc::new(CountingSink {
            forward_to: Some(collector),
            ..CountingSink::default()
        })
    }

    pub fn events(&self) -> u64 {
        self.api_events.load(Ordering::Relaxed)
            + self.kernel_events.load(Ordering::Relaxed)
            + self.copy_events.load(Ordering::Relaxed)
            + self.other_events.load(Ordering::Relaxed)
    }

    pub fn drop_count(&self, reason: &str) -> u64 {
        self.drops.lock().get(reason).copied().unwrap_or(0)
    }

    pub fn total_drops(&self) -> u64 {
        self.drops.lock().values().sum()
    }

    /// Records this sink accounted for: events plus drops, except the SDK's own discards
    /// (those never reached the tracer as records) and the records still in flight at Disable
    /// (not delivered then; if they come later they are the tracer's late records).
    pub fn records_accounted(&self) -> u64 {
        self.events() + self.total_drops()
            - self.drop_count(DropReason::SdkDropped.describe())
            - self.drop_count(DropReason::InFlightAtDisable.describe())
    }
}

impl EventSink for CountingSink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        if !self.delay_per_batch.is_zero() {
            std::thread::sleep(self.delay_per_batch);
        }
        self.batches.fetch_add(1, Ordering::Relaxed);
        for event in batch.iter() {
            let counter = match (event.source, event.event_type) {
                (EventSource::ApiCallback, _) => &self.api_events,
                (EventSource::Activity, EventType::Kernel) => &self.kernel_events,
                (EventSource::Activity, t) if t.is_memcpy() => &self.copy_events,
                _ => &self.other_events,
            };
            counter.fetch_add(1, Ordering::Relaxed);
        }
        match &self.forward_to {
            Some(collector) => collector.add_events(batch),
            None => batch.clear(),
        }
    }

    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        *self
            .drops
            .lock()
            .entry(reason.describe().to_owned())
            .or_default() += count;
        if let Some(collector) = &self.forward_to {
            collector.on_events_dropped(reason, count);
        }
    }

    fn end_session(&self, end: SessionEnd) {
        if end.in_flight > 0 {
            *self
                .drops
                .lock()
                .entry(DropReason::InFlightAtDisable.describe().to_owned())
                .or_default() += end.in_flight;
        }
        self.flushes.fetch_add(1, Ordering::Relaxed);
        if let Some(collector) = &self.forward_to {
            collector.end_session(end);
        }
    }
}

/// What the simulator did with the tracer's buffer, plus the tracer's own no-session count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    pub written: [u64; 3],
    pub other_written: u64,
    pub discarded: u64,
    pub delivered: u64,
    pub destroyed: u64,
    pub without_session: u64,
    /// Kernel and copy records that arrived after their session ended.
    pub late: u64,
}

impl Ledger {
    pub fn total_written(&self) -> u64 {
        self.written.iter().sum::<u64>() + self.other_written
    }

    /// `self - before`, field by field.
    pub fn since(&self, before: &Ledger) -> Ledger {
        Ledger {
            written: std::array::from_fn(|i| self.written[i] - before.written[i]),
            other_written: self.other_written - before.other_written,
            discarded: self.discarded - before.discarded,
            delivered: self.delivered - before.delivered,
            destroyed: self.destroyed - before.destroyed,
            without_session: self.without_session - before.without_session,
            late: self.late - before.late,
        }
    }
}

pub fn ledger() -> Ledger {
    let tracer = Tracer::get();
    let buffer = tracer.buffer().expect("the tracer is initialized");
    let counts = rocprofiler_sdk_sim::record_counts(buffer.handle).expect("the buffer exists");
    let written = TRACED_KINDS.map(|kind| counts.written(kind));
    Ledger {
        written,
        other_written: counts.total_written() - written.iter().sum::<u64>(),
        discarded: counts.total_discarded(),
        delivered: counts.delivered,
        destroyed: counts.destroyed_undelivered,
        without_session: tracer.records_without_session(),
        late: tracer.late_records_of_ended_sessions(),
    }
}

/// Makes the simulated program's one pinned staging buffer exist: it is allocated, with one
/// traced `hipHostMalloc`, at the program's first pinned copy (the driver's
/// `pinned_staging_buffer`). A test that counts records exactly calls this before it starts
/// counting, so that the allocation never lands inside its count.
pub fn allocate_pinned_staging() {
    let copy = driver::Copy {
        kind: driver::CopyKind::HostToDevice,
        bytes: 64,
        src_device: None,
        dst_device: None,
        duration_ns: 1_000,
    };
    driver::memcpy_sync(&copy).expect("a pinned warm-up copy");
}

/// Waits until all device work completed and every record left the tracer's buffer.
pub fn settle() {
    driver::wait_idle();
    let buffer = Tracer::get().buffer().expect("the tracer is initialized");
    sdk::flush_buffer(buffer).expect("flush the tracer's buffer");
}

/// The exact accounting of one test: every record the simulator wrote into the tracer's buffer
/// was delivered to the tracer, and every delivered record became an event of some sink, a
/// drop counted by reason at some sink, or a record counted as arriving without a session.
pub fn assert_every_record_accounted(delta: &Ledger, sinks: &[&CountingSink]) {
    assert_eq!(delta.other_written, 0, "unexpected record kinds: {delta:?}");
    assert_eq!(delta.destroyed, 0, "{delta:?}");
    assert_eq!(
        delta.total_written(),
        delta.delivered,
        "records written but never delivered: {delta:?}"
    );
    let at_sinks: u64 = sinks.iter().map(|sink| sink.records_accounted()).sum();
    assert_eq!(
        delta.delivered,
        at_sinks + delta.without_session + delta.late,
        "delivered records = sink events + sink drops + records without a session + late \
         records of ended sessions: {delta:?}, sinks got {at_sinks}"
    );
    let sdk_dropped: u64 = sinks
        .iter()
        .map(|sink| sink.drop_count(DropReason::SdkDropped.describe()))
        .sum();
    assert_eq!(sdk_dropped, delta.discarded, "SDK discards are reported");
}

pub fn collector_for_session(options: CollectorOptions) -> Arc<Collector> {
    let tracer = Tracer::get();
    let options = CollectorOptions {
        num_gpus: tracer.num_gpus(),
        ..options
    };
    let start = CaptureStart {
        walltime_ns: 1_700_000_000_000_000_000,
        gputime_ns: Tracer::timestamp(),
    };
    let collector = Arc::new(Collector::new(options, start));
    collector.set_gpu_agents(tracer.gpu_agents().iter().map(GpuAgentInfo::from).collect());
    collector
}

/// Drop reasons whose events are gone (the annotation cap keeps its events).
const EVENT_LOSING_REASONS: [DropReason; 10] = [
    DropReason::CallbackCapReached,
    DropReason::ActivityCapReached,
    DropReason::ApiOfCappedActivity,
    DropReason::ActivityOfCappedApi,
    DropReason::NoApiCounterpart,
    DropReason::DuplicateCorrelationId,
    DropReason::InvalidDevice,
    DropReason::OutOfTimeWindow,
    DropReason::NoLane,
    DropReason::InvalidSource,
];

/// N of the warning line "Dropped N events: <text>..." ("event" for one) whose text starts
/// with `text`.
pub fn warned_count(space: &XSpace, text: &str) -> u64 {
    space
        .warnings
        .iter()
        .filter_map(|line| {
            let rest = line.strip_prefix("Dropped ")?;
            let (count, what) = rest
                .split_once(" events: ")
                .or_else(|| rest.split_once(" event: "))?;
            what.starts_with(text).then(|| count.parse::<u64>().ok())?
        })
        .sum()
}

pub fn exported_events(space: &XSpace) -> u64 {
    space
        .planes
        .iter()
        .flat_map(|plane| plane.lines.iter())
        .map(|line| line.events.len() as u64)
        .sum()
}

/// Exports the collector and asserts that every event it was given is in the XSpace or in a
/// warning that counts it (or, for API calls without GPU work, in the collector's counter),
/// and that the tracer's drops reached the XSpace's warnings. Returns the XSpace.
pub fn assert_collector_accounts(collector: &Collector, fed: &CountingSink) -> XSpace {
    let space = collector.export(Tracer::timestamp(), &ExportOptions::default());
    let exported = exported_events(&space);
    let lost: u64 = EVENT_LOSING_REASONS
        .iter()
        .map(|reason| warned_count(&space, reason.describe()))
        .sum();
    let expected_api_only = collector
        .drop_counters()
        .count(DropReason::ApiWithoutActivity);
    assert_eq!(
        fed.events(),
        exported + lost + expected_api_only,
        "collector: given = exported + dropped by reason (warnings: {:#?})",
        space.warnings
    );
    for (reason, count) in fed.drops.lock().iter() {
        let events = if *count == 1 { "event" } else { "events" };
        let line = format!("Dropped {count} {events}: lost in the tracer: {reason}");
        assert!(
            space.warnings.contains(&line),
            "missing `{line}` in {:#?}",
            space.warnings
        );
    }
    space
}

/// A tiny deterministic generator (xorshift64*), so a failing run can be replayed by seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The kernels every stress thread may launch, loaded once on GPU 0.
pub fn stress_kernels() -> &'static [driver::KernelId] {
    static KERNELS: std::sync::OnceLock<Vec<driver::KernelId>> = std::sync::OnceLock::new();
    KERNELS.get_or_init(|| {
        let (_, ids) = driver::load_code_object(
            0,
            &[
                "_Z6matmulPfS_S_i",
                "_Z4gemvPKfS0_Pf",
                "_Z7softmaxPfi",
                "_Z9layernormPfS_f",
            ],
        )
        .expect("load the stress kernels");
        ids
    })
}

/// What one traffic thread issued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Issued {
    pub hip_calls: u64,
    pub kernel_dispatches: u64,
    pub sdma_copies: u64,
}

impl Issued {
    /// The records of each of [`TRACED_KINDS`] that this traffic makes.
    pub fn records(&self) -> [u64; 3] {
        [self.hip_calls, self.kernel_dispatches, self.sdma_copies]
    }
}

/// Waits for every traffic thread and adds up what they issued.
pub fn join_traffic(threads: Vec<std::thread::JoinHandle<Issued>>) -> Issued {
    let mut issued = Issued::default();
    for thread in threads {
        issued += thread.join().expect("traffic thread");
    }
    issued
}

impl std::ops::AddAssign for Issued {
    fn add_assign(&mut self, other: Issued) {
        self.hip_calls += other.hip_calls;
        self.kernel_dispatches += other.kernel_dispatches;
        self.sdma_copies += other.sdma_copies;
    }
}

/// The random HIP program of the stress tests: `calls` HIP calls over `streams` fresh streams
/// (some sharing HSA queues), launching kernels, graphs, copies of every direction, memsets,
/// plain API calls and synchronizations. Returns what it issued (every HIP call makes one API
/// record; SDMA copies make MEMORY_COPY records, kernels, graphs, memsets and same-GPU
/// device-to-device copies make KERNEL_DISPATCH records).
pub fn random_hip_traffic(seed: u64, calls: u64, streams: usize) -> Issued {
    let mut rng = Rng::new(seed);
    let kernels = stress_kernels();
    let mut issued = Issued::default();
    let mut own_streams = Vec::with_capacity(streams);
    for i in 0..streams {
        let stream = driver::stream_create().expect("stream");
        issued.hip_calls += 1;
        if i % 2 == 1 {
            // Streams of different threads may share a queue.
            driver::bind_stream_to_queue(stream, 0x5000 + (seed % 3) * 0x100 + i as u64)
                .expect("bind");
        }
        own_streams.push(stream);
    }
    let malloc = driver::hip_operation("hipMalloc").expect("hipMalloc");
    let get_last_error = driver::hip_operation("hipGetLastError").expect("hipGetLastError");
    while issued.hip_calls < calls {
        let stream = match rng.below(8) {
            0 => driver::NULL_STREAM,
            1 => driver::STREAM_PER_THREAD,
            _ => own_streams[rng.below(own_streams.len() as u64) as usize],
        };
        let duration_ns = 100 + rng.below(900);
        let launch = |kernel: driver::KernelId| driver::KernelLaunch {
            kernel,
            grid: [256, 1, 1],
            block: [64, 1, 1],
            private_segment_size: 0,
            group_segment_size: 0,
            duration_ns,
        };
        let kernel = kernels[rng.below(kernels.len() as u64) as usize];
        match rng.below(100) {
            0..=39 => {
                driver::launch_kernel(stream, &launch(kernel)).expect("launch");
                issued.kernel_dispatches += 1;
            }
            40..=44 => {
                driver::module_launch_kernel(stream, &launch(kernel)).expect("launch");
                issued.kernel_dispatches += 1;
            }
            45..=47 => {
                let n = 1 + rng.below(3);
                let nodes: Vec<_> = (0..n).map(|_| launch(kernel)).collect();
                driver::graph_launch(stream, &nodes).expect("graph");
                issued.kernel_dispatches += n;
            }
            48..=77 => {
                let kind = match rng.below(4) {
                    0 => driver::CopyKind::HostToDevice,
                    1 => driver::CopyKind::DeviceToHost,
                    2 => driver::CopyKind::DeviceToDevice,
                    _ => driver::CopyKind::HostToHost,
                };
                let copy = driver::Copy {
                    kind,
                    bytes: 64 << rng.below(12),
                    src_device: None,
                    dst_device: None,
                    duration_ns,
                };
                driver::memcpy_async(stream, &copy).expect("copy");
                let blit_max = rocprofiler_sdk_sim::machine::machine().sdma_threshold;
                match kind {
                    // One GPU: a device-to-device copy is a blit kernel; so is a small copy
                    // to or from the host (docs/simulator-fidelity.md, "Small copies").
                    driver::CopyKind::DeviceToDevice => issued.kernel_dispatches += 1,
                    _ if kind != driver::CopyKind::HostToHost && copy.bytes <= blit_max => {
                        issued.kernel_dispatches += 1
                    }
                    // The HIP runtime copies host to host with the CPU: no SDK record.
                    driver::CopyKind::HostToHost => {}
                    _ => issued.sdma_copies += 1,
                }
            }
            78..=82 => {
                driver::memset_async(stream, 4096, duration_ns).expect("memset");
                issued.kernel_dispatches += 1;
            }
            83..=93 => {
                let op = if rng.below(2) == 0 {
                    malloc
                } else {
                    get_last_error
                };
                driver::api_call(op, None).expect("api call");
            }
            94..=97 => driver::api_call(get_last_error, Some(stream))
                .map(drop)
                .expect("api"),
            _ => driver::stream_synchronize(stream).expect("sync"),
        }
        issued.hip_calls += 1;
    }
    for stream in own_streams {
        driver::stream_synchronize(stream).expect("sync");
        driver::stream_destroy(stream).expect("destroy");
        issued.hip_calls += 2;
    }
    issued
}

/// Synthetic joined pairs for the collector: correlation id `i` has a HIP API event and a
/// kernel activity on GPU agent `gpu_handle`, stream `i % 8`, thread `i % 4`, all starting at
/// `base_ns` or later.
pub fn synthetic_pair(i: u64, gpu_handle: u64, base_ns: u64) -> [RocmTracerEvent; 2] {
    use xla_rocm_tracer::event::{EventDetails, EventDomain, KernelDetails};
    let name: Arc<str> = Arc::from("matmul(float*, float*)");
    let start = base_ns + i * 10;
    let api = RocmTracerEvent {
        event_type: EventType::Kernel,
        source: EventSource::ApiCallback,
        domain: EventDomain::HipApi,
        name: Arc::from("hipLaunchKernel"),
        start_time_ns: start,
        end_time_ns: start + 5,
        correlation_id: i,
        thread_id: 1000 + i % 4,
        details: EventDetails::Kernel(KernelDetails::default()),
        ..RocmTracerEvent::default()
    };
    let activity = RocmTracerEvent {
        event_type: EventType::Kernel,
        source: EventSource::Activity,
        domain: EventDomain::HipOps,
        name,
        start_time_ns: start + 2,
        end_time_ns: start + 9,
        device_id: gpu_handle as u32,
        correlation_id: i,
        thread_id: 1000 + i % 4,
        stream_id: i % 8,
        details: EventDetails::Kernel(KernelDetails {
            grid_x: 256,
            workgroup_x: 64,
            ..KernelDetails::default()
        }),
        ..RocmTracerEvent::default()
    };
    [api, activity]
}

/// Whether the calling test's body should run in this process. [`random_hip_traffic`] issues
/// HIP calls on `hipStreamPerThread`, which only the newer SDKs' stream map gives ids of its
/// own: the SDK 1.0.0 of ROCm 7.0 aborts the process on the first such call, 1.1.0 (7.1, 7.2)
/// folds it into the null stream. That is the SDK's behaviour, not the product's, so tests with
/// this traffic run in a child process with `stream_map = "newer"` (and the machine's release
/// otherwise): under another map this re-runs `test` there, asserts that it passed and returns
/// false; under the newer map it returns true.
pub fn under_newer_stream_map(test: &str) -> bool {
    use rocprofiler_sdk_sim::machine::{machine, StreamMap};
    if machine().stream_map == StreamMap::Newer {
        return true;
    }
    let keys = format!(
        "rocm = \"{}\", stream_map = \"newer\"",
        machine().rocm.as_str()
    );
    let output = child::rerun(test, &[("ROCSIM_MACHINE", keys.as_str())]);
    child::assert_passed(&format!("{test} (stream_map = \"newer\")"), &output);
    false
}
