//! One process's capture merged into the trace XLA wrote for the same process
//! (docs/tool-library.md#the-log-folder): XLA's host planes and session window, our device
//! planes.
use std::collections::HashSet;

use super::merge_plane;
use super::plane_names::{GPU_PLANE_PREFIX, HOST_CPU_PLANE_NAME, HOST_PLANE_NAME};
use super::xplane_proto::{x_event, x_stat, XPlane, XSpace};

/// tsl's `kTaskEnvPlaneName` and the stats of the profiler session's window on it.
pub(super) const TASK_ENVIRONMENT_PLANE: &str = "Task Environment";
const PROFILE_START_STAT: &str = "profile_start_time";
const PROFILE_STOP_STAT: &str = "profile_stop_time";
/// The stat tsl puts on its planes (`/host:metadata`, `/host:CPU`, device planes).
pub(super) const PROCESS_ID_STAT: &str = "process_id";

/// A plane-level integer stat by name.
pub(super) fn plane_stat(plane: &XPlane, name: &str) -> Option<i64> {
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

#[cfg(test)]
pub(super) mod tests {
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
    pub(in crate::export) fn xla_space(pid: i64) -> XSpace {
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
    pub(in crate::export) fn our_space() -> XSpace {
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
}
