//! What `-o` may name, and that nothing but a regular file we may write is ever replaced:
//! devices are written through, special files, inputs and read-only files are refused before
//! any work, a link writes the file it points to, and a stop signal at any point leaves no
//! temporary file and no exit status 0. Each case checks the exit status, the one-line
//! message naming the path, that the node or input is unchanged and that nothing is left.
// The library calls the SDK; the simulator supplies its symbols to this test binary.
use rocprofiler_sdk_sim as _;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use xla_rocm_tracer::export::read_xspace;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn jax_matmul() -> PathBuf {
    repo().join("scenarios/jax_matmul.toml")
}

fn reference_trace() -> PathBuf {
    repo().join("tests/data/jax_matmul_cuda.xplane.pb")
}

fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"));
    command.current_dir(repo()).env_remove("ROCSIM_MACHINE");
    command
}

fn run(args: &[&str]) -> Output {
    command().args(args).output().expect("run xla-rocm-tracer")
}

fn replay_to(scenario: &Path, output: &Path) -> Output {
    run(&[
        "replay",
        scenario.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ])
}

fn convert_to(trace: &Path, output: &Path) -> Output {
    run(&[
        "convert",
        trace.to_str().unwrap(),
        "--to",
        "chrome-json",
        "-o",
        output.to_str().unwrap(),
    ])
}

/// A fresh, empty directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "xla-rocm-tracer-targets-{}-{name}",
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

/// Exit status 1, one line "cannot write PATH: ...why...", nothing on stdout.
fn assert_refused(output: &Output, path: &Path, why: &str) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot write {}: ", path.display())) && stderr.contains(why),
        "expected {why:?} in: {stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(text(&output.stdout), "", "nothing ran");
}

fn assert_char_device(path: &Path) {
    let metadata = std::fs::symlink_metadata(path).unwrap();
    assert!(
        metadata.file_type().is_char_device(),
        "{} is still a device",
        path.display()
    );
}

#[test]
fn replay_to_dev_null_writes_through_the_device() {
    let output = replay_to(&jax_matmul(), Path::new("/dev/null"));
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("\nwrote /dev/null ("));
    assert_char_device(Path::new("/dev/null"));
}

#[test]
fn replay_and_convert_to_dev_full_fail_and_leave_the_device() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    let full = Path::new("/dev/full");
    for output in [
        replay_to(&jax_matmul(), full),
        convert_to(&reference_trace(), full),
    ] {
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("cannot write /dev/full: "), "{stderr}");
        assert!(stderr.contains("No space left on device"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert_char_device(full);
    }
}

#[test]
fn replay_to_dev_stdout_puts_the_trace_alone_on_stdout() {
    let output = command()
        .args([
            "replay",
            jax_matmul().to_str().unwrap(),
            "-o",
            "/dev/stdout",
        ])
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // The pipe holds the trace and nothing else; the summary went to stderr.
    let space = read_xspace(&output.stdout).expect("stdout is one XSpace");
    assert!(space.planes.iter().any(|p| p.name == "/device:GPU:0"));
    assert!(stderr.contains("\nwrote /dev/stdout ("), "{stderr}");
}

#[test]
fn a_fifo_is_refused_and_stays_a_fifo() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    for output in [
        replay_to(&jax_matmul(), &fifo),
        convert_to(&reference_trace(), &fifo),
    ] {
        assert_refused(&output, &fifo, "it is a FIFO (named pipe)");
    }
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert_eq!(entries(&dir), ["pipe"]);
}

#[test]
fn replay_onto_its_own_scenario_is_refused_also_through_links() {
    let dir = scratch("same-scenario");
    let scenario = dir.join("s.toml");
    std::fs::copy(jax_matmul(), &scenario).unwrap();
    let before = std::fs::read(&scenario).unwrap();
    std::fs::hard_link(&scenario, dir.join("hard.toml")).unwrap();
    std::os::unix::fs::symlink("s.toml", dir.join("soft.toml")).unwrap();
    for target in ["s.toml", "hard.toml", "soft.toml"] {
        let target = dir.join(target);
        let output = replay_to(&scenario, &target);
        assert_refused(&output, &target, "it is the scenario");
        assert!(text(&output.stderr).contains("(the same file)"));
    }
    assert_eq!(
        std::fs::read(&scenario).unwrap(),
        before,
        "scenario unchanged"
    );
    assert_eq!(entries(&dir), ["hard.toml", "s.toml", "soft.toml"]);
    assert!(std::fs::symlink_metadata(dir.join("soft.toml"))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn convert_onto_its_own_input_is_refused() {
    let dir = scratch("same-trace");
    let trace = dir.join("t.xplane.pb");
    std::fs::copy(reference_trace(), &trace).unwrap();
    let before = std::fs::read(&trace).unwrap();
    let output = convert_to(&trace, &trace);
    assert_refused(&output, &trace, "it is the input trace");
    assert_eq!(std::fs::read(&trace).unwrap(), before);
    assert_eq!(entries(&dir), ["t.xplane.pb"]);
}

#[test]
fn a_read_only_file_is_refused_even_for_root() {
    let dir = scratch("read-only-file");
    let target = dir.join("trace.xplane.pb");
    std::fs::write(&target, b"keep me").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444)).unwrap();
    let output = replay_to(&jax_matmul(), &target);
    assert_refused(&output, &target, "it is read-only (mode 0444)");
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    assert_eq!(entries(&dir), ["trace.xplane.pb"]);
}

#[test]
fn a_writable_file_is_replaced_and_keeps_its_mode() {
    let dir = scratch("writable-file");
    let target = dir.join("trace.json");
    std::fs::write(&target, b"old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let output = convert_to(&reference_trace(), &target);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&target).unwrap()).unwrap();
    assert!(json["traceEvents"].is_array());
    assert_eq!(std::fs::metadata(&target).unwrap().mode() & 0o777, 0o640);
    assert_eq!(entries(&dir), ["trace.json"]);
}

#[test]
fn a_symlinked_output_writes_the_file_it_points_to() {
    let dir = scratch("symlink");
    std::fs::create_dir(dir.join("real")).unwrap();
    // One link to an existing file, one dangling (its file is created).
    std::fs::write(dir.join("real/existing.xplane.pb"), b"old").unwrap();
    std::os::unix::fs::symlink("real/existing.xplane.pb", dir.join("link.xplane.pb")).unwrap();
    std::os::unix::fs::symlink("real/new.xplane.pb", dir.join("dangling.xplane.pb")).unwrap();
    for (link, file) in [
        ("link.xplane.pb", "real/existing.xplane.pb"),
        ("dangling.xplane.pb", "real/new.xplane.pb"),
    ] {
        let output = replay_to(&jax_matmul(), &dir.join(link));
        assert!(output.status.success(), "{}", text(&output.stderr));
        let link_metadata = std::fs::symlink_metadata(dir.join(link)).unwrap();
        assert!(link_metadata.file_type().is_symlink(), "{link} is a link");
        let space = read_xspace(&std::fs::read(dir.join(file)).unwrap()).unwrap();
        assert!(space.planes.iter().any(|p| p.name == "/device:GPU:0"));
    }
    assert_eq!(
        entries(&dir.join("real")),
        ["existing.xplane.pb", "new.xplane.pb"]
    );
}

/// Starts `args` with the pause-in-write hook, waits until it says it is writing, sends
/// `signal`, and returns its output.
/// Waits for a signalled command, for at most a minute: one that ignored its signal is killed
/// with its whole process group (a re-executed replay included) and fails the test, instead of
/// hanging the suite. The command must have been spawned in its own process group.
fn wait_bounded(mut child: Child) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            // SAFETY: killpg() has no memory-safety preconditions; the group is the child's.
            unsafe {
                libc::killpg(child.id() as libc::pid_t, libc::SIGKILL);
            }
            let _ = child.wait();
            panic!("the command did not end within a minute of its stop signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn interrupt_write(args: &[&str], signal: i32) -> Output {
    let mut child = command()
        .args(args)
        .env("XLA_ROCM_TRACER_TEST_PAUSE_IN_WRITE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 {
            let _ = child.kill();
            panic!("the command ended before writing: {seen}");
        }
        seen.push_str(&line);
        if line.starts_with("test hook: paused while writing") {
            break;
        }
    }
    // SAFETY: kill() has no memory-safety preconditions; the pid is our unreaped child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, signal);
    }
    let mut stdout = child.stdout.take().unwrap();
    let group = child.id() as libc::pid_t;
    let status = wait_bounded(child);
    // Nothing of the command may outlive it for long (a re-executed replay is its child, sent
    // SIGTERM when its parent ends): whatever stays in its process group would hold the pipes
    // open and hang the reads below, so it is killed and the test fails.
    let deadline = Instant::now() + Duration::from_secs(30);
    // SAFETY: killpg() has no memory-safety preconditions; the group is the command's.
    while unsafe { libc::killpg(group, 0) } == 0 {
        if Instant::now() > deadline {
            // SAFETY: as above.
            unsafe {
                libc::killpg(group, libc::SIGKILL);
            }
            panic!("a process of the command outlived it by 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut stdout, &mut out).unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    Output {
        status,
        stdout: out,
        stderr: (seen + &rest).into_bytes(),
    }
}

#[test]
fn a_signal_during_the_write_leaves_no_temporary_file_and_no_success() {
    for (name, signal) in [
        ("int", libc::SIGINT),
        ("term", libc::SIGTERM),
        ("hup", libc::SIGHUP),
    ] {
        let dir = scratch(&format!("signal-write-{name}"));
        let target = dir.join("trace.xplane.pb");
        let output = interrupt_write(
            &[
                "replay",
                jax_matmul().to_str().unwrap(),
                "-o",
                target.to_str().unwrap(),
            ],
            signal,
        );
        assert_eq!(output.status.code(), Some(128 + signal), "{name}");
        assert_eq!(entries(&dir), Vec::<String>::new(), "{name}: nothing left");

        let json = dir.join("trace.json");
        std::fs::write(&json, b"old").unwrap();
        let output = interrupt_write(
            &[
                "convert",
                reference_trace().to_str().unwrap(),
                "--to",
                "chrome-json",
                "-o",
                json.to_str().unwrap(),
            ],
            signal,
        );
        assert_eq!(output.status.code(), Some(128 + signal), "{name}");
        assert_eq!(entries(&dir), ["trace.json"], "{name}: no temporary file");
        assert_eq!(
            std::fs::read(&json).unwrap(),
            b"old",
            "{name}: not replaced"
        );
    }
}

#[test]
fn sigterm_and_sighup_stop_a_replay_like_ctrl_c() {
    for (name, signal) in [("SIGTERM", libc::SIGTERM), ("SIGHUP", libc::SIGHUP)] {
        let dir = scratch(&format!("signal-replay-{name}"));
        let target = dir.join("trace.xplane.pb");
        let mut child = command()
            .args([
                "replay",
                jax_matmul().to_str().unwrap(),
                "-o",
                target.to_str().unwrap(),
            ])
            .env("XLA_ROCM_TRACER_TEST_PAUSE_AT_STEP", "5")
            .env("ROCSIM_MACHINE", "clock = \"virtual\"")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        while !line.starts_with("test hook: paused before step 5") {
            line.clear();
            assert!(stderr.read_line(&mut line).unwrap() > 0);
        }
        // SAFETY: as above.
        unsafe {
            libc::kill(child.id() as libc::pid_t, signal);
        }
        let status = wait_bounded(child);
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        assert_eq!(status.code(), Some(128 + signal), "{rest}");
        assert!(
            rest.contains(&format!("stopped after 4 steps ({name})")),
            "{rest}"
        );
        assert_eq!(entries(&dir), Vec::<String>::new());
    }
}

#[test]
fn a_descriptor_that_is_not_open_for_writing_is_refused_before_running() {
    // fd 9 is not open in the child; stdin (fd 0) is open for reading only.
    let output = replay_to(&jax_matmul(), Path::new("/dev/fd/9"));
    assert_refused(&output, Path::new("/dev/fd/9"), "descriptor 9 is not open");
    let output = command()
        .args(["replay", jax_matmul().to_str().unwrap(), "-o", "/dev/stdin"])
        .stdin(std::fs::File::open(jax_matmul()).unwrap())
        .output()
        .unwrap();
    assert_refused(&output, Path::new("/dev/stdin"), "open for reading only");
}

/// A replay that re-ran itself for its scenario's machine and is then killed outright (no
/// handler runs in it) takes its child with it: the child is stopped as by SIGTERM, removes
/// its temporary file, and holds no pipe of the caller open.
#[test]
fn a_killed_replay_leaves_no_re_executed_child_and_no_temporary_file() {
    let dir = scratch("killed-parent");
    let target = dir.join("trace.xplane.pb");
    let output = interrupt_write(
        &[
            "replay",
            jax_matmul().to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
        ],
        libc::SIGKILL,
    );
    assert_eq!(output.status.signal(), Some(libc::SIGKILL));
    // interrupt_write waited for the whole process group to be gone; the child's SIGTERM
    // handler removed its temporary file on the way.
    assert_eq!(entries(&dir), Vec::<String>::new());
}
