//! Output files: checked before any work is done, written whole or not at all, and never
//! destroying anything but a regular file we may write.
//!
//! What `-o PATH` is decides how it is written ([`check`]):
//! * a new file, or an existing regular file with a write permission bit for us: written to a
//!   temporary file beside it (same directory, so the rename cannot cross filesystems), synced,
//!   and renamed over it; a full disk, any write error or a stop signal leaves neither a
//!   partial file nor the temporary one (`interrupts.rs`). An existing file keeps its mode.
//! * a symbolic link: the file it points to, by these same rules (the link stays a link).
//! * a character device (`/dev/null`, `/dev/full`, a terminal): opened and written in place.
//! * one of this process's open descriptors (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`):
//!   written to as the shell opened it (a pipe, a file, a terminal).
//! * anything else is refused in one line: a directory, a FIFO, a socket, a block device, a
//!   read-only file (by its mode bits: root may write anything, so access(2) cannot tell), and
//!   the same file as one of the command's inputs (device and inode, so also through links).
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::fd::FromRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::interrupts;

/// Test hook: writes fail as on a full disk once this many bytes of an output were written.
/// Lets the tests check the no-partial-file guarantee where no small filesystem can be mounted.
pub const FAIL_WRITE_AFTER_VARIABLE: &str = "XLA_ROCM_TRACER_TEST_FAIL_WRITE_AFTER";

/// Test hook: once an output's temporary file is written, say "test hook: paused while
/// writing PATH" on stderr and wait for a signal, so the tests interrupt a write for real.
pub const PAUSE_IN_WRITE_VARIABLE: &str = "XLA_ROCM_TRACER_TEST_PAUSE_IN_WRITE";

/// Symbolic links followed before giving up, as the kernel's own limit.
const MAX_LINKS: usize = 40;

/// A checked output: where it goes and how it is written.
#[derive(Debug)]
pub struct Output {
    /// The path as given, for messages.
    shown: PathBuf,
    target: Target,
}

#[derive(Debug)]
enum Target {
    /// A regular file, new (`mode` None) or existing: written through a temporary file.
    Replace { file: PathBuf, mode: Option<u32> },
    /// A character device, written in place.
    Device { file: PathBuf },
    /// An open descriptor of this process, written in place.
    Descriptor(i32),
}

/// One of the command's inputs, which no output may be: what it is ("the scenario") and where.
pub struct Input<'a> {
    pub what: &'a str,
    pub path: &'a Path,
}

/// Decides how `path` is written, or fails with "cannot write PATH: why" (one line) when it
/// must not be. Leaves nothing behind.
pub fn check(path: &Path, inputs: &[Input]) -> Result<Output> {
    let refuse = |why: String| -> anyhow::Error {
        anyhow::anyhow!("cannot write {}: {why}", path.display())
    };
    if path.as_os_str().is_empty() {
        bail!("cannot write an output with an empty name");
    }
    let target = match resolve(path).map_err(|error| refuse(error.to_string()))? {
        Resolved::Descriptor(fd) => {
            check_descriptor(fd).map_err(refuse)?;
            Target::Descriptor(fd)
        }
        Resolved::Path(file) => match std::fs::metadata(&file) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                check_directory(&file).map_err(refuse)?;
                Target::Replace { file, mode: None }
            }
            Err(error) => return Err(refuse(error.to_string())),
            Ok(metadata) => {
                let kind = metadata.file_type();
                if kind.is_dir() {
                    return Err(refuse("it is a directory".to_owned()));
                }
                if kind.is_char_device() {
                    Target::Device { file }
                } else if !kind.is_file() {
                    return Err(refuse(format!(
                        "it is a {}; only a regular file or a character device is written",
                        special_kind(&metadata)
                    )));
                } else {
                    if let Some(input) = same_file_as_input(&metadata, inputs) {
                        return Err(refuse(format!(
                            "it is {} {} (the same file); choose another output",
                            input.what,
                            input.path.display()
                        )));
                    }
                    if !writable_by_us(&file, &metadata) {
                        return Err(refuse(format!(
                            "it is read-only (mode {:04o}); remove it or make it writable",
                            metadata.mode() & 0o7777
                        )));
                    }
                    check_directory(&file).map_err(refuse)?;
                    Target::Replace {
                        file,
                        mode: Some(metadata.mode() & 0o7777),
                    }
                }
            }
        },
    };
    Ok(Output {
        shown: path.to_path_buf(),
        target,
    })
}

enum Resolved {
    Path(PathBuf),
    Descriptor(i32),
}

/// `path` with its symbolic links followed (the last component's: a directory link in the
/// middle is the kernel's business), or the open descriptor it names.
fn resolve(path: &Path) -> io::Result<Resolved> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if let Some(fd) = descriptor_named(&current) {
            return Ok(Resolved::Descriptor(fd));
        }
        match std::fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
            }
            _ => return Ok(Resolved::Path(current)),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The descriptor `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N` (also with
/// this process's id for `self`) names.
fn descriptor_named(path: &Path) -> Option<i32> {
    let text = path.to_str()?;
    match text {
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let own = format!("/proc/{}/fd/", std::process::id());
    let number = text
        .strip_prefix("/dev/fd/")
        .or_else(|| text.strip_prefix("/proc/self/fd/"))
        .or_else(|| text.strip_prefix(own.as_str()))?;
    number.parse().ok()
}

/// Fails with why unless `fd` is open for writing in this process.
fn check_descriptor(fd: i32) -> std::result::Result<(), String> {
    // SAFETY: fcntl(F_GETFL) has no memory-safety preconditions; it fails on a bad fd.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(format!("descriptor {fd} is not open"));
    }
    match flags & libc::O_ACCMODE {
        libc::O_WRONLY | libc::O_RDWR => Ok(()),
        _ => Err(format!("descriptor {fd} is open for reading only")),
    }
}

fn special_kind(metadata: &Metadata) -> &'static str {
    let kind = metadata.file_type();
    if kind.is_fifo() {
        "FIFO (named pipe)"
    } else if kind.is_socket() {
        "socket"
    } else if kind.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

fn same_file_as_input<'a>(output: &Metadata, inputs: &'a [Input<'a>]) -> Option<&'a Input<'a>> {
    inputs.iter().find(|input| {
        std::fs::metadata(input.path)
            .is_ok_and(|meta| meta.dev() == output.dev() && meta.ino() == output.ino())
    })
}

/// Whether this process may write the existing file: for root, whether any write permission
/// bit is set (root's access(2) says yes to a mode-0444 file); for others, access(2).
fn writable_by_us(file: &Path, metadata: &Metadata) -> bool {
    // SAFETY: geteuid() has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return metadata.permissions().mode() & 0o222 != 0;
    }
    let Ok(text) = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(file.as_os_str()))
    else {
        return false;
    };
    // SAFETY: `text` is a NUL-terminated path that outlives the call.
    unsafe { libc::access(text.as_ptr(), libc::W_OK) == 0 }
}

/// The temporary file `file` is written through: hidden, beside it, unique to this process.
fn temporary_path(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Fails with why unless a file can be created beside `file`: its directory exists and
/// takes a new file (probed by creating and removing the temporary file).
fn check_directory(file: &Path) -> std::result::Result<(), String> {
    let directory = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if !directory.is_dir() {
        return Err(format!(
            "the directory {} does not exist",
            directory.display()
        ));
    }
    let probe = temporary_path(file);
    let _guard = interrupts::remove_on_signal(&probe);
    // A leftover of an earlier run with this process id is ours to replace.
    let _ = std::fs::remove_file(&probe);
    let created = create_new(&probe).map_err(|error| error.to_string());
    let _ = std::fs::remove_file(&probe);
    created.map(drop)
}

impl Output {
    /// The path as given.
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// Whether the output is a regular file (new or replaced), so that files can go beside it.
    pub fn is_file(&self) -> bool {
        matches!(self.target, Target::Replace { .. })
    }

    /// Whether the output is this process's standard output (then nothing else goes there).
    pub fn is_stdout(&self) -> bool {
        matches!(self.target, Target::Descriptor(1))
    }

    /// Writes the output: `write` gets a buffered writer. A regular file is replaced only
    /// once all of it was written and synced; on any error nothing of it is left.
    pub fn write(&self, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
        let result = match &self.target {
            Target::Replace { file, mode } => replace(file, *mode, write),
            Target::Device { file } => OpenOptions::new()
                .write(true)
                .open(file)
                .and_then(|out| write_through(out, write)),
            Target::Descriptor(fd) => duplicate(*fd).and_then(|out| write_through(out, write)),
        };
        result.with_context(|| format!("cannot write {}", self.shown.display()))
    }
}

/// A new `File` on a duplicate of `fd` (closing it leaves `fd` open).
fn duplicate(fd: i32) -> io::Result<File> {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) has no memory-safety preconditions; it fails on a bad fd.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if copy < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `copy` is a fresh descriptor that nothing else owns.
    Ok(unsafe { File::from_raw_fd(copy) })
}

fn write_through(
    file: File,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = BufWriter::new(FailAfter::new(&file));
    write(&mut out)?;
    out.flush()
}

fn replace(
    file: &Path,
    mode: Option<u32>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let temporary = temporary_path(file);
    // Armed before the file exists: no moment where a signal would leave it behind.
    let guard = interrupts::remove_on_signal(&temporary);
    let _ = std::fs::remove_file(&temporary);
    let result = (|| -> io::Result<()> {
        let out_file = create_new(&temporary)?;
        if let Some(mode) = mode {
            out_file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        let mut out = BufWriter::new(FailAfter::new(&out_file));
        write(&mut out)?;
        out.flush()?;
        drop(out);
        out_file.sync_all()?;
        pause_if_asked(file);
        std::fs::rename(&temporary, file)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    drop(guard);
    result
}

fn pause_if_asked(file: &Path) {
    if std::env::var_os(PAUSE_IN_WRITE_VARIABLE).is_none() {
        return;
    }
    eprintln!("test hook: paused while writing {}", file.display());
    loop {
        // Ended by a stop signal (interrupts.rs), which removes the temporary file.
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A writer that fails like a full disk after `remaining` bytes (no limit: `None`).
struct FailAfter<W> {
    inner: W,
    remaining: Option<u64>,
}

impl<W: Write> FailAfter<W> {
    fn new(inner: W) -> FailAfter<W> {
        let remaining = std::env::var(FAIL_WRITE_AFTER_VARIABLE)
            .ok()
            .and_then(|value| value.trim().parse::<u64>().ok());
        FailAfter { inner, remaining }
    }
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
