//! Re-runs one test of the current test binary in a child process. The SDK, and with it the
//! tracer, initializes once per process before `main`, so a test that needs another
//! environment (simulator knobs, faults, an exit mid-session) runs again in a fresh process.
#![allow(dead_code)]

/// Environment variable that marks a re-executed child test process. [`rerun_test_with_env`]
/// sets it to the name of the test the child was started for; a run of many tests in one child
/// process may set it to anything else (`1`).
pub const CHILD_MARKER: &str = "XLA_ROCM_TRACER_TEST_CHILD";

pub fn is_child() -> bool {
    std::env::var_os(CHILD_MARKER).is_some()
}

/// True in the child process [`rerun_test_with_env`] started for `test_name` alone.
pub fn is_child_for(test_name: &str) -> bool {
    std::env::var_os(CHILD_MARKER).is_some_and(|value| value == test_name)
}

/// For a test that must run in a process of its own: true in the child started for
/// `test_name`, where the caller runs its body. Anywhere else (the plain run, or a child that
/// runs many tests) re-runs `test_name` in a fresh child with `envs` added to this process's
/// environment, fails unless it passed, and returns false.
pub fn runs_in_own_child(test_name: &str, envs: &[(&str, &str)]) -> bool {
    if is_child_for(test_name) {
        return true;
    }
    let output = rerun_test_with_env(test_name, envs);
    assert_child_passed(
        &format!("{test_name} in its own process with {envs:?}"),
        &output,
    );
    false
}

/// Runs the single test `test_name` of this test binary in a fresh process with `envs` set.
pub fn rerun_test_with_env(test_name: &str, envs: &[(&str, &str)]) -> std::process::Output {
    let exe = std::env::current_exe().expect("test binary path");
    let mut command = std::process::Command::new(exe);
    command
        .args([test_name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_MARKER, test_name);
    for (key, value) in envs {
        command.env(key, value);
    }
    command.output().expect("re-run the test binary")
}

/// Fails with the child's output unless it passed.
pub fn assert_child_passed(what: &str, output: &std::process::Output) {
    assert_child(what, output, false);
}

/// Fails with the child's output unless it passed and nothing in it panicked, not even a
/// panic that was caught.
pub fn assert_child_passed_without_panic(what: &str, output: &std::process::Output) {
    assert_child(what, output, true);
}

fn assert_child(what: &str, output: &std::process::Output, forbid_panics: bool) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let panicked = forbid_panics && stderr.contains("panicked");
    assert!(
        output.status.success() && stdout.contains("1 passed") && !panicked,
        "{what}: child failed ({:?})\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
}
