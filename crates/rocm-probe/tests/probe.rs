//! End-to-end tests of `xla-rocm-tracer-probe` on the simulated libraries: the pinned report,
//! two simulator modes and their comparison, the bad-environment lines, and that the binary
//! links neither runtime library.
//!
//! Every run is a child process with the virtual clock (the probe sets `clock = "virtual"` in `ROCSIM_MACHINE`
//! for its simulated battery), so nothing here depends on host timing.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PROBE: &str = env!("CARGO_BIN_EXE_xla-rocm-tracer-probe");
const PINNED: &str = "tests/data/simulated_report.json";

/// The folder cargo put the simulated libraries in (built as this crate's dev-dependencies):
/// beside the probe binary, or in its `deps/`.
/// When both hold a copy, the newer one (the build this test run made).
fn sim_lib_dir() -> PathBuf {
    let dir = Path::new(PROBE).parent().unwrap().to_path_buf();
    let modified = |d: &Path| {
        std::fs::metadata(d.join("librocprofiler_sdk_sim.so"))
            .and_then(|m| m.modified())
            .ok()
    };
    [dir.clone(), dir.join("deps")]
        .into_iter()
        .filter(|d| {
            d.join("libamdhip64.so").is_file() && d.join("librocprofiler_sdk_sim.so").is_file()
        })
        .max_by_key(|d| modified(d))
        .unwrap_or_else(|| panic!("no simulated libraries beside {PROBE}"))
}

/// A fresh, empty folder for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocm-probe-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The probe with a clean machine: no inherited simulator options or visibility variables.
fn probe(env: &[(&str, &str)], args: &[&str]) -> Output {
    probe_in(None, env, args)
}

/// The same, run from `cwd` with core dumps allowed as far as the hard limit goes, so that a
/// child that aborted and dumped core would leave a file there.
fn probe_in(cwd: Option<&Path>, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(PROBE);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
        // SAFETY: only async-signal-safe system calls between fork and exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
                let mut limit = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                if libc::getrlimit(libc::RLIMIT_CORE, &mut limit) == 0 {
                    limit.rlim_cur = limit.rlim_max;
                    libc::setrlimit(libc::RLIMIT_CORE, &limit);
                }
                Ok(())
            });
        }
    }
    for (key, _) in std::env::vars() {
        if key.starts_with("ROCSIM_")
            || key.ends_with("_VISIBLE_DEVICES")
            || key == "GPU_DEVICE_ORDINAL"
        {
            cmd.env_remove(key);
        }
    }
    cmd.envs(env.iter().copied()).args(args);
    cmd.output().unwrap()
}

fn simulated_report(env: &[(&str, &str)], out: &Path) -> Value {
    let lib_dir = sim_lib_dir();
    let output = probe_in(
        out.parent(),
        env,
        &[
            "--simulated-only",
            "--sim-lib-dir",
            lib_dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(
        output.status.success(),
        "probe failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// The report with the library paths (the only machine-specific text) replaced.
fn normalised(mut report: Value) -> Value {
    let libs = &mut report["simulated"]["libraries"];
    libs["hip"]["path"] = Value::from("<sim-lib-dir>/libamdhip64.so");
    libs["sdk"]["path"] = Value::from("<sim-lib-dir>/librocprofiler_sdk_sim.so");
    report
}

#[test]
fn simulated_report_is_pinned() {
    let dir = scratch("pinned");
    let report = normalised(simulated_report(&[], &dir.join("report.json")));
    // The probe writes its report and nothing else, though it ran from this folder and two of
    // its children aborted (the SDK 1.0 stream map): no core dump either.
    let written: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(written, vec!["report.json"]);
    let pinned_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(PINNED);
    let text = serde_json::to_string_pretty(&report).unwrap() + "\n";
    if std::env::var_os("UPDATE_PROBE_REPORT").is_some() {
        std::fs::write(&pinned_path, &text).unwrap();
    }
    let pinned = std::fs::read_to_string(&pinned_path).unwrap();
    assert!(
        text == pinned,
        "the simulated report differs from {PINNED}; if the simulator changed on purpose, \
         rerun with UPDATE_PROBE_REPORT=1 and review the diff.\nnew report:\n{text}"
    );
    // Spot checks that make the pin mean something even if it is regenerated carelessly.
    let run = &report["simulated"];
    assert_eq!(run["libraries"]["sdk"]["version"], "1.0.0");
    assert!(report["real"].is_null());
    assert_eq!(report["findings"], Value::Array(vec![]));
    let step = |name: &str| {
        run["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no step {name}"))
            .clone()
    };
    assert!(step("legacy_stream")["skipped"]
        .as_str()
        .unwrap()
        .contains("1.0.0"));
    let pageable = step("copy_h2d_pageable_64m_sync");
    assert!(pageable["records"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r.as_str().unwrap().contains("bytes 33554432+33554432 x2")));
    let disable = step("disable_after_sync");
    assert!(disable["arrival"].as_array().unwrap().iter().any(|a| a
        .as_str()
        .unwrap()
        .contains("after the contexts were stopped")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the battery in two simulator modes and compares the reports with `--compare-only`.
fn compare_modes(name: &str, a: &[(&str, &str)], b: &[(&str, &str)]) -> (Vec<Value>, String) {
    let dir = scratch(name);
    let (pa, pb, pc) = (dir.join("a.json"), dir.join("b.json"), dir.join("c.json"));
    simulated_report(a, &pa);
    simulated_report(b, &pb);
    let output = probe(
        &[],
        &[
            "--compare-only",
            pa.to_str().unwrap(),
            pb.to_str().unwrap(),
            "--out",
            pc.to_str().unwrap(),
        ],
    );
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&pc).unwrap()).unwrap();
    let findings = report["findings"].as_array().unwrap().clone();
    // One text line per finding, after the two library lines and the count.
    assert_eq!(text.lines().count(), 3 + findings.len(), "{text}");
    assert!(text.contains(&format!("findings: {}\n", findings.len())));
    let _ = std::fs::remove_dir_all(&dir);
    (findings, text)
}

#[test]
fn kernel_record_lag_is_the_only_difference_named() {
    let (findings, text) = compare_modes(
        "lag",
        &[],
        &[("ROCSIM_MACHINE", "kernel_record_lag_us = [0, 0]")],
    );
    assert!(!findings.is_empty());
    for f in &findings {
        assert_eq!(f["simulator"], "kernel_record_lag_us", "{text}");
        assert!(f["key"].as_str().unwrap().ends_with(".arrival"), "{text}");
    }
    let keys: Vec<&str> = findings
        .iter()
        .map(|f| f["key"].as_str().unwrap())
        .collect();
    assert!(keys.contains(&"steps.memset_async.arrival"), "{text}");
    assert!(keys.contains(&"steps.disable_after_sync.arrival"), "{text}");
    // Copies are not lagged: no copy through SDMA differs.
    assert!(
        !keys
            .iter()
            .any(|k| k.contains("pinned") || k.contains("pageable")),
        "{text}"
    );
    // With the lag the kernel record comes after the flush that followed the synchronize;
    // without it, before the synchronize returned.
    let memset = findings
        .iter()
        .find(|f| f["key"] == "steps.memset_async.arrival")
        .unwrap();
    assert!(memset["a"]
        .as_str()
        .unwrap()
        .contains("after the flush that followed"));
    assert!(memset["b"]
        .as_str()
        .unwrap()
        .contains("before the synchronize returned"));
}

#[test]
fn sdk_version_and_stream_map_differences_are_named() {
    let (findings, text) = compare_modes(
        "version",
        &[],
        &[("ROCSIM_MACHINE", "sdk_version = \"1.1.0\"")],
    );
    let got: Vec<(&str, &str)> = findings
        .iter()
        .map(|f| (f["key"].as_str().unwrap(), f["simulator"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("sdk_version", "sdk_version"),
            ("configure", "sdk_version"),
            (
                "steps.legacy_stream.skipped",
                "stream_map (with sdk_version)"
            ),
            (
                "steps.per_thread_stream.skipped",
                "stream_map (with sdk_version)"
            ),
            // The per-thread stream took an id, so the later steps' streams get the next ones.
            ("steps.graph_capture_launch.stream_ids", "stream_map"),
            ("steps.two_threads.stream_ids", "stream_map"),
        ],
        "{text}"
    );
}

/// Each machine option the battery can see, changed alone, is the only one its findings name.
#[test]
fn each_option_changed_alone_is_the_one_named() {
    for (key, value) in [
        ("direct_dispatch", "false"),
        ("sdma_threshold", "0"),
        ("pageable_chunk", "0"),
        ("gpus", "2"),
        ("h2h_record", "true"),
    ] {
        let machine = format!("{key} = {value}");
        let (findings, text) = compare_modes(key, &[], &[("ROCSIM_MACHINE", &machine)]);
        assert!(!findings.is_empty(), "{machine}: no finding");
        for f in &findings {
            let simulator = f["simulator"].as_str().unwrap();
            assert!(simulator.contains(key), "{machine}: {text}");
        }
    }
}

/// A bad environment: exit status 2, one line on stderr naming the problem, no report.
fn assert_bad_environment(env: &[(&str, &str)], extra: &[&str], expected: &str) {
    let dir = scratch("bad");
    let out = dir.join("report.json");
    let mut args = vec!["--simulated-only", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let output = probe(env, &args);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("xla-rocm-tracer probe: {expected}")),
        "{stderr}"
    );
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_hip_runtime_is_one_line() {
    let empty = scratch("empty-libs");
    assert_bad_environment(
        &[],
        &["--sim-lib-dir", empty.to_str().unwrap()],
        "no HIP runtime found",
    );
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn a_rocm_lib_without_the_libraries_is_one_line() {
    let empty = scratch("empty-rocm");
    let output = probe(&[], &["--rocm-lib", empty.to_str().unwrap()]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "xla-rocm-tracer probe: no HIP runtime found: no libamdhip64.so with \
             librocprofiler-sdk.so in {}\n",
            empty.display()
        )
    );
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn sdk_older_than_1_0_is_one_line() {
    let lib_dir = sim_lib_dir();
    assert_bad_environment(
        &[("ROCSIM_MACHINE", "sdk_version = \"0.6.0\"")],
        &["--sim-lib-dir", lib_dir.to_str().unwrap()],
        "rocprofiler-sdk 0.6.0 at ",
    );
}

#[test]
fn no_gpu_is_one_line() {
    let lib_dir = sim_lib_dir();
    // The simulated machine has one GPU; HIP_VISIBLE_DEVICES=-1 hides it as on ROCm.
    assert_bad_environment(
        &[("HIP_VISIBLE_DEVICES", "-1")],
        &["--sim-lib-dir", lib_dir.to_str().unwrap()],
        "no GPU: hipGetDeviceCount reports 0 devices",
    );
}

#[test]
fn compare_only_names_unreadable_files() {
    let output = probe(
        &[],
        &[
            "--compare-only",
            "/nonexistent/a.json",
            "/nonexistent/b.json",
        ],
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr.contains("cannot read /nonexistent/a.json"),
        "{stderr}"
    );
}

/// The probe must not link either library: it loads whichever set it is pointed at.
#[test]
fn binary_links_neither_hip_nor_the_sdk() {
    let output = Command::new("readelf")
        .args(["-d", PROBE])
        .output()
        .expect("readelf");
    assert!(output.status.success());
    let dynamic = String::from_utf8(output.stdout).unwrap();
    assert!(dynamic.contains("(NEEDED)"), "{dynamic}");
    for lib in ["amdhip64", "rocprofiler"] {
        assert!(
            !dynamic
                .lines()
                .any(|l| l.contains("(NEEDED)") && l.contains(lib)),
            "{dynamic}"
        );
    }
}

/// The two-run path: "real" libraries found under their SONAMEs in `--rocm-lib` (here the
/// simulated ones, linked there under ROCm's names) and the simulated ones, both under the
/// virtual clock, give two identical runs and no finding; the simulated run is shaped like
/// the "real" machine.
#[test]
fn real_and_simulated_runs_are_compared() {
    let lib_dir = sim_lib_dir();
    let rocm = scratch("rocm-lib");
    std::os::unix::fs::symlink(
        lib_dir.join("libamdhip64.so"),
        rocm.join("libamdhip64.so.7"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        lib_dir.join("librocprofiler_sdk_sim.so"),
        rocm.join("librocprofiler-sdk.so.1"),
    )
    .unwrap();
    let out = scratch("two-runs").join("report.json");
    let output = probe(
        &[("ROCSIM_MACHINE", "clock = \"virtual\"")],
        &[
            "--rocm-lib",
            rocm.to_str().unwrap(),
            "--sim-lib-dir",
            lib_dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("findings (real vs simulated): 0\n"),
        "{stdout}"
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let real = &report["real"]["libraries"];
    assert_eq!(real["origin"], "real");
    assert!(real["sdk"]["path"]
        .as_str()
        .unwrap()
        .ends_with("librocprofiler-sdk.so.1"));
    let sim = &report["simulated"]["libraries"];
    assert_eq!(sim["origin"], "simulated");
    assert_eq!(sim["simulator_options"]["gpus"], "1");
    assert_eq!(sim["simulator_options"]["cpus"], "2");
    assert_eq!(report["findings"], Value::Array(vec![]));
    assert_eq!(report["real"]["steps"], report["simulated"]["steps"]);
    let _ = std::fs::remove_dir_all(&rocm);
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}
