//! The examples in `examples/` run as documented: `cargo test` builds them, and this test runs
//! the Rust one's code on the simulator and reads back what it wrote. (The C example runs in
//! `tests/cpp/run.sh`.)
#[path = "tracer_common/mod.rs"]
mod tracer_common;

// The example's own source, so the test runs exactly what the example runs (its `main` only
// parses the command line).
#[allow(dead_code)]
#[path = "../examples/capture.rs"]
mod capture;

use sim_test_kit::child;
use tracer_common::VIRTUAL_CLOCK;
use xla_rocm_tracer::export::{read_xspace_file, XPlane};

fn event_names(plane: &XPlane) -> Vec<String> {
    plane
        .lines
        .iter()
        .flat_map(|line| &line.events)
        .map(|event| plane.event_metadata[&event.metadata_id].name.clone())
        .collect()
}

#[test]
fn capture_example_writes_its_kernels_copy_and_hip_calls() {
    // A process of its own (the tracer is per process) on the virtual clock, so that every
    // record the example waits for is pushed the same way on every run.
    if !child::in_child(
        "capture_example_writes_its_kernels_copy_and_hip_calls",
        &[VIRTUAL_CLOCK],
    ) {
        return;
    }
    let output =
        std::env::temp_dir().join(format!("capture_example_{}.xplane.pb", std::process::id()));
    capture::capture(&output).expect("the example's capture");
    let space = read_xspace_file(&output).expect("the example's trace reads back");
    std::fs::remove_file(&output).ok();

    let gpu = space
        .planes
        .iter()
        .find(|plane| plane.name == "/device:GPU:0")
        .expect("a GPU:0 plane");
    let names = event_names(gpu);
    for kernel in ["axpy", "reduce"] {
        let launches = names.iter().filter(|name| name.contains(kernel)).count();
        assert_eq!(
            launches,
            capture::LAUNCHES,
            "{kernel} launches in {names:?}"
        );
    }
    assert_eq!(
        names.len(),
        capture::KERNELS.len() * capture::LAUNCHES + 1,
        "the kernels and one copy: {names:?}"
    );

    let host = space
        .planes
        .iter()
        .find(|plane| plane.name == "/host:CPU")
        .expect("a host plane");
    let calls = event_names(host);
    let launches = calls.iter().filter(|name| *name == "hipLaunchKernel");
    assert_eq!(
        launches.count(),
        capture::KERNELS.len() * capture::LAUNCHES,
        "{calls:?}"
    );
}
