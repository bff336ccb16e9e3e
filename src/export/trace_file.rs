//! Writing and reading `.xplane.pb` files: a serialized `XSpace`, as xprof and TensorBoard's
//! profile plugin read them.
use std::fmt;
use std::path::{Path, PathBuf};

use prost::Message;

use super::xplane_proto::XSpace;

/// Why a trace could not be read or written.
#[derive(Debug)]
pub enum TraceError {
    /// Zero bytes.
    Empty,
    /// The bytes end in the middle of a field.
    Truncated(String),
    /// The bytes are not a protobuf `XSpace`.
    NotXSpace(String),
    /// The file could not be read or written.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A decoding error, with the file it came from.
    InFile {
        path: PathBuf,
        source: Box<TraceError>,
    },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Empty => write!(f, "the trace is empty (0 bytes)"),
            TraceError::Truncated(detail) => write!(f, "the trace is truncated ({detail})"),
            TraceError::NotXSpace(detail) => {
                write!(f, "not an XSpace (.xplane.pb) trace: {detail}")
            }
            TraceError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TraceError::InFile { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

/// The messages already include their cause, so no `source()` is reported: error chains
/// (anyhow's `{:#}`) would print it twice.
impl std::error::Error for TraceError {}

pub fn encode_xspace(space: &XSpace) -> Vec<u8> {
    space.encode_to_vec()
}

/// Writes the bytes of [`encode_xspace`] to `out` one field at a time, so that at most one
/// plane's encoding is held besides the `XSpace` (a million-event trace is hundreds of MB
/// encoded). Returns how many bytes were written.
pub fn encode_xspace_to(space: &XSpace, out: &mut dyn std::io::Write) -> std::io::Result<u64> {
    use prost::encoding::{message, string};
    // prost writes a message's fields in tag order: planes (1), errors (2), warnings (3),
    // hostnames (4); each repeated entry is a tagged, length-delimited field of its own.
    let mut buffer = Vec::new();
    let mut written = 0u64;
    let mut flush = |buffer: &mut Vec<u8>| -> std::io::Result<()> {
        out.write_all(buffer)?;
        written += buffer.len() as u64;
        buffer.clear();
        Ok(())
    };
    for plane in &space.planes {
        message::encode(1, plane, &mut buffer);
        flush(&mut buffer)?;
    }
    for (tag, texts) in [
        (2, &space.errors),
        (3, &space.warnings),
        (4, &space.hostnames),
    ] {
        string::encode_repeated(tag, texts, &mut buffer);
        flush(&mut buffer)?;
    }
    Ok(written)
}

/// Decodes an `XSpace`. prost skips unknown fields, so bytes that decode to nothing at all
/// (no plane, no message, no hostname) are rejected as not being a trace.
pub fn read_xspace(bytes: &[u8]) -> Result<XSpace, TraceError> {
    if bytes.is_empty() {
        return Err(TraceError::Empty);
    }
    // An XSpace starts with one of its four length-delimited fields (tags 0x0a, 0x12, 0x1a,
    // 0x22); anything else, e.g. the `{` of a JSON trace, is some other kind of file.
    if ![0x0a, 0x12, 0x1a, 0x22].contains(&bytes[0]) {
        return Err(TraceError::NotXSpace(format!(
            "it starts with byte 0x{:02x}, which begins no XSpace field",
            bytes[0]
        )));
    }
    let space = XSpace::decode(bytes).map_err(|error| {
        let detail = error.to_string();
        if detail.contains("buffer underflow") {
            TraceError::Truncated(detail)
        } else {
            TraceError::NotXSpace(detail)
        }
    })?;
    let is_blank = space.planes.is_empty()
        && space.errors.is_empty()
        && space.warnings.is_empty()
        && space.hostnames.is_empty();
    if is_blank {
        return Err(TraceError::NotXSpace(format!(
            "{} bytes without any XSpace field",
            bytes.len()
        )));
    }
    Ok(space)
}

pub fn read_xspace_file(path: impl AsRef<Path>) -> Result<XSpace, TraceError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| TraceError::Io {
        path: path.to_owned(),
        source,
    })?;
    read_xspace(&bytes).map_err(|source| TraceError::InFile {
        path: path.to_owned(),
        source: Box::new(source),
    })
}

/// Writes a file through `write` so that `path` only ever holds a complete file: the bytes go
/// to a new temporary file beside it, which replaces `path` once `write` succeeded and the
/// data is on disk; on any error (or a panic in `write`) the temporary file is removed and
/// whatever was at `path` is left as it was.
pub fn replace_file_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (temporary, file) = create_temporary_beside(path)?;
    // Removes the temporary file unless it was renamed: an error or an unwinding panic.
    struct RemoveUnlessKept<'a>(&'a Path, bool);
    impl Drop for RemoveUnlessKept<'_> {
        fn drop(&mut self) {
            if !self.1 {
                let _ = std::fs::remove_file(self.0);
            }
        }
    }
    let mut guard = RemoveUnlessKept(&temporary, false);
    let mut out = std::io::BufWriter::new(&file);
    write(&mut out)?;
    std::io::Write::flush(&mut out)?;
    drop(out);
    file.sync_all()?;
    std::fs::rename(&temporary, path)?;
    guard.1 = true;
    Ok(())
}

/// Writes a new file through `write`, the same way as [`replace_file_with`], but only if
/// `path` does not exist when it is complete: the finished temporary file is hard-linked into
/// place, which fails with `AlreadyExists` instead of replacing anything. The tool library's
/// outputs and the log folder's files are made this way (docs/tool-library.md): a process
/// never replaces a file, another process's capture included.
pub fn create_file_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (temporary, file) = create_temporary_beside(path)?;
    let result = (|| {
        let mut out = std::io::BufWriter::new(&file);
        write(&mut out)?;
        std::io::Write::flush(&mut out)?;
        drop(out);
        file.sync_all()?;
        std::fs::hard_link(&temporary, path)
    })();
    let _ = std::fs::remove_file(&temporary);
    result
}

/// A new file named after `path` in its directory (`.<name>.<pid>.<n>.tmp`), created with
/// create-new so that no existing file is ever opened for writing.
fn create_temporary_beside(path: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
    })?;
    let directory = path.parent().unwrap_or_else(|| Path::new(""));
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut temporary_name = std::ffi::OsString::from(".");
        temporary_name.push(name);
        temporary_name.push(format!(".{}.{n}.tmp", std::process::id()));
        let temporary = directory.join(temporary_name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
        {
            Ok(file) => return Ok((temporary, file)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
}

pub fn write_xspace(path: impl AsRef<Path>, space: &XSpace) -> Result<(), TraceError> {
    let path = path.as_ref();
    replace_file_with(path, |out| encode_xspace_to(space, out).map(drop)).map_err(|source| {
        TraceError::Io {
            path: path.to_owned(),
            source,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::xplane_proto::{XEvent, XLine, XPlane};

    /// The names in `directory`, sorted.
    fn names_in(directory: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(directory)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_replaced_file_is_whole_and_a_failed_or_panicking_write_leaves_the_old_one() {
        let directory = std::env::temp_dir().join(format!("xrt-replace-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&directory);
        std::fs::create_dir(&directory).unwrap();
        let path = directory.join("trace.xplane.pb");
        std::fs::write(&path, b"earlier trace").unwrap();

        let failed = replace_file_with(&path, |out| {
            out.write_all(b"half a tra")?;
            Err(std::io::Error::other("disk full"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "disk full");
        assert_eq!(std::fs::read(&path).unwrap(), b"earlier trace");
        assert_eq!(
            names_in(&directory),
            ["trace.xplane.pb"],
            "no temporary file left"
        );

        let panicked = std::panic::catch_unwind(|| {
            let _ = replace_file_with(&path, |out| {
                out.write_all(b"half a tra").unwrap();
                panic!("export failed");
            });
        });
        assert!(panicked.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"earlier trace");
        assert_eq!(
            names_in(&directory),
            ["trace.xplane.pb"],
            "no temporary file left"
        );

        replace_file_with(&path, |out| out.write_all(b"new trace")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new trace");
        assert_eq!(names_in(&directory), ["trace.xplane.pb"]);

        let missing_directory = directory.join("missing").join("x.pb");
        assert!(replace_file_with(&missing_directory, |out| out.write_all(b"x")).is_err());
        assert!(replace_file_with(Path::new("/"), |out| out.write_all(b"x")).is_err());
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[test]
    fn writing_field_by_field_gives_the_bytes_of_one_encoding() {
        let plane = |id: i64, events: usize| XPlane {
            id,
            name: format!("/device:GPU:{id}"),
            lines: vec![XLine {
                id: 7,
                name: "Stream #0".to_owned(),
                events: (0..events)
                    .map(|i| XEvent {
                        metadata_id: i as i64,
                        duration_ps: 1000 + i as i64,
                        ..XEvent::default()
                    })
                    .collect(),
                ..XLine::default()
            }],
            ..XPlane::default()
        };
        let space = XSpace {
            planes: vec![plane(0, 3), XPlane::default(), plane(1, 200)],
            errors: vec!["an error".to_owned(), String::new()],
            warnings: vec!["a warning".to_owned()],
            hostnames: vec!["host".to_owned()],
        };
        let mut written = Vec::new();
        let count = encode_xspace_to(&space, &mut written).unwrap();
        assert_eq!(written, encode_xspace(&space));
        assert_eq!(count, written.len() as u64);
        assert_eq!(read_xspace(&written).unwrap(), space);
    }
}
