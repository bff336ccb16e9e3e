//! `inspect` and `convert` on XLA's CUDA reference trace and on broken files.
// The library calls the SDK; the simulator supplies its symbols to this test binary.
use rocprofiler_sdk_sim as _;
use std::path::PathBuf;
use std::process::{Command, Output};

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .args(args)
        .output()
        .expect("run xla-rocm-tracer")
}

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("xla-rocm-tracer-cli-{}-{name}", std::process::id()))
}

/// Counts checked independently with `tests/data/count_lanes.py` (a hand-written wire-format
/// reader): 10 matmul kernels + loop_multiply_fusion + wrapped_dynamic_slice and 10 "Memset 3"
/// on the compute stream, 4 H2D copies (4194304 + 3 x 4 bytes), one D2H copy of 128 bytes.
#[test]
fn inspect_lists_the_three_stream_lanes_of_the_cuda_reference() {
    let output = cli(&["inspect", &data("jax_matmul_cuda.xplane.pb")]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    for expected in [
        "/device:GPU:0 (id 0): 3 lanes, 27 events",
        "  Stream #14(Compute,Memset): 22 events (Kernel 12, Memset 10)\n",
        "  Stream #15(MemcpyH2D): 4 events (MemcpyH2D 4)\n",
        "  Stream #16(MemcpyD2H): 1 event (MemcpyD2H 1)\n",
        "  memcpy bytes: MemcpyH2D 4.00 MiB (4194316 B), MemcpyD2H 128 B\n",
        // Times from the trace start, with units, not epoch nanoseconds.
        "/device:GPU:0 (id 0): 3 lanes, 27 events, +28.591 ms to +170.496 ms (141.906 ms)\n",
        "device activity: +28.591 ms to +170.496 ms (141.906 ms)\n",
        "clock_rate=1.98 GHz",
        "memory_size=139.80 GiB",
        // XLA's internal plane: explained in one line, its contents not listed.
        "/host:__ScopeRangeCallStack__ (id 0): XLA's scope-range id tree (annotation nesting), \
         not a timeline; kept in the file, not shown\n",
        "device_vendor=Nvidia",
        "drops: none reported",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert_eq!(text.matches("  Stream #").count(), 3);
}

#[test]
fn convert_writes_chrome_json_with_names_and_complete_events() {
    let output_path = temp_path("reference.json");
    let output = cli(&[
        "convert",
        &data("jax_matmul_cuda.xplane.pb"),
        "--to",
        "chrome-json",
        "-o",
        output_path.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&output_path).unwrap()).unwrap();
    std::fs::remove_file(&output_path).ok();
    let events = json["traceEvents"].as_array().unwrap();
    let gpu_pid = events
        .iter()
        .find(|e| e["name"] == "process_name" && e["args"]["name"] == "/device:GPU:0")
        .map(|e| e["pid"].clone())
        .expect("a process named /device:GPU:0");
    let thread_names: Vec<&str> = events
        .iter()
        .filter(|e| e["name"] == "thread_name" && e["pid"] == gpu_pid)
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        thread_names,
        [
            "Stream #14(Compute,Memset)",
            "Stream #15(MemcpyH2D)",
            "Stream #16(MemcpyD2H)"
        ]
    );
    let gpu_events: Vec<_> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["pid"] == gpu_pid)
        .collect();
    assert_eq!(gpu_events.len(), 27);
    let h2d = gpu_events
        .iter()
        .find(|e| e["name"] == "MemcpyH2D")
        .unwrap();
    assert!(h2d["args"]["memcpy_details"]
        .as_str()
        .unwrap()
        .starts_with("kind_src:pinned kind_dst:device"));
    assert!(gpu_events
        .iter()
        .all(|e| e["dur"].as_f64().unwrap() >= 0.0 && e["ts"].as_f64().is_some()));
}

#[test]
fn broken_inputs_fail_with_the_file_named() {
    let text_file = temp_path("not-a-trace.txt");
    std::fs::write(&text_file, "hello, I am text\n").unwrap();
    let truncated = temp_path("truncated.xplane.pb");
    let reference = std::fs::read(data("jax_matmul_cuda.xplane.pb")).unwrap();
    std::fs::write(&truncated, &reference[..reference.len() / 3]).unwrap();
    let missing = temp_path("missing.xplane.pb");
    for (path, reason) in [
        (&text_file, "not an XSpace"),
        (&truncated, "truncated"),
        (&missing, "No such file"),
    ] {
        let output = cli(&["inspect", path.to_str().unwrap()]);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(path.to_str().unwrap()), "{stderr}");
        assert!(stderr.contains(reason), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    std::fs::remove_file(text_file).ok();
    std::fs::remove_file(truncated).ok();
}

/// `(pid, tid)` -> `(start, end)` of each complete event, in nanoseconds as a viewer reads
/// them: `ts` and `dur` parsed as doubles and each rounded to whole nanoseconds.
fn slices_by_lane(
    json: &serde_json::Value,
) -> std::collections::BTreeMap<(i64, i64), Vec<(i64, i64)>> {
    let mut lanes: std::collections::BTreeMap<(i64, i64), Vec<(i64, i64)>> = Default::default();
    for event in json["traceEvents"].as_array().unwrap() {
        if event["ph"] != "X" {
            continue;
        }
        let ns = |key: &str| (event[key].as_f64().unwrap() * 1000.0).round() as i64;
        let key = (
            event["pid"].as_i64().unwrap(),
            event["tid"].as_i64().unwrap(),
        );
        lanes
            .entry(key)
            .or_default()
            .push((ns("ts"), ns("ts") + ns("dur")));
    }
    lanes
}

#[test]
fn back_to_back_slices_do_not_overlap_in_chrome_json() {
    let dir = temp_path("many-streams");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("many_streams.xplane.pb");
    let scenario =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/many_streams.toml");
    let replay = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .args(["replay", scenario.to_str().unwrap(), "-o"])
        .arg(&trace)
        .env_remove("ROCSIM_MACHINE")
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    // No -o: the JSON goes beside the trace, not into the current directory.
    let output = cli(&["convert", trace.to_str().unwrap(), "--to", "chrome-json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json_path = dir.join("many_streams.xplane.pb.json");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    let space = xla_rocm_tracer::export::read_xspace_file(&trace).unwrap();
    // The XSpace has back-to-back events (one ends where the next starts) on its lanes; the
    // JSON must keep them apart as exactly.
    let mut touching = 0;
    let mut checked = 0;
    for (lane, mut slices) in slices_by_lane(&json) {
        slices.sort();
        for pair in slices.windows(2) {
            checked += 1;
            assert!(
                pair[0].1 <= pair[1].0,
                "{lane:?}: {:?} overlaps {:?}",
                pair[0],
                pair[1]
            );
            touching += usize::from(pair[0].1 == pair[1].0);
        }
    }
    assert!(
        checked > 100 && touching > 0,
        "{checked} pairs, {touching} back to back"
    );
    let events: usize = space
        .planes
        .iter()
        .flat_map(|p| &p.lines)
        .map(|l| l.events.len())
        .sum();
    assert_eq!(
        slices_by_lane(&json).values().map(Vec::len).sum::<usize>(),
        events
    );
    assert!(json["otherData"]["start_time_ns"].as_str().is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Replays `scenario_text` into a fresh folder and returns (replay stdout, inspect stdout).
fn replay_and_inspect(name: &str, scenario_text: &str) -> (String, String) {
    let dir = temp_path(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join(format!("{name}.toml"));
    std::fs::write(&scenario, scenario_text).unwrap();
    let trace = dir.join(format!("{name}.xplane.pb"));
    let replay = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .args(["replay", scenario.to_str().unwrap(), "-o"])
        .arg(&trace)
        .env_remove("ROCSIM_MACHINE")
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    let inspect = cli(&["inspect", trace.to_str().unwrap()]);
    assert!(inspect.status.success());
    let _ = std::fs::remove_dir_all(&dir);
    (
        String::from_utf8(replay.stdout).unwrap(),
        String::from_utf8(inspect.stdout).unwrap(),
    )
}

#[test]
fn a_stream_name_with_a_newline_stays_on_its_lane_line() {
    let (replayed, inspected) = replay_and_inspect(
        "newline-name",
        "[[code_object]]\nkernels = { k = \"_Z1kv\" }\n\
         [streams]\ns = { device = 0, roctx_name = \"two\\nlines\\t\\u001b[31m\" }\n\
         [[thread]]\nsteps = [\n  { launch = \"k\", stream = \"s\" },\n  { sync_device = true },\n]\n",
    );
    for report in [&replayed, &inspected] {
        assert!(
            report.contains("  Stream #0 \"two\\nlines\\t\\u{1b}[31m\": 1 event (Kernel 1)\n"),
            "{report}"
        );
        assert!(!report.contains('\u{1b}'), "{report}");
    }
}

#[test]
fn memset_fill_kernels_are_counted_as_memsets() {
    // HIP runs each memset as ROCclr's fill kernel, recorded as a kernel dispatch.
    let (replayed, inspected) = replay_and_inspect(
        "memsets",
        "[[code_object]]\nkernels = { k = \"_Z1kv\" }\n\
         [streams]\ns = { device = 0 }\n\
         [[thread]]\nsteps = [\n  { launch = \"k\", stream = \"s\" },\n\
         { repeat = 3, steps = [{ memset = 4096, stream = \"s\" }] },\n  { launch = \"k\", stream = \"s\" },\n\
         { sync_device = true },\n]\n",
    );
    assert!(
        replayed.contains("the trace shows 2 kernels, 0 copies and 3 memsets on 1 device lane\n"),
        "{replayed}"
    );
    assert!(
        inspected.contains("  Stream #0: 5 events (Kernel 2, Memset 3)\n"),
        "{inspected}"
    );
}

#[test]
fn progress_is_printed_when_asked_or_on_a_terminal_only() {
    // A valid XSpace of 33 MiB (one long host name): large enough for progress on a terminal.
    let big = temp_path("big.xplane.pb");
    let space = xla_rocm_tracer::export::XSpace {
        hostnames: vec!["h".repeat(33 << 20)],
        ..Default::default()
    };
    std::fs::write(&big, xla_rocm_tracer::export::encode_xspace(&space)).unwrap();
    let json = temp_path("big.json");
    let big_arg = big.to_str().unwrap();
    let json_arg = json.to_str().unwrap();
    // stderr is a pipe here, not a terminal: silent unless asked.
    let quiet_inspect = cli(&["inspect", big_arg]);
    let quiet_convert = cli(&["convert", big_arg, "--to", "chrome-json", "-o", json_arg]);
    let loud_inspect = cli(&["inspect", big_arg, "--progress"]);
    let loud_convert = cli(&[
        "convert",
        big_arg,
        "--to",
        "chrome-json",
        "-o",
        json_arg,
        "--progress",
    ]);
    std::fs::remove_file(&big).ok();
    std::fs::remove_file(&json).ok();
    assert!(quiet_inspect.status.success() && loud_inspect.status.success());
    assert_eq!(String::from_utf8_lossy(&quiet_inspect.stderr), "");
    assert_eq!(
        String::from_utf8_lossy(&quiet_convert.stderr),
        format!("wrote {json_arg}\n")
    );
    let loud = String::from_utf8_lossy(&loud_inspect.stderr);
    assert!(
        loud.starts_with(&format!("reading {big_arg} (33 MiB)\ndecoding XSpace\n")),
        "{loud}"
    );
    let loud = String::from_utf8_lossy(&loud_convert.stderr);
    assert!(loud.contains(&format!("writing {json_arg}\n")), "{loud}");
    assert_eq!(
        quiet_inspect.stdout, loud_inspect.stdout,
        "progress never goes to stdout"
    );
}
