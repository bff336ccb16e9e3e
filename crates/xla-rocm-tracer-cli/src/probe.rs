//! `xla-rocm-tracer probe`: runs the `xla-rocm-tracer-probe` binary that sits beside this one
//! (crate `crates/rocm-probe`). The battery cannot run in this process: this binary links the
//! tracer, whose load-time registration would claim the SDK it is linked to. docs/probe.md.
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

pub const PROBE_BIN: &str = "xla-rocm-tracer-probe";

fn probe_path() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let path = exe.with_file_name(PROBE_BIN);
    if !path.is_file() {
        bail!(
            "{} is missing: `probe` runs it from beside {} (build it with `cargo build -p rocm-probe`)",
            path.display(),
            exe.display()
        );
    }
    Ok(path)
}

/// Runs the probe with `args` and returns its exit status as ours.
pub fn run(args: Vec<String>) -> Result<ExitCode> {
    let path = probe_path()?;
    let status = Command::new(&path)
        .args(&args)
        .status()
        .with_context(|| format!("cannot run {}", path.display()))?;
    Ok(match status.code() {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
