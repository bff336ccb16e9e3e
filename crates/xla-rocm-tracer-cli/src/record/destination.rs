//! Where `record` writes each process's capture: `-o` (one process), files beside it named
//! by pid (several), or a jax.profiler log folder (`--logdir`).
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{bail, Context, Result};
use xla_rocm_tracer::export::log_folder::{capture_file_name, place_capture, ProcessCapture};
use xla_rocm_tracer::export::{create_file_with, encode_xspace, encode_xspace_to};

use super::captures::Captured;
use crate::{inspect, output};

/// The file name stem for per-process files when `-o` is not a regular file.
const DEFAULT_STEM: &str = "record";

pub enum Destination {
    File(output::Output),
    LogFolder(PathBuf),
}

impl Destination {
    /// A log folder: an existing folder, or one that can be made (made when written).
    pub fn log_folder(logdir: &Path) -> Result<Destination> {
        match std::fs::metadata(logdir) {
            Ok(metadata) if !metadata.is_dir() => {
                bail!("cannot write into {}: not a folder", logdir.display())
            }
            _ => Ok(Destination::LogFolder(logdir.to_owned())),
        }
    }

    /// Writes one process's capture; `several` when the command left more than one. Returns
    /// the report's "wrote ..." line.
    pub fn write(&self, process: &Captured, several: bool, since: SystemTime) -> Result<String> {
        match self {
            Destination::File(out) if !several => {
                let bytes = encode_xspace(&process.space);
                out.write(|sink| sink.write_all(&bytes))?;
                Ok(format!(
                    "wrote {} ({})",
                    out.shown().display(),
                    inspect::format_bytes(bytes.len() as u64)
                ))
            }
            Destination::File(out) => {
                let path = write_beside(out, process)?;
                let size = std::fs::metadata(&path).map_or(0, |m| m.len());
                Ok(format!(
                    "wrote {} ({})",
                    path.display(),
                    inspect::format_bytes(size)
                ))
            }
            Destination::LogFolder(logdir) => {
                let capture = ProcessCapture {
                    pid: process.pid,
                    space: process.space.clone(),
                };
                let placed = place_capture(logdir, since, capture)
                    .with_context(|| format!("cannot write into {}", logdir.display()))?;
                Ok(match placed.merged_with {
                    Some(xla) => format!(
                        "wrote {} (XLA's host planes from {} with these device lanes)",
                        placed.path.display(),
                        xla.display()
                    ),
                    None => format!("wrote {}", placed.path.display()),
                })
            }
        }
    }
}

/// Writes a process's capture as a new file `<stem>.pid<PID>.xplane.pb` beside `-o` (a
/// regular file), or in the current folder (`-o` a device or descriptor, which one file per
/// process cannot share). Never replaces a file: a taken name gets the next suffix.
fn write_beside(out: &output::Output, process: &Captured) -> Result<PathBuf> {
    let (folder, stem) = if out.is_file() {
        let shown = out.shown();
        let name = shown
            .file_name()
            .map_or(DEFAULT_STEM.into(), |n| n.to_string_lossy());
        let stem = name.strip_suffix(".xplane.pb").unwrap_or(&name).to_owned();
        (shown.parent().unwrap_or(Path::new("")).to_owned(), stem)
    } else {
        (PathBuf::new(), DEFAULT_STEM.to_owned())
    };
    for attempt in 0u32.. {
        let path = folder.join(capture_file_name(&stem, process.pid, attempt));
        match create_file_with(&path, |sink| {
            encode_xspace_to(&process.space, sink).map(drop)
        }) {
            Ok(()) => return Ok(path),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => {
                return Err(error).with_context(|| format!("cannot write {}", path.display()))
            }
        }
    }
    unreachable!("u32 attempts run out only after four billion files of one process")
}
