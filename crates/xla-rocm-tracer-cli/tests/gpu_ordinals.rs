//! `/device:GPU:<n>` is HIP device `n`, the number XLA passed to `hipSetDevice`, whatever order
//! the visibility lists give the GPUs: replayed end to end on 4 simulated GPUs, whose SDK lists
//! every GPU in node order.
// The library calls the SDK; the simulator supplies its symbols to this test binary.
use rocprofiler_sdk_sim as _;
use std::path::PathBuf;
use std::process::Command;

use xla_rocm_tracer::export::{read_xspace_file, XSpace};

/// A 4-GPU machine with `visibility` in `[machine]`; the thread runs two kernels named
/// `on_hip_device_0` on HIP device 0, then one `on_hip_device_1` on HIP device 1.
fn replay_on_four_gpus(name: &str, visibility: &str) -> XSpace {
    let dir = std::env::temp_dir().join(format!(
        "xla-rocm-tracer-ordinals-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("ordinals.toml");
    std::fs::write(
        &scenario,
        format!(
            "[machine]\ngpus = 4\n{visibility}\n\
             [[code_object]]\ndevice = 0\nkernels = {{ k = \"on_hip_device_0\" }}\n\
             [[code_object]]\ndevice = 1\nkernels = {{ k = \"on_hip_device_1\" }}\n\
             [streams]\ns0 = {{ device = 0 }}\ns1 = {{ device = 1 }}\n\
             [[thread]]\nname = \"main\"\nsteps = [\n\
             {{ set_device = 0 }},\n\
             {{ launch = \"k\", stream = \"s0\", grid = [1, 1, 1], block = [64, 1, 1] }},\n\
             {{ launch = \"k\", stream = \"s0\", grid = [1, 1, 1], block = [64, 1, 1] }},\n\
             {{ sync_stream = \"s0\" }},\n\
             {{ set_device = 1 }},\n\
             {{ launch = \"k\", stream = \"s1\", grid = [1, 1, 1], block = [64, 1, 1] }},\n\
             {{ sync_stream = \"s1\" }},\n]\n"
        ),
    )
    .unwrap();
    let trace = dir.join("ordinals.xplane.pb");
    let output = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .args(["replay", scenario.to_str().unwrap(), "-o"])
        .arg(&trace)
        .env_remove("ROCSIM_MACHINE")
        .env_remove("HIP_VISIBLE_DEVICES")
        .env_remove("ROCR_VISIBLE_DEVICES")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    read_xspace_file(PathBuf::from(&trace)).unwrap()
}

/// Kernel names on `/device:GPU:<ordinal>`.
fn kernels_on(space: &XSpace, ordinal: u32) -> Vec<String> {
    let name = format!("/device:GPU:{ordinal}");
    let Some(plane) = space.planes.iter().find(|p| p.name == name) else {
        return Vec::new();
    };
    let mut names: Vec<String> = plane
        .lines
        .iter()
        .flat_map(|line| &line.events)
        .map(|event| plane.event_metadata[&event.metadata_id].name.clone())
        .collect();
    names.sort();
    names
}

#[test]
fn hip_visible_devices_2_0_puts_hip_device_0_on_gpu_0() {
    // HIP device 0 is physical GPU 2, HIP device 1 is physical GPU 0: the SDK lists GPU 0
    // first, yet its work belongs on /device:GPU:1.
    let space = replay_on_four_gpus("hip", "hip_visible_devices = \"2,0\"");
    assert_eq!(
        kernels_on(&space, 0),
        ["on_hip_device_0", "on_hip_device_0"]
    );
    assert_eq!(kernels_on(&space, 1), ["on_hip_device_1"]);
    assert!(kernels_on(&space, 2).is_empty() && kernels_on(&space, 3).is_empty());
    assert!(space.warnings.is_empty(), "{:?}", space.warnings);
}

#[test]
fn rocr_visible_devices_reorders_before_hip_indexes() {
    // ROCr exposes GPUs 3 and 1 in that order, and HIP's "0,1" indexes those: GPU 3 is HIP
    // device 0 though the SDK lists GPU 1 first.
    let space = replay_on_four_gpus(
        "rocr",
        "rocr_visible_devices = \"3,1\"\nhip_visible_devices = \"0,1\"",
    );
    assert_eq!(
        kernels_on(&space, 0),
        ["on_hip_device_0", "on_hip_device_0"]
    );
    assert_eq!(kernels_on(&space, 1), ["on_hip_device_1"]);
    assert!(space.warnings.is_empty(), "{:?}", space.warnings);
}
