//! `xla-rocm-tracer-probe` (run as `xla-rocm-tracer probe`): runs a fixed HIP battery under a
//! small recording rocprofiler-sdk tool, on the real ROCm libraries when there are any and on
//! the simulated ones, in child processes, and writes what each did and where they differ.
//! docs/probe.md describes the design and the report.
//!
//!   xla-rocm-tracer-probe [--out report.json] [--rocm-lib DIR] [--sim-lib-dir DIR] [--simulated-only]
//!   xla-rocm-tracer-probe --compare-only A.json B.json
//!   xla-rocm-tracer-probe battery --hip LIB --sdk LIB --origin real|simulated [--alone STREAM]
//!   (internal: one battery, or one special stream alone, in this process)

mod battery;
mod compare;
mod ledger;
mod libs;
mod machine;
mod report;
mod runner;
mod tool;

use libs::{LibraryPair, Origin};
use report::{Report, Run};
use runner::{run_battery, run_child, simulated_machine};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: xla-rocm-tracer probe [--out report.json] [--rocm-lib DIR] \
[--sim-lib-dir DIR] [--simulated-only]\n       xla-rocm-tracer probe --compare-only A.json B.json \
[--out findings.json]";

/// Exit status of a bad environment (no HIP runtime, SDK too old, no GPU).
pub(crate) const EXIT_ENVIRONMENT: u8 = 2;

/// A failure that ends the probe: one line for the user and the exit status.
pub(crate) struct Failure(pub String, pub u8);

fn usage(msg: &str) -> Failure {
    Failure(format!("{msg}\n{USAGE}"), 1)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if args.first().map(String::as_str) == Some("battery") {
        battery_main(&args[1..])
    } else {
        probe_main(&args)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(line, code)) => {
            eprintln!("xla-rocm-tracer probe: {line}");
            ExitCode::from(code)
        }
    }
}

fn value<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str, Failure> {
    *i += 1;
    args.get(*i)
        .map(String::as_str)
        .ok_or_else(|| usage(&format!("{flag} needs a value")))
}

/// The battery, in this process: prints the run as JSON on stdout.
fn battery_main(args: &[String]) -> Result<(), Failure> {
    // A battery that aborts (the SDK 1.0 stream map, a broken install) must not leave a core
    // dump behind: the probe writes nothing but its report.
    // SAFETY: plain system calls on this process with valid arguments.
    unsafe {
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    let (mut hip, mut sdk, mut origin) = (None, None, Origin::Simulated);
    let mut alone = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--hip" => hip = Some(PathBuf::from(value(args, &mut i, "--hip")?)),
            "--sdk" => sdk = Some(PathBuf::from(value(args, &mut i, "--sdk")?)),
            "--origin" => {
                origin = match value(args, &mut i, "--origin")? {
                    "real" => Origin::Real,
                    _ => Origin::Simulated,
                }
            }
            "--alone" => alone = Some(value(args, &mut i, "--alone")?.to_string()),
            other => return Err(usage(&format!("unknown battery argument {other}"))),
        }
        i += 1;
    }
    let (Some(hip), Some(sdk)) = (hip, sdk) else {
        return Err(usage("battery needs --hip and --sdk"));
    };
    let pair = LibraryPair { origin, hip, sdk };
    let run = match alone {
        Some(stream) => runner::run_alone(&pair, &stream)?,
        None => run_battery(&pair)?,
    };
    let text = serde_json::to_string(&run).map_err(|e| Failure(e.to_string(), 1))?;
    println!("{text}");
    Ok(())
}

fn read_report(path: &Path) -> Result<Report, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure(format!("cannot read {}: {e}", path.display()), 1))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure(format!("{} is not a probe report: {e}", path.display()), 1))
}

fn summary_line(label: &str, run: &Run) -> String {
    let l = &run.libraries;
    let mut line = format!(
        "{label}: {} HIP runtime {} ({}), rocprofiler-sdk {} ({})",
        l.origin, l.hip.version, l.hip.path, l.sdk.version, l.sdk.path
    );
    if !l.simulator_options.is_empty() {
        let opts: Vec<String> = l
            .simulator_options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        line.push_str(&format!(" [{}]", opts.join(" ")));
    }
    line
}

fn probe_main(args: &[String]) -> Result<(), Failure> {
    let mut out: Option<PathBuf> = None;
    let (mut rocm_lib, mut sim_dir) = (None, None);
    let mut simulated_only = false;
    let mut compare_only: Option<(PathBuf, PathBuf)> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--out" => out = Some(PathBuf::from(value(args, &mut i, "--out")?)),
            "--rocm-lib" => rocm_lib = Some(PathBuf::from(value(args, &mut i, "--rocm-lib")?)),
            "--sim-lib-dir" => sim_dir = Some(PathBuf::from(value(args, &mut i, "--sim-lib-dir")?)),
            "--simulated-only" => simulated_only = true,
            "--compare-only" => {
                let a = PathBuf::from(value(args, &mut i, "--compare-only")?);
                let b = PathBuf::from(value(args, &mut i, "--compare-only")?);
                compare_only = Some((a, b));
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(usage(&format!("unknown argument {other}"))),
        }
        i += 1;
    }

    if let Some((a, b)) = compare_only {
        let (ra, rb) = (read_report(&a)?, read_report(&b)?);
        let (Some(pa), Some(pb)) = (ra.primary(), rb.primary()) else {
            return Err(Failure("a report holds no run".into(), 1));
        };
        let findings = compare::compare(pa, pb);
        println!("{}", summary_line("A", pa));
        println!("{}", summary_line("B", pb));
        println!("findings: {}", findings.len());
        print!("{}", compare::render(&findings, "A", "B"));
        if let Some(path) = out {
            let comparison = report::Comparison {
                probe_comparison: report::FORMAT,
                a: a.display().to_string(),
                b: b.display().to_string(),
                findings,
            };
            write_json(&path, &comparison)?;
        }
        return Ok(());
    }

    let real = if simulated_only {
        None
    } else {
        libs::find_real(rocm_lib.as_deref())
    };
    if let (Some(dir), None, false) = (&rocm_lib, &real, simulated_only) {
        return Err(Failure(
            format!(
                "no HIP runtime found: no libamdhip64.so with librocprofiler-sdk.so in {}",
                dir.display()
            ),
            EXIT_ENVIRONMENT,
        ));
    }
    let simulated = libs::find_simulated(sim_dir.as_deref());
    if real.is_none() && simulated.is_none() {
        return Err(Failure(
            "no HIP runtime found: no libamdhip64.so with librocprofiler-sdk.so in \
             $ROCM_PATH/lib, LD_LIBRARY_PATH or /opt/rocm/lib, and no simulated libraries \
             beside the probe"
                .into(),
            EXIT_ENVIRONMENT,
        ));
    }
    let real_run = real.as_ref().map(|pair| run_child(pair, &[])).transpose()?;
    let direct_dispatch = std::env::var("AMD_DIRECT_DISPATCH").ok();
    let machine = real_run
        .as_ref()
        .map(|run| simulated_machine(run, direct_dispatch.as_deref()))
        .unwrap_or_default();
    let sim_run = simulated
        .as_ref()
        .map(|pair| run_child(pair, &machine))
        .transpose()?;
    let findings = match (&real_run, &sim_run) {
        (Some(r), Some(s)) => compare::compare(r, s),
        _ => Vec::new(),
    };
    if let Some(r) = &real_run {
        println!("{}", summary_line("real", r));
    }
    if let Some(s) = &sim_run {
        println!("{}", summary_line("simulated", s));
    }
    match (&real_run, &sim_run) {
        (Some(_), Some(_)) => {
            println!("findings (real vs simulated): {}", findings.len());
            print!("{}", compare::render(&findings, "real", "simulated"));
        }
        (Some(_), None) => println!("no simulated libraries beside the probe: nothing compared"),
        _ => println!("no real ROCm libraries found: ran the simulated ones only"),
    }
    let ledger = real_run
        .as_ref()
        .or(sim_run.as_ref())
        .map(ledger::cells)
        .unwrap_or_default();
    for cell in &ledger {
        let origin = if real_run.is_some() {
            "real"
        } else {
            "simulated"
        };
        println!(
            "ledger, ROCm {} ({origin}): {}: {}",
            cell.release, cell.row, cell.observed
        );
    }
    let report = Report {
        probe_report: report::FORMAT,
        real: real_run,
        simulated: sim_run,
        findings,
        ledger,
    };
    match out {
        Some(path) => {
            write_json(&path, &report)?;
            if report.real.is_some() {
                println!(
                    "wrote {}; please attach it to an issue at the xla-rocm-tracer repository",
                    path.display()
                );
            } else {
                println!("wrote {}", path.display());
            }
        }
        None => println!("(--out report.json writes the full report)"),
    }
    Ok(())
}

fn write_json(path: &Path, report: &impl serde::Serialize) -> Result<(), Failure> {
    let mut text = serde_json::to_string_pretty(report).map_err(|e| Failure(e.to_string(), 1))?;
    text.push('\n');
    // Written beside the target and renamed, so a failure (a full disk) leaves no partial
    // report, as with the command's other outputs.
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        Failure(format!("cannot write {}: {e}", path.display()), 1)
    })
}
