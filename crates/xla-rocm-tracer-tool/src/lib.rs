//! `libxla_rocm_tracer_tool.so`: the tracer as a rocprofiler-sdk tool library
//! (docs/tool-library.md). It exports `rocprofiler_configure` and the C ABI of
//! `include/xla_rocm_tracer.h` (both from the tracer crate), so it can be named in
//! `ROCP_TOOL_LIBRARIES` or `LD_PRELOAD` of any HIP process. When the environment asks for it
//! (`request.rs`) it traces the whole process: from the tracer's set-up to the SDK's
//! finalization at exit (or for `XLA_ROCM_TRACER_DURATION` seconds), into one XSpace of its
//! own. Without a request, it only registers, for a program that drives the C ABI itself
//! (the Python module does, with `xrt_tool_write_log_folder` of `log_folder.rs`).
//!
//! Nothing here may take the host process down: every entry point catches panics, and every
//! failure is one line on stderr.
mod log_folder;
mod output;
mod request;
mod signals;

use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, Once};

use xla_rocm_tracer::export::{encode_xspace, XSpace};
use xla_rocm_tracer::ffi::capi::{write_last_capture, xrt_disable, xrt_enable, XrtStatus};
use xla_rocm_tracer::tracer::{register_as_tool_library, ToolLibraryHooks, Tracer, TracerError};

use request::{request, Destination};

static STARTED: Once = Once::new();
/// Taken by whichever end comes first (duration, SDK finalization, exit).
static FINISHED: Mutex<bool> = Mutex::new(false);
/// The process that loaded the library. A child forked without exec inherits the parent's
/// capture, claim and exit handler, but not its SDK threads: the capture is the parent's to
/// write, and the child writes nothing (docs/tool-library.md#every-process).
static LOADED_BY: AtomicU32 = AtomicU32::new(0);

fn is_forked_child() -> bool {
    LOADED_BY.load(Ordering::Relaxed) != std::process::id()
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
    if is_forked_child() {
        return;
    }
    let Ok(mut finished) = FINISHED.lock() else {
        return;
    };
    if *finished {
        return;
    }
    *finished = true;
    let path = match output::path_of(&request.destination) {
        Ok(path) => path,
        Err(error) => return say(&error),
    };
    let written = if STARTED.is_completed() && xrt_disable() == XrtStatus::Ok {
        output::write_new(&path, |out| {
            write_last_capture(out).map_err(|status| {
                std::io::Error::other(format!("the capture could not be written: {status:?}"))
            })
        })
    } else {
        let reason = match Tracer::get().init_error() {
            Some(TracerError::Unavailable(reason)) => reason,
            Some(other) => other.to_string(),
            None => "the tracer was never set up in this process".to_owned(),
        };
        // The reason goes into the trace only: `record` and `inspect` show it, once.
        let bytes = encode_xspace(&XSpace {
            warnings: vec![reason],
            ..XSpace::default()
        });
        output::write_new(&path, |out| out.write_all(&bytes))
    };
    if let Err(error) = written {
        say(&format!("cannot write {}: {error}", path.display()));
    }
}

/// Whether this process is the `xla-rocm-tracer` command itself. It carries the simulated
/// SDK (for `replay`), which loads `ROCP_TOOL_LIBRARIES` as a real SDK does; a traced script
/// that runs `xla-rocm-tracer inspect` must not count it as a HIP process of its own.
fn is_the_command() -> bool {
    std::env::current_exe().ok().is_some_and(|exe| {
        exe.file_name()
            .is_some_and(|name| name == "xla-rocm-tracer")
    })
}

extern "C" fn finish_at_exit() {
    let _ = std::panic::catch_unwind(finish);
}

/// At load: claim this process's name in the output folder (so `record` knows of it even if
/// it dies), register (without waiting for an SDK initialization in progress, which may be
/// the one loading this library) and, when asked, trace the process.
#[ctor::ctor(unsafe)]
fn at_load() {
    let _ = std::panic::catch_unwind(|| {
        if is_the_command() {
            return;
        }
        LOADED_BY.store(std::process::id(), Ordering::Relaxed);
        if let Some(request) = request() {
            if let Destination::Folder(folder) = &request.destination {
                if let Err(error) = output::claim(folder) {
                    say(error);
                }
            }
            // SAFETY: registering a plain extern "C" fn with no captured state.
            unsafe { libc::atexit(finish_at_exit) };
            // SIGTERM and SIGABRT skip atexit: a chained handler writes the capture first.
            let in_folder = matches!(request.destination, Destination::Folder(_));
            if let Err(error) = signals::install(finish, !in_folder) {
                say(&error);
            }
        }
        register_as_tool_library(ToolLibraryHooks {
            after_initialize: start,
            before_finalize: finish,
        });
    });
}
