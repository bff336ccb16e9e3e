//! The tracer on a node where `HIP_VISIBLE_DEVICES` hides GPUs, as per-process GPU pinning in
//! multi-process JAX jobs does. The SDK lists every GPU as an agent (hidden ones too, only
//! their `runtime_visibility` differs) while HIP numbers only the visible ones, so HIP device 0
//! is the third GPU agent here. The machine is fixed per process: the case runs in a child.
mod tracer_common;

use sim_test_kit::child;
use std::sync::Arc;

use rocprofiler_sdk_sim::driver::{self, KernelLaunch};

use xla_rocm_tracer::collector::{CaptureStart, Collector, CollectorOptions, GpuAgentInfo};
use xla_rocm_tracer::export::ExportOptions;
use xla_rocm_tracer::tracer::{Tracer, TracerOptions};

#[test]
fn hip_device_0_is_gpu_0_when_hip_visible_devices_hides_gpus() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun(
        "child_hip_device_0_is_gpu_0",
        &[("ROCSIM_MACHINE", "gpus = 4"), ("HIP_VISIBLE_DEVICES", "2")],
    );
    child::assert_passed("HIP_VISIBLE_DEVICES=2 on 4 GPUs", &output);
}

/// Runs only in a child with four GPUs of which HIP sees the third.
#[test]
fn child_hip_device_0_is_gpu_0() {
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    assert!(tracer.is_available(), "{:?}", tracer.init_error());
    assert_eq!(driver::device_count(), 1, "HIP sees one GPU");
    let collector = Arc::new(Collector::new(
        CollectorOptions {
            num_gpus: tracer.num_gpus(),
            ..CollectorOptions::default()
        },
        CaptureStart {
            walltime_ns: 1_700_000_000_000_000_000,
            gputime_ns: Tracer::timestamp(),
        },
    ));
    collector.set_gpu_agents(tracer.gpu_agents().iter().map(GpuAgentInfo::from).collect());
    tracer
        .enable(TracerOptions::default(), collector.clone())
        .expect("enable");
    driver::set_device(0).unwrap();
    let (_, kernels) = driver::load_code_object(0, &["_Z14pinned_processv"]).unwrap();
    let stream = driver::stream_create().unwrap();
    driver::launch_kernel(
        stream,
        &KernelLaunch {
            kernel: kernels[0],
            grid: [256, 1, 1],
            block: [64, 1, 1],
            private_segment_size: 0,
            group_segment_size: 0,
            duration_ns: 5_000,
        },
    )
    .unwrap();
    driver::stream_synchronize(stream).unwrap();
    // The kernel's record lands a lag after the synchronize: wait for it, so this test is
    // about device numbering only.
    driver::wait_idle();
    tracer.disable();
    let space = collector.export(Tracer::timestamp(), &ExportOptions::default());

    assert_eq!(tracer.num_gpus(), 1, "XLA's device count is HIP's");
    let gpu_planes: Vec<&str> = space
        .planes
        .iter()
        .map(|plane| plane.name.as_str())
        .filter(|name| name.starts_with("/device:GPU:"))
        .collect();
    assert_eq!(gpu_planes, ["/device:GPU:0"]);
    let gpu0 = space
        .planes
        .iter()
        .find(|plane| plane.name == "/device:GPU:0")
        .unwrap();
    assert_eq!(
        gpu0.lines.iter().map(|l| l.events.len()).sum::<usize>(),
        1,
        "the kernel is on HIP device 0's plane"
    );
    assert!(
        !space.warnings.iter().any(|w| w.contains("device")),
        "{:?}",
        space.warnings
    );
}
