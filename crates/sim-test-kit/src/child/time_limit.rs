//! Every wait for a child process has a time limit: a child that never exits (a deadlock an
//! injected bug left behind, a finalizer waiting for a callback held at a test's gate) once
//! held a whole suite for nine minutes. When the limit expires the child is killed and the
//! waiting test fails, naming itself and showing what the child had printed so far.
use std::io::{self, Read};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// The environment variable that sets the time limit of every child, in seconds (decimals
/// allowed, e.g. `SIM_TEST_KIT_CHILD_TIME_LIMIT_SECS=600` under a debugger, `0.5` to try
/// the limit out). Children inherit it, so it also bounds their own children.
pub const TIME_LIMIT_VARIABLE: &str = "SIM_TEST_KIT_CHILD_TIME_LIMIT_SECS";

/// The time limit when [`TIME_LIMIT_VARIABLE`] is unset: far above any child's run on a
/// loaded two-core machine (seconds), far below "the suite hangs".
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(120);

/// How long a killed child's output pipes are given to drain.
const DRAIN_AFTER_KILL: Duration = Duration::from_secs(2);

/// The time limit in force: [`TIME_LIMIT_VARIABLE`], or [`DEFAULT_TIME_LIMIT`].
///
/// # Panics
/// If the variable is set to anything but a positive number of seconds.
pub fn time_limit() -> Duration {
    parse_time_limit(std::env::var(TIME_LIMIT_VARIABLE).ok().as_deref())
}

fn parse_time_limit(value: Option<&str>) -> Duration {
    let Some(value) = value else {
        return DEFAULT_TIME_LIMIT;
    };
    match value.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => Duration::from_secs_f64(seconds),
        _ => panic!("{TIME_LIMIT_VARIABLE}={value:?}: expected a positive number of seconds"),
    }
}

/// [`output_within`] with the [`time_limit`] in force.
pub fn output(test: &str, command: &mut Command) -> io::Result<Output> {
    output_within(test, command, time_limit())
}

/// As `Command::output` (stdin empty, stdout and stderr captured), but waits at most `limit`.
/// `test` names the test the child belongs to, for the failure message.
///
/// # Errors
/// If the child cannot be started or waited for.
///
/// # Panics
/// When the child outlives `limit`: it is killed first, and the message names `test`, says
/// that it timed out and shows the child's output so far. Also when the child exited but its
/// output stayed open past `limit` (a process it started still holds the pipes).
pub fn output_within(test: &str, command: &mut Command, limit: Duration) -> io::Result<Output> {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = Captured::start(child.stdout.take().expect("stdout is piped"));
    let stderr = Captured::start(child.stderr.take().expect("stderr is piped"));
    let Some(status) = child.wait_timeout(limit)? else {
        // Killing fails only if it has exited meanwhile; `wait` reaps it either way.
        let _ = child.kill();
        child.wait()?;
        panic!(
            "child {test} timed out: still running after {limit:?}, killed \
             ({TIME_LIMIT_VARIABLE} sets the limit in seconds)\n--- its stdout so far\n{}\n\
             --- its stderr so far\n{}",
            stdout.so_far(DRAIN_AFTER_KILL),
            stderr.so_far(DRAIN_AFTER_KILL),
        );
    };
    let deadline = started + limit;
    match (stdout.finish(deadline), stderr.finish(deadline)) {
        (Ok(stdout), Ok(stderr)) => Ok(Output {
            status,
            stdout,
            stderr,
        }),
        (stdout, stderr) => panic!(
            "child {test} timed out: it exited ({status}), but its output was still open after \
             {limit:?} (a process it started holds it; {TIME_LIMIT_VARIABLE} sets the limit \
             in seconds)\n--- its stdout so far\n{}\n--- its stderr so far\n{}",
            String::from_utf8_lossy(&stdout.unwrap_or_else(|partial| partial)),
            String::from_utf8_lossy(&stderr.unwrap_or_else(|partial| partial)),
        ),
    }
}

/// One output pipe, read to its end on a thread of its own so that the child never blocks
/// on a full pipe, and so that what it wrote is at hand even if the pipe never closes.
struct Captured {
    bytes: Arc<Mutex<Vec<u8>>>,
    closed: Receiver<()>,
}

impl Captured {
    fn start(mut pipe: impl Read + Send + 'static) -> Captured {
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let (closed_tx, closed) = mpsc::channel();
        let sink = Arc::clone(&bytes);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => sink
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .extend_from_slice(&chunk[..n]),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = closed_tx.send(());
        });
        Captured { bytes, closed }
    }

    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.bytes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Everything, once the pipe closed by `deadline`; otherwise `Err` with what came so far.
    fn finish(&self, deadline: Instant) -> Result<Vec<u8>, Vec<u8>> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.closed.recv_timeout(left) {
            Ok(()) => Ok(self.take()),
            Err(_) => Err(self.take()),
        }
    }

    /// What came within `grace` (the pipe of a killed child closes at once, unless a process
    /// it started holds it).
    fn so_far(&self, grace: Duration) -> String {
        let _ = self.closed.recv_timeout(grace);
        String::from_utf8_lossy(&self.take()).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_defaults_to_two_minutes_and_takes_seconds_from_the_variable() {
        assert_eq!(parse_time_limit(None), Duration::from_secs(120));
        assert_eq!(parse_time_limit(Some("600")), Duration::from_secs(600));
        assert_eq!(parse_time_limit(Some(" 0.5 ")), Duration::from_millis(500));
    }

    #[test]
    fn a_limit_that_is_not_a_positive_number_of_seconds_is_refused() {
        for bad in ["0", "-1", "soon", "", "inf", "NaN"] {
            let refused = std::panic::catch_unwind(|| parse_time_limit(Some(bad)));
            assert!(refused.is_err(), "{bad:?} accepted");
        }
    }
}
