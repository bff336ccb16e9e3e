//! `xla-rocm-tracer probe`: runs the probe binary `xla-rocm-tracer-probe` (crate
//! `crates/rocm-probe`). The battery cannot run in this process: this binary links the tracer,
//! whose load-time registration would claim the SDK it is linked to. The probe and the
//! simulated libraries it compares with are built with this command (build.rs) and carried
//! inside it; each run writes them to a private temporary folder, runs the probe from there
//! and removes the folder. docs/probe.md "Shipped inside the command".
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result};

pub const PROBE_BIN: &str = "xla-rocm-tracer-probe";

/// The options `xla-rocm-tracer-probe` takes, declared here so that `probe --help` lists them
/// and a typo is caught before anything runs.
#[derive(clap::Args)]
pub struct ProbeArgs {
    /// Write the report (JSON) to this file; without it, only the findings are printed.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The folder with the real `libamdhip64.so` and `librocprofiler-sdk.so` [default: the
    /// first of `$ROCM_PATH/lib`, the `LD_LIBRARY_PATH` folders and `/opt/rocm/lib` that has
    /// both].
    #[arg(long, value_name = "DIR")]
    pub rocm_lib: Option<PathBuf>,
    /// The folder with the simulated `libamdhip64.so` and `librocprofiler_sdk_sim.so`
    /// [default: the ones built with this command].
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

/// The probe and its simulated libraries, as build.rs built them: file name, bytes, mode.
const BUNDLE: [(&str, &[u8], u32); 3] = [
    (
        PROBE_BIN,
        include_bytes!(concat!(env!("OUT_DIR"), "/xla-rocm-tracer-probe")),
        0o700,
    ),
    (
        "libamdhip64.so",
        include_bytes!(concat!(env!("OUT_DIR"), "/libamdhip64.so")),
        0o600,
    ),
    (
        "librocprofiler_sdk_sim.so",
        include_bytes!(concat!(env!("OUT_DIR"), "/librocprofiler_sdk_sim.so")),
        0o600,
    ),
];

/// A folder only this user can read, removed (with what is in it) when dropped.
struct PrivateFolder(PathBuf);

impl PrivateFolder {
    fn create() -> Result<PrivateFolder> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        for attempt in 0..100u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let path = base.join(format!(
                "xla-rocm-tracer-probe.{}.{nanos:x}{attempt}",
                std::process::id()
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(PrivateFolder(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("cannot create a folder for the probe in {}", base.display())
                    })
                }
            }
        }
        anyhow::bail!("cannot create a folder for the probe in {}", base.display())
    }
}

impl Drop for PrivateFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes the probe and its libraries into `folder`; returns the probe's path.
fn unpack(folder: &Path) -> Result<PathBuf> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    for (name, bytes, mode) in BUNDLE {
        let path = folder.join(name);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&path)
            .and_then(|mut file| file.write_all(bytes))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(folder.join(PROBE_BIN))
}

/// Runs the probe with `args` and returns its exit status as ours.
pub fn run(args: &ProbeArgs) -> Result<ExitCode> {
    let folder = PrivateFolder::create()?;
    let path = unpack(&folder.0)?;
    let status = Command::new(&path)
        .args(args.to_probe_args())
        .status()
        .with_context(|| {
            format!(
                "cannot run {} (if {} is mounted noexec, set TMPDIR to another folder)",
                path.display(),
                std::env::temp_dir().display()
            )
        })?;
    Ok(match status.code() {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
