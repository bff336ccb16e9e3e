//! Writing the whole-process capture where the request says, never over an existing file.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use xla_rocm_tracer::export::capture_folder;
use xla_rocm_tracer::export::create_file_with;

use crate::request::Destination;

/// The name this process claimed in the output folder at load (or why it could not).
static CLAIMED: OnceLock<Result<String, String>> = OnceLock::new();

/// Claims this process's name in the output folder, once: at load, so that a process that
/// dies before writing is still known to `record`.
pub fn claim(folder: &Path) -> &'static Result<String, String> {
    CLAIMED.get_or_init(|| {
        capture_folder::claim(
            folder,
            std::process::id(),
            &capture_folder::own_command_line(),
        )
        .map_err(|error| format!("cannot claim a name in {}: {error}", folder.display()))
    })
}

/// The file this process's capture goes to.
pub fn path_of(destination: &Destination) -> Result<PathBuf, String> {
    match destination {
        Destination::File(path) => Ok(path.clone()),
        Destination::Folder(folder) => claim(folder)
            .as_ref()
            .map(|stem| capture_folder::trace_path(folder, stem))
            .map_err(Clone::clone),
    }
}

/// Writes a new file at `path` through `write`: complete or not at all, and never replacing
/// anything (`create_file_with`), so one process never takes another's capture.
pub fn write_new(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), String> {
    create_file_with(path, write).map_err(|error| match error.kind() {
        std::io::ErrorKind::AlreadyExists => "it exists (never replaced)".to_owned(),
        _ => error.to_string(),
    })
}
