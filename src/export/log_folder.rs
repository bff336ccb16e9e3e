//! jax.profiler's log folder, where xprof and TensorBoard look for traces:
//! `<logdir>/plugins/profile/<run>/<host>.xplane.pb`, one file per host of the run
//! (docs/tool-library.md#the-log-folder).
//!
//! A process's capture goes into the run that the same process's `jax.profiler.trace` wrote,
//! merged with XLA's file there (`xla_trace_merge.rs`), or, when no such
//! file is found, into the newest run started since the capture began, or a new run. Its
//! file is always a new one, `<host>.pid<pid>.xplane.pb`: XLA's file and every other
//! process's stay as they were.
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::merge_host_api_plane;
use super::plane_names::{HOST_CPU_PLANE_NAME, HOST_PLANE_NAME};
use super::trace_file::{create_file_with, encode_xspace_to, read_xspace_file, TraceError};
use super::xla_trace_merge::{merge_into_xla_trace, plane_stat, PROCESS_ID_STAT};
use super::xplane_proto::XSpace;

/// The runs' folder inside a log folder.
pub const PROFILE_FOLDER: [&str; 2] = ["plugins", "profile"];
/// What every trace file of a run ends with.
pub const TRACE_SUFFIX: &str = ".xplane.pb";
/// Filesystem times are coarser than the clock (a run made just after `since` may carry an
/// earlier time); runs and files this much older than `since` still count as new.
const CLOCK_SLACK: Duration = Duration::from_secs(1);

/// One process's capture: its planes as the tracer wrote them (absolute times).
pub struct ProcessCapture {
    pub pid: u32,
    pub space: XSpace,
}

/// Where a capture was written.
#[derive(Debug)]
pub struct Placement {
    pub path: PathBuf,
    /// XLA's trace of the same process whose host planes the file carries, if one was found.
    pub merged_with: Option<PathBuf>,
}

/// The file name of a process's capture in a run: `<host>.pid<pid>.xplane.pb`, or with
/// `-<n>` after the pid when the process already has one there (two sessions in one run).
pub fn capture_file_name(host: &str, pid: u32, attempt: u32) -> String {
    match attempt {
        0 => format!("{host}.pid{pid}{TRACE_SUFFIX}"),
        n => format!("{host}.pid{pid}-{n}{TRACE_SUFFIX}"),
    }
}

/// Whether `name` is one of [`capture_file_name`]'s (ours, not XLA's).
fn is_capture_file(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(TRACE_SUFFIX) else {
        return false;
    };
    let Some((_, last)) = stem.rsplit_once('.') else {
        return false;
    };
    let Some(number) = last.strip_prefix("pid") else {
        return false;
    };
    let pid = number.split_once('-').map_or(number, |(pid, _)| pid);
    !pid.is_empty() && number.bytes().all(|b| b.is_ascii_digit() || b == b'-')
}

/// This machine's host name, as jax.profiler names its file (`gethostname`).
pub fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it when
    // the name fits, and the last byte is kept 0 for when it does not.
    let status = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len() - 1) };
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(0);
    match std::str::from_utf8(&buffer[..end]) {
        Ok(name) if status == 0 && !name.is_empty() && !name.contains('/') => name.to_owned(),
        _ => "localhost".to_owned(),
    }
}

/// Writes `capture` into the log folder `logdir` (see the module's comment). `since` is when
/// the capture began: runs and XLA files older than it belong to earlier sessions.
pub fn place_capture(
    logdir: &Path,
    since: SystemTime,
    capture: ProcessCapture,
) -> Result<Placement, TraceError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| TraceError::Io { path, source }
    };
    let root = PROFILE_FOLDER
        .iter()
        .fold(logdir.to_owned(), |p, n| p.join(n));
    std::fs::create_dir_all(&root).map_err(io(&root))?;
    let since = since.checked_sub(CLOCK_SLACK).unwrap_or(since);
    let runs = runs_since(&root, since).map_err(io(&root))?;

    if let Some((xla_path, xla)) = xla_trace_of(&runs, since, &capture) {
        let run = xla_path.parent().unwrap_or(&root).to_owned();
        let host = xla_path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(TRACE_SUFFIX))
            .map_or_else(host_name, str::to_owned);
        let merged = merge_into_xla_trace(xla, capture.space);
        let path = write_capture(&run, &host, capture.pid, &merged)?;
        return Ok(Placement {
            path,
            merged_with: Some(xla_path),
        });
    }
    let run = match runs.last() {
        Some(run) => run.clone(),
        None => new_run(&root).map_err(io(&root))?,
    };
    let mut space = capture.space;
    // As a profiler session does: xprof shows host threads only from `/host:CPU`.
    merge_host_api_plane(&mut space);
    let path = write_capture(&run, &host_name(), capture.pid, &space)?;
    Ok(Placement {
        path,
        merged_with: None,
    })
}

/// The run folders of `root` changed since `since`, oldest first (by time, then name: jax
/// names runs by the second they started).
fn runs_since(root: &Path, since: SystemTime) -> std::io::Result<Vec<PathBuf>> {
    let mut runs = Vec::new();
    for entry in std::fs::read_dir(root)? {
        let entry = entry?;
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        let modified = metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        if metadata.is_dir() && modified >= since {
            runs.push((modified, entry.path()));
        }
    }
    runs.sort();
    Ok(runs.into_iter().map(|(_, path)| path).collect())
}

/// XLA's trace of the capture's process among the runs' files written since `since`, newest
/// first: the file whose `process_id` stat is the capture's pid, or whose host threads
/// include one of the capture's (thread ids are unique among live processes).
fn xla_trace_of(
    runs: &[PathBuf],
    since: SystemTime,
    capture: &ProcessCapture,
) -> Option<(PathBuf, XSpace)> {
    let mut files = Vec::new();
    for run in runs {
        let Ok(entries) = std::fs::read_dir(run) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            if !name.ends_with(TRACE_SUFFIX) || is_capture_file(name) {
                continue;
            }
            let modified = entry
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            if modified >= since {
                files.push((modified, entry.path()));
            }
        }
    }
    files.sort();
    let threads = host_thread_ids(&capture.space);
    files.into_iter().rev().find_map(|(_, path)| {
        // A file that cannot be read is someone else's business: it is left alone.
        let space = read_xspace_file(&path).ok()?;
        let same_pid = process_ids(&space).contains(&i64::from(capture.pid));
        let same_thread = space
            .planes
            .iter()
            .filter(|p| p.name == HOST_CPU_PLANE_NAME)
            .flat_map(|p| &p.lines)
            .any(|line| threads.contains(&line.id));
        (same_pid || same_thread).then_some((path, space))
    })
}

/// The thread ids of the capture's host API lines (line id = thread id).
fn host_thread_ids(space: &XSpace) -> HashSet<i64> {
    space
        .planes
        .iter()
        .filter(|p| p.name == HOST_PLANE_NAME || p.name == HOST_CPU_PLANE_NAME)
        .flat_map(|p| &p.lines)
        .map(|line| line.id)
        .filter(|&id| id > 0 && id <= i64::from(i32::MAX))
        .collect()
}

/// The values of every `process_id` stat on the space's planes.
fn process_ids(space: &XSpace) -> HashSet<i64> {
    space
        .planes
        .iter()
        .filter_map(|plane| plane_stat(plane, PROCESS_ID_STAT))
        .collect()
}

/// A new run folder named as jax.profiler names its runs (local time, to the second), with a
/// `_<n>` suffix when that name is taken.
fn new_run(root: &Path) -> std::io::Result<PathBuf> {
    let stamp = local_time_stamp();
    for attempt in 0u32.. {
        let name = match attempt {
            0 => stamp.clone(),
            n => format!("{stamp}_{n}"),
        };
        let run = root.join(name);
        match std::fs::create_dir(&run) {
            Ok(()) => return Ok(run),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    unreachable!("u32 attempts run out only after four billion taken names")
}

/// `YYYY_MM_DD_HH_MM_SS` in local time, as tsl's `GetCurrentTimeStampAsString`.
fn local_time_stamp() -> String {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as libc::time_t;
    // SAFETY: an all-zero `tm` is a valid value; localtime_r writes it from a valid time_t.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call.
    let converted = unsafe { !libc::localtime_r(&now, &mut tm).is_null() };
    if !converted {
        return format!("{now}");
    }
    format!(
        "{:04}_{:02}_{:02}_{:02}_{:02}_{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

/// Writes `space` as a new capture file of `pid` in `run`; never replaces a file.
fn write_capture(run: &Path, host: &str, pid: u32, space: &XSpace) -> Result<PathBuf, TraceError> {
    for attempt in 0u32.. {
        let path = run.join(capture_file_name(host, pid, attempt));
        match create_file_with(&path, |out| encode_xspace_to(space, out).map(drop)) {
            Ok(()) => return Ok(path),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(TraceError::Io { path, source }),
        }
    }
    unreachable!("u32 attempts run out only after four billion files of one process")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::xla_trace_merge::tests::{our_space, xla_space};
    use crate::export::xla_trace_merge::TASK_ENVIRONMENT_PLANE;

    #[test]
    fn capture_file_names_are_told_from_xlas() {
        assert_eq!(capture_file_name("vm", 12, 0), "vm.pid12.xplane.pb");
        assert_eq!(capture_file_name("vm", 12, 2), "vm.pid12-2.xplane.pb");
        assert!(is_capture_file("vm.pid12.xplane.pb"));
        assert!(is_capture_file("a.b.c.pid12-2.xplane.pb"));
        assert!(!is_capture_file("vm.xplane.pb"));
        assert!(!is_capture_file("vm.pid.xplane.pb"));
        assert!(!is_capture_file("host.pidgin.xplane.pb"));
    }

    fn place_ours(logdir: &Path, since: SystemTime, pid: u32) -> Placement {
        place_capture(
            logdir,
            since,
            ProcessCapture {
                pid,
                space: our_space(),
            },
        )
        .unwrap()
    }

    fn scratch() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn run_files(logdir: &Path) -> Vec<PathBuf> {
        let root = logdir.join("plugins/profile");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
            .unwrap()
            .flat_map(|run| std::fs::read_dir(run.unwrap().path()).unwrap())
            .map(|f| f.unwrap().path())
            .collect();
        files.sort();
        files
    }

    #[test]
    fn a_capture_joins_the_run_of_its_process_and_leaves_xlas_file_alone() {
        let logdir = scratch();
        let since = SystemTime::now();
        let run = logdir.path().join("plugins/profile/2026_12_05_10_00_00");
        std::fs::create_dir_all(&run).unwrap();
        let xla_file = run.join("vm.xplane.pb");
        crate::export::write_xspace(&xla_file, &xla_space(4242)).unwrap();
        let xla_bytes = std::fs::read(&xla_file).unwrap();
        // Another process's XLA trace in the same run: not ours to merge with.
        let other = run.join("other.xplane.pb");
        let mut other_space = xla_space(1);
        other_space.planes[0].lines.clear();
        crate::export::write_xspace(&other, &other_space).unwrap();

        let placed = place_ours(logdir.path(), since, 4242);
        assert_eq!(placed.path, run.join("vm.pid4242.xplane.pb"));
        assert_eq!(placed.merged_with.as_deref(), Some(xla_file.as_path()));
        assert_eq!(std::fs::read(&xla_file).unwrap(), xla_bytes);
        let merged = read_xspace_file(&placed.path).unwrap();
        assert!(merged
            .planes
            .iter()
            .any(|p| p.name == TASK_ENVIRONMENT_PLANE));

        // A second session of the same process in the same run: a second file.
        let again = place_ours(logdir.path(), since, 4242);
        assert_eq!(again.path, run.join("vm.pid4242-1.xplane.pb"));
        assert_eq!(run_files(logdir.path()).len(), 4);
    }

    #[test]
    fn a_capture_without_an_xla_trace_gets_a_run_and_later_processes_join_it() {
        let logdir = scratch();
        let since = SystemTime::now();
        let old_run = logdir.path().join("plugins/profile/2020_01_01_00_00_00");
        std::fs::create_dir_all(&old_run).unwrap();
        let old_time = std::fs::FileTimes::new()
            .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_577_836_800));
        std::fs::File::open(&old_run)
            .unwrap()
            .set_times(old_time)
            .unwrap();

        let first = place_ours(logdir.path(), since, 10);
        let second = place_ours(logdir.path(), since, 11);
        assert!(first.merged_with.is_none());
        assert_ne!(first.path.parent(), Some(old_run.as_path()));
        assert_eq!(first.path.parent(), second.path.parent());
        let host = host_name();
        assert_eq!(
            first.path.file_name().unwrap().to_str().unwrap(),
            format!("{host}.pid10.xplane.pb")
        );
        // As a profiler session writes it: the API lines on `/host:CPU`, absolute times kept.
        let space = read_xspace_file(&first.path).unwrap();
        let names: Vec<&str> = space.planes.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, vec![HOST_CPU_PLANE_NAME, "/device:GPU:0"]);
        assert_eq!(space.planes[1].lines[0].timestamp_ns, 900_000);
    }
}
