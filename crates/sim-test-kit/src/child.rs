//! Re-running one test in a child process with a different environment: the SDK reads its
//! machine configuration once per process, so tests of another configuration need their own,
//! and a behaviour that ends the process (the SDK's aborts) can only be watched from outside.
//!
//! The child is the same test binary, run with `TEST --exact` and [`MARKER`] set to the test's
//! name; in it the `in_child*` functions return true and the test runs its body.
//!
//! Every wait for a child has a time limit ([`time_limit`]: [`DEFAULT_TIME_LIMIT`], or
//! [`TIME_LIMIT_VARIABLE`] in seconds); a child that outlives it is killed and its test fails,
//! saying it timed out. Tests that start other processes wait through [`output`] too.
mod time_limit;

pub use time_limit::{output, output_within, time_limit, DEFAULT_TIME_LIMIT, TIME_LIMIT_VARIABLE};

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output};

/// The environment variable that marks the child and names its test.
pub const MARKER: &str = "SIM_TEST_KIT_CHILD";

/// Whether this process is the child re-run of `test`.
pub fn is_child(test: &str) -> bool {
    std::env::var(MARKER).as_deref() == Ok(test)
}

/// Whether this process is a child re-run of any test.
pub fn is_any_child() -> bool {
    std::env::var_os(MARKER).is_some()
}

/// The command that re-runs `test` alone in a child process (add environment to it).
pub fn command(test: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(MARKER, test);
    command
}

/// Runs `test` alone in a child with `env` added to this process's environment, within the
/// [`time_limit`].
pub fn rerun(test: &str, env: &[(&str, &str)]) -> Output {
    output(test, command(test).envs(env.iter().copied())).unwrap()
}

/// Asserts the child of `test` ran its test and passed; returns its stdout.
#[track_caller]
pub fn assert_passed(test: &str, output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "child {test} failed\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("1 passed"),
        "child {test} did not run the test\n{stdout}"
    );
    stdout
}

/// As [`assert_passed`], and nothing in the child panicked, not even a panic it caught.
#[track_caller]
pub fn assert_passed_without_panic(test: &str, output: &Output) {
    assert_passed(test, output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked"),
        "child {test} panicked\n{stderr}"
    );
}

/// Asserts the child of `test` was killed by SIGABRT; returns its stderr.
#[track_caller]
pub fn assert_aborted(test: &str, output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.signal(),
        Some(6), // SIGABRT
        "child {test} should abort ({:?})\n{stdout}\n{stderr}",
        output.status
    );
    stderr
}

/// In the parent: runs `test` in a child with `env`, hands its output to `check`, returns
/// false. In the child: returns true, so the caller runs the body.
pub fn in_child_checked(test: &str, env: &[(&str, &str)], check: impl FnOnce(&Output)) -> bool {
    if is_child(test) {
        return true;
    }
    check(&rerun(test, env));
    false
}

/// In the parent: runs `test` in a child with `env` and asserts it passed; returns false.
/// In the child: returns true, so the caller runs the body.
#[track_caller]
pub fn in_child(test: &str, env: &[(&str, &str)]) -> bool {
    in_child_checked(test, env, |output| {
        assert_passed(test, output);
    })
}

/// In the parent: runs `test` in a child with `env` and asserts it was killed by SIGABRT
/// after printing each of `stderr_needles`, and not by a panic (nothing may panic across the
/// C ABI); returns false. In the child: returns true.
#[track_caller]
pub fn aborts_in_child(test: &str, env: &[(&str, &str)], stderr_needles: &[&str]) -> bool {
    in_child_checked(test, env, |output| {
        let stderr = assert_aborted(test, output);
        for needle in stderr_needles {
            assert!(
                stderr.contains(needle),
                "child {test} aborted without {needle:?}\n{stderr}"
            );
        }
        assert!(
            !stderr.contains("panicked"),
            "the abort is not a panic across the C ABI\n{stderr}"
        );
    })
}
