//! `xla-rocm-tracer-probe` (run as `xla-rocm-tracer probe`): runs a fixed HIP battery under a
//! small recording rocprofiler-sdk tool, on the real ROCm libraries when there are any and on
//! the simulated ones, in child processes, and writes what each did and where they differ.
//! docs/probe.md describes the design and the report.
//!
//!   xla-rocm-tracer-probe [--out report.json] [--rocm-lib DIR] [--sim-lib-dir DIR] [--simulated-only]
//!   xla-rocm-tracer-probe --compare-only A.json B.json
//!   xla-rocm-tracer-probe battery --hip LIB --sdk LIB --origin real|simulated   (internal)

mod battery;
mod compare;
mod libs;
mod report;
mod tool;

use libs::{LibraryPair, Origin};
use report::{Report, Run};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "usage: xla-rocm-tracer probe [--out report.json] [--rocm-lib DIR] \
[--sim-lib-dir DIR] [--simulated-only]\n       xla-rocm-tracer probe --compare-only A.json B.json";

/// Exit status of a bad environment (no HIP runtime, SDK too old, no GPU).
const EXIT_ENVIRONMENT: u8 = 2;
/// How long one battery may take before the probe gives up on it.
const BATTERY_TIMEOUT: Duration = Duration::from_secs(600);

/// A failure that ends the probe: one line for the user and the exit status.
struct Failure(String, u8);

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
    let (mut hip, mut sdk, mut origin) = (None, None, Origin::Simulated);
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
            other => return Err(usage(&format!("unknown battery argument {other}"))),
        }
        i += 1;
    }
    let (Some(hip), Some(sdk)) = (hip, sdk) else {
        return Err(usage("battery needs --hip and --sdk"));
    };
    let pair = LibraryPair { origin, hip, sdk };
    let run = run_battery(&pair)?;
    let text = serde_json::to_string(&run).map_err(|e| Failure(e.to_string(), 1))?;
    println!("{text}");
    Ok(())
}

fn run_battery(pair: &LibraryPair) -> Result<Run, Failure> {
    let env = |e: libs::LoadError| Failure(e.0, EXIT_ENVIRONMENT);
    if !pair.hip.is_file() {
        return Err(Failure(
            format!(
                "no HIP runtime found: {} does not exist",
                pair.hip.display()
            ),
            EXIT_ENVIRONMENT,
        ));
    }
    let sdk = libs::load_sdk(pair).map_err(env)?;
    let (mut a, mut b, mut c) = (0u32, 0u32, 0u32);
    // SAFETY: out-parameters are valid locals.
    unsafe { (sdk.get_version)(&mut a, &mut b, &mut c) };
    if (a, b, c) < (1, 0, 0) {
        return Err(Failure(
            format!(
                "rocprofiler-sdk {a}.{b}.{c} at {} is older than 1.0.0, the first release with \
                 HIP_STREAM tracing; install ROCm 7.0 or later",
                pair.sdk.display()
            ),
            EXIT_ENVIRONMENT,
        ));
    }
    tool::set_thread_label("main");
    // Before the HIP runtime is even loaded, so that its first call finds the tool.
    tool::register(sdk);
    let hip = libs::load_hip(pair).map_err(env)?;
    let mut hip_version = 0;
    let mut devices = 0;
    // SAFETY: out-parameters are valid locals.
    let (_, rc_count) = unsafe {
        (
            (hip.runtime_get_version)(&mut hip_version),
            (hip.get_device_count)(&mut devices),
        )
    };
    if rc_count != 0 || devices <= 0 {
        return Err(Failure(
            format!(
                "no GPU: hipGetDeviceCount reports {devices} devices ({}) from {}; check \
                 HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and access to /dev/kfd",
                battery::hip_status(rc_count),
                pair.hip.display()
            ),
            EXIT_ENVIRONMENT,
        ));
    }
    tool::start();
    let mut bat = battery::Battery::new(hip, sdk, (a, b, c));
    bat.run();
    let steps = std::mem::take(&mut bat.steps);
    Ok(report::build_run(report::RunInputs {
        libraries: pair,
        sdk: &sdk,
        sdk_version: (a, b, c),
        hip_version,
        hip_devices: devices,
        recording: tool::take_recording(),
        steps,
    }))
}

/// Runs the battery in a child process (it may abort or hang on a broken install) and reads
/// its run from the child's stdout.
fn run_child(pair: &LibraryPair, machine: &[(String, String)]) -> Result<Run, Failure> {
    let exe = std::env::current_exe().map_err(|e| Failure(e.to_string(), 1))?;
    let mut cmd = Command::new(exe);
    cmd.arg("battery")
        .arg("--hip")
        .arg(&pair.hip)
        .arg("--sdk")
        .arg(&pair.sdk)
        .arg("--origin")
        .arg(pair.origin.name())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if pair.origin == Origin::Simulated {
        // Deterministic: virtual time, thread ids and handles (SCENARIOS.md "Virtual clock").
        cmd.env("ROCSIM_CLOCK", "virtual");
        cmd.envs(machine.iter().map(|(k, v)| (k, v)));
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Failure(format!("cannot start the battery: {e}"), 1))?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > BATTERY_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Failure(
                    format!(
                        "the battery on the {} libraries did not finish in {} s",
                        pair.origin.name(),
                        BATTERY_TIMEOUT.as_secs()
                    ),
                    1,
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(Failure(format!("waiting for the battery: {e}"), 1)),
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    if !status.success() {
        // The child's own one-line error, when it gave one.
        let prefix = "xla-rocm-tracer probe: ";
        if let Some(line) = err.lines().rev().find(|l| l.starts_with(prefix)) {
            let code = status
                .code()
                .and_then(|c| u8::try_from(c).ok())
                .unwrap_or(1);
            return Err(Failure(line[prefix.len()..].to_string(), code));
        }
        let last = err.lines().last().unwrap_or("");
        return Err(Failure(
            format!(
                "the battery on the {} libraries failed ({status}); last message: {last}",
                pair.origin.name()
            ),
            1,
        ));
    }
    serde_json::from_str(out.trim())
        .map_err(|e| Failure(format!("the battery's output is not a report: {e}"), 1))
}

/// The simulated machine shaped like the real one (as many CPU and GPU agents), so the
/// comparison is about behaviour, not about the host's size. Options the user set win.
fn simulated_machine(real: &Run) -> Vec<(String, String)> {
    let count = |prefix: &str| real.agents.iter().filter(|a| a.starts_with(prefix)).count();
    let mut env = Vec::new();
    for (key, n, max) in [
        ("ROCSIM_GPUS", count("gpu"), 16),
        ("ROCSIM_CPUS", count("cpu"), 8),
    ] {
        if std::env::var_os(key).is_none() && (1..=max).contains(&n) {
            env.push((key.to_string(), n.to_string()));
        }
    }
    env
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
            let report = Report {
                probe_report: report::FORMAT,
                real: Some(pa.clone()),
                simulated: Some(pb.clone()),
                findings,
            };
            write_report(&path, &report)?;
        }
        return Ok(());
    }

    let real = if simulated_only {
        None
    } else {
        libs::find_real(rocm_lib.as_deref())
    };
    let simulated = libs::find_simulated(sim_dir.as_deref());
    if real.is_none() && simulated.is_none() {
        return Err(Failure(
            "no HIP runtime found: no libamdhip64.so with librocprofiler-sdk.so in \
             $ROCM_PATH/lib, /opt/rocm/lib or LD_LIBRARY_PATH, and no simulated libraries \
             beside the probe"
                .into(),
            EXIT_ENVIRONMENT,
        ));
    }
    let real_run = real.as_ref().map(|pair| run_child(pair, &[])).transpose()?;
    let machine = real_run.as_ref().map(simulated_machine).unwrap_or_default();
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
    let report = Report {
        probe_report: report::FORMAT,
        real: real_run,
        simulated: sim_run,
        findings,
    };
    match out {
        Some(path) => {
            write_report(&path, &report)?;
            println!(
                "wrote {}; please attach it to an issue at the xla-rocm-tracer repository",
                path.display()
            );
        }
        None => println!("(--out report.json writes the full report)"),
    }
    Ok(())
}

fn write_report(path: &Path, report: &Report) -> Result<(), Failure> {
    let mut text = serde_json::to_string_pretty(report).map_err(|e| Failure(e.to_string(), 1))?;
    text.push('\n');
    std::fs::write(path, text)
        .map_err(|e| Failure(format!("cannot write {}: {e}", path.display()), 1))
}
