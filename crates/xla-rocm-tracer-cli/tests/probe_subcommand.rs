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
