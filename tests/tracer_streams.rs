//! Stream attribution through the simulator's real SDK call path: every kernel and copy must
//! carry the SDK stream id its issuing thread had set (openxla/xla#46182), and `queue_id` the
//! HSA queue it ran on.
mod tracer_common;

use sim_test_kit::child;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Barrier, OnceLock};

use parking_lot::Mutex;
use rocprofiler_sdk_sim::driver::{
    self, Copy, CopyKind, HipStream, KernelId, KernelLaunch, NULL_STREAM, STREAM_LEGACY,
    STREAM_PER_THREAD,
};
use tracer_common::{gettid, start_recording, RecordingSink, VIRTUAL_CLOCK};
use xla_rocm_tracer::event::{EventDetails, EventSource, EventType, RocmTracerEvent};
use xla_rocm_tracer::testing::stream_stack;
use xla_rocm_tracer::tracer::annotation::{
    pop_annotation, push_annotation, AnnotationSource, ThreadAnnotationStack,
};
use xla_rocm_tracer::tracer::Tracer;

/// The tracer is a process singleton: one session at a time.
static SESSION: Mutex<()> = Mutex::new(());

struct Kernels {
    matmul: KernelId,
    fusion: KernelId,
}

fn kernels() -> &'static Kernels {
    static KERNELS: OnceLock<Kernels> = OnceLock::new();
    KERNELS.get_or_init(|| {
        install_nesting_annotation_source();
        let (_, ids) =
            driver::load_code_object(0, &["_Z6matmulPfS_i", "loop_multiply_fusion"]).unwrap();
        Kernels {
            matmul: ids[0],
            fusion: ids[1],
        }
    })
}

fn launch(kernel: KernelId, grid_x: u32) -> KernelLaunch {
    KernelLaunch {
        kernel,
        grid: [grid_x, 1, 1],
        block: [256, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 2_000,
    }
}

fn copy(kind: CopyKind) -> Copy {
    Copy {
        kind,
        bytes: 1 << 20,
        src_device: None,
        dst_device: None,
        duration_ns: 2_000,
    }
}

/// Runs `work` in a session and returns what the sink got.
fn traced(work: impl FnOnce()) -> Arc<RecordingSink> {
    let tracer = Tracer::get();
    assert!(tracer.is_available(), "{:?}", tracer.init_error());
    let sink = start_recording(tracer);
    work();
    driver::wait_idle();
    driver::device_synchronize().unwrap();
    tracer.disable();
    assert_eq!(*sink.flushes.lock(), 1);
    sink
}

thread_local! {
    /// A stream to issue one nested HIP call on, from inside the next HIP API ENTER callback.
    static NESTED_LAUNCH_ON: Cell<Option<HipStream>> = const { Cell::new(None) };
    static NESTED_CORRELATION: Cell<u64> = const { Cell::new(0) };
}

/// The standalone annotation stack, plus a hook that issues a HIP call from inside another
/// HIP call's ENTER callback: that is where HIP_STREAM SETs nest on the real SDK path.
struct NestingAnnotationSource;

impl AnnotationSource for NestingAnnotationSource {
    fn with_current(&self, f: &mut dyn FnMut(&str, &[i64])) {
        if let Some(stream) = NESTED_LAUNCH_ON.take() {
            let correlation = driver::launch_kernel(stream, &launch(kernels().fusion, 77)).unwrap();
            NESTED_CORRELATION.set(correlation);
        }
        ThreadAnnotationStack.with_current(f);
    }
}

fn install_nesting_annotation_source() {
    assert!(Tracer::get()
        .set_annotation_source(Box::new(NestingAnnotationSource))
        .is_ok());
}

struct Expected {
    stream_id: u64,
    queue: Option<u64>,
    thread_id: u64,
    event_type: EventType,
}

#[test]
fn eight_threads_several_streams_shared_and_moving_queues() {
    // Its session waits for all of its own records (`traced`), but records other tests of this
    // process leave behind after their sessions would land here as previous-session drops: so
    // it runs in a process of its own.
    if !child::in_child(
        "eight_threads_several_streams_shared_and_moving_queues",
        &[],
    ) {
        return;
    }
    let _session = SESSION.lock();
    let k = kernels();
    const THREADS: usize = 8;
    const STREAMS: usize = 3;
    const ROUNDS: usize = 4;
    let expected: Arc<Mutex<BTreeMap<u64, Expected>>> = Arc::default();
    let sink = traced(|| {
        let barrier = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let expected = expected.clone();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    let tid = gettid();
                    let streams: Vec<HipStream> = (0..STREAMS)
                        .map(|_| driver::stream_create().unwrap())
                        .collect();
                    barrier.wait();
                    for round in 0..ROUNDS {
                        for (s, &stream) in streams.iter().enumerate() {
                            // 24 streams on 5 queues; every round each stream moves on.
                            let queue = 0x5000 + ((t * STREAMS + s + round) % 5) as u64 * 0x40;
                            driver::bind_stream_to_queue(stream, queue).unwrap();
                            let stream_id = driver::sdk_stream_id(stream).unwrap();
                            let kernel =
                                driver::launch_kernel(stream, &launch(k.matmul, 1024)).unwrap();
                            let h2d = driver::memcpy_async(stream, &copy(CopyKind::HostToDevice))
                                .unwrap();
                            let d2h = driver::memcpy_async(stream, &copy(CopyKind::DeviceToHost))
                                .unwrap();
                            let mut expected = expected.lock();
                            for (id, queue, event_type) in [
                                (kernel, Some(queue), EventType::Kernel),
                                (h2d, None, EventType::MemcpyH2D),
                                (d2h, None, EventType::MemcpyD2H),
                            ] {
                                let previous = expected.insert(
                                    id,
                                    Expected {
                                        stream_id,
                                        queue,
                                        thread_id: tid,
                                        event_type,
                                    },
                                );
                                assert!(previous.is_none(), "correlation id {id} reused");
                            }
                        }
                    }
                    for stream in streams {
                        driver::stream_synchronize(stream).unwrap();
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
    });

    let expected = expected.lock();
    assert_eq!(expected.len(), THREADS * STREAMS * ROUNDS * 3);
    let activities = sink.activities();
    let mut seen = BTreeSet::new();
    let mut stream_ids = BTreeSet::new();
    for event in &activities {
        let want = expected
            .get(&event.correlation_id)
            .unwrap_or_else(|| panic!("unexpected activity {event:?}"));
        assert_eq!(event.stream_id, want.stream_id, "{event:?}");
        assert_eq!(event.event_type, want.event_type, "{event:?}");
        assert_eq!(event.thread_id, want.thread_id, "{event:?}");
        if let Some(queue) = want.queue {
            assert_eq!(event.queue_id, queue, "{event:?}");
        }
        assert_ne!(event.device_id, RocmTracerEvent::INVALID_DEVICE_ID);
        assert!(seen.insert(event.correlation_id), "duplicate {event:?}");
        stream_ids.insert(event.stream_id);
    }
    assert_eq!(
        seen.len(),
        expected.len(),
        "every kernel and copy arrived once"
    );
    assert_eq!(
        stream_ids.len(),
        THREADS * STREAMS,
        "every stream has its own id"
    );
    assert!(!stream_ids.contains(&0));
    // Each traced call also has its API event on the issuing thread.
    let api: BTreeMap<u64, RocmTracerEvent> = sink
        .api_events()
        .into_iter()
        .map(|e| (e.correlation_id, e))
        .collect();
    for (id, want) in expected.iter() {
        let event = api
            .get(id)
            .unwrap_or_else(|| panic!("no API event for {id}"));
        assert_eq!(event.thread_id, want.thread_id);
        assert_eq!(event.stream_id, RocmTracerEvent::INVALID_STREAM_ID);
    }
    // Delivered in batches, not one call per event.
    let batches = sink.batches.lock().clone();
    assert_eq!(batches.iter().sum::<usize>(), sink.events().len());
    assert!(batches.len() < sink.events().len() / 4, "{batches:?}");
    assert_eq!(sink.total_drops(), 0, "{:?}", sink.drops.lock());
}

#[test]
fn null_legacy_and_per_thread_streams() {
    // hipStreamLegacy and hipStreamPerThread have ids of their own only in the newer SDKs'
    // stream map: the SDK 1.0.0 of ROCm 7.0 aborts the process on their first SET, 1.1.0 (7.1,
    // 7.2) folds them into the null stream. So this runs in a child with stream_map = "newer".
    if !child::is_any_child() {
        let output = child::rerun(
            "null_legacy_and_per_thread_streams",
            &[("ROCSIM_MACHINE", "stream_map = \"newer\"")],
        );
        child::assert_passed("stream_map = \"newer\"", &output);
        return;
    }
    let _session = SESSION.lock();
    let k = kernels();
    let ids = Arc::new(Mutex::new(Vec::new()));
    let sink = traced(|| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let ids = ids.clone();
                std::thread::spawn(move || {
                    for stream in [NULL_STREAM, STREAM_LEGACY, STREAM_PER_THREAD] {
                        let correlation =
                            driver::launch_kernel(stream, &launch(k.fusion, 256)).unwrap();
                        let stream_id = driver::sdk_stream_id(stream).unwrap();
                        ids.lock().push((stream, correlation, stream_id));
                    }
                    driver::stream_synchronize(STREAM_PER_THREAD).unwrap();
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
    });
    let ids = ids.lock();
    let mut per_thread_ids = BTreeSet::new();
    for &(stream, correlation, stream_id) in ids.iter() {
        let events: Vec<_> = sink
            .by_correlation(correlation)
            .into_iter()
            .filter(|e| e.source == EventSource::Activity)
            .collect();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].stream_id, stream_id);
        match stream {
            NULL_STREAM | STREAM_LEGACY => assert_eq!(stream_id, 0),
            _ => {
                assert_ne!(stream_id, 0);
                per_thread_ids.insert(stream_id);
            }
        }
    }
    assert_eq!(per_thread_ids.len(), 2, "one per-thread stream per thread");
}

// Host-to-host copies are CPU copies without an SDK record on real hardware (not a tracer
// bug); this test checks the stream a synchronous copy's record gets, so it runs on a
// machine whose host-to-host copies have a record (h2h_record=1).
#[test]
fn sync_memcpy_without_stream_gets_the_stack_top() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun(
        "child_sync_memcpy_without_stream_gets_the_stack_top",
        &[("ROCSIM_MACHINE", "h2h_record = true")],
    );
    child::assert_passed("host-to-host copies with a record", &output);
}

#[test]
fn child_sync_memcpy_without_stream_gets_the_stack_top() {
    if !child::is_any_child() {
        return;
    }
    let _session = SESSION.lock();
    kernels();
    let mut correlations = Vec::new();
    let sink = traced(|| {
        std::thread::spawn(move || {
            let stream = driver::stream_create().unwrap();
            // A call with a stream before, to show the SET window closed again.
            driver::memcpy_async(stream, &copy(CopyKind::HostToDevice)).unwrap();
            let sync = driver::memcpy_sync(&copy(CopyKind::DeviceToHost)).unwrap();
            let sync_h2h = driver::memcpy_sync(&copy(CopyKind::HostToHost)).unwrap();
            (sync, sync_h2h)
        })
        .join()
        .map(|(a, b)| correlations.extend([a, b]))
        .unwrap();
    });
    for correlation in correlations {
        let activities: Vec<_> = sink
            .by_correlation(correlation)
            .into_iter()
            .filter(|e| e.source == EventSource::Activity)
            .collect();
        assert_eq!(activities.len(), 1);
        assert!(activities[0].event_type.is_memcpy());
        assert_eq!(activities[0].stream_id, 0, "{:?}", activities[0]);
        let api = sink
            .by_correlation(correlation)
            .into_iter()
            .find(|e| e.source == EventSource::ApiCallback)
            .unwrap();
        assert_eq!(&*api.name, "hipMemcpy");
        assert_eq!(api.event_type, EventType::MemcpyOther);
    }
}

#[test]
fn nested_set_restores_the_outer_stream() {
    let _session = SESSION.lock();
    let k = kernels();
    let mut result = None;
    let sink = traced(|| {
        result = Some(
            std::thread::spawn(move || {
                let outer = driver::stream_create().unwrap();
                let inner = driver::stream_create().unwrap();
                NESTED_LAUNCH_ON.set(Some(inner));
                let outer_correlation =
                    driver::launch_kernel(outer, &launch(k.matmul, 512)).unwrap();
                let inner_correlation = NESTED_CORRELATION.get();
                assert_ne!(inner_correlation, 0, "the nested launch happened");
                assert_eq!(stream_stack::top(), 0, "the stack unwound completely");
                let stats = stream_stack::current_thread_stats();
                assert!(stats.max_depth >= 3, "{stats:?}");
                assert_eq!(stats.unmatched_exits, 0);
                driver::device_synchronize().unwrap();
                (
                    outer_correlation,
                    driver::sdk_stream_id(outer).unwrap(),
                    inner_correlation,
                    driver::sdk_stream_id(inner).unwrap(),
                )
            })
            .join()
            .unwrap(),
        );
    });
    let (outer_correlation, outer_id, inner_correlation, inner_id) = result.unwrap();
    assert_ne!(outer_id, inner_id);
    let kernel_of = |correlation| {
        sink.by_correlation(correlation)
            .into_iter()
            .find(|e| e.source == EventSource::Activity)
            .unwrap_or_else(|| panic!("no kernel for {correlation}"))
    };
    assert_eq!(kernel_of(inner_correlation).stream_id, inner_id);
    assert_eq!(kernel_of(outer_correlation).stream_id, outer_id);
}

#[test]
fn first_dispatch_after_enable_on_a_busy_thread() {
    if !child::in_child(
        "first_dispatch_after_enable_on_a_busy_thread",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    let _session = SESSION.lock();
    let k = kernels();
    let tracer = Tracer::get();
    let before = Arc::new(Barrier::new(2));
    let enabled = Arc::new(Barrier::new(2));
    let worker = {
        let (before, enabled) = (before.clone(), enabled.clone());
        std::thread::spawn(move || {
            let warm = driver::stream_create().unwrap();
            let target = driver::stream_create().unwrap();
            for _ in 0..5 {
                driver::launch_kernel(warm, &launch(k.fusion, 64)).unwrap();
                driver::memcpy_async(warm, &copy(CopyKind::HostToDevice)).unwrap();
            }
            driver::stream_synchronize(warm).unwrap();
            before.wait();
            enabled.wait();
            let first = driver::launch_kernel(target, &launch(k.matmul, 128)).unwrap();
            driver::stream_synchronize(target).unwrap();
            (first, driver::sdk_stream_id(target).unwrap())
        })
    };
    before.wait();
    let sink = start_recording(tracer);
    enabled.wait();
    let (first, target_id) = worker.join().unwrap();
    driver::device_synchronize().unwrap();
    tracer.disable();
    let activities = sink.activities();
    assert_eq!(
        activities.len(),
        1,
        "nothing from before enable(): {activities:?}"
    );
    assert_eq!(activities[0].correlation_id, first);
    assert_eq!(activities[0].stream_id, target_id);
    assert_eq!(&*activities[0].name, "matmul(float*, float*, int)");
}

#[test]
fn hip_graph_dispatches_share_one_correlation_id() {
    let _session = SESSION.lock();
    let k = kernels();
    let mut ids = (0, 0);
    let sink = traced(|| {
        let stream = driver::stream_create().unwrap();
        let nodes: Vec<KernelLaunch> = (1..=6).map(|i| launch(k.matmul, 256 * i)).collect();
        let graph = driver::graph_launch(stream, &nodes).unwrap();
        ids = (graph, driver::sdk_stream_id(stream).unwrap());
    });
    let (graph, stream_id) = ids;
    let events = sink.by_correlation(graph);
    let api: Vec<_> = events
        .iter()
        .filter(|e| e.source == EventSource::ApiCallback)
        .collect();
    assert_eq!(api.len(), 1);
    assert_eq!(&*api[0].name, "hipGraphLaunch");
    let mut grids: Vec<u32> = events
        .iter()
        .filter(|e| e.source == EventSource::Activity)
        .map(|e| {
            assert_eq!(e.stream_id, stream_id);
            match e.details {
                EventDetails::Kernel(details) => details.grid_x,
                _ => panic!("kernel details expected: {e:?}"),
            }
        })
        .collect();
    grids.sort_unstable();
    assert_eq!(grids, vec![256, 512, 768, 1024, 1280, 1536]);
}

#[test]
fn annotations_and_scope_ranges_follow_the_launching_thread() {
    let _session = SESSION.lock();
    let k = kernels();
    let mut ids = Vec::new();
    let sink = traced(|| {
        ids = std::thread::spawn(move || {
            let stream = driver::stream_create().unwrap();
            push_annotation("train_step");
            push_annotation("matmul_fusion");
            let annotated = driver::launch_kernel(stream, &launch(k.matmul, 64)).unwrap();
            pop_annotation();
            pop_annotation();
            let plain = driver::launch_kernel(stream, &launch(k.fusion, 64)).unwrap();
            driver::stream_synchronize(stream).unwrap();
            vec![annotated, plain]
        })
        .join()
        .unwrap();
    });
    let annotated = sink.by_correlation(ids[0]);
    assert_eq!(annotated.len(), 2, "API event and kernel");
    for event in &annotated {
        assert_eq!(
            event.annotation.as_deref(),
            Some("train_step::matmul_fusion")
        );
        assert_ne!(event.scope_range_id, 0);
    }
    let tree = Tracer::get().annotation_map().take_scope_range_id_tree();
    assert_eq!(
        tree.get(&annotated[0].scope_range_id)
            .copied()
            .map(|p| p > 0),
        Some(true)
    );
    for event in sink.by_correlation(ids[1]) {
        assert_eq!(event.annotation, None);
        assert_eq!(event.scope_range_id, 0);
    }
}

/// The stream tests under the other stream map: the default run uses the size-indexed map of
/// ROCm 7.1 to 7.13; this re-runs every test of this file in a child with the newer SDKs' map, where
/// stream ids of created streams are assigned whether or not a HIP_STREAM context saw them.
#[test]
fn every_stream_test_passes_under_the_newer_stream_map() {
    if child::is_any_child() {
        return;
    }
    let output = child::output(
        "every_stream_test_passes_under_the_newer_stream_map",
        std::process::Command::new(std::env::current_exe().unwrap())
            // `child_*` tests need the environment their parent test gives them; they run there.
            .args(["--test-threads=1", "--skip", "child_"])
            // The test kit's child marker: tests that re-run themselves run their bodies
            // directly there.
            .env(child::MARKER, "1")
            .env("ROCSIM_MACHINE", "stream_map = \"newer\""),
    )
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("test result: ok"),
        "stream tests under stream_map = \"newer\" failed ({:?})\n{stdout}\n{stderr}",
        output.status
    );
    // Every test of this file but the `child_*` ones ran there (this one too, returning at
    // once), not a filtered-down handful.
    let passed: usize = stdout
        .lines()
        .find_map(|line| line.strip_prefix("test result: ok. "))
        .and_then(|rest| rest.split_once(" passed"))
        .and_then(|(count, _)| count.parse().ok())
        .unwrap_or_else(|| panic!("no \"N passed\" in the child's summary\n{stdout}"));
    let expected = non_child_tests_in_this_file();
    assert!(expected > 0);
    assert!(
        passed >= expected,
        "{passed} tests passed under stream_map = \"newer\", this file has {expected} that are \
         not child_ tests\n{stdout}"
    );
}

/// How many `#[test]` functions of this file are not `child_*` tests.
fn non_child_tests_in_this_file() -> usize {
    let source = include_str!("tracer_streams.rs");
    let mut lines = source.lines().map(str::trim);
    let mut count = 0;
    while let Some(line) = lines.next() {
        if line == "#[test]" {
            let name = lines
                .next()
                .and_then(|f| f.strip_prefix("fn "))
                .unwrap_or("");
            if !name.is_empty() && !name.starts_with("child_") {
                count += 1;
            }
        }
    }
    count
}
