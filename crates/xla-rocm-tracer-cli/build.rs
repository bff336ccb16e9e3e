//! Builds what `xla-rocm-tracer probe` runs, so that the command carries it inside
//! (src/probe.rs): the probe binary `xla-rocm-tracer-probe` (crate `crates/rocm-probe`) and the
//! simulated libraries it compares the real ones with (`libamdhip64.so`,
//! `librocprofiler_sdk_sim.so`).
//!
//! Why a cargo inside the build: `cargo run -p xla-rocm-tracer-cli` builds only the binary it
//! runs, `cargo install` installs only binaries, and on stable cargo no package can depend on
//! another's binary or take a dependency's `cdylib` from a known place. A probe that had to sit
//! beside the command was therefore missing after the README's main command and after
//! `cargo install` (docs/probe.md "Shipped inside the command").
//!
//! The inner build has its own target folder, `probe-bundle/` in the outer one, so it neither
//! waits for the outer build's lock nor overwrites the outer build's files, and it is shared by
//! every outer build (build, test, clippy) of that target folder; it reruns only when the
//! sources of those crates change.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The packages the probe needs, built together (one feature resolution).
const PACKAGES: [&str; 3] = ["rocm-probe", "hip-runtime-sim", "rocprofiler-sdk-sim"];

/// The files carried inside the command, as cargo names them in the profile's folder.
const FILES: [&str; 3] = [
    "xla-rocm-tracer-probe",
    "libamdhip64.so",
    "librocprofiler_sdk_sim.so",
];

/// What the inner build reads, relative to the workspace: the crates of [`PACKAGES`] and what
/// they depend on, and the workspace's manifest (profiles) and lock file.
const SOURCES: [&str; 8] = [
    "Cargo.toml",
    "Cargo.lock",
    "crates/rocm-probe",
    "crates/hip-runtime-sim",
    "crates/rocprofiler-sdk-sim",
    "crates/rocprofiler-sdk-sys",
    "crates/rocsim-abi",
    "crates/sdk-recorder",
];

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir.join("../..");
    for source in SOURCES {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(source).display()
        );
    }
    // rocprofiler-sdk-sys links the real SDK when these name one.
    println!("cargo:rerun-if-env-changed=ROCPROFILER_SDK_LIB_DIR");
    println!("cargo:rerun-if-env-changed=ROCM_PATH");

    let out_dir = PathBuf::from(env("OUT_DIR"));
    let target_dir = bundle_target_dir(&out_dir);
    let release = env("PROFILE") == "release";
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .arg("build")
        .arg("--manifest-path")
        .arg(workspace.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir);
    if release {
        build.arg("--release");
    }
    for package in PACKAGES {
        build.args(["-p", package]);
    }
    // `cargo clippy` runs build scripts with clippy as the workspace's compiler wrapper: the
    // inner build only needs the code, and the outer run lints the same crates.
    build
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        // A build script's stdout is cargo's instruction channel.
        .stdout(Stdio::from(std::io::stderr()));
    let status = build
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the probe: {e}"));
    if !status.success() {
        panic!(
            "building the probe and the simulated libraries into {} failed ({status})",
            target_dir.display()
        );
    }
    let built = target_dir.join(if release { "release" } else { "debug" });
    for file in FILES {
        let from = built.join(file);
        std::fs::copy(&from, out_dir.join(file))
            .unwrap_or_else(|e| panic!("cannot copy {}: {e}", from.display()));
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}

/// `probe-bundle/` in the outer build's target folder (the folder holding cargo's
/// `CACHEDIR.TAG` above `OUT_DIR`), or in `OUT_DIR` when there is none.
fn bundle_target_dir(out_dir: &Path) -> PathBuf {
    out_dir
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .unwrap_or(out_dir)
        .join("probe-bundle")
}
