//! `xla-rocm-tracer record -- COMMAND ...`: runs a command with the tracer's tool library
//! loaded, so that any HIP program (stock JAX included) is traced without rebuilding it, and
//! writes one XSpace per process of the command that used HIP: to `-o`, to files beside it
//! when there are several, or into a jax.profiler log folder (docs/tool-library.md).
//!
//! The library goes in through `ROCP_TOOL_LIBRARIES`, not `LD_PRELOAD`: the SDK loads the
//! libraries listed there in the same pass as every other tool, when it first initializes
//! (at a tool's forced registration or at HIP's start), so a program or plugin that forces
//! its own tool (XLA's tracer does) keeps it and ours is configured beside it. A preloaded
//! library would force first instead, and an SDK without anytime initialization (before ROCm 10.1) would then refuse the
//! program's own tool.
mod captures;
mod destination;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus};
use std::time::{Duration, SystemTime};

use anyhow::{bail, Context, Result};
use clap::Args;
use xla_rocm_tracer::export::capture_folder::OUTPUT_FOLDER_VARIABLE;
use xla_rocm_tracer::export::XSpace;
use xla_rocm_tracer::tracer::INITIALIZATION_FAILED;

use crate::{inspect, interrupts, output};
use destination::Destination;

/// The tool library's file name, found beside this program (cargo's `target/<profile>/`).
pub const TOOL_LIBRARY: &str = "libxla_rocm_tracer_tool.so";
/// Names the tool library explicitly (instead of the one beside this program).
pub const TOOL_LIBRARY_VARIABLE: &str = "XLA_ROCM_TRACER_TOOL_LIBRARY";
/// The tool library's own variable (`crates/xla-rocm-tracer-tool`, `request.rs`).
const DURATION_VARIABLE: &str = "XLA_ROCM_TRACER_DURATION";

#[derive(Args)]
pub struct RecordArgs {
    /// Where to write the trace. When several processes of the command used HIP, each gets a
    /// file of its own beside it, `<name>.pid<PID>.xplane.pb`.
    #[arg(short, long, default_value = "record.xplane.pb")]
    pub output: PathBuf,
    /// Write into this log folder as `jax.profiler.trace` does
    /// (`DIR/plugins/profile/<run>/<host>.pid<PID>.xplane.pb`, where xprof and TensorBoard
    /// look): into the run the program's own trace wrote, merged with XLA's host planes, or a
    /// new run.
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub logdir: Option<PathBuf>,
    /// Stop tracing after this many seconds (the command keeps running); default: when it exits.
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// The command and its arguments.
    #[arg(required = true, last = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

/// Where an installed layout keeps the tool library, from the command's folder: a `pip
/// install`ed wheel puts the command in `<prefix>/bin` and the library here (docs/python.md).
const INSTALLED_LIBRARY_FOLDER: &str = "../lib/xla-rocm-tracer";

/// Where the tool library is: `XLA_ROCM_TRACER_TOOL_LIBRARY`, else beside this program (a
/// cargo build), else in the installed layout's library folder.
fn tool_library() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(TOOL_LIBRARY_VARIABLE) {
        let path = PathBuf::from(path);
        if !path.is_file() {
            bail!("{TOOL_LIBRARY_VARIABLE}={} is not a file", path.display());
        }
        return Ok(path);
    }
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let beside = exe.with_file_name(TOOL_LIBRARY);
    let folder = exe.parent().unwrap_or(Path::new("/"));
    let installed = folder.join(INSTALLED_LIBRARY_FOLDER).join(TOOL_LIBRARY);
    for path in [&beside, &installed] {
        if path.is_file() {
            return Ok(path.clone());
        }
    }
    bail!(
        "{} is missing: `record` loads it from beside {} (or from {}); build it with `cargo \
         build -p xla-rocm-tracer-tool` (same profile) or name it in {TOOL_LIBRARY_VARIABLE}",
        beside.display(),
        exe.display(),
        installed.display()
    );
}

/// A private folder for the tool's trace, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        let base = std::env::temp_dir();
        for attempt in 0..100u32 {
            let dir = base.join(format!(
                "xla-rocm-tracer-record-{}-{attempt}",
                std::process::id()
            ));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Scratch(dir)),
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(error) => {
                    return Err(error).with_context(|| format!("cannot create {}", dir.display()))
                }
            }
        }
        bail!("cannot create a scratch folder in {}", base.display())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `ROCP_TOOL_LIBRARIES` with `library` added after what the user already listed.
fn tool_libraries_with(library: &Path) -> std::ffi::OsString {
    let mut value = std::env::var_os("ROCP_TOOL_LIBRARIES").unwrap_or_default();
    if !value.is_empty() {
        value.push(":");
    }
    value.push(library.as_os_str());
    value
}

/// The command's exit status as ours: its code, or 128 + the signal that ended it.
fn exit_code(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code.clamp(0, 255) as u8,
        (None, Some(signal)) => (128 + signal).clamp(0, 255) as u8,
        _ => 1,
    }
}

/// The line `record` prints about a trace with no GPU events it can explain, if any: HIP
/// not reached, the SDK held elsewhere, or the tracer's `initialize` failed (the SDK ignores
/// its return, so only this line says the tracer is off).
pub fn diagnosis(space: &XSpace) -> Option<&str> {
    xla_rocm_tracer::tracer::hip_runtime_reach::diagnosis(&space.warnings).or_else(|| {
        space
            .warnings
            .iter()
            .find(|warning| warning.starts_with(INITIALIZATION_FAILED))
            .map(String::as_str)
    })
}

pub fn run(args: RecordArgs) -> Result<ExitCode> {
    if let Some(seconds) = args.duration {
        if !(seconds.is_finite() && seconds >= 0.0) {
            bail!("--duration {seconds} is not a number of seconds");
        }
    }
    let library = tool_library()?;
    // Checked before the command runs, so that a bad output costs no run.
    let destination = match &args.logdir {
        Some(logdir) => Destination::log_folder(logdir)?,
        None => Destination::File(output::check(&args.output, &[])?),
    };
    let scratch = Scratch::new()?;

    let (program, rest) = args
        .command
        .split_first()
        .context("no command to run after `--`")?;
    let mut command = Command::new(program);
    command
        .args(rest)
        .env("ROCP_TOOL_LIBRARIES", tool_libraries_with(&library))
        .env(OUTPUT_FOLDER_VARIABLE, &scratch.0);
    if let Some(seconds) = args.duration {
        command.env(DURATION_VARIABLE, seconds.to_string());
    }
    let since = SystemTime::now();
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot run {}", Path::new(program).display()))?;
    // A stop signal is passed on to the command (a terminal's Ctrl-C reaches it anyway); the
    // traces its processes leave are still written.
    let status = {
        let _graceful = interrupts::graceful();
        let mut forwarded = false;
        loop {
            if let Some(status) = child.try_wait().context("cannot wait for the command")? {
                break status;
            }
            if let (Some(signal), false) = (interrupts::received(), forwarded) {
                // SAFETY: kill(2) on our own child's pid.
                unsafe { libc::kill(child.id() as libc::pid_t, signal) };
                forwarded = true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let code = exit_code(status);

    let (captured, lost) = captures::collect(&scratch.0, (child.id(), status))?;
    for process in &lost {
        eprintln!("xla-rocm-tracer: record: {}", process.describe());
    }
    if captured.is_empty() {
        if lost.is_empty() {
            eprintln!(
                "xla-rocm-tracer: record: the command wrote no trace: the tool library never \
                 loaded (no HIP runtime or rocprofiler-sdk initialized in the process?)"
            );
        }
        return Ok(ExitCode::from(if code == 0 { 1 } else { code }));
    }
    let several = captured.len() > 1;
    let mut report = String::new();
    let mut diagnoses = Vec::new();
    let mut all = inspect::DeviceTotals::default();
    for process in &captured {
        let written = destination.write(process, several, since)?;
        let totals = inspect::DeviceTotals::of_spaces(std::slice::from_ref(&process.space));
        all.add_space(&process.space);
        let title = if several {
            let command = captures::shown_command(&process.command_line);
            report.push_str(&format!("== process {} ({command})\n", process.pid));
            format!("record of process {} ({command})", process.pid)
        } else {
            format!("record of {}", Path::new(program).display())
        };
        report.push_str(&format!("the trace shows {}\n\n", totals.describe()));
        report.push_str(&inspect::render(&process.space, &title));
        report.push_str(&format!("\n{written}\n"));
        if let Some(line) = diagnosis(&process.space) {
            if !diagnoses.iter().any(|known| known == line) {
                diagnoses.push(line.to_owned());
            }
        }
    }
    if several {
        report.push_str(&format!(
            "\n{} processes traced; their traces show {} in all\n",
            captured.len(),
            all.describe()
        ));
    }
    print!("{report}");
    for line in diagnoses {
        eprintln!("xla-rocm-tracer: record: {line}");
    }
    Ok(ExitCode::from(code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use xla_rocm_tracer::tracer::{hip_runtime_reach::HIP_NOT_REACHED, SDK_HELD_ELSEWHERE};

    #[test]
    fn the_commands_status_is_ours() {
        // Wait statuses as waitpid(2) reports them: exit code in the second byte, else the signal.
        assert_eq!(exit_code(ExitStatus::from_raw(3 << 8)), 3);
        assert_eq!(exit_code(ExitStatus::from_raw(0)), 0);
        assert_eq!(exit_code(ExitStatus::from_raw(libc::SIGKILL)), 128 + 9);
    }

    #[test]
    fn only_the_three_diagnoses_are_reported() {
        let space = |warnings: &[&str]| XSpace {
            warnings: warnings.iter().map(|w| w.to_string()).collect(),
            ..XSpace::default()
        };
        assert_eq!(diagnosis(&space(&["1 events dropped"])), None);
        assert_eq!(
            diagnosis(&space(&["other", HIP_NOT_REACHED])),
            Some(HIP_NOT_REACHED)
        );
        let held = format!("could not register: {SDK_HELD_ELSEWHERE}");
        assert_eq!(diagnosis(&space(&[&held])), Some(held.as_str()));
        let failed = format!("{INITIALIZATION_FAILED}: rocprofiler_create_context failed");
        assert_eq!(diagnosis(&space(&[&failed])), Some(failed.as_str()));
    }
}
