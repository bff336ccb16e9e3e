//! Tests the product is known to fail on the simulator's real-SDK behaviours, kept running and
//! visible until the product is fixed (issue 13, "A tracer that is right on real hardware").
//!
//! A known failure still runs its whole body with every assertion. Its test passes while the
//! body fails, printing `KNOWN FAILURE (issue N): why` and the assertion; once the body passes,
//! [`known_failure`] fails the test so the marker is removed together with the fix. Failures
//! that depend on a race the simulator models with real time (a kernel record's lag against a
//! Disable) use [`known_failure_racy`], whose unexpected pass is printed, not fatal. Where the
//! failure is deterministic on the simulator's virtual clock (`clock = "virtual"`, in a
//! child process of its own: `tracer_common::runs_in_own_child`), the test runs there under the
//! strict [`known_failure`] instead.
#![allow(dead_code)]
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `body`, which is expected to fail until `issue` is resolved.
#[track_caller]
pub fn known_failure(issue: u32, why: &str, body: impl FnOnce()) {
    if run(issue, why, body) {
        panic!("KNOWN FAILURE NOW PASSES (issue {issue}): {why}; remove the known_failure marker");
    }
}

/// Like [`known_failure`] for a failure that depends on timing: an unexpected pass is
/// reported on stderr, not failed.
pub fn known_failure_racy(issue: u32, why: &str, body: impl FnOnce()) {
    if run(issue, why, body) {
        eprintln!("KNOWN FAILURE PASSED THIS TIME (issue {issue}, timing-dependent): {why}");
    }
}

/// True if `body` passed.
fn run(issue: u32, why: &str, body: impl FnOnce()) -> bool {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(()) => true,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("(non-string panic)");
            eprintln!("KNOWN FAILURE (issue {issue}): {why}\n  failed with: {message}");
            false
        }
    }
}
