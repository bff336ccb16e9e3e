//! The time limit on a child (src/child/time_limit.rs) fires: a child that never ends is killed
//! and the test waiting for it fails, naming it, saying it timed out, with its output so far.
//! The limit comes from the environment variable, so the test that waits runs in a child of
//! its own with a one-second limit; the whole check takes about that second.
use sim_test_kit::child;
use std::time::{Duration, Instant};

/// Prints its pid, then sleeps far past any limit used here.
const SLEEPER: &str = "sleeper_for_the_time_limit";
/// Re-runs the sleeper under the limit its environment gives it, and fails with the message.
const WAITER: &str = "waiter_for_the_sleeper";

#[test]
fn sleeper_for_the_time_limit() {
    if !child::is_child(SLEEPER) {
        return;
    }
    println!("sleeper pid {}", std::process::id());
    std::thread::sleep(Duration::from_secs(300));
}

#[test]
fn waiter_for_the_sleeper() {
    if !child::is_child(WAITER) {
        return;
    }
    child::rerun(SLEEPER, &[]);
    unreachable!("the sleeper's time limit fails this test");
}

#[test]
fn a_child_that_outlives_its_time_limit_is_killed_and_fails_its_test() {
    let started = Instant::now();
    let waiter = child::output(
        "a_child_that_outlives_its_time_limit_is_killed_and_fails_its_test",
        child::command(WAITER).env(child::TIME_LIMIT_VARIABLE, "1"),
    )
    .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&waiter.stdout),
        String::from_utf8_lossy(&waiter.stderr)
    );
    assert!(!waiter.status.success(), "the waiter should fail\n{text}");
    assert!(
        text.contains(&format!("child {SLEEPER} timed out")),
        "the failure names the child's test and says it timed out\n{text}"
    );
    assert!(
        text.contains(child::TIME_LIMIT_VARIABLE),
        "and says how to change the limit\n{text}"
    );
    let pid: u32 = text
        .split("sleeper pid ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("the sleeper's output so far is shown\n{text}"));
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the sleeper was killed and reaped\n{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the one-second limit fired, not the sleeper's end ({:?})",
        started.elapsed()
    );
}
