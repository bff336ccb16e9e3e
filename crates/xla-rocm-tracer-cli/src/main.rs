//! `xla-rocm-tracer`: replay simulated HIP programs through the tracer, inspect XSpace traces
//! (ours or any XLA trace) and convert them for chrome://tracing and Perfetto UI.
mod chrome_trace;
mod event_kind;
mod inspect;
mod interrupts;
mod output;
mod probe;
mod progress;
mod record;
mod replay;
mod replay_export;
mod streaming_summary;
mod xspace_view;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use xla_rocm_tracer::export::{read_xspace, XSpace};

use progress::{Progress, LARGE_INPUT_BYTES};

#[derive(Parser)]
#[command(name = "xla-rocm-tracer", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario on the simulated GPU through the real tracer and collector, print a lane
    /// summary and write the trace (`<scenario name>.xplane.pb` unless `-o` says where).
    Replay(replay::ReplayArgs),
    /// Run a command with the tracer's tool library loaded (ROCP_TOOL_LIBRARIES), trace every
    /// process of it that uses HIP until it exits (or for --duration seconds), print a lane
    /// summary and write one XSpace per process. The command's exit status is passed through.
    Record(record::RecordArgs),
    /// Print planes, lanes with event counts by kind, copy bytes, time span and drops.
    Inspect {
        /// XSpace files (`.xplane.pb`), or folders whose `.xplane.pb` files are read (a
        /// log folder's run: one file per host or process).
        #[arg(required = true, value_name = "TRACE")]
        traces: Vec<PathBuf>,
        /// Report progress on stderr (the default for inputs of 32 MiB or more when stderr is
        /// a terminal).
        #[arg(long)]
        progress: bool,
    },
    /// Convert XSpace files to another format.
    Convert {
        /// XSpace files (`.xplane.pb`), or folders whose `.xplane.pb` files are converted,
        /// each on its own.
        #[arg(required = true, value_name = "TRACE")]
        traces: Vec<PathBuf>,
        #[arg(long, value_enum)]
        to: ConvertFormat,
        /// Output file, for one input; defaults to each input with `.json` appended, beside it.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Report progress on stderr (the default for inputs of 32 MiB or more when stderr is
        /// a terminal).
        #[arg(long)]
        progress: bool,
    },
    /// Run a fixed HIP battery under a small recording profiler tool on the real ROCm
    /// libraries (when found) and the simulated ones, and report where they differ. Runs
    /// `xla-rocm-tracer-probe`, built with this program and carried inside it (docs/probe.md).
    Probe(probe::ProbeArgs),
}

#[derive(Copy, Clone, ValueEnum)]
enum ConvertFormat {
    /// Chrome Trace Event Format JSON.
    ChromeJson,
}

/// Whether to report progress: asked for, or a large input while stderr is a terminal.
fn wants_progress(asked: bool, input_bytes: u64) -> bool {
    asked || (input_bytes >= LARGE_INPUT_BYTES && std::io::stderr().is_terminal())
}

fn read_trace(path: &Path, asked_progress: bool) -> Result<(XSpace, bool)> {
    let size = std::fs::metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let enabled = wants_progress(asked_progress, size);
    let progress = Progress::new(enabled, "events");
    progress.stage(&format!("reading {} ({} MiB)", path.display(), size >> 20));
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    progress.stage("decoding XSpace");
    let space = read_xspace(&bytes).with_context(|| format!("cannot load {}", path.display()))?;
    Ok((space, enabled))
}

/// The trace files named: files as given, folders by their `.xplane.pb` files (sorted).
fn trace_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".xplane.pb"))
            .collect();
        if found.is_empty() {
            anyhow::bail!("{} holds no .xplane.pb file", path.display());
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

fn inspect(traces: &[PathBuf], progress: bool) -> Result<()> {
    let files = trace_files(traces)?;
    for (i, trace) in files.iter().enumerate() {
        let (space, _) = read_trace(trace, progress)?;
        if i > 0 {
            println!();
        }
        print!("{}", inspect::render(&space, &trace.display().to_string()));
    }
    Ok(())
}

fn convert_all(traces: &[PathBuf], output: Option<PathBuf>, progress: bool) -> Result<()> {
    let files = trace_files(traces)?;
    if output.is_some() && files.len() > 1 {
        anyhow::bail!(
            "-o names one output, for one input; {} inputs are each written beside themselves",
            files.len()
        );
    }
    let mut output = output;
    for trace in &files {
        convert(trace, output.take(), progress)?;
    }
    Ok(())
}

fn convert(trace: &Path, output: Option<PathBuf>, progress: bool) -> Result<()> {
    let output = output.unwrap_or_else(|| {
        let mut name = trace.as_os_str().to_owned();
        name.push(".json");
        PathBuf::from(name)
    });
    // Before reading a trace that may take a while to load.
    let output = output::check(
        &output,
        &[output::Input {
            what: "the input trace",
            path: trace,
        }],
    )?;
    let (space, enabled) = read_trace(trace, progress)?;
    let mut progress = Progress::new(enabled, "events written");
    progress.stage(&format!("writing {}", output.shown().display()));
    output.write(|out| chrome_trace::write_chrome_trace(&space, out, &mut progress))?;
    eprintln!("wrote {}", output.shown().display());
    Ok(())
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`| head`) panics; a command-line
    // tool should end quietly instead, as with the default action. Outputs are written
    // through temporary files, so ending mid-way leaves no partial one.
    // SAFETY: signal() with SIG_DFL installs no handler code; nothing else is running yet.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // glibc's mmap threshold otherwise follows the largest block freed (up to 32 MiB): after a
    // capture's first large table is freed, every later one of a few MiB comes from the heap,
    // which a long replay leaves too fragmented to give back (about 18 MiB of peak memory at
    // a million steps, benches/run.sh). Fixed at 1 MiB, a large block is mapped on its own and
    // returned when freed.
    // SAFETY: mallopt only sets an allocator parameter; nothing else is running yet.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    let cli = Cli::parse();
    if let Err(error) = interrupts::install() {
        eprintln!("xla-rocm-tracer: error: {error:#}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Probe(args) => {
            return probe::run(&args).unwrap_or_else(|error| {
                eprintln!("xla-rocm-tracer: error: {error:#}");
                ExitCode::FAILURE
            })
        }
        Command::Record(args) => {
            return record::run(args).unwrap_or_else(|error| {
                eprintln!("xla-rocm-tracer: error: {error:#}");
                ExitCode::FAILURE
            })
        }
        Command::Replay(args) => replay::run(args),
        Command::Inspect { traces, progress } => inspect(&traces, progress),
        Command::Convert {
            traces,
            to: ConvertFormat::ChromeJson,
            output,
            progress,
        } => convert_all(&traces, output, progress),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            if let Some(interrupted) = error.downcast_ref::<replay::Interrupted>() {
                eprintln!("xla-rocm-tracer: {interrupted}");
                return ExitCode::from(interrupted.exit_status());
            }
            // One line with the whole cause chain, without anyhow's backtrace.
            eprintln!("xla-rocm-tracer: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
