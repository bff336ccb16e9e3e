//! Re-running one test in a child process with a different environment: the SDK reads its
//! machine configuration once per process, so tests of another configuration need their own.
use std::process::Command;

/// In the parent: runs `test` in a child with `env` and asserts it passed; returns false.
/// In the child (marked by ROCSIM_TEST_CHILD): returns true, so the caller runs the body.
pub fn in_child(test: &str, env: &[(&str, &str)]) -> bool {
    if std::env::var("ROCSIM_TEST_CHILD").as_deref() == Ok(test) {
        return true;
    }
    let exe = std::env::current_exe().unwrap();
    let output = Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("ROCSIM_TEST_CHILD", test)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "child {test} failed\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("1 passed"),
        "child {test} did not run the test\n{stdout}"
    );
    false
}
