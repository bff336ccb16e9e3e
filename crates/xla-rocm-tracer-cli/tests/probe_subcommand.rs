//! `xla-rocm-tracer probe` runs the `xla-rocm-tracer-probe` binary beside it and passes its
//! arguments and exit status through. `cargo test --workspace` builds both binaries; a lone
//! `cargo test -p xla-rocm-tracer-cli` may not have built the probe, and then the subcommand
//! must say which file is missing.

use std::path::Path;
use std::process::Command;

const CLI: &str = env!("CARGO_BIN_EXE_xla-rocm-tracer");

fn probe_built() -> bool {
    Path::new(CLI)
        .with_file_name("xla-rocm-tracer-probe")
        .is_file()
}

fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(CLI).arg("probe").args(args).output().unwrap();
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
    if !probe_built() {
        assert_eq!(code, Some(1));
        assert!(
            stderr.contains("xla-rocm-tracer-probe is missing"),
            "{stderr}"
        );
        return;
    }
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
    if !probe_built() {
        assert!(
            stderr.contains("xla-rocm-tracer-probe is missing"),
            "{stderr}"
        );
        return;
    }
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

#[test]
fn a_missing_probe_gets_the_build_command_for_this_profile() {
    // The command alone in a `release` folder, as after `cargo run --release -p
    // xla-rocm-tracer-cli`: the hint must build the probe and its libraries there.
    let dir = std::env::temp_dir().join(format!(
        "xla-rocm-tracer-probe-hint-{}/release",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cli = dir.join("xla-rocm-tracer");
    std::fs::copy(CLI, &cli).unwrap();
    let output = Command::new(&cli)
        .args(["probe", "--simulated-only"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "build it with `cargo build --release -p rocm-probe -p hip-runtime-sim -p rocprofiler-sdk-sim`"
        ),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
