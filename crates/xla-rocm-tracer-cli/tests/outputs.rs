//! What the command writes and says: outputs checked before the replay runs, written whole or
//! not at all, Ctrl-C, progress, the default output, and the summary's counts and units.
// The library calls the SDK; the simulator supplies its symbols to this test binary.
use rocprofiler_sdk_sim as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use xla_rocm_tracer::export::read_xspace_file;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn jax_matmul() -> String {
    repo()
        .join("scenarios/jax_matmul.toml")
        .to_string_lossy()
        .into_owned()
}

fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"));
    command
        .current_dir(repo())
        // The child chooses the machine and the clock itself (re-executing as needed).
        .env_remove("ROCSIM_MACHINE");
    command
}

fn run(args: &[&str]) -> Output {
    command().args(args).output().expect("run xla-rocm-tracer")
}

/// A fresh, empty directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "xla-rocm-tracer-outputs-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Names of the entries of `dir`, hidden ones (temporary files) included.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A failure named `path` with "cannot write", one line, before anything ran.
fn assert_refused_before_running(output: &Output, path: &Path) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot write {}", path.display())),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        text(&output.stdout),
        "",
        "nothing replayed, nothing printed"
    );
}

#[test]
fn replay_into_a_missing_directory_is_refused_before_it_runs() {
    let dir = scratch("missing");
    let target = dir.join("no-such-dir/trace.xplane.pb");
    let output = run(&["replay", &jax_matmul(), "-o", target.to_str().unwrap()]);
    assert_refused_before_running(&output, &target);
    assert!(text(&output.stderr).contains("does not exist"));
    assert!(entries(&dir).is_empty());
}

#[test]
fn replay_onto_a_directory_is_refused_before_it_runs() {
    let dir = scratch("is-dir");
    let output = run(&["replay", &jax_matmul(), "-o", dir.to_str().unwrap()]);
    assert_refused_before_running(&output, &dir);
    assert!(text(&output.stderr).contains("it is a directory"));
    assert!(entries(&dir).is_empty());
}

fn is_root() -> bool {
    // SAFETY: geteuid() has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Mounts a tmpfs on `dir` with `options`; false when this process may not mount.
fn mount_tmpfs(dir: &Path, options: &str) -> bool {
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", options, "tmpfs"])
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn unmount(dir: &Path) {
    let _ = Command::new("umount").arg(dir).status();
}

#[test]
fn replay_into_a_read_only_directory_is_refused_before_it_runs() {
    let dir = scratch("read-only");
    // Root writes into a mode-0555 directory regardless: it needs a read-only filesystem.
    let mounted = if is_root() {
        if !mount_tmpfs(&dir, "ro,size=64k") {
            eprintln!("skipped: running as root and cannot mount a read-only tmpfs");
            return;
        }
        true
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        false
    };
    let target = dir.join("trace.xplane.pb");
    let output = run(&["replay", &jax_matmul(), "-o", target.to_str().unwrap()]);
    let left = entries(&dir);
    if mounted {
        unmount(&dir);
    }
    assert_refused_before_running(&output, &target);
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn convert_checks_its_output_before_reading_the_trace() {
    let dir = scratch("convert-missing");
    let target = dir.join("no-such-dir/trace.json");
    // The input does not exist either: the output is what is checked first.
    let output = run(&[
        "convert",
        "no-such-trace.xplane.pb",
        "--to",
        "chrome-json",
        "-o",
        target.to_str().unwrap(),
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot write {}", target.display())),
        "{stderr}"
    );
    assert!(entries(&dir).is_empty());
}

/// The `XLA_ROCM_TRACER_TEST_FAIL_WRITE_AFTER` hook: writes fail as on a full disk.
const FAIL_WRITE_AFTER: &str = "XLA_ROCM_TRACER_TEST_FAIL_WRITE_AFTER";

#[test]
fn a_full_disk_leaves_no_partial_trace() {
    let dir = scratch("full-replay");
    let target = dir.join("trace.xplane.pb");
    let output = command()
        .args(["replay", &jax_matmul(), "-o", target.to_str().unwrap()])
        .env(FAIL_WRITE_AFTER, "100")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot write {}", target.display())),
        "{stderr}"
    );
    assert!(stderr.contains("no storage space"), "{stderr}");
    assert_eq!(
        entries(&dir),
        Vec::<String>::new(),
        "neither the trace nor a temporary file"
    );
}

#[test]
fn a_full_disk_leaves_no_partial_json() {
    let dir = scratch("full-convert");
    let target = dir.join("trace.json");
    let reference = repo().join("tests/data/jax_matmul_cuda.xplane.pb");
    let output = command()
        .args([
            "convert",
            reference.to_str().unwrap(),
            "--to",
            "chrome-json",
        ])
        .args(["-o", target.to_str().unwrap()])
        .env(FAIL_WRITE_AFTER, "4096")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot write {}", target.display())),
        "{stderr}"
    );
    assert_eq!(entries(&dir), Vec::<String>::new());
}

/// A real full filesystem: a one-page tmpfs already filled. Needs the right to mount.
#[test]
fn a_full_tmpfs_leaves_no_partial_trace() {
    let dir = scratch("full-tmpfs");
    if !mount_tmpfs(&dir, "size=4k") {
        eprintln!("skipped: cannot mount a tmpfs (the FAIL_WRITE_AFTER tests cover the logic)");
        return;
    }
    // Fill it: the output's temporary file can still be created (an inode), not written.
    let filler = dir.join("filler");
    let _ = std::fs::write(&filler, vec![0u8; 64 * 1024]);
    let target = dir.join("trace.xplane.pb");
    let output = run(&["replay", &jax_matmul(), "-o", target.to_str().unwrap()]);
    let left = entries(&dir);
    unmount(&dir);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot write {}", target.display())),
        "{stderr}"
    );
    assert_eq!(left, ["filler"], "no trace and no temporary file");
}

/// Runs a replay that pauses before step 5 (`XLA_ROCM_TRACER_TEST_PAUSE_AT_STEP`), sends
/// SIGINT to the command once it says so, and returns its output.
fn interrupt_replay(target: &Path, virtual_clock_set: bool) -> Output {
    let mut command = command();
    command
        .args(["replay", &jax_matmul(), "-o", target.to_str().unwrap()])
        .env("XLA_ROCM_TRACER_TEST_PAUSE_AT_STEP", "5")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if virtual_clock_set {
        // The command needs no other machine: it replays in this process, no re-execution.
        command.env("ROCSIM_MACHINE", "clock = \"virtual\"");
    }
    let mut child = command.spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the replay ended before pausing: {seen}"
        );
        seen.push_str(&line);
        if line.starts_with("test hook: paused before step 5") {
            break;
        }
    }
    // SAFETY: kill() has no memory-safety preconditions; the pid is our unreaped child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let mut output = child.wait_with_output().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    output.stderr = (seen + &rest).into_bytes();
    output
}

fn assert_interrupted(output: &Output, dir: &Path) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(
            "interrupted: the replay of \
             "
        ) && stderr.contains(
            "jax_matmul.toml stopped after 4 steps (Ctrl-C); the tracer was disabled and no \
             trace was written"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(entries(dir), Vec::<String>::new(), "nothing written");
    assert_eq!(text(&output.stdout), "");
}

#[test]
fn ctrl_c_stops_the_replay_at_a_step_and_writes_nothing() {
    let dir = scratch("sigint");
    let output = interrupt_replay(&dir.join("trace.xplane.pb"), true);
    assert_interrupted(&output, &dir);
}

#[test]
fn ctrl_c_reaches_a_re_executed_replay() {
    // Without the virtual clock in ROCSIM_MACHINE the command re-runs itself with it; the signal goes to the parent
    // alone, which must pass it on.
    let dir = scratch("sigint-reexec");
    let output = interrupt_replay(&dir.join("trace.xplane.pb"), false);
    assert_interrupted(&output, &dir);
}

#[test]
fn progress_goes_to_stderr_when_asked_and_only_then() {
    let dir = scratch("progress");
    let target = dir.join("trace.xplane.pb");
    let quiet = run(&["replay", &jax_matmul(), "-o", target.to_str().unwrap()]);
    assert!(quiet.status.success());
    assert_eq!(text(&quiet.stderr), "", "stderr is no terminal here");
    let loud = run(&[
        "replay",
        &jax_matmul(),
        "-o",
        target.to_str().unwrap(),
        "--progress",
    ]);
    assert!(loud.status.success());
    let stderr = text(&loud.stderr);
    assert!(
        stderr.contains("jax_matmul.toml (Ctrl-C stops it)\n"),
        "{stderr}"
    );
    assert!(stderr.ends_with("replayed 24 steps\n"), "{stderr}");
    assert_eq!(quiet.stdout, loud.stdout, "progress never goes to stdout");
}

#[test]
fn replay_writes_the_trace_by_default_and_says_where() {
    let dir = scratch("default-output");
    let output = command()
        .current_dir(&dir)
        .args(["replay", &jax_matmul()])
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(entries(&dir), ["jax_matmul.xplane.pb"]);
    let size = std::fs::metadata(dir.join("jax_matmul.xplane.pb"))
        .unwrap()
        .len();
    assert!(
        stdout.ends_with(&format!(
            "\nwrote jax_matmul.xplane.pb ({:.1} KiB)\n",
            size as f64 / 1024.0
        )),
        "{stdout}"
    );
    let space = read_xspace_file(dir.join("jax_matmul.xplane.pb")).unwrap();
    assert!(space.planes.iter().any(|p| p.name == "/device:GPU:0"));
}

#[test]
fn summary_uses_units_relative_times_and_plurals() {
    let dir = scratch("summary");
    let target = dir.join("trace.xplane.pb");
    let output = run(&["replay", &jax_matmul(), "-o", target.to_str().unwrap()]);
    let stdout = text(&output.stdout);
    assert!(output.status.success());
    for expected in [
        "jax_matmul.toml: 33 HIP calls, 2 copy calls (HostToDevice 1, DeviceToHost 1; 4.00 MiB), 10 annotated steps\n",
        "the trace shows 13 kernels, 2 copies (MemcpyH2D 1 of 4.00 MiB, MemcpyD2H 1 of 128 B) \
         and 0 memsets on 3 device lanes\n",
        "/host:CPU (id 0): 1 lane, 15 events, +0 ns to +",
        // The upload and the end of its wait's flow (docs/xla-interface.md#stream-waits).
        "  Stream #0: 2 events (MemcpyH2D 1, Flow end 1)\n",
        "clock_rate=2.10 GHz",
        "/host:__ScopeRangeCallStack__ (id 0): XLA's scope-range id tree",
        "\ndevice activity: +2 us to +",
    ] {
        assert!(stdout.contains(expected), "missing {expected:?} in:\n{stdout}");
    }
    assert!(
        !stdout.contains("1 lanes") && !stdout.contains(" 1 events"),
        "{stdout}"
    );
    // No absolute times but the start, as a date (the virtual clock's epoch plus its reading).
    assert!(
        stdout.contains(
            "trace start (its earliest event): 2025-01-01 00:16:40.000009000 UTC; times below \
             are from it\n"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("1735690600"), "{stdout}");
}

#[test]
fn a_same_gpu_copy_is_counted_as_the_copy_the_trace_shows() {
    let dir = scratch("d2d");
    let scenario = dir.join("d2d.toml");
    std::fs::write(
        &scenario,
        "[machine]\ngpus = 1\n[streams]\ns = { device = 0 }\n[[thread]]\nname = \"main\"\n\
         steps = [\n  { set_device = 0 },\n  { memcpy = \"d2d\", stream = \"s\", bytes = 1048576 },\n  \
         { sync_stream = \"s\" },\n]\n",
    )
    .unwrap();
    let target = dir.join("d2d.xplane.pb");
    let output = run(&[
        "replay",
        scenario.to_str().unwrap(),
        "-o",
        target.to_str().unwrap(),
    ]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        stdout.contains("1 copy call (DeviceToDevice 1; 1.00 MiB)"),
        "{stdout}"
    );
    // HIP runs it as a blit kernel; the kernel's event carries the copy's size and memory
    // kinds, so the trace shows (and the summary counts) the device-to-device copy.
    assert!(
        stdout.contains(
            "the trace shows 0 kernels, 1 copy (MemcpyD2D 1 of 1.00 MiB) and 0 memsets on 1 device lane\n"
        ),
        "{stdout}"
    );
    let space = read_xspace_file(&target).unwrap();
    let gpu = space
        .planes
        .iter()
        .find(|p| p.name == "/device:GPU:0")
        .unwrap();
    let events: usize = gpu.lines.iter().map(|line| line.events.len()).sum();
    assert_eq!(events, 1);
    assert!(
        stdout.contains("  Stream #0: 1 event (MemcpyD2D 1)\n"),
        "{stdout}"
    );
}

#[test]
fn an_empty_scenario_is_refused_in_one_line() {
    let dir = scratch("empty");
    let scenario = dir.join("empty.toml");
    std::fs::write(&scenario, "").unwrap();
    let target = dir.join("empty.xplane.pb");
    let output = run(&[
        "replay",
        scenario.to_str().unwrap(),
        "-o",
        target.to_str().unwrap(),
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(scenario.to_str().unwrap()), "{stderr}");
    assert!(stderr.contains("the scenario has no steps"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert_eq!(entries(&dir), ["empty.toml"], "no trace");
}
