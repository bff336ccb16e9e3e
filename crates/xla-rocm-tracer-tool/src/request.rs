//! What the environment asks the library to do with the whole-process capture.
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// One XSpace at this path; the file must not exist (the library never replaces a file).
pub const OUTPUT_VARIABLE: &str = "XLA_ROCM_TRACER_OUTPUT";
/// A folder every process writes its own capture into (`record` sets it): the processes of
/// one command never take each other's file (docs/tool-library.md#every-process).
pub use xla_rocm_tracer::export::capture_folder::OUTPUT_FOLDER_VARIABLE;
/// Seconds after the capture starts at which it ends and is written (default: at exit).
pub const DURATION_VARIABLE: &str = "XLA_ROCM_TRACER_DURATION";

/// Where the whole-process capture goes.
pub enum Destination {
    File(PathBuf),
    Folder(PathBuf),
}

pub struct Request {
    pub destination: Destination,
    pub duration: Option<Duration>,
}

static REQUEST: OnceLock<Option<Request>> = OnceLock::new();

/// The request, read once; `None` when the library should only register (a program that
/// drives the C ABI itself, or the Python module).
pub fn request() -> Option<&'static Request> {
    REQUEST.get_or_init(read).as_ref()
}

fn read() -> Option<Request> {
    let set = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    // The folder wins: it is what `record` sets, and a child inherits both.
    let destination = match (set(OUTPUT_FOLDER_VARIABLE), set(OUTPUT_VARIABLE)) {
        (Some(folder), _) => Destination::Folder(PathBuf::from(folder)),
        (None, Some(file)) => Destination::File(PathBuf::from(file)),
        (None, None) => return None,
    };
    let duration = match std::env::var(DURATION_VARIABLE) {
        Ok(text) => match text.trim().parse::<f64>() {
            Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => {
                Some(Duration::from_secs_f64(seconds))
            }
            _ => {
                crate::say(&format!(
                    "{DURATION_VARIABLE}={text:?} is not a number of seconds; tracing until exit"
                ));
                None
            }
        },
        Err(_) => None,
    };
    Some(Request {
        destination,
        duration,
    })
}
