//! `replay` of the repository's scenarios through the simulator, the tracer and the collector.
// The library calls the SDK; the simulator supplies its symbols to this test binary.
use rocprofiler_sdk_sim as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use xla_rocm_tracer::export::{read_xspace_file, XPlane, XSpace};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Replays `scenario` into a fresh file and returns the decoded trace and the printed summary.
fn replay(scenario: &str, extra: &[&str]) -> (XSpace, String) {
    // Tests run in parallel and several replay the same scenario: each call gets its own file.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let output = std::env::temp_dir().join(format!(
        "replay-{}-{call}-{}-{}.xplane.pb",
        std::process::id(),
        scenario.replace('/', "_"),
        extra.join("")
    ));
    let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .current_dir(repo())
        .args(["replay", scenario, "-o", output.to_str().unwrap()])
        .args(extra)
        // The child re-executes itself when the scenario's GPU count differs.
        .env_remove("ROCSIM_MACHINE")
        .output()
        .expect("run xla-rocm-tracer replay");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let space = read_xspace_file(&output).unwrap();
    std::fs::remove_file(&output).ok();
    (space, String::from_utf8(result.stdout).unwrap())
}

fn plane<'a>(space: &'a XSpace, name: &str) -> &'a XPlane {
    space
        .planes
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no plane {name}"))
}

/// (lane name, event names in order) of a plane: everything but times and thread ids.
fn lanes(plane: &XPlane) -> Vec<(String, Vec<String>)> {
    plane
        .lines
        .iter()
        .map(|line| {
            let names = line
                .events
                .iter()
                .map(|e| plane.event_metadata[&e.metadata_id].name.clone())
                .collect();
            (line.name.clone(), names)
        })
        .collect()
}

fn count(names: &[String], pattern: impl Fn(&str) -> bool) -> usize {
    names.iter().filter(|name| pattern(name)).count()
}

#[test]
fn jax_matmul_has_separate_compute_h2d_and_d2h_lanes() {
    let (space, stdout) = replay("scenarios/jax_matmul.toml", &[]);
    let device_planes: Vec<_> = space
        .planes
        .iter()
        .filter(|p| p.name.starts_with("/device:"))
        .collect();
    assert_eq!(device_planes.len(), 1);
    let gpu = lanes(plane(&space, "/device:GPU:0"));
    let lane_names: Vec<_> = gpu.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        lane_names,
        ["Stream #0", "Stream #1", "Stream #2"],
        "dense names, no raw handles"
    );

    let lane_with = |name: &str| {
        gpu.iter()
            .find(|(_, events)| events.iter().any(|e| e == name))
            .unwrap()
    };
    let (h2d_lane, h2d) = lane_with("MemcpyH2D");
    let (d2h_lane, d2h) = lane_with("MemcpyD2H");
    let (compute_lane, compute) = gpu
        .iter()
        .find(|(_, events)| events.iter().any(|e| e.starts_with("Cijk_")))
        .unwrap();
    assert_eq!(
        count(compute, |e| e.starts_with("Cijk_")),
        10,
        "ten matmul kernels"
    );
    assert!(h2d_lane != compute_lane && d2h_lane != compute_lane && h2d_lane != d2h_lane);
    // Each copy lane: its copy and the end of the flow of the wait it takes part in
    // (docs/xla-interface.md#stream-waits): the upload is recorded, the read-back waits.
    assert_eq!(h2d, &["MemcpyH2D", "hipEventRecord"]);
    assert_eq!(d2h, &["hipStreamWaitEvent", "MemcpyD2H"]);
    // Demangled by the tracer (cpp_demangle), as XLA's MaybeAbiDemangle does.
    assert!(
        compute
            .iter()
            .any(|e| e.starts_with("stream_executor::gpu::")),
        "{compute:?}"
    );

    let host = plane(&space, "/host:CPU");
    assert!(host
        .lines
        .iter()
        .all(|line| line.name.starts_with("Host Threads/")));
    assert!(space.warnings.is_empty(), "{:?}", space.warnings);
    assert!(
        stdout.contains("memcpy bytes: MemcpyH2D 4.00 MiB (4194304 B), MemcpyD2H 128 B\n"),
        "{stdout}"
    );
}

#[test]
fn jax_matmul_lanes_and_events_are_the_same_in_every_run() {
    let (first, _) = replay("scenarios/jax_matmul.toml", &[]);
    let (second, _) = replay("scenarios/jax_matmul.toml", &[]);
    assert_eq!(
        lanes(plane(&first, "/device:GPU:0")),
        lanes(plane(&second, "/device:GPU:0"))
    );
}

#[test]
fn cuda_style_lanes_name_their_event_types() {
    let (space, _) = replay("scenarios/jax_matmul.toml", &["--cuda-style-lanes"]);
    let gpu = plane(&space, "/device:GPU:0");
    let mut names: Vec<_> = gpu.lines.iter().map(|line| line.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "Stream #0(MemcpyH2D)",
            "Stream #1(Kernel)",
            "Stream #2(MemcpyD2H)"
        ]
    );
}

#[test]
fn two_gpus_give_two_planes_and_the_peer_copy_lands_on_its_source() {
    let (space, _) = replay("scenarios/two_gpu.toml", &[]);
    let gpu0 = lanes(plane(&space, "/device:GPU:0"));
    let gpu1 = lanes(plane(&space, "/device:GPU:1"));
    for lanes in [&gpu0, &gpu1] {
        let names: Vec<_> = lanes.iter().map(|(name, _)| name.clone()).collect();
        let dense: Vec<_> = (0..names.len()).map(|n| format!("Stream #{n}")).collect();
        assert_eq!(names, dense, "each plane numbers its own lanes from 0");
    }
    let all = |lanes: &Vec<(String, Vec<String>)>| {
        lanes
            .iter()
            .flat_map(|(_, e)| e.clone())
            .collect::<Vec<_>>()
    };
    // A copy between two GPUs is a peer copy, written once on its source GPU's plane as
    // CUPTI's peer records are (docs/xla-interface.md#copy-device-rules, rule 0).
    assert_eq!(count(&all(&gpu0), |e| e == "MemcpyP2P"), 1);
    assert_eq!(
        count(&all(&gpu1), |e| e == "MemcpyP2P" || e == "MemcpyD2D"),
        0
    );
    assert_eq!(count(&all(&gpu0), |e| e.starts_with("Cijk_")), 3);
    assert_eq!(count(&all(&gpu1), |e| e.starts_with("Cijk_")), 3);
    let gpu1_plane = plane(&space, "/device:GPU:1");
    assert_eq!(gpu1_plane.id, 1);
}

#[test]
fn bad_scenario_fails_with_the_file_named() {
    let path = std::env::temp_dir().join(format!("bad-scenario-{}.toml", std::process::id()));
    std::fs::write(&path, "[machine]\ngpus = \"two\"\n").unwrap();
    let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .args(["replay", path.to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    assert!(!result.status.success());
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(
        stderr.contains(Path::new(&path).to_str().unwrap()),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The bytes `replay` writes for `scenario` (path relative to the repository).
fn replay_bytes(scenario: &Path, extra: &[&str]) -> Vec<u8> {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let output = std::env::temp_dir().join(format!(
        "replay-bytes-{}-{call}.xplane.pb",
        std::process::id()
    ));
    let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .current_dir(repo())
        .arg("replay")
        .arg(scenario)
        .args(["-o", output.to_str().unwrap()])
        .args(extra)
        // The child chooses the machine and the clock itself (re-executing as needed).
        .env_remove("ROCSIM_MACHINE")
        .output()
        .expect("run xla-rocm-tracer replay");
    assert!(
        result.status.success(),
        "{}: {}",
        scenario.display(),
        String::from_utf8_lossy(&result.stderr)
    );
    // A scenario with several sessions writes one trace per session beside `-o`.
    let mut files = vec![output.clone()];
    if !output.exists() {
        files = (1..)
            .map(|k| session_file(&output, k))
            .take_while(|file| file.exists())
            .collect();
    }
    let mut bytes = Vec::new();
    for file in files {
        bytes.extend(std::fs::read(&file).unwrap());
        std::fs::remove_file(&file).ok();
    }
    bytes
}

#[test]
fn every_scenario_replays_to_identical_bytes() {
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(repo().join("scenarios"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    scenarios.sort();
    assert!(scenarios
        .iter()
        .any(|path| path.ends_with("multi_thread.toml")));
    for scenario in &scenarios {
        let first = replay_bytes(scenario, &[]);
        let second = replay_bytes(scenario, &[]);
        assert!(!first.is_empty());
        // What `cmp` would say.
        if let Some(offset) = first.iter().zip(&second).position(|(a, b)| a != b) {
            panic!(
                "{}: the two replays differ at byte {}",
                scenario.display(),
                offset + 1
            );
        }
        assert_eq!(first.len(), second.len(), "{}", scenario.display());
    }
}

#[test]
fn the_real_clock_stays_available() {
    let lane_names = |space: &XSpace| -> Vec<String> {
        let host = plane(space, "/host:CPU");
        host.lines.iter().map(|line| line.name.clone()).collect()
    };
    let (space, stdout) = replay("scenarios/multi_thread.toml", &["--real-clock"]);
    assert!(stdout.contains("replayed scenarios/multi_thread.toml"));
    let real = lane_names(&space);
    let (space, _) = replay("scenarios/multi_thread.toml", &[]);
    let virtual_lanes = lane_names(&space);
    // Host thread lanes are named by the SDK's thread ids: the virtual ones are the scenario
    // threads' 4001.., the real ones the host's.
    assert!(virtual_lanes.iter().any(|name| name.ends_with("/4001")));
    assert_ne!(real, virtual_lanes);
}

/// A stat of `event` by name, its value as text (ref values resolved to their string).
fn event_stat(
    plane: &XPlane,
    event: &xla_rocm_tracer::export::XEvent,
    name: &str,
) -> Option<String> {
    use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
    let stat = event
        .stats
        .iter()
        .find(|stat| plane.stat_metadata[&stat.metadata_id].name == name)?;
    Some(match stat.value.as_ref()? {
        Value::Uint64Value(v) => v.to_string(),
        Value::Int64Value(v) => v.to_string(),
        Value::StrValue(v) => v.clone(),
        Value::RefValue(id) => plane.stat_metadata[&(*id as i64)].name.clone(),
        other => format!("{other:?}"),
    })
}

/// (event name, event) of every event of `plane`, line by line.
fn named_events(plane: &XPlane) -> Vec<(String, &xla_rocm_tracer::export::XEvent)> {
    plane
        .lines
        .iter()
        .flat_map(|line| line.events.iter())
        .map(|event| (plane.event_metadata[&event.metadata_id].name.clone(), event))
        .collect()
}

#[test]
fn hidden_gpus_put_every_event_on_gpu_0_without_drops() {
    let (space, stdout) = replay("scenarios/hidden_gpus.toml", &[]);
    let device_planes: Vec<&str> = space
        .planes
        .iter()
        .map(|p| p.name.as_str())
        .filter(|name| name.starts_with("/device:"))
        .collect();
    assert_eq!(
        device_planes,
        ["/device:GPU:0"],
        "HIP sees one GPU: device 0"
    );
    let gpu = plane(&space, "/device:GPU:0");
    let events = named_events(gpu);
    assert_eq!(events.len(), 8, "6 kernels and 2 copies: {stdout}");
    assert_eq!(
        count(
            &events.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
            |n| n.starts_with("Cijk_")
        ),
        3
    );
    assert!(space.warnings.is_empty(), "{:?}", space.warnings);
    assert!(stdout.contains("drops: none reported"), "{stdout}");
    let host = plane(&space, "/host:CPU");
    let host_events = named_events(host);
    assert_eq!(host_events.len(), 8);
    for (name, event) in host_events {
        assert_eq!(
            event_stat(host, event, "device_id").as_deref(),
            Some("0"),
            "{name}"
        );
    }
}

#[test]
fn copy_paths_are_named_by_the_direction_the_program_asked_for() {
    let (space, stdout) = replay("scenarios/copy_paths.toml", &[]);
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(gpu.lines.len(), 1, "every copy stays on its call's stream");
    let copies: Vec<(String, String, Option<String>)> = named_events(gpu)
        .into_iter()
        .filter(|(name, _)| name.starts_with("Memcpy"))
        .map(|(name, event)| {
            let details = event_stat(gpu, event, "memcpy_details").unwrap();
            let size = details
                .split_whitespace()
                .find(|f| f.starts_with("size:"))
                .unwrap()
                .to_owned();
            (name, size, event_stat(gpu, event, "recorded_direction"))
        })
        .collect();
    let kernel = Some("Kernel".to_owned());
    assert_eq!(
        copies,
        [
            (
                "MemcpyH2D".to_owned(),
                "size:4096".to_owned(),
                kernel.clone()
            ),
            (
                "MemcpyD2H".to_owned(),
                "size:4096".to_owned(),
                kernel.clone()
            ),
            ("MemcpyH2D".to_owned(), "size:67108864".to_owned(), None),
            ("MemcpyH2D".to_owned(), "size:4096".to_owned(), kernel),
        ],
        "blits named by their call, the two pinned pieces joined into the call's size"
    );
    assert!(
        stdout.contains(
            "memcpy bytes: MemcpyH2D 64.01 MiB (67117056 B), MemcpyD2H 4.0 KiB (4096 B)\n"
        ),
        "{stdout}"
    );
    assert!(
        !named_events(gpu)
            .iter()
            .any(|(name, _)| name.starts_with("__amd_rocclr_copy")),
        "no copy kernel left on the timeline"
    );

    let host = plane(&space, "/host:CPU");
    let cpu_copies: Vec<_> = named_events(host)
        .into_iter()
        .filter(|(_, event)| event_stat(host, event, "copy_done_by").is_some())
        .collect();
    assert_eq!(cpu_copies.len(), 1, "the host-to-host copy");
    for (name, event) in cpu_copies {
        assert_eq!(name, "hipMemcpyAsync");
        assert_eq!(
            event_stat(host, event, "copy_done_by").as_deref(),
            Some("CPU")
        );
        assert_eq!(
            event_stat(host, event, "device_id"),
            None,
            "no device did it"
        );
    }
    assert_eq!(
        named_events(host).len(),
        6,
        "every copy call and the launch"
    );
    assert_eq!(space.warnings.len(), 1, "{:?}", space.warnings);
    assert!(
        space.warnings[0].starts_with("1 HIP copy call has no device record: copy done by the CPU"),
        "{:?}",
        space.warnings
    );
    assert!(!space.warnings.iter().any(|w| w.starts_with("Dropped")));
}

/// The other shape ROCm 7.0's sources allow (docs/simulator-fidelity.md, U4): no blit size,
/// so the small copies are SDMA copies recorded in their own direction; the device timeline
/// names them the same, without a `recorded_direction`.
#[test]
fn copy_paths_under_rocm_7_0_without_blits_are_the_same_copies() {
    let text = std::fs::read_to_string(repo().join("scenarios/copy_paths.toml")).unwrap();
    let text = text.replace("[machine]\n", "[machine]\nsdma_threshold = 0\n");
    let scenario =
        std::env::temp_dir().join(format!("copy_paths_sdma_{}.toml", std::process::id()));
    std::fs::write(&scenario, text).unwrap();
    let (space, _) = replay(scenario.to_str().unwrap(), &["--rocm", "7.0"]);
    let _ = std::fs::remove_file(&scenario);
    let gpu = plane(&space, "/device:GPU:0");
    let copies: Vec<(String, Option<String>)> = named_events(gpu)
        .into_iter()
        .filter(|(name, _)| name.starts_with("Memcpy") || name.starts_with("__amd_rocclr_copy"))
        .map(|(name, event)| (name, event_stat(gpu, event, "recorded_direction")))
        .collect();
    assert_eq!(
        copies,
        [
            ("MemcpyH2D".to_owned(), None),
            ("MemcpyD2H".to_owned(), None),
            ("MemcpyH2D".to_owned(), None),
            ("MemcpyH2D".to_owned(), None),
        ]
    );
}

#[test]
fn indirect_dispatch_keeps_work_on_unattributed_lanes_and_warns_once() {
    let (space, _) = replay("scenarios/indirect_dispatch.toml", &[]);
    let gpu = lanes(plane(&space, "/device:GPU:0"));
    let lane_names: Vec<&str> = gpu.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        lane_names,
        ["Unattributed (copies)", "Unattributed (queue #0)"]
    );
    assert_eq!(gpu[0].1, ["MemcpyH2D"]);
    assert_eq!(count(&gpu[1].1, |e| e.starts_with("Cijk_")), 2);
    assert_eq!(count(&gpu[1].1, |e| e == "loop_add_fusion"), 2);
    let attribution: Vec<_> = space
        .warnings
        .iter()
        .filter(|w| w.contains("stream attribution needs direct dispatch"))
        .collect();
    assert_eq!(attribution.len(), 1, "{:?}", space.warnings);
    assert!(
        attribution[0].starts_with("5 GPU activities"),
        "{attribution:?}"
    );
    // The unattributed work is warned about once, by the export, not again by the tracer.
    assert!(
        !space.warnings.iter().any(|w| w.contains("submissions")),
        "{:?}",
        space.warnings
    );
    assert!(
        !space.warnings.iter().any(|w| w.starts_with("Dropped")),
        "nothing is lost: {:?}",
        space.warnings
    );
}
/// Where `replay -o output` writes session `k` (from 1) of a scenario with several sessions.
fn session_file(output: &Path, k: usize) -> PathBuf {
    let name = output.file_name().unwrap().to_str().unwrap();
    let stem = name.strip_suffix(".xplane.pb").unwrap();
    output.with_file_name(format!("{stem}.session{k}.xplane.pb"))
}

/// Replays a scenario with `enable` / `disable` steps; returns each session's trace and stdout.
fn replay_sessions(scenario: &str, env: &[(&str, &str)]) -> (Vec<XSpace>, String) {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let output = std::env::temp_dir().join(format!(
        "replay-sessions-{}-{call}.xplane.pb",
        std::process::id()
    ));
    let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .current_dir(repo())
        .args(["replay", scenario, "-o", output.to_str().unwrap()])
        .env_remove("ROCSIM_MACHINE")
        .env_remove("XLA_ROCM_TRACER_DISABLE_WAIT_MS")
        .envs(env.iter().copied())
        .output()
        .expect("run xla-rocm-tracer replay");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let stdout = String::from_utf8(result.stdout).unwrap();
    let files: Vec<PathBuf> = if output.exists() {
        vec![output]
    } else {
        (1..)
            .map(|k| session_file(&output, k))
            .take_while(|file| file.exists())
            .collect()
    };
    let spaces = files
        .iter()
        .map(|file| {
            let space = read_xspace_file(file).unwrap();
            std::fs::remove_file(file).ok();
            space
        })
        .collect();
    (spaces, stdout)
}

/// Event names on every lane of a plane (empty if the trace has no such plane).
fn event_names(space: &XSpace, plane_name: &str) -> Vec<String> {
    space
        .planes
        .iter()
        .find(|p| p.name == plane_name)
        .map(|p| lanes(p).into_iter().flat_map(|(_, names)| names).collect())
        .unwrap_or_default()
}

const IN_FLIGHT: &str =
    "lost in the tracer: kernel dispatches and copies still in flight at Disable";

#[test]
fn disable_in_flight_each_session_holds_exactly_its_own_events() {
    let (spaces, stdout) = replay_sessions("scenarios/disable_in_flight.toml", &[]);
    assert_eq!(spaces.len(), 2, "one trace per session: {stdout}");
    assert!(stdout.contains("session 1 of 2") && stdout.contains("session 2 of 2"));
    let first = event_names(&spaces[0], "/device:GPU:0");
    assert_eq!(first, vec!["loop_add_fusion".to_owned(); 5], "{stdout}");
    assert_eq!(
        event_names(&spaces[0], "/host:CPU").len(),
        5,
        "the five launches"
    );
    let second = event_names(&spaces[1], "/device:GPU:0");
    assert_eq!(second, vec!["reduce_sum_fusion".to_owned(); 3], "{stdout}");
    assert_eq!(event_names(&spaces[1], "/host:CPU").len(), 3);
    // Nothing missing after the wait, and nothing of the first session in the second's drops.
    assert!(spaces[0].warnings.is_empty(), "{:?}", spaces[0].warnings);
    assert!(spaces[1].warnings.is_empty(), "{:?}", spaces[1].warnings);
}

#[test]
fn disable_in_flight_without_the_wait_reports_the_kernels_in_flight() {
    let (spaces, stdout) = replay_sessions(
        "scenarios/disable_in_flight.toml",
        &[("XLA_ROCM_TRACER_DISABLE_WAIT_MS", "0")],
    );
    assert_eq!(spaces.len(), 2, "{stdout}");
    assert!(event_names(&spaces[0], "/device:GPU:0").is_empty());
    assert_eq!(
        spaces[0].warnings,
        [format!(
            "Dropped 5 events: {IN_FLIGHT} (their records had not arrived)"
        )]
    );
    // The five late records land during the second session: never in its trace, never among
    // its drops. Of the second session's own three kernels, two are in flight at its Disable:
    // the signal thread's wake for a late record, more than the minimum lag after the first
    // of the three ended, also handled that one's completion, as one wake of the runtime's
    // signal handler handles every completion it can see (the simulator's signal.rs).
    assert!(!event_names(&spaces[1], "/device:GPU:0")
        .iter()
        .any(|name| name == "loop_add_fusion"));
    assert_eq!(
        spaces[1].warnings,
        [format!(
            "Dropped 2 events: {IN_FLIGHT} (their records had not arrived)"
        )]
    );
}

#[test]
fn exit_while_tracing_keeps_the_tail() {
    let (spaces, stdout) = replay_sessions("scenarios/exit_while_tracing.toml", &[]);
    assert_eq!(spaces.len(), 1, "{stdout}");
    assert!(stdout.contains("still enabled at exit"), "{stdout}");
    let space = &spaces[0];
    let gpu = event_names(space, "/device:GPU:0");
    // Below the buffer's watermark: only the tracer's flush at finalization delivers these.
    assert_eq!(
        gpu.iter()
            .filter(|name| *name == "train_step_fusion")
            .count(),
        6,
        "{gpu:?}"
    );
    assert_eq!(gpu.iter().filter(|name| *name == "MemcpyD2H").count(), 1);
    assert!(
        !gpu.iter().any(|name| name == "warmup_fusion"),
        "before Enable"
    );
    assert_eq!(event_names(space, "/host:CPU").len(), 7);
    assert!(space.warnings.is_empty(), "{:?}", space.warnings);
}

/// Events per device lane of GPU 0, sorted.
fn lane_sizes(space: &XSpace) -> Vec<usize> {
    let mut sizes: Vec<usize> = lanes(plane(space, "/device:GPU:0"))
        .iter()
        .map(|(_, events)| events.len())
        .collect();
    sizes.sort();
    sizes
}

#[test]
fn a_cap_in_the_scenarios_profiler_table_caps_the_trace() {
    let (space, _) = replay("scenarios/profiler_caps.toml", &[]);
    assert_eq!(
        lane_sizes(&space),
        [8],
        "max_activity_api_events = 8 of 20 kernels"
    );
    assert!(
        space
            .warnings
            .iter()
            .any(|w| w.starts_with("Dropped ") && w.contains("max_activity_api_events")),
        "{:?}",
        space.warnings
    );
}

#[test]
fn set_windows_and_stream_lifecycle_scenarios_put_work_on_their_streams() {
    // set_windows: memsets inside `outer` (3, one in the window left open), inside `inner`
    // with its launch (2), and one outside every window (null stream).
    let (space, _) = replay("scenarios/set_windows.toml", &[]);
    assert_eq!(lane_sizes(&space), [1, 2, 3]);
    // stream_lifecycle: `scratch` (1 kernel, then destroyed), `compute` (4), `temp` on the
    // reused handle but its own lane (2 kernels, 2 memsets).
    let (space, _) = replay("scenarios/stream_lifecycle.toml", &[]);
    assert_eq!(lane_sizes(&space), [1, 4, 4]);
}

#[test]
fn absurd_and_empty_scenarios_are_refused_naming_the_input_with_no_file_left() {
    let head = "[[code_object]]\nkernels = { k = \"_Z1kv\" }\n[[thread]]\nsteps = [\n";
    let cases = [
        (
            "dispatches",
            format!("{head}  {{ repeat = 1000000, steps = [ {{ repeat = 1000000, steps = [ {{ launch = \"k\" }} ] }} ] }},\n]\n"),
            ":5:3: repeat = 1000000: the group runs 1000000000000 steps",
        ),
        (
            "bytes",
            format!("{head}  {{ memcpy = \"h2d\", bytes = 18446744073709551615 }},\n]\n"),
            ":5:3: bytes = 18446744073709551615 is too large",
        ),
        (
            "kernel",
            format!("{head}  {{ launch = \"k\", duration_us = 1e12 }},\n]\n"),
            ":5:3: duration_us = 1e12 is too large",
        ),
        (
            "duration",
            format!("{head}  {{ launch = \"k\", duration_us = 1e300 }},\n]\n"),
            ":5:3: duration_us = 1e300 is too large",
        ),
        (
            "empty",
            String::new(),
            ": the scenario has no steps",
        ),
    ];
    for (name, text, needle) in cases {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("absurd-{name}-{}.toml", std::process::id()));
        let output = dir.join(format!("absurd-{name}-{}.xplane.pb", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
            .args([
                "replay",
                path.to_str().unwrap(),
                "-o",
                output.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        std::fs::remove_file(&path).ok();
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(!result.status.success(), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("{}{needle}", path.display())),
            "{name}: {stderr}"
        );
        assert!(!output.exists(), "{name}: a trace was written");
    }
}

fn lane_names(space: &XSpace) -> Vec<String> {
    lanes(plane(space, "/device:GPU:0"))
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn named_streams_show_in_the_trace_inspect_and_chrome_json_and_map_to_scenario_names() {
    let (space, stdout) = replay("scenarios/named_streams.toml", &[]);
    let expected = [
        "Stream #0 \"h2d\"",
        "Stream #1 \"compute\"",
        "Stream #2",
        "Stream #3 (null)",
    ];
    assert_eq!(lane_names(&space), expected);
    // inspect's view of the trace, printed by replay.
    for lane in expected {
        assert!(stdout.contains(lane), "{lane} in\n{stdout}");
    }
    // Every lane maps back to the scenario's stream names, named or not.
    for line in [
        "GPU 0 Stream #0 = h2d",
        "GPU 0 Stream #1 = compute",
        "GPU 0 Stream #2 = spare",
    ] {
        assert!(stdout.contains(line), "{line} in\n{stdout}");
    }

    // chrome-json: thread names and the stream stats as event args.
    let dir = std::env::temp_dir().join(format!("named-streams-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("named.xplane.pb");
    let json = dir.join("named.json");
    let cli = |args: &[&str]| {
        let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
            .current_dir(repo())
            .args(args)
            .env_remove("ROCSIM_MACHINE")
            .output()
            .unwrap();
        assert!(
            result.status.success(),
            "{}",
            String::from_utf8_lossy(&result.stderr)
        );
    };
    cli(&[
        "replay",
        "scenarios/named_streams.toml",
        "-o",
        trace.to_str().unwrap(),
    ]);
    cli(&[
        "convert",
        trace.to_str().unwrap(),
        "--to",
        "chrome-json",
        "-o",
        json.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&json).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let chrome: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = chrome["traceEvents"].as_array().unwrap();
    let thread_names: Vec<&str> = events
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    for lane in expected {
        assert!(thread_names.contains(&lane), "{lane} in {thread_names:?}");
    }
    let args_of = |name: &str| {
        events
            .iter()
            .find(|e| e["ph"] == "X" && e["name"] == name)
            .map(|e| e["args"].clone())
            .unwrap_or_else(|| panic!("no {name} event"))
    };
    assert_eq!(args_of("MemcpyH2D")["stream_name"], "h2d");
    assert_eq!(
        args_of("__amd_rocclr_fillBufferAligned")["stream_kind"],
        "null"
    );
}

#[test]
fn group_by_queue_puts_lanes_per_hsa_queue() {
    // Two streams share HSA queue `q`, a third has its own; a copy runs on no queue.
    let scenario = std::env::temp_dir().join(format!("shared-queue-{}.toml", std::process::id()));
    std::fs::write(
        &scenario,
        r#"[[code_object]]
kernels = { k = "loop_add_fusion" }
[streams]
a = { device = 0, queue = "q" }
b = { device = 0, queue = "q" }
c = { device = 0 }
[[thread]]
steps = [
  { launch = "k", stream = "a" },
  { launch = "k", stream = "b" },
  { launch = "k", stream = "c" },
  { memcpy = "h2d", stream = "c", bytes = 1048576 },
  { sync_device = true },
]
"#,
    )
    .unwrap();
    let path = scenario.to_str().unwrap();
    let (by_stream, _) = replay(path, &[]);
    let (by_queue, stdout) = replay(path, &["--group-by", "queue"]);
    std::fs::remove_file(&scenario).ok();
    assert_eq!(
        lane_names(&by_stream),
        ["Stream #0", "Stream #1", "Stream #2"]
    );
    let by_queue_lanes: Vec<(String, usize)> = lanes(plane(&by_queue, "/device:GPU:0"))
        .into_iter()
        .map(|(name, events)| (name, events.len()))
        .collect();
    assert_eq!(
        by_queue_lanes,
        [
            ("Queue #0".to_owned(), 2),
            ("Queue #1".to_owned(), 1),
            ("Queue (copies)".to_owned(), 1),
        ]
    );
    assert!(stdout.contains("Queue (copies)"), "{stdout}");
}

#[test]
fn a_bad_group_by_is_refused_with_the_choices() {
    let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .current_dir(repo())
        .args(["replay", "scenarios/two_gpu.toml", "--group-by", "queues"])
        .output()
        .unwrap();
    assert!(!result.status.success());
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(
        stderr.contains("expected `stream` or `queue`, got `queues`"),
        "{stderr}"
    );
}

#[test]
fn streams_created_by_scenario_threads_get_their_roctx_names_too() {
    // `worker` creates `w` at its start and `late` at a `create_stream` step: both are named
    // right after creation, like the streams the replay creates up front.
    let text = r#"
[[code_object]]
kernels = { k = "_Z1kv" }

[streams]
w = { device = 0, thread = "worker", roctx_name = "from-worker" }
late = { device = 0, roctx_name = "made-late" }

[[thread]]
name = "worker"
steps = [
  { launch = "k", stream = "w" },
  { create_stream = "late" },
  { launch = "k", stream = "late" },
  { sync_device = true },
]
"#;
    let path = std::env::temp_dir().join(format!("thread-named-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let (space, stdout) = replay(path.to_str().unwrap(), &[]);
    std::fs::remove_file(&path).ok();
    let names = lane_names(&space);
    assert!(
        names.contains(&"Stream #0 \"from-worker\"".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"Stream #1 \"made-late\"".to_owned()),
        "{names:?}"
    );
    // The summary maps both lanes back to their scenario names.
    assert!(stdout.contains("= w"), "{stdout}");
    assert!(stdout.contains("= late"), "{stdout}");
}

/// Device lane names of `scenarios/two_gpu.toml`'s GPU 0 replayed with `env` and `args`, or the
/// failed run's stderr.
fn two_gpu_lanes_with(env: &[(&str, &str)], args: &[&str]) -> Result<Vec<String>, String> {
    let output = std::env::temp_dir().join(format!(
        "group-by-env-{}-{}.xplane.pb",
        std::process::id(),
        env.iter().map(|(_, v)| *v).collect::<String>() + &args.join("")
    ));
    let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .current_dir(repo())
        .args([
            "replay",
            "scenarios/two_gpu.toml",
            "-o",
            output.to_str().unwrap(),
        ])
        .args(args)
        .envs(env.iter().copied())
        .env_remove("ROCSIM_MACHINE")
        .output()
        .unwrap();
    if !result.status.success() {
        return Err(String::from_utf8_lossy(&result.stderr).into_owned());
    }
    let space = read_xspace_file(&output).unwrap();
    std::fs::remove_file(&output).ok();
    Ok(lanes(plane(&space, "/device:GPU:0"))
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}

#[test]
fn replay_honours_xla_rocm_tracer_group_by_and_the_flag_wins() {
    let by_env = two_gpu_lanes_with(&[("XLA_ROCM_TRACER_GROUP_BY", "queue")], &[]).unwrap();
    assert!(
        by_env.iter().all(|name| name.starts_with("Queue")),
        "{by_env:?}"
    );
    let by_flag = two_gpu_lanes_with(
        &[("XLA_ROCM_TRACER_GROUP_BY", "queue")],
        &["--group-by", "stream"],
    )
    .unwrap();
    assert!(
        by_flag.iter().all(|name| name.starts_with("Stream")),
        "{by_flag:?}"
    );
    let stderr = two_gpu_lanes_with(&[("XLA_ROCM_TRACER_GROUP_BY", "queues")], &[]).unwrap_err();
    assert!(
        stderr.contains("XLA_ROCM_TRACER_GROUP_BY=\"queues\" is not `stream` or `queue`"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// The count of the warning "Dropped <N> event(s): <what>…" (0 without one); panics if two
/// lines give the same reason, which would count one loss twice.
fn dropped(space: &XSpace, what: &str) -> u64 {
    let counts: Vec<u64> = space
        .warnings
        .iter()
        .filter_map(|w| {
            let rest = w.strip_prefix("Dropped ")?;
            let (count, reason) = rest.split_once(' ')?;
            let reason = reason
                .strip_prefix("events: ")
                .or_else(|| reason.strip_prefix("event: "))?;
            reason.starts_with(what).then(|| count.parse().unwrap())
        })
        .collect();
    assert!(
        counts.len() <= 1,
        "{what} warned twice: {:?}",
        space.warnings
    );
    counts.first().copied().unwrap_or(0)
}

/// 10 annotated iterations of 2 kernel launches each (20 kernels, `step_0` .. `step_9`),
/// replayed under `profiler` (a `[profiler]` table's keys).
fn replay_capped(name: &str, profiler: &str) -> (XSpace, String) {
    let scenario = std::env::temp_dir().join(format!("caps-{}-{name}.toml", std::process::id()));
    std::fs::write(
        &scenario,
        format!(
            "[profiler]\n{profiler}\n[[code_object]]\nkernels = {{ fusion = \"loop_add_fusion\" }}\n\
             [streams]\ncompute = {{ device = 0 }}\n[[thread]]\nsteps = [\n  \
             {{ repeat = 10, annotate = \"step_{{i}}\", steps = [ {{ launch = \"fusion\", stream = \"compute\" }}, \
             {{ launch = \"fusion\", stream = \"compute\" }} ] }},\n  {{ sync_stream = \"compute\" }},\n]\n"
        ),
    )
    .unwrap();
    let replayed = replay(scenario.to_str().unwrap(), &[]);
    std::fs::remove_file(&scenario).ok();
    replayed
}

const ACTIVITY_CAP: &str = "GPU activities over the GPU activity cap";
const API_CAP: &str = "HIP API events over the HIP API event cap";
const API_OF_CAPPED_ACTIVITY: &str = "HIP API events left out because the GPU activity cap";
const ACTIVITY_OF_CAPPED_API: &str = "GPU activities left out because the HIP API event cap";

/// Kernels kept on GPU 0 plus kernels the warnings count as dropped: every one of the 20
/// launched, each counted once.
fn kernels_accounted(space: &XSpace) -> u64 {
    let kept = event_names(space, "/device:GPU:0").len() as u64;
    kept + dropped(space, ACTIVITY_CAP) + dropped(space, ACTIVITY_OF_CAPPED_API)
}

/// A warning and the replay summary say the same, once.
fn summary_says(stdout: &str, space: &XSpace, what: &str) {
    let line = space
        .warnings
        .iter()
        .find(|w| w.contains(what))
        .unwrap_or_else(|| panic!("no warning with {what}: {:?}", space.warnings));
    assert_eq!(stdout.matches(line.as_str()).count(), 1, "{stdout}");
}

#[test]
fn annotations_over_the_cap_are_counted_once_per_event_kept_without_one() {
    let (space, stdout) = replay_capped("annotations", "max_annotation_strings = 3");
    let gpu = plane(&space, "/device:GPU:0");
    let kernels: Vec<_> = gpu.lines.iter().flat_map(|line| &line.events).collect();
    assert_eq!(kernels.len(), 20, "the cap keeps every kernel");
    let annotated = kernels
        .iter()
        .filter(|event| {
            event
                .stats
                .iter()
                .any(|stat| gpu.stat_metadata[&stat.metadata_id].name == "tf_op")
        })
        .count();
    assert_eq!(annotated, 6, "step_0 .. step_2, two kernels each");
    // The 14 other kernels and their 14 launches: kept, without their annotation, and said so.
    let expected = "Kept 28 events without their annotation";
    assert!(
        space.warnings.iter().any(|w| w.starts_with(expected)),
        "{:?}",
        space.warnings
    );
    summary_says(&stdout, &space, expected);
    assert!(!stdout.contains("drops: none reported"), "{stdout}");
}

#[test]
fn kernels_over_the_activity_cap_are_counted_once_and_their_launches_apart() {
    let (space, stdout) = replay_capped("activities", "max_activity_api_events = 8");
    assert_eq!(event_names(&space, "/device:GPU:0").len(), 8);
    assert_eq!(dropped(&space, ACTIVITY_CAP), 12, "{:?}", space.warnings);
    assert_eq!(dropped(&space, API_OF_CAPPED_ACTIVITY), 12);
    assert_eq!(dropped(&space, API_CAP), 0);
    assert_eq!(kernels_accounted(&space), 20);
    summary_says(&stdout, &space, ACTIVITY_CAP);
}

#[test]
fn launches_over_the_api_cap_are_counted_there_and_their_kernels_apart() {
    let (space, stdout) = replay_capped("api", "max_callback_api_events = 10");
    let kept = event_names(&space, "/device:GPU:0").len() as u64;
    assert!(kept < 20, "{kept} kernels kept");
    assert!(dropped(&space, API_CAP) > 0, "{:?}", space.warnings);
    assert_eq!(dropped(&space, ACTIVITY_CAP), 0, "no activity cap was set");
    assert_eq!(dropped(&space, ACTIVITY_OF_CAPPED_API), 20 - kept);
    assert_eq!(kernels_accounted(&space), 20);
    summary_says(&stdout, &space, API_CAP);
}

#[test]
fn with_both_caps_each_lost_kernel_is_counted_once_and_none_under_the_api_cap() {
    let (space, _) = replay_capped(
        "both",
        "max_activity_api_events = 8\nmax_callback_api_events = 12",
    );
    assert_eq!(dropped(&space, ACTIVITY_CAP), 12, "{:?}", space.warnings);
    assert!(dropped(&space, API_CAP) > 0);
    assert_eq!(kernels_accounted(&space), 20, "{:?}", space.warnings);
    // Every kept kernel has its launch on the host (XLA keeps only calls with an activity).
    let kept = event_names(&space, "/device:GPU:0").len();
    let launches = count(&event_names(&space, "/host:CPU"), |name| {
        name.starts_with("hipLaunchKernel") || name.starts_with("hipModuleLaunchKernel")
    });
    assert!(kept > 0);
    assert_eq!(launches, kept);
}

/// (event name, its `nvtx_range`).
type LabelledEvent = (String, Option<String>);

/// (line name, its events with their `nvtx_range`) of every line of `plane`.
fn lines_with_ranges(plane: &XPlane) -> Vec<(String, Vec<LabelledEvent>)> {
    plane
        .lines
        .iter()
        .map(|line| {
            let events = line
                .events
                .iter()
                .map(|event| {
                    (
                        plane.event_metadata[&event.metadata_id].name.clone(),
                        event_stat(plane, event, "nvtx_range"),
                    )
                })
                .collect();
            (line.name.clone(), events)
        })
        .collect()
}

#[test]
fn roctx_ranges_are_host_bands_and_label_the_work_launched_inside_them() {
    // The default machine: ROCTx told by both MARKER_CORE_API and MARKER_CORE_RANGE_API.
    check_roctx_ranges(&[]);
}

/// The ledger's row "ROCTx domains" is unpinned: every shape shows each range once.
#[test]
fn roctx_ranges_show_once_when_only_the_core_domain_tells_of_them() {
    check_roctx_ranges(&[("ROCSIM_MACHINE", "roctx_domains = \"core\"")]);
}

#[test]
fn roctx_ranges_show_once_when_only_the_range_domain_tells_of_them() {
    check_roctx_ranges(&[("ROCSIM_MACHINE", "roctx_domains = \"range\"")]);
}

/// scenarios/roctx_ranges.toml under the machine `env` gives.
fn check_roctx_ranges(env: &[(&str, &str)]) {
    let (spaces, stdout) = replay_sessions("scenarios/roctx_ranges.toml", env);
    assert_eq!(spaces.len(), 2, "{stdout}");
    let some = |s: &str| Some(s.to_owned());
    let event = |name: &str, range: Option<String>| (name.to_owned(), range);

    let host = lines_with_ranges(plane(&spaces[0], "/host:CPU"));
    let line_names: Vec<&str> = host.iter().map(|(name, _)| name.as_str()).collect();
    // Each thread's ROCTx line right after its thread's line.
    assert_eq!(
        line_names,
        [
            "Host Threads/4001",
            "Host Threads/4001/ROCTX",
            "Host Threads/4002",
            "Host Threads/4002/ROCTX",
            "ROCTX Process Ranges"
        ]
    );
    // The process range `main` started and `loader` stopped, once, labelling nothing.
    assert_eq!(host[4].1, [event("epoch", some("epoch"))]);
    // It spans `loader`'s whole batch (stopped after it).
    let cpu = plane(&spaces[0], "/host:CPU");
    let (epoch, load_batch) = (&cpu.lines[4].events[0], &cpu.lines[3].events[0]);
    assert!(
        epoch.duration_ps > load_batch.duration_ps,
        "{epoch:?} {load_batch:?}"
    );
    // Ranges by start time (outer first), marks zero-length; `spanning` (popped in session 2)
    // is in neither session.
    assert_eq!(
        host[1].1,
        [
            event("train_step", some("train_step")),
            event("matmul", some("matmul")),
            event("checkpoint", some("checkpoint")),
        ]
    );
    assert_eq!(
        host[3].1,
        [
            event("load_batch", some("load_batch")),
            event("normalize", some("normalize")),
            event("batch_ready", some("batch_ready")),
        ]
    );
    // The innermost label at each HIP call, on the call and on its kernel or copy.
    assert_eq!(
        host[0].1,
        [
            event("hipLaunchKernel", some("matmul")),
            event("hipLaunchKernel", some("train_step")),
            event("hipLaunchKernel", None),
            event("hipLaunchKernel", some("spanning")),
        ]
    );
    let device = lines_with_ranges(plane(&spaces[0], "/device:GPU:0"));
    let device_events: Vec<_> = device.into_iter().flat_map(|(_, events)| events).collect();
    assert_eq!(
        device_events,
        [
            event("Cijk_Alik_Bljk_HHS_BH_MT128x128x32", some("matmul")),
            event("loop_add_fusion", some("train_step")),
            event("reduce_sum_fusion", None),
            event("loop_add_fusion", some("spanning")),
            event("MemcpyH2D", some("load_batch")),
            event("loop_add_fusion", some("normalize")),
        ]
    );
    let marks = plane(&spaces[0], "/host:CPU").lines[1].events[2].duration_ps;
    assert_eq!(marks, 0, "a mark has no length");

    // Kernel resources and occupancy, from the kernel symbol (the simulator's code objects:
    // 64 arch VGPRs, 32 SGPRs, no static LDS) and the dispatch (32 KiB LDS per 256-thread
    // workgroup: 2 workgroups of 4 waves in 32 slots on gfx942, 304 CUs).
    let gpu = plane(&spaces[0], "/device:GPU:0");
    let (_, gemm) = named_events(gpu)
        .into_iter()
        .find(|(name, _)| name.starts_with("Cijk"))
        .unwrap();
    assert_eq!(
        event_stat(gpu, gemm, "kernel_details").as_deref(),
        Some(
            "regs:64 static_shared:0 dynamic_shared:32768 grid:256,1,1 block:256,1,1 \
             private_mem:0 occ_pct:25"
        )
    );
    assert_eq!(
        event_stat(gpu, gemm, "theoretical_occupancy_pct").as_deref(),
        Some("DoubleValue(25.0)")
    );
    assert_eq!(
        event_stat(gpu, gemm, "occupancy_min_grid_size").as_deref(),
        Some("608")
    );

    // Session 2: `spanning` was pushed in session 1, so the kernel launched under it in
    // session 2 has no label and the range is not shown.
    let host = lines_with_ranges(plane(&spaces[1], "/host:CPU"));
    assert_eq!(
        host,
        [
            (
                "Host Threads/4001".to_owned(),
                vec![
                    event("hipLaunchKernel", None),
                    event("hipLaunchKernel", some("second_session"))
                ]
            ),
            (
                "Host Threads/4001/ROCTX".to_owned(),
                vec![event("second_session", some("second_session"))]
            ),
            // Started and stopped on one thread, around the gemm: still no label on it.
            (
                "ROCTX Process Ranges".to_owned(),
                vec![event("eval", some("eval"))]
            ),
        ]
    );
}

/// What a report says of one trace, without its title line: planes, lanes, kinds, bytes, span
/// and drops.
fn report_body(section: &str) -> &str {
    let body = section.split_once('\n').map_or("", |(_, body)| body);
    let end = ["\nscenario streams:", "\nwrote "]
        .iter()
        .filter_map(|marker| body.find(marker))
        .min()
        .unwrap_or(body.len());
    body[..end].trim_end()
}

#[test]
fn replays_streamed_summary_is_inspects_summary_of_the_file_it_wrote() {
    // Memsets (by call and by fill kernel), copies of each direction, several lanes, threads,
    // GPUs and sessions: replay counts them as the export streams by, inspect from the planes
    // read back; their reports agree line for line.
    let dir = std::env::temp_dir().join(format!("replay-vs-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cli = |args: &[&str]| {
        let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
            .current_dir(repo())
            .args(args)
            .env_remove("ROCSIM_MACHINE")
            .env_remove("XLA_ROCM_TRACER_DISABLE_WAIT_MS")
            .output()
            .unwrap();
        assert!(
            result.status.success(),
            "{}",
            String::from_utf8_lossy(&result.stderr)
        );
        String::from_utf8(result.stdout).unwrap()
    };
    for (scenario, sessions) in [
        ("multi_thread", 1),
        ("random_workload", 1),
        ("copy_paths", 1),
        ("two_gpu", 1),
        ("disable_in_flight", 2),
    ] {
        let output = dir.join(format!("{scenario}.xplane.pb"));
        let report = cli(&[
            "replay",
            &format!("scenarios/{scenario}.toml"),
            "-o",
            output.to_str().unwrap(),
        ]);
        let sections: Vec<&str> = report.split("\ntrace: replay of ").skip(1).collect();
        assert_eq!(sections.len(), sessions, "{report}");
        for (k, section) in sections.iter().enumerate() {
            let file = if sessions == 1 {
                output.clone()
            } else {
                session_file(&output, k + 1)
            };
            let inspected = cli(&["inspect", file.to_str().unwrap()]);
            assert_eq!(report_body(section), report_body(&inspected), "{scenario}");
            assert!(report_body(section).contains("device:GPU:0"), "{section}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
