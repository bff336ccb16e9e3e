//! `libxla_rocm_tracer_tool.so`: the tracer as a rocprofiler-sdk tool library
//! (docs/tool-library.md). It exports `rocprofiler_configure` and the C ABI of
//! `include/xla_rocm_tracer.h` (both from the tracer crate), so it can be named in
//! `ROCP_TOOL_LIBRARIES` or `LD_PRELOAD` of any HIP process. With [`OUTPUT_VARIABLE`] set it
//! traces the whole process: from the tracer's set-up to the SDK's finalization at exit (or
//! for [`DURATION_VARIABLE`] seconds), into one XSpace at that path. Without it, it only
//! registers, for a program that drives the C ABI itself.
//!
//! Nothing here may take the host process down: every entry point catches panics, and every
//! failure is one line on stderr.
use std::ffi::CString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once, OnceLock};
use std::time::Duration;

use xla_rocm_tracer::export::{encode_xspace, XSpace};
use xla_rocm_tracer::ffi::capi::{xrt_disable, xrt_enable, xrt_write_xspace, XrtStatus};
use xla_rocm_tracer::tracer::{register_as_tool_library, ToolLibraryHooks, Tracer, TracerError};

/// Where the whole-process capture is written. The file must not exist: the library never
/// replaces a file it did not create.
pub const OUTPUT_VARIABLE: &str = "XLA_ROCM_TRACER_OUTPUT";
/// Seconds after the capture starts at which it ends and is written (default: at exit).
pub const DURATION_VARIABLE: &str = "XLA_ROCM_TRACER_DURATION";

/// What the environment asked for.
struct Request {
    output: PathBuf,
    duration: Option<Duration>,
}

static REQUEST: OnceLock<Option<Request>> = OnceLock::new();
static STARTED: Once = Once::new();
/// Taken by whichever end comes first (duration, SDK finalization, exit).
static FINISHED: Mutex<bool> = Mutex::new(false);

fn request() -> Option<&'static Request> {
    REQUEST
        .get_or_init(|| {
            let output = std::env::var_os(OUTPUT_VARIABLE).filter(|v| !v.is_empty())?;
            let duration = match std::env::var(DURATION_VARIABLE) {
                Ok(text) => match text.trim().parse::<f64>() {
                    Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => {
                        Some(Duration::from_secs_f64(seconds))
                    }
                    _ => {
                        say(&format!("{DURATION_VARIABLE}={text:?} is not a number of seconds; tracing until exit"));
                        None
                    }
                },
                Err(_) => None,
            };
            Some(Request {
                output: PathBuf::from(output),
                duration,
            })
        })
        .as_ref()
}

fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "xla-rocm-tracer tool: {line}");
}

/// The tracer is set up: start the capture (once).
fn start() {
    let Some(request) = request() else {
        return;
    };
    STARTED.call_once(|| {
        // SAFETY: null options mean XLA's defaults.
        let status = unsafe { xrt_enable(std::ptr::null()) };
        if status != XrtStatus::Ok {
            say(&format!("could not start tracing the process: {status:?}"));
            return;
        }
        if let Some(duration) = request.duration {
            let _ = std::thread::Builder::new()
                .name("xrt-duration".to_owned())
                .spawn(move || {
                    std::thread::sleep(duration);
                    finish();
                });
        }
    });
}

/// Ends the capture and writes it, or, when the tracer never became available, writes a
/// trace that holds only the reason. Runs once, from the first of: the duration, the SDK's
/// finalization of this tool, the process's exit.
fn finish() {
    let Some(request) = request() else {
        return;
    };
    let Ok(mut finished) = FINISHED.lock() else {
        return;
    };
    if *finished {
        return;
    }
    *finished = true;
    let written = if STARTED.is_completed() && xrt_disable() == XrtStatus::Ok {
        write_new(&request.output, |temp| {
            let path = CString::new(temp.as_os_str().as_encoded_bytes())
                .map_err(|_| "the path has a NUL byte".to_owned())?;
            // SAFETY: a NUL-terminated path.
            match unsafe { xrt_write_xspace(path.as_ptr()) } {
                XrtStatus::Ok => Ok(()),
                status => Err(format!("{status:?}")),
            }
        })
    } else {
        let reason = match Tracer::get().init_error() {
            Some(TracerError::Unavailable(reason)) => reason,
            Some(other) => other.to_string(),
            None => "the tracer was never set up in this process".to_owned(),
        };
        // The reason goes into the trace only: `record` and `inspect` show it, once.
        let space = XSpace {
            warnings: vec![reason],
            ..XSpace::default()
        };
        let bytes = encode_xspace(&space);
        write_new(&request.output, |temp| {
            std::fs::write(temp, &bytes).map_err(|error| error.to_string())
        })
    };
    if let Err(error) = written {
        say(&format!(
            "cannot write {}: {error}",
            request.output.display()
        ));
    }
}

/// Writes `path` through `write` into a temporary file beside it, then links it into place
/// only if `path` still does not exist: never a partial file, never a replaced one.
fn write_new(path: &Path, write: impl FnOnce(&Path) -> Result<(), String>) -> Result<(), String> {
    let name = path
        .file_name()
        .ok_or_else(|| "not a file name".to_owned())?
        .to_string_lossy();
    let temp = path.with_file_name(format!(".{name}.{}.partial", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .map_err(|error| format!("{}: {error}", temp.display()))?;
    let result = write(&temp).and_then(|()| {
        std::fs::hard_link(&temp, path).map_err(|error| match error.kind() {
            std::io::ErrorKind::AlreadyExists => "it exists (never replaced)".to_owned(),
            _ => error.to_string(),
        })
    });
    let _ = std::fs::remove_file(&temp);
    result
}

extern "C" fn finish_at_exit() {
    let _ = std::panic::catch_unwind(finish);
}

/// At load: register (without waiting for an SDK initialization in progress, which may be
/// the one loading this library) and, when asked, trace the process.
#[ctor::ctor(unsafe)]
fn at_load() {
    let _ = std::panic::catch_unwind(|| {
        if request().is_some() {
            // SAFETY: registering a plain extern "C" fn with no captured state.
            unsafe { libc::atexit(finish_at_exit) };
        }
        register_as_tool_library(ToolLibraryHooks {
            after_initialize: start,
            before_finalize: finish,
        });
    });
}
