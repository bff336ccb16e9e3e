//! Running the battery: in this process (the `battery` subcommand: load, check, register,
//! run, build the run) or in a child process of this same binary, whose stdout carries the run.

use crate::libs::{self, LibraryPair, Origin};
use crate::machine::{machine_keys, MACHINE_VARIABLE};
use crate::report::{self, Run, Step};
use crate::{battery, tool, Failure, EXIT_ENVIRONMENT};
use rocprofiler_sdk_sys::ROCPROFILER_STATUS_SUCCESS;
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
    let status = tool::register(sdk);
    if status != ROCPROFILER_STATUS_SUCCESS {
        return Err(Failure(
            format!(
                "rocprofiler_force_configure returned {}: {} configured rocprofiler-sdk before \
                 the probe, so the probe could record nothing; run it outside rocprofv3 and \
                 without LD_PRELOAD",
                report::status_name(&sdk, status),
                other_tool(&pair.sdk)
            ),
            EXIT_ENVIRONMENT,
        ));
    }
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

/// Who configured the SDK before the probe: what `LD_PRELOAD` loads (rocprofv3 preloads its
/// tool library, whose wrapper of `__libc_start_main` calls `rocprofiler_force_configure` before
/// `main`; docs/probe.md "Child processes"), else a loaded rocprofiler library other than the SDK itself.
fn other_tool(sdk: &std::path::Path) -> String {
    if let Some(preload) = std::env::var("LD_PRELOAD")
        .ok()
        .filter(|p| !p.trim().is_empty())
    {
        return format!("another tool (LD_PRELOAD={preload})");
    }
    let sdk = std::fs::canonicalize(sdk).unwrap_or_else(|_| sdk.to_path_buf());
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let tool = maps
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter(|path| path.contains("rocprof") && std::path::Path::new(path) != sdk)
        .find(|path| !path.contains("rocprofiler-register"));
    match tool {
        Some(path) => format!("another tool ({path})"),
        None => "another tool".into(),
    }
}

fn battery_run(opened: Opened, pair: &LibraryPair, bat: battery::Battery) -> Run {
    report::build_run(report::RunInputs {
        libraries: pair,
        sdk: &opened.sdk,
        sdk_version: opened.sdk_version,
        hip_version: opened.hip_version,
        hip_devices: opened.devices,
        recording: tool::take_recording(),
        steps: bat.steps,
    })
}

/// The main battery, in this process.
pub fn run_battery(pair: &LibraryPair) -> Result<Run, Failure> {
    let opened = open(pair)?;
    tool::start();
    let mut bat = battery::Battery::new(opened.hip, opened.sdk);
    bat.run();
    Ok(battery_run(opened, pair, bat))
}

/// One special stream alone, traced, in this process (see `Battery::alone`).
pub fn run_alone(pair: &LibraryPair, stream: &str) -> Result<Run, Failure> {
    let opened = open(pair)?;
    tool::start();
    let mut bat = battery::Battery::new(opened.hip, opened.sdk);
    bat.alone(stream);
    Ok(battery_run(opened, pair, bat))
}

/// A finished child: its status, stdout and stderr.
pub(crate) struct ChildOutput {
    status: ExitStatus,
    out: String,
    err: String,
}

/// Runs this binary's `battery` subcommand on `pair` with `extra` arguments, in a child
/// process (it may abort or hang on a broken install).
fn spawn_battery(
    pair: &LibraryPair,
    machine: &[(String, toml::Value)],
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
        .env_remove("HSA_TOOLS_LIB");
    if pair.origin == Origin::Simulated {
        // Deterministic: virtual time, thread ids and handles (SCENARIOS.md "Virtual clock").
        // The machine keys the caller set win over the ones shaped like the real machine.
        let mut keys = machine_keys();
        for (key, value) in machine {
            if !keys.contains_key(key) {
                keys.insert(key.clone(), value.clone());
            }
        }
        keys.insert("clock".into(), "virtual".into());
        cmd.env(MACHINE_VARIABLE, keys.to_string());
    }
    collect(cmd, pair.origin.name())
}

/// Runs `cmd` to its end (at most [`BATTERY_TIMEOUT`]) and keeps what it printed.
pub(crate) fn collect(mut cmd: Command, origin: &str) -> Result<ChildOutput, Failure> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| Failure(format!("cannot start the battery: {e}"), 1))?;
    let (Some(mut stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(Failure("the battery's output was not piped".into(), 1));
    };
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
                        "the battery on the {origin} libraries did not finish in {} s",
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

/// The run a child printed. A complete run is kept whatever became of the process after it
/// printed it (a crash in the SDK's or HIP's teardown at exit is the run's `exit`, compared
/// like any field); without one, the child's own one-line error, or how it died.
pub(crate) fn read_run(child: &ChildOutput, origin: &str) -> Result<Run, Failure> {
    if let Ok(mut run) = serde_json::from_str::<Run>(child.out.trim()) {
        run.exit = match exit_outcome(child.status) {
            None => report::EXIT_NORMAL.into(),
            Some(outcome) => format!("after printing its whole report, {outcome}"),
        };
        return Ok(run);
    }
    if child.status.success() {
        return Err(Failure(
            format!("the battery on the {origin} libraries printed no report"),
            1,
        ));
    }
    let prefix = "xla-rocm-tracer probe: ";
    if let Some(line) = child.err.lines().rev().find(|l| l.starts_with(prefix)) {
        let code = child
            .status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(1);
        return Err(Failure(line[prefix.len()..].to_string(), code));
    }
    let last = child.err.lines().last().unwrap_or("");
    Err(Failure(
        format!(
            "the battery on the {origin} libraries failed ({}); last message: {last}",
            child.status
        ),
        1,
    ))
}

/// The special streams, each run alone (`Battery::alone`), and the step after which they
/// stand in the report.
const ALONE: [(&str, &str); 2] = [
    ("legacy", "legacy_stream"),
    ("per-thread", "per_thread_stream"),
];
const ALONE_AFTER: &str = "null_stream";

/// Runs the battery in a child process and reads its run from the child's stdout, then each
/// special stream alone in a child of its own: its step joins the run after `null_stream`, or,
/// when that child died before printing (SDK 1.0.x aborts), a skipped step that says how.
pub fn run_child(pair: &LibraryPair, machine: &[(String, toml::Value)]) -> Result<Run, Failure> {
    let origin = pair.origin.name();
    let main = spawn_battery(pair, machine, &[])?;
    // The simulator runs its default machine when it cannot read the keys (a release this
    // build of it does not model yet, a typo in `ROCSIM_MACHINE`): that run would be compared
    // as if it were the machine asked for.
    let refused = "; using the default machine";
    if let Some(line) = main.err.lines().find(|l| l.ends_with(refused)) {
        return Err(Failure(
            format!("the simulated libraries refused the machine: {line}"),
            1,
        ));
    }
    let mut run = read_run(&main, origin)?;
    let mut alone = Vec::new();
    for (stream, name) in ALONE {
        let child = spawn_battery(pair, machine, &["--alone", stream])?;
        alone.push(alone_step(&child, origin, name, &run.libraries.sdk.version));
    }
    let at = run
        .steps
        .iter()
        .position(|s| s.name == ALONE_AFTER)
        .map_or(run.steps.len(), |i| i + 1);
    run.steps.splice(at..at, alone);
    Ok(run)
}

/// The step a child running one special stream alone gave, or a skipped step saying what
/// became of the child.
fn alone_step(child: &ChildOutput, origin: &str, name: &str, sdk_version: &str) -> Step {
    let skipped = |why: String| Step {
        name: name.into(),
        skipped: Some(format!("run alone in a child process: {why}")),
        ..Step::default()
    };
    let Ok(alone) = read_run(child, origin) else {
        let mut why = exit_outcome(child.status).unwrap_or_else(|| "it printed no report".into());
        if sdk_version.starts_with("1.0.") && child.status.signal() == Some(libc::SIGABRT) {
            why.push_str(
                ", as rocprofiler-sdk 1.0.x does: its stream map throws std::out_of_range on a \
                 HIP_STREAM SET for a stream it never saw created",
            );
        }
        return skipped(why);
    };
    let Some(mut step) = alone.steps.into_iter().find(|s| s.name == name) else {
        return skipped("its setup failed".into());
    };
    step.notes.push("run alone in a child process".into());
    if alone.exit != report::EXIT_NORMAL {
        step.notes.push(alone.exit);
    }
    step
}

/// What became of a child process that did not exit with status 0.
fn exit_outcome(status: ExitStatus) -> Option<String> {
    if status.success() {
        return None;
    }
    Some(match (status.signal(), status.code()) {
        (Some(libc::SIGABRT), _) => "the process aborted (SIGABRT)".into(),
        (Some(signal), _) => format!("the process died of signal {signal}"),
        (None, code) => format!(
            "it failed with exit status {}",
            code.map_or("unknown".into(), |c| c.to_string())
        ),
    })
}

/// The ROCm release whose simulator profile (machine key `rocm`) models an SDK version, from
/// the SDK's CHANGELOG: 1.0.0 shipped with ROCm 7.0, 1.1.0 with 7.1 and 7.2, 1.3.0 with 7.13,
/// 1.3.2 with 7.14, 1.3.5 with 10.0, 1.4.1 with 10.1 (docs/probe.md "Simulated machine shape"). A version between two known ones takes the older release; one
/// after the newest, the newest.
pub fn rocm_release(sdk_version: &str) -> Option<&'static str> {
    let mut parts = sdk_version.split('.').map(|p| p.parse::<u32>().ok());
    let version = (
        parts.next()??,
        parts.next().flatten().unwrap_or(0),
        parts.next().flatten().unwrap_or(0),
    );
    Some(match version {
        v if v < (1, 0, 0) => return None,
        v if v < (1, 1, 0) => "7.0",
        v if v < (1, 3, 0) => "7.1",
        v if v < (1, 3, 2) => "7.13",
        v if v < (1, 3, 5) => "7.14",
        v if v < (1, 4, 1) => "10.0",
        _ => "10.1",
    })
}

/// The simulated machine shaped like the real one: as many CPU and GPU agents, the real SDK's
/// version and the profile of its ROCm release, and HIP's `AMD_DIRECT_DISPATCH` as given to
/// the real runtime (`amd_direct_dispatch`). The comparison is then about behaviour, not about
/// the host's size or which release it runs.
pub fn simulated_machine(
    real: &Run,
    amd_direct_dispatch: Option<&str>,
) -> Vec<(String, toml::Value)> {
    let count = |prefix: &str| real.agents.iter().filter(|a| a.starts_with(prefix)).count();
    let mut keys: Vec<(String, toml::Value)> = Vec::new();
    for (key, n, max) in [("gpus", count("gpu"), 16), ("cpus", count("cpu"), 8)] {
        if (1..=max).contains(&n) {
            keys.push((key.to_string(), toml::Value::Integer(n as i64)));
        }
    }
    let version = &real.libraries.sdk.version;
    if let Some(rocm) = rocm_release(version) {
        keys.push(("sdk_version".into(), version.as_str().into()));
        keys.push(("rocm".into(), rocm.into()));
    }
    match amd_direct_dispatch.map(str::trim) {
        Some("0") => keys.push(("direct_dispatch".into(), false.into())),
        Some("1") => keys.push(("direct_dispatch".into(), true.into())),
        _ => {}
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Report;

    /// The simulated run of the pinned report, as a battery child prints it.
    fn printed_run(test: &str) -> (Run, std::path::PathBuf) {
        let text = include_str!("../tests/data/simulated_report.json");
        let report: Report = serde_json::from_str(text).expect("the pinned report parses");
        let run = report
            .simulated
            .expect("the pinned report has a simulated run");
        let path =
            std::env::temp_dir().join(format!("rocm-probe-run-{}-{test}.json", std::process::id()));
        std::fs::write(
            &path,
            serde_json::to_string(&run).expect("a run serializes"),
        )
        .expect("write");
        (run, path)
    }

    /// A fake child: a shell that prints `file` and then does `then`.
    fn fake_child(file: &std::path::Path, then: &str) -> ChildOutput {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("cat '{}'; {then}", file.display()));
        collect(cmd, "real").unwrap_or_else(|Failure(line, _)| panic!("{line}"))
    }

    #[test]
    fn a_child_that_crashed_after_its_whole_report_keeps_it_and_the_crash_is_a_finding() {
        let (printed, path) = printed_run("crashed-after");
        let child = fake_child(&path, "kill -SEGV $$");
        assert_eq!(child.status.signal(), Some(libc::SIGSEGV));
        let Ok(run) = read_run(&child, "real") else {
            panic!("the report was lost");
        };
        assert_eq!(run.steps, printed.steps);
        assert_eq!(
            run.exit,
            "after printing its whole report, the process died of signal 11"
        );
        let findings = crate::compare::compare(&run, &printed);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].key, "exit");
        assert!(findings[0].simulator.contains("teardown at process exit"));
        // The same child exiting normally: no finding.
        let clean = read_run(&fake_child(&path, "exit 0"), "real");
        assert!(clean.is_ok_and(|run| run.exit == report::EXIT_NORMAL));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_child_that_crashed_mid_report_is_a_failed_battery() {
        let (_, path) = printed_run("crashed-mid");
        let child = fake_child(&path, "true");
        let truncated = ChildOutput {
            out: child.out[..child.out.len() / 2].to_string(),
            ..fake_child(&path, "kill -ABRT $$")
        };
        let Err(Failure(line, code)) = read_run(&truncated, "real") else {
            panic!("half a report was taken for a run");
        };
        assert_eq!(code, 1);
        assert!(
            line.starts_with("the battery on the real libraries failed"),
            "{line}"
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_rocm_release_follows_the_sdk_version() {
        for (version, rocm) in [
            ("1.0.0", Some("7.0")),
            ("1.0.1", Some("7.0")),
            ("1.1.0", Some("7.1")),
            ("1.2.0", Some("7.1")),
            ("1.3.0", Some("7.13")),
            ("1.3.1", Some("7.13")),
            ("1.3.2", Some("7.14")),
            ("1.3.4", Some("7.14")),
            ("1.3.5", Some("10.0")),
            ("1.4.0", Some("10.0")),
            ("1.4.1", Some("10.1")),
            ("1.5.0", Some("10.1")),
            ("0.6.0", None),
            ("garbage", None),
        ] {
            assert_eq!(rocm_release(version), rocm, "{version}");
        }
    }

    #[test]
    fn the_simulated_machine_is_shaped_like_the_real_one() {
        let (mut run, path) = printed_run("shaped");
        let _ = std::fs::remove_file(&path);
        run.libraries.sdk.version = "1.3.2".into();
        let keys = simulated_machine(&run, Some("0"));
        let text: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(
            text,
            [
                "gpus=1",
                "cpus=2",
                "sdk_version=\"1.3.2\"",
                "rocm=\"7.14\"",
                "direct_dispatch=false"
            ]
        );
        let keys = simulated_machine(&run, None);
        assert!(!keys.iter().any(|(k, _)| k == "direct_dispatch"));
    }
}
