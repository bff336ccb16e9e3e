//! jax.profiler's log folder, where xprof and TensorBoard look for traces:
//! `<logdir>/plugins/profile/<run>/<host>.xplane.pb`, one file per host of the run
//! (docs/tool-library.md#the-log-folder).
//!
//! A process's capture goes into the run that the same process's `jax.profiler.trace` wrote,
//! merged with XLA's file there (XLA's host planes, our device planes), or, when no such
//! file is found, into the newest run started since the capture began, or a new run. Its
//! file is always a new one, `<host>.pid<pid>.xplane.pb`: XLA's file and every other
//! process's stay as they were.
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::plane_names::{GPU_PLANE_PREFIX, HOST_CPU_PLANE_NAME, HOST_PLANE_NAME};
use super::trace_file::{create_file_with, encode_xspace_to, read_xspace_file, TraceError};
use super::xplane_proto::{x_event, x_stat, XPlane, XSpace};
use super::{merge_host_api_plane, merge_plane};

/// The runs' folder inside a log folder.
pub const PROFILE_FOLDER: [&str; 2] = ["plugins", "profile"];
/// What every trace file of a run ends with.
pub const TRACE_SUFFIX: &str = ".xplane.pb";
/// tsl's `kTaskEnvPlaneName` and the stats of the profiler session's window on it.
const TASK_ENVIRONMENT_PLANE: &str = "Task Environment";
const PROFILE_START_STAT: &str = "profile_start_time";
const PROFILE_STOP_STAT: &str = "profile_stop_time";
/// The stat tsl puts on its planes (`/host:metadata`, `/host:CPU`, device planes).
const PROCESS_ID_STAT: &str = "process_id";
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

/// A plane-level integer stat by name.
fn plane_stat(plane: &XPlane, name: &str) -> Option<i64> {
    let id = plane
        .stat_metadata
        .values()
        .find(|m| m.name == name)
        .map(|m| m.id)?;
    plane
        .stats
        .iter()
        .find(|s| s.metadata_id == id)
        .and_then(|s| match s.value {
            Some(x_stat::Value::Int64Value(v)) => Some(v),
            Some(x_stat::Value::Uint64Value(v)) => i64::try_from(v).ok(),
            _ => None,
        })
}

/// The profiler session's window of an XLA trace, when its times are relative to the start
/// (tsl writes them so): `(start, stop)` in ns since the epoch.
fn normalized_window(space: &XSpace) -> Option<(i64, i64)> {
    let environment = space
        .planes
        .iter()
        .find(|p| p.name == TASK_ENVIRONMENT_PLANE)?;
    let start = plane_stat(environment, PROFILE_START_STAT)?;
    let stop = plane_stat(environment, PROFILE_STOP_STAT).unwrap_or(i64::MAX);
    let relative = space
        .planes
        .iter()
        .flat_map(|p| &p.lines)
        .all(|line| line.timestamp_ns < start);
    relative.then_some((start, stop))
}

/// XLA's trace with our device planes in place of XLA's (ours are the device tracer this
/// library offers; XLA's plane stats that ours lacks, such as `process_id`, are kept on
/// ours), our host API lines on `/host:CPU` for threads XLA's tracer did not show,
/// our other planes merged by name, and our warnings and errors added. Our times are moved
/// onto XLA's when XLA's are relative to its session, and our events outside that session
/// are left out.
pub fn merge_into_xla_trace(mut xla: XSpace, ours: XSpace) -> XSpace {
    let window = normalized_window(&xla);
    let xla_threads: HashSet<i64> = xla
        .planes
        .iter()
        .filter(|p| p.name == HOST_CPU_PLANE_NAME)
        .flat_map(|p| &p.lines)
        .map(|line| line.id)
        .collect();
    for mut plane in ours.planes {
        if let Some(window) = window {
            rebase_plane(&mut plane, window);
        }
        if plane.name.starts_with(GPU_PLANE_PREFIX) {
            match xla.planes.iter_mut().find(|p| p.name == plane.name) {
                Some(existing) => {
                    keep_missing_plane_stats(existing, &mut plane);
                    *existing = plane;
                }
                None => xla.planes.push(plane),
            }
            continue;
        }
        if plane.name == HOST_PLANE_NAME {
            plane.lines.retain(|line| !xla_threads.contains(&line.id));
            if plane.lines.is_empty() {
                continue;
            }
            plane.name = HOST_CPU_PLANE_NAME.to_owned();
        }
        match xla.planes.iter_mut().find(|p| p.name == plane.name) {
            Some(existing) => merge_plane(plane, existing),
            None => xla.planes.push(plane),
        }
    }
    xla.warnings.extend(ours.warnings);
    xla.errors.extend(ours.errors);
    if xla.hostnames.is_empty() {
        xla.hostnames = ours.hostnames;
    }
    xla
}

/// Adds to `ours` the plane-level stats of `xla` whose names it lacks (XLA's `process_id`,
/// by which xprof and our own merge tell processes apart; a device stat ours does not
/// write), with their metadata.
fn keep_missing_plane_stats(xla: &XPlane, ours: &mut XPlane) {
    let name_of = |plane: &XPlane, id: i64| plane.stat_metadata.get(&id).map(|m| m.name.clone());
    let ours_names: HashSet<String> = ours
        .stats
        .iter()
        .filter_map(|stat| name_of(ours, stat.metadata_id))
        .collect();
    let missing: Vec<_> = xla
        .stats
        .iter()
        .filter(|stat| name_of(xla, stat.metadata_id).is_some_and(|n| !ours_names.contains(&n)))
        .cloned()
        .collect();
    if missing.is_empty() {
        return;
    }
    let referenced = |id: &i64| {
        missing.iter().any(|stat| {
            stat.metadata_id == *id
                || matches!(stat.value, Some(x_stat::Value::RefValue(r)) if i64::try_from(r) == Ok(*id))
        })
    };
    let carried = XPlane {
        stat_metadata: xla
            .stat_metadata
            .iter()
            .filter(|(id, _)| referenced(id))
            .map(|(id, metadata)| (*id, metadata.clone()))
            .collect(),
        stats: missing,
        ..XPlane::default()
    };
    merge_plane(carried, ours);
}

/// Moves a plane's absolute times onto a session's relative ones, dropping the events that
/// start outside `(start, stop)`.
fn rebase_plane(plane: &mut XPlane, (start, stop): (i64, i64)) {
    const PS_PER_NS: i128 = 1000;
    let (start_ps, stop_ps) = (i128::from(start) * PS_PER_NS, i128::from(stop) * PS_PER_NS);
    for line in &mut plane.lines {
        let line_ps = i128::from(line.timestamp_ns) * PS_PER_NS;
        let at = |event: &super::XEvent| match event.data {
            Some(x_event::Data::OffsetPs(offset)) => Some(line_ps + i128::from(offset)),
            _ => None,
        };
        line.events
            .retain(|event| at(event).is_none_or(|t| t >= start_ps && t <= stop_ps));
        // The line starts at its first kept event (or at the session's start), relative.
        let first_ps = line.events.iter().filter_map(at).min().unwrap_or(start_ps);
        let first_ns = first_ps / PS_PER_NS;
        let new_line_ps = first_ns * PS_PER_NS;
        for event in &mut line.events {
            if let Some(x_event::Data::OffsetPs(offset)) = &mut event.data {
                let absolute = line_ps + i128::from(*offset);
                *offset = i64::try_from(absolute - new_line_ps).unwrap_or(i64::MAX);
            }
        }
        line.timestamp_ns = i64::try_from(first_ns - i128::from(start)).unwrap_or(0);
    }
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
    use crate::export::xplane_proto::{XEvent, XLine, XStat, XStatMetadata};

    fn plane_with_stats(name: &str, stats: &[(&str, i64)]) -> XPlane {
        let mut plane = XPlane {
            name: name.to_owned(),
            ..XPlane::default()
        };
        for (i, (stat, value)) in stats.iter().enumerate() {
            let id = i as i64 + 1;
            plane.stat_metadata.insert(
                id,
                XStatMetadata {
                    id,
                    name: (*stat).to_owned(),
                    ..XStatMetadata::default()
                },
            );
            plane.stats.push(XStat {
                metadata_id: id,
                value: Some(x_stat::Value::Int64Value(*value)),
            });
        }
        plane
    }

    fn line(id: i64, timestamp_ns: i64, offsets_ps: &[i64]) -> XLine {
        XLine {
            id,
            name: format!("line {id}"),
            timestamp_ns,
            events: offsets_ps
                .iter()
                .map(|&o| XEvent {
                    data: Some(x_event::Data::OffsetPs(o)),
                    duration_ps: 5,
                    ..XEvent::default()
                })
                .collect(),
            ..XLine::default()
        }
    }

    /// XLA's trace as jax.profiler writes it: times relative to a session that started at
    /// 1_000_000 ns and stopped at 2_000_000 ns, its own GPU plane, host threads 7 and 8.
    fn xla_space(pid: i64) -> XSpace {
        let mut host = plane_with_stats(HOST_CPU_PLANE_NAME, &[(PROCESS_ID_STAT, pid)]);
        host.lines = vec![line(7, 10, &[0]), line(8, 10, &[0])];
        let mut gpu = plane_with_stats(
            "/device:GPU:0",
            &[(PROCESS_ID_STAT, pid), ("core_count", 1)],
        );
        gpu.lines = vec![line(0, 100, &[0])];
        XSpace {
            planes: vec![
                host,
                gpu,
                plane_with_stats(
                    TASK_ENVIRONMENT_PLANE,
                    &[
                        (PROFILE_START_STAT, 1_000_000),
                        (PROFILE_STOP_STAT, 2_000_000),
                    ],
                ),
            ],
            hostnames: vec!["vm".to_owned()],
            ..XSpace::default()
        }
    }

    /// Our capture: absolute times, host threads 7 and 9, a GPU plane with one event before
    /// XLA's session, two inside it and one after it.
    fn our_space() -> XSpace {
        let mut api = plane_with_stats(HOST_PLANE_NAME, &[]);
        api.lines = vec![line(7, 1_100_000, &[0]), line(9, 1_100_000, &[1000])];
        let mut gpu = plane_with_stats("/device:GPU:0", &[("core_count", 304)]);
        gpu.lines = vec![line(
            1000,
            900_000,
            &[0, 200_000_000, 300_000_000, 1_200_000_000],
        )];
        XSpace {
            planes: vec![api, gpu],
            warnings: vec!["ours".to_owned()],
            ..XSpace::default()
        }
    }

    #[test]
    fn our_device_planes_replace_xlas_and_move_onto_its_session_times() {
        let merged = merge_into_xla_trace(xla_space(42), our_space());
        let gpu: Vec<&XPlane> = merged
            .planes
            .iter()
            .filter(|p| p.name == "/device:GPU:0")
            .collect();
        assert_eq!(gpu.len(), 1, "one GPU plane, ours");
        let lane = &gpu[0].lines[0];
        assert_eq!(lane.id, 1000);
        // Events at 1_100_000 and 1_200_000 ns absolute: 100_000 and 200_000 in XLA's time;
        // the ones at 900_000 (before) and 2_100_000 (after) are outside the session.
        assert_eq!(lane.timestamp_ns, 100_000);
        let offsets: Vec<_> = lane.events.iter().map(|e| e.data).collect();
        assert_eq!(
            offsets,
            vec![
                Some(x_event::Data::OffsetPs(0)),
                Some(x_event::Data::OffsetPs(100_000_000))
            ]
        );
        assert_eq!(merged.warnings, vec!["ours".to_owned()]);
        assert_eq!(merged.hostnames, vec!["vm".to_owned()]);
        // XLA's process_id is kept on our plane; our own device stat wins over XLA's.
        let stats: Vec<(String, Option<x_stat::Value>)> = gpu[0]
            .stats
            .iter()
            .map(|s| {
                (
                    gpu[0].stat_metadata[&s.metadata_id].name.clone(),
                    s.value.clone(),
                )
            })
            .collect();
        assert_eq!(
            stats,
            vec![
                (
                    "core_count".to_owned(),
                    Some(x_stat::Value::Int64Value(304))
                ),
                (
                    PROCESS_ID_STAT.to_owned(),
                    Some(x_stat::Value::Int64Value(42))
                ),
            ]
        );
    }

    #[test]
    fn only_host_threads_xla_did_not_show_are_added_to_its_host_plane() {
        let merged = merge_into_xla_trace(xla_space(42), our_space());
        assert!(merged.planes.iter().all(|p| p.name != HOST_PLANE_NAME));
        let host = merged
            .planes
            .iter()
            .find(|p| p.name == HOST_CPU_PLANE_NAME)
            .unwrap();
        let ids: Vec<i64> = host.lines.iter().map(|l| l.id).collect();
        assert_eq!(ids, vec![7, 8, 9]);
        // Thread 7 is XLA's own line, unchanged (one event, at its own time).
        assert_eq!(host.lines[0].events.len(), 1);
        assert_eq!(host.lines[0].timestamp_ns, 10);
        // Thread 9 is ours, moved onto the session's times.
        // (its event at 1_100_001 ns absolute: the line starts there).
        assert_eq!(host.lines[2].timestamp_ns, 100_001);
        assert_eq!(
            host.lines[2].events[0].data,
            Some(x_event::Data::OffsetPs(0))
        );
    }

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
