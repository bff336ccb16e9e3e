//! Agents as the SDK lists them (`agent.cpp` `read_topology`, `update_agent_runtime_visibility`):
//! one CPU agent per socket (`cpus`, default 2) before the GPUs, every GPU listed even when
//! `HIP_VISIBLE_DEVICES` / `ROCR_VISIBLE_DEVICES` hide it (only its `runtime_visibility` bits
//! differ), CPU visibility 0xF; HIP device k is the k-th HIP-visible GPU. Each machine runs in
//! its own child process.
use sim::driver;
use sim::scenario;
use sim_test_kit::child;
use sim_test_kit::recording::*;

use sim_test_kit::agents;

fn gpus(agents: &[sys::rocprofiler_agent_v0_t]) -> Vec<sys::rocprofiler_agent_v0_t> {
    agents
        .iter()
        .filter(|a| a.type_ == sys::ROCPROFILER_AGENT_TYPE_GPU)
        .copied()
        .collect()
}

/// The agent handle of the kernel record of one launch on HIP device `device`.
fn kernel_agent_on(device: u32) -> u64 {
    driver::set_device(device).unwrap();
    let launch = kernel(&format!("_Z6on_devv{device}"));
    let stream = driver::stream_create().unwrap();
    let corr = driver::launch_kernel(stream, &launch).unwrap();
    driver::stream_synchronize(stream).unwrap();
    drain();
    records_for(corr)
        .into_iter()
        .find_map(|r| match r {
            Record::Kernel(k) => Some(k.dispatch_info.agent_id.handle),
            _ => None,
        })
        .expect("a kernel record")
}

#[test]
fn two_sockets_by_default_and_cpus_see_everything() {
    if !child::in_child(
        "two_sockets_by_default_and_cpus_see_everything",
        &[("ROCSIM_MACHINE", "gpus = 2")],
    ) {
        return;
    }
    setup();
    let all = agents();
    assert_eq!(all.len(), 4);
    for (i, cpu) in all[..2].iter().enumerate() {
        assert_eq!(cpu.type_, sys::ROCPROFILER_AGENT_TYPE_CPU);
        assert_eq!(cpu.logical_node_id, i as i32);
        assert_eq!(cpu.logical_node_type_id, i as i32);
        assert_eq!(cpu.runtime_visibility, 0xF, "hsa | hip | rccl | rocdecode");
    }
    for (i, gpu) in all[2..].iter().enumerate() {
        assert_eq!(gpu.type_, sys::ROCPROFILER_AGENT_TYPE_GPU);
        assert_eq!(gpu.logical_node_id, 2 + i as i32, "GPUs follow both CPUs");
        assert_eq!(gpu.node_id, 2 + i as u32);
        assert_eq!(gpu.logical_node_type_id, i as i32);
        assert_eq!(gpu.runtime_visibility, 0xF);
        assert_eq!(gpu.id.handle, all[0].id.handle + 2 + i as u64);
    }
    assert_eq!(driver::device_count(), 2);
    assert_eq!(kernel_agent_on(1), all[3].id.handle);
}

#[test]
fn rocsim_cpus_sets_the_socket_count() {
    if !child::in_child(
        "rocsim_cpus_sets_the_socket_count",
        &[("ROCSIM_MACHINE", "cpus = 1")],
    ) {
        return;
    }
    setup();
    let all = agents();
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].type_, sys::ROCPROFILER_AGENT_TYPE_GPU);
    assert_eq!(all[1].logical_node_id, 1);
}

#[test]
fn hip_visible_devices_hides_gpus_from_hip_but_not_from_the_agent_list() {
    if !child::in_child(
        "hip_visible_devices_hides_gpus_from_hip_but_not_from_the_agent_list",
        &[("ROCSIM_MACHINE", "gpus = 4"), ("HIP_VISIBLE_DEVICES", "2")],
    ) {
        return;
    }
    setup();
    let gpus = gpus(&agents());
    assert_eq!(gpus.len(), 4, "hidden GPUs are agents too");
    let visibility: Vec<u32> = gpus.iter().map(|g| g.runtime_visibility).collect();
    assert_eq!(
        visibility,
        [0x1, 0x1, 0xF, 0x1],
        "HSA sees all, HIP only GPU 2"
    );
    assert_eq!(driver::device_count(), 1);
    // HIP device 0 is GPU 2: logical_node_type_id 2, logical_node_id 4 after two CPUs.
    let handle = kernel_agent_on(0);
    let agent = gpus.iter().find(|g| g.id.handle == handle).unwrap();
    assert_eq!((agent.logical_node_type_id, agent.logical_node_id), (2, 4));
    assert_eq!(driver::set_device(1), Err(sim::SimError::InvalidDevice(1)));
}

#[test]
fn rocr_visible_devices_hides_from_hsa_and_hip_indices_count_rocr_devices() {
    if !child::in_child(
        "rocr_visible_devices_hides_from_hsa_and_hip_indices_count_rocr_devices",
        &[
            ("ROCSIM_MACHINE", "gpus = 4"),
            ("ROCR_VISIBLE_DEVICES", "1,3"),
            ("HIP_VISIBLE_DEVICES", "1"),
        ],
    ) {
        return;
    }
    setup();
    let gpus = gpus(&agents());
    assert_eq!(gpus.len(), 4);
    let visibility: Vec<u32> = gpus.iter().map(|g| g.runtime_visibility).collect();
    assert_eq!(visibility, [0x0, 0x1, 0x0, 0xF]);
    assert_eq!(driver::device_count(), 1);
    assert_eq!(kernel_agent_on(0), gpus[3].id.handle);
}

#[test]
fn scenario_machine_keys_set_sockets_visibility_and_stream_map() {
    let text = r#"
[machine]
gpus = 4
cpus = 1
hip_visible_devices = "3,1"
stream_map = "newer"

[[code_object]]
device = 1
kernels = { k = "k" }

[[thread]]
steps = [ { set_device = 1 }, { launch = "k" } ]
"#;
    let s = scenario::parse_str(text, "inline.toml").unwrap();
    assert_eq!(s.hip_devices(), 2);
    let env = s.machine_env();
    for wanted in [
        (
            "ROCSIM_MACHINE",
            "cpus = 1\ngpus = 4\nstream_map = \"newer\"\n",
        ),
        ("HIP_VISIBLE_DEVICES", "3,1"),
    ] {
        assert!(
            env.iter().any(|(k, v)| (*k, v.as_str()) == wanted),
            "{wanted:?} missing from {env:?}"
        );
    }
    // Device numbers count HIP devices: with two visible, device 2 does not exist.
    let err =
        scenario::parse_str(&text.replace("device = 1", "device = 2"), "inline.toml").unwrap_err();
    assert_eq!((err.line, err.column), (9, 10), "{err}");
    assert!(
        err.to_string().contains("HIP sees 2 of the machine's 4"),
        "{err}"
    );
    let err = scenario::parse_str(
        &text.replace("stream_map = \"newer\"", "stream_map = \"1.3\""),
        "inline.toml",
    )
    .unwrap_err();
    assert_eq!((err.line, err.column), (6, 1), "{err}");
    assert!(err.to_string().contains("sdk-1.0"), "{err}");
    let err =
        scenario::parse_str(&text.replace("cpus = 1", "cpus = 0"), "inline.toml").unwrap_err();
    assert_eq!(err.line, 4, "{err}");
    let err = scenario::parse_str(&text.replace("\"3,1\"", "\"7\""), "inline.toml").unwrap_err();
    assert!(err.to_string().contains("no GPU to HIP"), "{err}");
}
