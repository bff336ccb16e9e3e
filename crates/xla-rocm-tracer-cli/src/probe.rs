//! `xla-rocm-tracer probe`: runs the `xla-rocm-tracer-probe` binary that sits beside this one
//! (crate `crates/rocm-probe`). The battery cannot run in this process: this binary links the
//! tracer, whose load-time registration would claim the SDK it is linked to. docs/probe.md.
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

pub const PROBE_BIN: &str = "xla-rocm-tracer-probe";

/// The options `xla-rocm-tracer-probe` takes, declared here so that `probe --help` lists them
/// and a typo is caught before anything runs.
#[derive(clap::Args)]
pub struct ProbeArgs {
    /// Write the report (JSON) to this file; without it, only the findings are printed.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The folder with the real `libamdhip64.so` and `librocprofiler-sdk.so` [default: the
    /// first of `$ROCM_PATH/lib`, `/opt/rocm/lib` and the `LD_LIBRARY_PATH` folders that has
    /// both].
    #[arg(long, value_name = "DIR")]
    pub rocm_lib: Option<PathBuf>,
    /// The folder with the simulated `libamdhip64.so` and `librocprofiler_sdk_sim.so`
    /// [default: beside the probe binary, or its `deps/` folder].
    #[arg(long, value_name = "DIR")]
    pub sim_lib_dir: Option<PathBuf>,
    /// Run the battery on the simulated libraries only, even if real ones are found.
    #[arg(long)]
    pub simulated_only: bool,
    /// Run nothing: compare two saved reports and print where they differ (`--out` then
    /// writes the findings).
    #[arg(long, num_args = 2, value_names = ["A.json", "B.json"],
          conflicts_with_all = ["rocm_lib", "sim_lib_dir", "simulated_only"])]
    pub compare_only: Option<Vec<PathBuf>>,
}

impl ProbeArgs {
    /// The same options, spelled for `xla-rocm-tracer-probe`.
    fn to_probe_args(&self) -> Vec<std::ffi::OsString> {
        let mut args: Vec<std::ffi::OsString> = Vec::new();
        if let Some(reports) = &self.compare_only {
            args.push("--compare-only".into());
            args.extend(reports.iter().map(|report| report.clone().into_os_string()));
        }
        for (flag, value) in [
            ("--out", &self.out),
            ("--rocm-lib", &self.rocm_lib),
            ("--sim-lib-dir", &self.sim_lib_dir),
        ] {
            if let Some(value) = value {
                args.push(flag.into());
                args.push(value.clone().into_os_string());
            }
        }
        if self.simulated_only {
            args.push("--simulated-only".into());
        }
        args
    }
}

/// The command that builds the probe and the simulated libraries it loads into the folder
/// `exe` sits in: cargo's `target/<profile>/`, whose name gives the profile.
pub fn build_hint(exe: &Path) -> String {
    let profile = exe
        .parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .unwrap_or("debug");
    let profile_flag = match profile {
        "debug" => String::new(),
        "release" => " --release".to_owned(),
        other => format!(" --profile {other}"),
    };
    format!("cargo build{profile_flag} -p rocm-probe -p hip-runtime-sim -p rocprofiler-sdk-sim")
}

fn probe_path() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let path = exe.with_file_name(PROBE_BIN);
    if !path.is_file() {
        bail!(
            "{} is missing: `probe` runs it from beside {}; build it with `{}`",
            path.display(),
            exe.display(),
            build_hint(&exe)
        );
    }
    Ok(path)
}

/// Runs the probe with `args` and returns its exit status as ours.
pub fn run(args: &ProbeArgs) -> Result<ExitCode> {
    let path = probe_path()?;
    let status = Command::new(&path)
        .args(args.to_probe_args())
        .status()
        .with_context(|| format!("cannot run {}", path.display()))?;
    Ok(match status.code() {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_builds_for_the_profile_the_command_was_built_with() {
        let hint = |path: &str| build_hint(Path::new(path));
        assert_eq!(
            hint("/r/target/release/xla-rocm-tracer"),
            "cargo build --release -p rocm-probe -p hip-runtime-sim -p rocprofiler-sdk-sim"
        );
        assert_eq!(
            hint("/r/target/debug/xla-rocm-tracer"),
            "cargo build -p rocm-probe -p hip-runtime-sim -p rocprofiler-sdk-sim"
        );
        assert!(hint("/r/target/bench/xla-rocm-tracer").contains(" --profile bench "));
    }
}
