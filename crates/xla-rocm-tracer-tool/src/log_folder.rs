//! `xrt_tool_write_log_folder`: the last capture into jax.profiler's log folder, for the
//! Python module (`python/xla_rocm_tracer`), which calls it after `jax.profiler`'s session
//! wrote its run (docs/python.md).
use std::ffi::{c_char, CStr};
use std::path::Path;
use std::time::{Duration, SystemTime};

use xla_rocm_tracer::export::log_folder::{place_capture, ProcessCapture};
use xla_rocm_tracer::export::read_xspace;
use xla_rocm_tracer::ffi::capi::{write_last_capture, XrtStatus};
use xla_rocm_tracer::tracer::hip_runtime_reach::diagnosis;
use xla_rocm_tracer::tracer::{Tracer, TracerError};

use crate::say;

/// Writes the last capture (after `xrt_disable`) into the log folder `logdir`: into the run
/// of this process's XLA trace written since `since_unix_ns`, merged with it, or a run of its
/// own (`export::log_folder`). Says on stderr where it went, and the one-line diagnosis when
/// the capture explains why it holds no GPU events.
///
/// # Safety
/// `logdir` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn xrt_tool_write_log_folder(
    logdir: *const c_char,
    since_unix_ns: u64,
) -> XrtStatus {
    std::panic::catch_unwind(|| {
        if logdir.is_null() {
            return XrtStatus::InvalidArgument;
        }
        // SAFETY: non-null and NUL-terminated per this function's contract.
        let Ok(logdir) = unsafe { CStr::from_ptr(logdir) }.to_str() else {
            return XrtStatus::InvalidArgument;
        };
        let mut bytes = Vec::new();
        if let Err(status) = write_last_capture(&mut bytes) {
            // No capture: the tracer was refused (said here, once per session) or never
            // started.
            say(&match Tracer::get().init_error() {
                Some(TracerError::Unavailable(reason)) => reason,
                Some(other) => other.to_string(),
                None => format!("no capture to write ({status:?})"),
            });
            return status;
        }
        let Ok(space) = read_xspace(&bytes) else {
            return XrtStatus::Internal;
        };
        if let Some(line) = diagnosis(&space.warnings) {
            say(line);
        }
        let since = SystemTime::UNIX_EPOCH + Duration::from_nanos(since_unix_ns);
        let capture = ProcessCapture {
            pid: std::process::id(),
            space,
        };
        match place_capture(Path::new(logdir), since, capture) {
            Ok(placed) => {
                match placed.merged_with {
                    Some(xla) => say(&format!(
                        "wrote {} (XLA's host planes from {} with our device lanes)",
                        placed.path.display(),
                        xla.display()
                    )),
                    None => say(&format!("wrote {}", placed.path.display())),
                }
                XrtStatus::Ok
            }
            Err(error) => {
                say(&format!("cannot write into {logdir}: {error}"));
                XrtStatus::IoError
            }
        }
    })
    .unwrap_or(XrtStatus::Internal)
}
