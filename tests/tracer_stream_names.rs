//! ROCTx stream names and the reserved streams, through the simulator's real SDK call path:
//! `roctxNameHipStream` is traced as MARKER_NAME_API on the tracer's process-lifetime stream
//! context, so a name given before `enable()` counts, and a destroyed stream's address that HIP
//! hands out again does not inherit the old name (docs/xla-interface.md#stream-lanes).
mod tracer_common;

use sim_test_kit::child;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use rocprofiler_sdk_sim::driver::{self, KernelId, KernelLaunch, NULL_STREAM};
use tracer_common::{wait_on_simulated_time, VIRTUAL_CLOCK};
use xla_rocm_tracer::collector::{CaptureStart, Collector, CollectorOptions};
use xla_rocm_tracer::export::{ExportOptions, XSpace};
use xla_rocm_tracer::tracer::{Tracer, TracerOptions};

/// The tracer is a process singleton: one session at a time.
static SESSION: Mutex<()> = Mutex::new(());

fn kernel() -> KernelId {
    static KERNEL: OnceLock<KernelId> = OnceLock::new();
    *KERNEL.get_or_init(|| driver::load_code_object(0, &["loop_add_fusion"]).unwrap().1[0])
}

fn launch() -> KernelLaunch {
    KernelLaunch {
        kernel: kernel(),
        grid: [256, 1, 1],
        block: [256, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 2_000,
    }
}

/// Runs `work` in a session collected by a real collector and returns the export.
fn traced(work: impl FnOnce()) -> XSpace {
    let tracer = Tracer::get();
    assert!(tracer.is_available(), "{:?}", tracer.init_error());
    wait_on_simulated_time();
    let collector = Arc::new(Collector::new(
        CollectorOptions {
            num_gpus: 1,
            ..CollectorOptions::default()
        },
        CaptureStart {
            walltime_ns: 1,
            gputime_ns: Tracer::timestamp(),
        },
    ));
    tracer
        .enable(TracerOptions::default(), collector.clone())
        .expect("enable the tracer");
    work();
    driver::device_synchronize().unwrap();
    driver::wait_idle();
    tracer.disable();
    collector.export(Tracer::timestamp(), &ExportOptions::default())
}

fn gpu_lines(space: &XSpace) -> Vec<String> {
    let gpu = space
        .planes
        .iter()
        .find(|plane| plane.name == "/device:GPU:0")
        .expect("a GPU plane");
    gpu.lines.iter().map(|line| line.name.clone()).collect()
}

#[test]
fn names_given_before_enable_and_the_null_stream_reach_the_lane_labels() {
    if !child::in_child(
        "names_given_before_enable_and_the_null_stream_reach_the_lane_labels",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    let _session = SESSION.lock();
    let named = driver::stream_create().unwrap();
    let unnamed = driver::stream_create().unwrap();
    assert_eq!(driver::roctx_name_hip_stream(named, "h2d").unwrap(), 0);
    let space = traced(|| {
        driver::launch_kernel(named, &launch()).unwrap();
        driver::launch_kernel(unnamed, &launch()).unwrap();
        driver::launch_kernel(NULL_STREAM, &launch()).unwrap();
    });
    assert_eq!(
        gpu_lines(&space),
        ["Stream #0 \"h2d\"", "Stream #1", "Stream #2 (null)"]
    );
}

#[test]
fn a_reused_stream_address_does_not_inherit_the_old_name() {
    if !child::in_child(
        "a_reused_stream_address_does_not_inherit_the_old_name",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    let _session = SESSION.lock();
    let old = driver::stream_create().unwrap();
    driver::roctx_name_hip_stream(old, "old").unwrap();
    // Destroyed while the session runs: its lane keeps the name.
    let first = traced(|| {
        driver::launch_kernel(old, &launch()).unwrap();
        driver::stream_destroy(old).unwrap();
    });
    assert_eq!(gpu_lines(&first), ["Stream #0 \"old\""]);

    let reused = driver::stream_create().unwrap();
    assert_eq!(
        reused, old,
        "HIP hands the destroyed stream's address out again"
    );
    let second = traced(|| {
        driver::launch_kernel(reused, &launch()).unwrap();
    });
    assert_eq!(gpu_lines(&second), ["Stream #0"]);

    driver::roctx_name_hip_stream(reused, "new").unwrap();
    let third = traced(|| {
        driver::launch_kernel(reused, &launch()).unwrap();
    });
    assert_eq!(gpu_lines(&third), ["Stream #0 \"new\""]);
}
