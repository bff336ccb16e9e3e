//! `xla-rocm-tracer probe` runs the probe it carries inside (built with the command, see
//! build.rs) and passes its arguments and exit status through; it needs nothing beside the
//! command, as after the README's main command or `cargo install`, and leaves nothing behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const CLI: &str = env!("CARGO_BIN_EXE_xla-rocm-tracer");

/// A fresh, empty folder for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "xla-rocm-tracer-probe-cli-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `cli probe args`, with its temporary files in `tmp`, no simulator options or visibility
/// variables inherited.
fn run(cli: &Path, tmp: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(cli);
    for (key, _) in std::env::vars() {
        if key.starts_with("ROCSIM_") || key.ends_with("_VISIBLE_DEVICES") {
            cmd.env_remove(key);
        }
    }
    cmd.env("TMPDIR", tmp).arg("probe").args(args);
    cmd.output().unwrap()
}

fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    // Tests run in parallel: each call its own folder.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let tmp = scratch(&format!("tmp{}", CALLS.fetch_add(1, Ordering::Relaxed)));
    let output = run(Path::new(CLI), &tmp, args);
    let _ = std::fs::remove_dir_all(&tmp);
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn compare_only_passes_through() {
    let pinned = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rocm-probe/tests/data/simulated_report.json");
    let pinned = pinned.to_str().unwrap();
    let (code, stdout, stderr) = cli(&["--compare-only", pinned, pinned]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("findings: 0\n"), "{stdout}");
}

#[test]
fn bad_environment_status_passes_through() {
    let (code, _, stderr) = cli(&[
        "--simulated-only",
        "--sim-lib-dir",
        "/nonexistent/rocm-probe-libs",
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("xla-rocm-tracer probe: no HIP runtime found"),
        "{stderr}"
    );
}

#[test]
fn help_describes_the_options() {
    let (code, stdout, _) = cli(&["--help"]);
    assert_eq!(code, Some(0));
    for option in [
        "--out <FILE>",
        "--rocm-lib <DIR>",
        "--sim-lib-dir <DIR>",
        "--simulated-only",
        "--compare-only <A.json> <B.json>",
    ] {
        assert!(stdout.contains(option), "{option} in {stdout}");
    }
}

/// The command alone in a folder, as `cargo install` leaves it (and as `cargo run -p
/// xla-rocm-tracer-cli` leaves it in `target/<profile>/`, where nothing else need be built):
/// `probe` runs the simulated battery with what it carries, and the temporary folder it
/// unpacked that into is gone afterwards.
#[test]
fn the_command_alone_runs_the_probe_and_leaves_nothing() {
    let bin = scratch("bin");
    let tmp = scratch("unpack");
    let alone = bin.join("xla-rocm-tracer");
    std::fs::copy(CLI, &alone).unwrap();
    let out = bin.join("report.json");
    let output = run(
        &alone,
        &tmp,
        &["--simulated-only", "--out", out.to_str().unwrap()],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("no real ROCm libraries found: ran the simulated ones only"),
        "{stdout}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let sdk = &report["simulated"]["libraries"]["sdk"];
    // The simulator's default release, ROCm 7.1.
    assert_eq!(sdk["version"], "1.1.0");
    let unpacked = Path::new(sdk["path"].as_str().unwrap());
    assert!(unpacked.starts_with(&tmp), "{}", unpacked.display());
    assert!(!report["simulated"]["steps"].as_array().unwrap().is_empty());
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let beside: Vec<_> = std::fs::read_dir(&bin)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside.len(), 2, "{beside:?}");
    let _ = std::fs::remove_dir_all(&bin);
    let _ = std::fs::remove_dir_all(&tmp);
}
