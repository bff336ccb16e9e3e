//! Running the battery: in this process (the `battery` subcommand: load, check, register,
//! run, build the run) or in a child process of this same binary, whose stdout carries the run.

use crate::libs::{self, LibraryPair, Origin};
use crate::machine::{machine_keys, MACHINE_VARIABLE};
use crate::report::{self, Run};
use crate::{battery, tool, Failure, EXIT_ENVIRONMENT};
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long one battery may take before the probe gives up on it.
const BATTERY_TIMEOUT: Duration = Duration::from_secs(600);

/// The libraries, loaded and checked, with the tool registered.
struct Opened {
    sdk: libs::Sdk,
    hip: libs::Hip,
    sdk_version: (u32, u32, u32),
    hip_version: i32,
    devices: i32,
}

/// Loads the SDK, checks its version, registers the tool, loads HIP and checks for a GPU:
/// each failure is one line and the bad-environment status.
fn open(pair: &LibraryPair) -> Result<Opened, Failure> {
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
    Ok(Opened {
        sdk,
        hip,
        sdk_version: (a, b, c),
        hip_version,
        devices,
    })
}

pub fn run_battery(pair: &LibraryPair) -> Result<Run, Failure> {
    let Opened {
        sdk,
        hip,
        sdk_version,
        hip_version,
        devices,
    } = open(pair)?;
    tool::start();
    let mut bat = battery::Battery::new(hip, sdk, sdk_version);
    bat.run();
    let steps = std::mem::take(&mut bat.steps);
    Ok(report::build_run(report::RunInputs {
        libraries: pair,
        sdk: &sdk,
        sdk_version,
        hip_version,
        hip_devices: devices,
        recording: tool::take_recording(),
        steps,
    }))
}

/// One special stream alone, traced: the step the main battery skips on SDK 1.0.x, run here
/// so that its parent can see whether the process survives it.
pub fn run_alone(pair: &LibraryPair, stream: &str) -> Result<(), Failure> {
    let opened = open(pair)?;
    tool::start();
    let mut bat = battery::Battery::new(opened.hip, opened.sdk, opened.sdk_version);
    bat.alone(stream);
    Ok(())
}

/// A finished child: its status, stdout and stderr.
struct ChildOutput {
    status: ExitStatus,
    out: String,
    err: String,
}

/// Runs this binary's `battery` subcommand on `pair` with `extra` arguments, in a child
/// process (it may abort or hang on a broken install).
fn spawn_battery(
    pair: &LibraryPair,
    machine: &[(String, String)],
    extra: &[&str],
) -> Result<ChildOutput, Failure> {
    let exe = std::env::current_exe().map_err(|e| Failure(e.to_string(), 1))?;
    let mut cmd = Command::new(exe);
    cmd.arg("battery")
        .arg("--hip")
        .arg(&pair.hip)
        .arg("--sdk")
        .arg(&pair.sdk)
        .arg("--origin")
        .arg(pair.origin.name())
        .args(extra)
        // Other tools the SDK or HSA would load from the environment would see and change
        // what the probe records.
        .env_remove("ROCP_TOOL_LIBRARIES")
        .env_remove("HSA_TOOLS_LIB")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if pair.origin == Origin::Simulated {
        // Deterministic: virtual time, thread ids and handles (SCENARIOS.md "Virtual clock").
        // The machine keys the caller set win over the ones shaped like the real machine.
        let mut keys = machine_keys();
        for (key, value) in machine {
            if let (false, Ok(n)) = (keys.contains_key(key), value.parse::<i64>()) {
                keys.insert(key.clone(), n.into());
            }
        }
        keys.insert("clock".into(), "virtual".into());
        cmd.env(MACHINE_VARIABLE, keys.to_string());
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
    Ok(ChildOutput {
        status,
        out: out_reader.join().unwrap_or_default(),
        err: err_reader.join().unwrap_or_default(),
    })
}

/// Runs the battery in a child process and reads its run from the child's stdout. Steps the
/// battery skipped because the SDK would abort on them are then run alone, each in a child of
/// its own, and the skip says what happened: on a real SDK that checks the abort itself.
pub fn run_child(pair: &LibraryPair, machine: &[(String, String)]) -> Result<Run, Failure> {
    let ChildOutput { status, out, err } = spawn_battery(pair, machine, &[])?;
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
    let mut run: Run = serde_json::from_str(out.trim())
        .map_err(|e| Failure(format!("the battery's output is not a report: {e}"), 1))?;
    for step in &mut run.steps {
        let stream = match step.name.as_str() {
            "legacy_stream" => "legacy",
            "per_thread_stream" => "per-thread",
            _ => continue,
        };
        if let Some(skipped) = &mut step.skipped {
            let outcome = alone_outcome(&spawn_battery(pair, machine, &["--alone", stream])?);
            skipped.push_str(&format!("; run alone in a child process: {outcome}"));
        }
    }
    Ok(run)
}

/// What became of a child that ran one special stream alone.
fn alone_outcome(child: &ChildOutput) -> String {
    if child.status.success() {
        return "completed".into();
    }
    match (child.status.signal(), child.status.code()) {
        (Some(libc::SIGABRT), _) => "the process aborted (SIGABRT)".into(),
        (Some(signal), _) => format!("the process died of signal {signal}"),
        (None, code) => format!(
            "it failed with exit status {}",
            code.map_or("unknown".into(), |c| c.to_string())
        ),
    }
}

/// The simulated machine shaped like the real one (as many CPU and GPU agents, as machine
/// keys), so the comparison is about behaviour, not about the host's size.
pub fn simulated_machine(real: &Run) -> Vec<(String, String)> {
    let count = |prefix: &str| real.agents.iter().filter(|a| a.starts_with(prefix)).count();
    let mut keys = Vec::new();
    for (key, n, max) in [("gpus", count("gpu"), 16), ("cpus", count("cpu"), 8)] {
        if (1..=max).contains(&n) {
            keys.push((key.to_string(), n.to_string()));
        }
    }
    keys
}
