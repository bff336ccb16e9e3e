//! Output files: checked before any work is done, and written whole or not at all.
//!
//! Every output goes to a temporary file beside it (same directory, so the rename cannot
//! cross filesystems) and is renamed into place only after it was written and synced: a full
//! disk or any other write error leaves neither a partial file nor the temporary one.
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// Test hook: writes fail as on a full disk once this many bytes of an output were written.
/// Lets the tests check the no-partial-file guarantee where no small filesystem can be mounted.
pub const FAIL_WRITE_AFTER_VARIABLE: &str = "XLA_ROCM_TRACER_TEST_FAIL_WRITE_AFTER";

/// The temporary file `path` is written through: hidden, and unique to this process.
fn temporary_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Fails with "cannot write PATH: why" unless `path` can be created: its directory exists, is
/// writable and `path` is not a directory. Leaves nothing behind.
pub fn check_writable(path: &Path) -> Result<()> {
    if path.as_os_str().is_empty() {
        bail!("cannot write an output with an empty name");
    }
    if path.is_dir() {
        bail!("cannot write {}: it is a directory", path.display());
    }
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if !directory.is_dir() {
        bail!(
            "cannot write {}: the directory {} does not exist",
            path.display(),
            directory.display()
        );
    }
    let probe = temporary_path(path);
    // A leftover of an earlier run with this process id is ours to replace.
    let _ = std::fs::remove_file(&probe);
    create_new(&probe).with_context(|| format!("cannot write {}", path.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes `path` through a temporary file: `write` gets a buffered writer; on success the
/// file is synced and renamed to `path`, on any error the temporary file is removed.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let temporary = temporary_path(path);
    let _ = std::fs::remove_file(&temporary);
    let result = (|| -> io::Result<()> {
        let file = create_new(&temporary)?;
        let limit = std::env::var(FAIL_WRITE_AFTER_VARIABLE)
            .ok()
            .and_then(|value| value.trim().parse::<u64>().ok());
        let mut out = BufWriter::new(FailAfter {
            inner: &file,
            remaining: limit,
        });
        write(&mut out)?;
        out.flush()?;
        drop(out);
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if let Err(error) = result {
        let _ = std::fs::remove_file(&temporary);
        return Err(error).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

/// A writer that fails like a full disk after `remaining` bytes (no limit: `None`).
struct FailAfter<W> {
    inner: W,
    remaining: Option<u64>,
}

impl<W: Write> Write for FailAfter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let allowed = match self.remaining {
            None => return self.inner.write(buf),
            Some(0) => return Err(io::Error::from(io::ErrorKind::StorageFull)),
            Some(remaining) => buf
                .len()
                .min(usize::try_from(remaining).unwrap_or(usize::MAX)),
        };
        let written = self.inner.write(&buf[..allowed])?;
        self.remaining = self.remaining.map(|r| r - written as u64);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
