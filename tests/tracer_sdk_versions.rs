//! The tracer on other SDK releases than the 7.1 layout it is built against
//! (docs/sdk-facts.md#version-hazards, docs/simulator-fidelity.md#versions): a ROCm 7.0 SDK (304-byte agents, so a 312-byte agent
//! query fails with INCOMPATIBLE_ABI) still gives a working tracer with the right GPUs, and an
//! SDK older than 1.0.0 makes it unavailable with an error naming the version. The SDK reads
//! its release once per process, before `main`, so each case runs in a re-executed child.
mod tracer_common;

use rocprofiler_sdk_sim::driver::{self, KernelLaunch};
use sim_test_kit::child;
use tracer_common::RecordingSink;
use xla_rocm_tracer::event::{EventSource, EventType};
use xla_rocm_tracer::tracer::{Tracer, TracerError, TracerOptions};

#[test]
fn a_rocm_7_0_sdk_is_traced_through_the_common_agent_prefix() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun(
        "child_traces_on_rocm_7_0",
        // A one-socket host: the child counts one CPU agent (the simulator's default is two
        // sockets, cpus=2).
        &[
            (
                "ROCSIM_MACHINE",
                "rocm = \"7.0\", gpus = 2, cpus = 1, clock = \"virtual\"",
            ),
            // The session's last kernel record lands after its synchronize on every run.,
        ],
    );
    child::assert_passed("rocm = \"7.0\"", &output);
}

#[test]
fn a_rocm_7_0_sdk_lists_its_agents_through_the_common_agent_prefix() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun(
        "child_lists_agents_on_rocm_7_0",
        &[("ROCSIM_MACHINE", "rocm = \"7.0\", gpus = 2, cpus = 1")],
    );
    child::assert_passed("rocm = \"7.0\" agents", &output);
}

/// Runs only in a child with `rocm = "7.0"`, two GPUs and one CPU socket: the agents the
/// tracer read through the common prefix of the 7.0 agent struct, without a session (what
/// `child_traces_on_rocm_7_0`, a known failure for its session's tail, also checks first).
#[test]
fn child_lists_agents_on_rocm_7_0() {
    if !child::is_any_child() {
        return;
    }
    assert_rocm_7_0_agents(Tracer::get());
}

/// The agents a tracer on ROCm 7.0 (two GPUs, one CPU socket) read through the common prefix
/// of the 7.0 agent struct.
fn assert_rocm_7_0_agents(tracer: &Tracer) {
    assert!(tracer.is_available(), "{:?}", tracer.init_error());
    assert_eq!(tracer.agents().unwrap().len(), 3, "one CPU and two GPUs");
    assert_eq!(tracer.num_gpus(), 2);
    let gpus = tracer.gpu_agents();
    assert_eq!(gpus.len(), 2);
    for (ordinal, gpu) in gpus.iter().enumerate() {
        assert_eq!(gpu.name, "gfx942");
        assert_eq!(gpu.product_name, "AMD Instinct MI300X");
        assert_eq!(gpu.cu_count, 304);
        assert_eq!(gpu.gfx_target_version, 90402);
        assert!(
            gpu.capabilities.memory_size_bytes > 0,
            "mem_banks read through the prefix"
        );
        assert_eq!(gpu.raw.0.logical_node_type_id, ordinal as i32);
        assert_eq!(gpu.raw.0.size, 304, "the SDK's own struct size");
        // Only the common prefix was copied: what lies past it in a 7.0 struct (and past the
        // struct itself) is never read. `runtime_visibility` ends the prefix: HIP sees the GPU.
        assert_eq!(gpu.raw.0.uuid.bytes, [0; 16]);
        assert_eq!(gpu.raw.0.runtime_visibility, 0xF);
    }
    assert_eq!(gpus[1].handle, gpus[0].handle + 1);
}

/// Runs only in a child with `rocm = "7.0"`, two GPUs, one CPU socket and the virtual clock.
#[test]
fn child_traces_on_rocm_7_0() {
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    tracer_common::wait_on_simulated_time();
    assert_rocm_7_0_agents(tracer);
    let gpus = tracer.gpu_agents();

    let sink = RecordingSink::new();
    tracer
        .enable(TracerOptions::default(), sink.clone())
        .expect("enable on ROCm 7.0");
    driver::set_device(1).unwrap();
    let (_, kernels) = driver::load_code_object(1, &["_Z7on_gpu1v"]).unwrap();
    let stream = driver::stream_create().unwrap();
    let stream_id = driver::sdk_stream_id(stream).unwrap();
    let correlation = driver::launch_kernel(
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
    tracer.disable();

    let kernel_events: Vec<_> = sink
        .activities()
        .into_iter()
        .filter(|e| e.event_type == EventType::Kernel && e.correlation_id == correlation)
        .collect();
    assert_eq!(kernel_events.len(), 1, "{:#?}", sink.events());
    let kernel = &kernel_events[0];
    assert_eq!(&*kernel.name, "on_gpu1()");
    assert_eq!(kernel.device_id as u64, gpus[1].handle);
    assert_eq!(kernel.stream_id, stream_id);
    assert!(sink
        .events()
        .iter()
        .any(|e| e.source == EventSource::ApiCallback
            && e.correlation_id == correlation
            && &*e.name == "hipLaunchKernel"));
    assert_eq!(sink.total_drops(), 0);
}

#[test]
fn an_sdk_older_than_1_0_0_makes_the_tracer_unavailable_naming_its_version() {
    if child::is_any_child() {
        return;
    }
    let output = child::rerun(
        "child_refuses_sdk_0_6_0",
        &[("ROCSIM_MACHINE", "sdk_version = \"0.6.0\"")],
    );
    child::assert_passed("sdk_version = \"0.6.0\"", &output);
}

/// Runs only in a child with `sdk_version = "0.6.0"`.
#[test]
fn child_refuses_sdk_0_6_0() {
    if !child::is_any_child() {
        return;
    }
    let tracer = Tracer::get();
    assert!(!tracer.is_available());
    let Some(TracerError::Unavailable(reason)) = tracer.init_error() else {
        panic!("unavailable expected, got {:?}", tracer.init_error());
    };
    assert!(reason.contains("0.6.0"), "{reason}");
    assert!(reason.contains("1.0.0"), "{reason}");
    let error = tracer
        .enable(TracerOptions::default(), RecordingSink::new())
        .unwrap_err();
    assert!(error.to_string().contains("0.6.0"), "{error}");
    assert_eq!(tracer.num_gpus(), 0);
    assert!(tracer.main_context().is_none());
    tracer.disable();
    // The program keeps running: HIP calls still work.
    let stream = driver::stream_create().unwrap();
    driver::stream_synchronize(stream).unwrap();
}
