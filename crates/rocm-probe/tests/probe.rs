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
    // The pinned report is of SDK 1.0.0's version and stream map with the 7.13+ buffer syncer
    // on 7.1 layouts, the keys it was taken with before `rocm` chose release profiles.
    let machine = (
        "ROCSIM_MACHINE",
        "sdk_version = \"1.0.0\", stream_map = \"sdk-1.0\", buffer_sync = \"per-half\"",
    );
    let report = normalised(simulated_report(&[machine], &dir.join("report.json")));
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
    // The ledger's small-copy cell, read from the copy steps (src/ledger.rs).
    assert_eq!(report["ledger"][0]["row"], "Small copies");
    assert!(report["ledger"][0]["observed"]
        .as_str()
        .unwrap()
        .starts_with("blit up to 16 KiB (h2d pinned: 4k blit, 16k blit, 32k copy;"));
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
    // SDK 1.0's stream map aborts on the legacy stream: its child died, the report did not.
    let legacy = step("legacy_stream")["skipped"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(legacy.contains("the process aborted (SIGABRT)"), "{legacy}");
    assert!(legacy.contains("rocprofiler-sdk 1.0.x"), "{legacy}");
    assert_eq!(run["exit"], "exited normally");
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

/// When a record arrives against the flush right after a synchronize is a race on a GPU: the
/// reports show it, the comparison does not make it a finding. The simulator's
/// `kernel_record_lag_us` moves exactly that.
#[test]
fn arrival_timing_is_in_the_report_but_not_a_finding() {
    let dir = scratch("lag");
    let (pa, pb) = (dir.join("a.json"), dir.join("b.json"));
    let a = simulated_report(&[], &pa);
    let b = simulated_report(&[("ROCSIM_MACHINE", "kernel_record_lag_us = [0, 0]")], &pb);
    let arrival = |report: &Value| {
        let steps = report["simulated"]["steps"].as_array().unwrap();
        let memset = steps.iter().find(|s| s["name"] == "memset_async").unwrap();
        memset["arrival"].clone()
    };
    // With the lag the kernel record comes after the flush that followed the synchronize;
    // without it, in that flush.
    let (la, lb) = (arrival(&a).to_string(), arrival(&b).to_string());
    assert!(
        la.contains(
            "KERNEL_DISPATCH COMPLETE delivered on sdk-buffer-1: after the flush that followed"
        ),
        "{la}"
    );
    assert!(
        lb.contains(
            "KERNEL_DISPATCH COMPLETE delivered on sdk-buffer-1: after the synchronize returned, in the flush right after it"
        ),
        "{lb}"
    );
    let output = probe(
        &[],
        &["--compare-only", pa.to_str().unwrap(), pb.to_str().unwrap()],
    );
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success());
    assert!(text.contains("findings: 0\n"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sdk_version_and_stream_map_differences_are_named() {
    // Two machines of one release that differ in the version and its stream map only.
    let (findings, text) = compare_modes(
        "version",
        &[(
            "ROCSIM_MACHINE",
            "sdk_version = \"1.0.0\", stream_map = \"sdk-1.0\"",
        )],
        &[(
            "ROCSIM_MACHINE",
            "sdk_version = \"1.1.0\", stream_map = \"newer\"",
        )],
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
        ],
        "{text}"
    );
}

/// The special streams run alone in children on every SDK version: on 1.1.0 they are recorded
/// there and join the report; a 1.1.0 whose stream map still throws (`stream_map = "sdk-1.0"`,
/// the case the audit could not rule out for ROCm 7.1) costs those two steps, not the report.
#[test]
fn special_streams_run_alone_on_every_version() {
    let dir = scratch("alone");
    let step = |report: &Value, name: &str| {
        let steps = report["simulated"]["steps"].as_array().unwrap();
        steps.iter().find(|s| s["name"] == name).unwrap().clone()
    };
    let newer = simulated_report(
        &[("ROCSIM_MACHINE", "sdk_version = \"1.1.0\"")],
        &dir.join("newer.json"),
    );
    for name in ["legacy_stream", "per_thread_stream"] {
        let s = step(&newer, name);
        assert!(s["skipped"].is_null(), "{s}");
        assert_eq!(s["notes"][0], "run alone in a child process", "{s}");
        let ids = s["stream_ids"].to_string();
        assert!(ids.contains("SET"), "{s}");
        assert!(s["records"].to_string().contains("KERNEL_DISPATCH"), "{s}");
        assert!(
            s["calls"]
                .to_string()
                .contains("hipStreamSynchronize -> hipSuccess"),
            "{s}"
        );
    }
    // The order of the battery is kept: the two steps follow `null_stream`.
    let names: Vec<String> = newer["simulated"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    let at = names.iter().position(|n| n == "null_stream").unwrap();
    assert_eq!(
        names[at + 1..at + 3],
        ["legacy_stream", "per_thread_stream"]
    );
    let throwing = simulated_report(
        &[(
            "ROCSIM_MACHINE",
            "sdk_version = \"1.1.0\", stream_map = \"sdk-1.0\"",
        )],
        &dir.join("throwing.json"),
    );
    for name in ["legacy_stream", "per_thread_stream"] {
        let s = step(&throwing, name);
        assert_eq!(
            s["skipped"], "run alone in a child process: the process aborted (SIGABRT)",
            "{s}"
        );
    }
    assert!(step(&throwing, "copy_h2d_pinned_1m_sync")["skipped"].is_null());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Another tool that configured the SDK first (rocprofv3 preloads its tool library, which
/// forces its configuration before `main`): `rocprofiler_force_configure` fails, and the probe
/// exits as a bad environment, naming the preloaded library, instead of running unrecorded.
/// The simulator's fault injection makes its `rocprofiler_force_configure` answer as the SDK
/// does then (CONFIGURATION_LOCKED); the preloaded library is a harmless stand-in.
#[test]
fn an_sdk_configured_by_another_tool_is_a_bad_environment() {
    let lib_dir = sim_lib_dir();
    let preload = lib_dir.join("librocprofiler_sdk_sim.so");
    assert_bad_environment(
        &[
            ("ROCSIM_FAULTS", "rocprofiler_force_configure=16"),
            ("LD_PRELOAD", preload.to_str().unwrap()),
        ],
        &["--sim-lib-dir", lib_dir.to_str().unwrap()],
        &format!(
            "rocprofiler_force_configure returned ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED: \
             another tool (LD_PRELOAD={}) configured rocprofiler-sdk before the probe",
            preload.display()
        ),
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
/// the "real" machine and runs the profile of its ROCm release, chosen from its SDK version.
fn real_and_simulated_compared(machine: &str, sdk_version: &str, rocm: &str) {
    let lib_dir = sim_lib_dir();
    let rocm_dir = scratch(&format!("rocm-lib-{sdk_version}"));
    std::os::unix::fs::symlink(
        lib_dir.join("libamdhip64.so"),
        rocm_dir.join("libamdhip64.so.7"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        lib_dir.join("librocprofiler_sdk_sim.so"),
        rocm_dir.join("librocprofiler-sdk.so.1"),
    )
    .unwrap();
    let out = scratch(&format!("two-runs-{sdk_version}")).join("report.json");
    let output = probe(
        &[("ROCSIM_MACHINE", machine)],
        &[
            "--rocm-lib",
            rocm_dir.to_str().unwrap(),
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
    assert_eq!(real["sdk"]["version"], sdk_version);
    assert!(real["sdk"]["path"]
        .as_str()
        .unwrap()
        .ends_with("librocprofiler-sdk.so.1"));
    let sim = &report["simulated"]["libraries"];
    assert_eq!(sim["origin"], "simulated");
    assert_eq!(sim["simulator_options"]["gpus"], "1");
    assert_eq!(sim["simulator_options"]["cpus"], "2");
    assert_eq!(sim["simulator_options"]["sdk_version"], sdk_version);
    assert_eq!(sim["simulator_options"]["rocm"], rocm);
    assert_eq!(report["findings"], Value::Array(vec![]));
    assert_eq!(report["real"]["steps"], report["simulated"]["steps"]);
    let _ = std::fs::remove_dir_all(&rocm_dir);
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}

#[test]
fn real_and_simulated_runs_are_compared() {
    // The simulator's default release is ROCm 7.1 (SDK 1.1.0): the simulated side runs the
    // 7.1 profile.
    real_and_simulated_compared("clock = \"virtual\"", "1.1.0", "7.1");
}

#[test]
fn a_rocm_7_1_machine_is_compared_with_the_7_1_profile() {
    real_and_simulated_compared(
        "clock = \"virtual\", sdk_version = \"1.1.0\"",
        "1.1.0",
        "7.1",
    );
}

/// A machine the simulator cannot read (here a key it does not know; on a real machine, a
/// ROCm release this build of the simulator does not model) is an error, not a run of the
/// default machine compared as if it were the one asked for.
#[test]
fn a_machine_the_simulator_refuses_is_an_error() {
    let lib_dir = sim_lib_dir();
    let output = probe(
        &[("ROCSIM_MACHINE", "no_such_key = 1")],
        &[
            "--simulated-only",
            "--sim-lib-dir",
            lib_dir.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("xla-rocm-tracer probe: the simulated libraries refused the machine: rocprofiler-sdk-sim: ROCSIM_MACHINE="),
        "{stderr}"
    );
    assert!(stderr.contains("no_such_key"), "{stderr}");
}
