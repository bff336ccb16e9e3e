//! The one export model: a collected trace becomes a prost `XSpace` (docs/xla-interface.md#export,
//! docs/xla-interface.md#planes-and-lines). The Rust writer encodes it; the C++ shim parses the same bytes.
use std::collections::{BTreeMap, BTreeSet};

use super::device_capabilities::add_device_capabilities;
use super::event_stats::event_stats;
use super::plane_builder::PlaneBuilder;
use super::plane_names::{
    gpu_plane_name, host_line_name, HOST_PLANE_NAME, SCOPE_RANGE_TREE_PLANE_NAME,
};
use super::stream_lanes::{
    dense_queue_numbers, dense_stream_numbers, stream_line_name, unattributed_line_name,
};
use super::timeline::{Placement, Timeline};
use super::xplane_proto::{x_event, x_stat, XEvent, XLine, XSpace, XStat};
use crate::collector::{CollectedTrace, Collector, DropCounters, DropReason};
use crate::event::{EventSource, EventType, RocmTracerEvent};

/// Choices that change the exported trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Name device lines like XLA's CUPTI collector, `"Stream #0(Kernel,MemcpyH2D)"`, instead
    /// of the ROCm collector's plain `"Stream #0"`.
    pub cuda_style_line_names: bool,
}

impl Collector {
    /// Flushes and exports everything collected so far. `end_gputime_ns` is the SDK clock now
    /// (XLA reads `rocprofiler_get_timestamp()` here); later events are dropped and counted.
    /// The collector keeps its events, so exporting twice gives the same XSpace.
    pub fn export(&self, end_gputime_ns: u64, options: &ExportOptions) -> XSpace {
        self.with_collected(|trace| build_xspace(trace, end_gputime_ns, options))
    }
}

/// One event on its way to a line, with the device plane it belongs to.
struct Placed<'a> {
    event: &'a RocmTracerEvent,
    device_ordinal: u32,
    placement: Placement,
    /// For a copy named by its HIP call's direction: the type of the SDK record.
    recorded_as: Option<EventType>,
    /// For a HIP copy call without a device record: "CPU", or "unknown" under indirect
    /// dispatch (the `copy_done_by` stat).
    copy_done_by: Option<&'static str>,
}

/// The `recorded_direction` stat of a copy whose SDK record said otherwise than its call.
const RECORDED_DIRECTION_STAT: &str = "recorded_direction";
/// The `copy_done_by` stat of a HIP copy call without a device record.
const COPY_DONE_BY_STAT: &str = "copy_done_by";

/// The trace note for HIP copy calls the CPU did (not a loss: nothing was recorded).
fn cpu_copies_note(count: u64) -> String {
    format!(
        "{count} HIP copy calls have no device record: {}; they are shown on their host \
         threads only",
        DropReason::CopyDoneByCpu.describe()
    )
}

/// The trace warning for activities no HIP API call submitted.
fn unattributed_warning(count: u64) -> String {
    format!(
        "{count} GPU activities carry a correlation id no HIP API call made (HIP submitted them \
         from its worker thread: indirect dispatch, AMD_DIRECT_DISPATCH=0): they are shown on \
         \"Unattributed\" lanes of their queue; stream attribution needs direct dispatch"
    )
}

/// Sorting events by start (then end) keeps lines ordered whatever the arrival order was; the
/// sort is stable, so equal times keep the collector's deterministic order.
fn sort_by_time(events: &mut [Placed<'_>]) {
    events.sort_by_key(|placed| (placed.event.start_time_ns, placed.event.end_time_ns));
}

pub fn build_xspace(
    trace: &CollectedTrace,
    end_gputime_ns: u64,
    options: &ExportOptions,
) -> XSpace {
    let timeline = Timeline {
        start_gputime_ns: trace.start.gputime_ns,
        // XLA's GetTimestamp() returns 0 when the SDK clock fails; taken as the end, it would
        // drop every event of the capture. An unknown end bounds nothing instead.
        end_gputime_ns: if end_gputime_ns == 0 {
            u64::MAX
        } else {
            end_gputime_ns
        },
        line_timestamp_ns: i64::try_from(trace.start.walltime_ns).unwrap_or(i64::MAX),
    };
    let mut export_drops = DropCounters::default();
    let mut host_events: BTreeMap<u64, Vec<Placed<'_>>> = BTreeMap::new();
    let mut device_planes = Vec::new();
    let mut unattributed = 0u64;
    let recorded_as = |event: &RocmTracerEvent| {
        if event.source == EventSource::Activity && event.event_type.is_memcpy() {
            trace.copy_recorded_as.get(&event.correlation_id).copied()
        } else {
            None
        }
    };

    for ordinal in 0..trace.options.num_gpus {
        let mut device_events: Vec<Placed<'_>> = Vec::new();
        for event in trace.devices.get(&ordinal).into_iter().flatten() {
            let Some(placement) = timeline.place(event) else {
                export_drops.add(DropReason::OutOfTimeWindow, 1);
                continue;
            };
            let placed = Placed {
                event,
                device_ordinal: ordinal,
                placement,
                recorded_as: recorded_as(event),
                copy_done_by: None,
            };
            if event.source == EventSource::ApiCallback {
                if event.thread_id == RocmTracerEvent::INVALID_THREAD_ID {
                    export_drops.add(DropReason::NoLane, 1);
                } else {
                    host_events.entry(event.thread_id).or_default().push(placed);
                }
            } else if event.stream_id == RocmTracerEvent::INVALID_STREAM_ID {
                export_drops.add(DropReason::NoLane, 1);
            } else {
                if event.stream_id == RocmTracerEvent::UNATTRIBUTED_STREAM_ID {
                    unattributed += 1;
                }
                device_events.push(placed);
            }
        }
        let mut plane = PlaneBuilder::new(i64::from(ordinal), gpu_plane_name(ordinal));
        if let Some(agent) = trace.gpu_agents.get(ordinal as usize) {
            add_device_capabilities(&mut plane, agent);
        }
        add_stream_lines(&mut plane, device_events, &timeline, options);
        device_planes.push(plane.finish());
    }

    // Copies the CPU did: their HIP calls, on their threads, with no device. Under indirect
    // dispatch a copy's record carries an id no call has, so a call without a record may have
    // had one: then nothing is claimed about who copied.
    let indirect_copies = trace.devices.values().flatten().any(|event| {
        event.stream_id == RocmTracerEvent::UNATTRIBUTED_STREAM_ID && event.event_type.is_memcpy()
    });
    let copy_done_by = if indirect_copies { "unknown" } else { "CPU" };
    for event in &trace.host_only {
        let Some(placement) = timeline.place(event) else {
            export_drops.add(DropReason::OutOfTimeWindow, 1);
            continue;
        };
        if event.thread_id == RocmTracerEvent::INVALID_THREAD_ID {
            export_drops.add(DropReason::NoLane, 1);
            continue;
        }
        if !indirect_copies {
            export_drops.add(DropReason::CopyDoneByCpu, 1);
        }
        host_events
            .entry(event.thread_id)
            .or_default()
            .push(Placed {
                event,
                device_ordinal: u32::MAX,
                placement,
                recorded_as: None,
                copy_done_by: Some(copy_done_by),
            });
    }

    let mut host_plane = PlaneBuilder::new(0, HOST_PLANE_NAME);
    for (thread_id, mut events) in host_events {
        sort_by_time(&mut events);
        let line = build_line(
            &mut host_plane,
            thread_id as i64,
            host_line_name(thread_id),
            &events,
            &timeline,
        );
        host_plane.plane_mut().lines.push(line);
    }

    let mut planes = vec![host_plane.finish()];
    planes.extend(device_planes);
    // Id 0 like XLA's: it adds the plane by name and never sets an id
    // (docs/xla-interface.md#scope-range-tree).
    planes.push(scope_range_tree_plane(0, &trace.scope_range_tree));

    let mut drops = trace.drops.clone();
    drops.merge(&export_drops);
    let mut warnings = drops.warnings();
    let cpu_copies = drops.count(DropReason::CopyDoneByCpu);
    if cpu_copies > 0 {
        warnings.push(cpu_copies_note(cpu_copies));
    }
    if unattributed > 0 {
        warnings.push(unattributed_warning(unattributed));
    }
    warnings.extend(trace.warnings.iter().cloned());
    XSpace {
        planes,
        errors: Vec::new(),
        warnings,
        hostnames: Vec::new(),
    }
}

fn add_stream_lines(
    plane: &mut PlaneBuilder,
    events: Vec<Placed<'_>>,
    timeline: &Timeline,
    options: &ExportOptions,
) {
    let is_unattributed =
        |placed: &Placed<'_>| placed.event.stream_id == RocmTracerEvent::UNATTRIBUTED_STREAM_ID;
    let (unattributed, events): (Vec<Placed<'_>>, Vec<Placed<'_>>) =
        events.into_iter().partition(is_unattributed);
    let lanes = dense_stream_numbers(events.iter().map(|placed| placed.event));
    let mut by_lane: BTreeMap<u32, Vec<Placed<'_>>> = BTreeMap::new();
    for placed in events {
        // Every stream of these events has a lane: `dense_stream_numbers` saw them all.
        if let Some(&lane) = lanes.get(&placed.event.stream_id) {
            by_lane.entry(lane).or_default().push(placed);
        }
    }
    let stream_lanes = lanes.len() as u32;
    for (lane, mut events) in by_lane {
        sort_by_time(&mut events);
        let types: BTreeSet<EventType> = events
            .iter()
            .map(|placed| placed.event.event_type)
            .collect();
        let name = stream_line_name(lane, &types, options.cuda_style_line_names);
        let line = build_line(plane, i64::from(lane), name, &events, timeline);
        plane.plane_mut().lines.push(line);
    }

    // Work no HIP call submitted has no known stream: one lane per HSA queue, and one for
    // the copies (which have no queue), after the stream lanes so line ids stay unique.
    let queues = dense_queue_numbers(
        unattributed
            .iter()
            .map(|placed| placed.event)
            .filter(|event| event.queue_id != 0),
    );
    let mut by_queue: BTreeMap<Option<u32>, Vec<Placed<'_>>> = BTreeMap::new();
    for placed in unattributed {
        let queue = queues.get(&placed.event.queue_id).copied();
        by_queue.entry(queue).or_default().push(placed);
    }
    // `None` (copies) sorts first; the queues follow in their dense order.
    for (index, (queue, mut events)) in by_queue.into_iter().enumerate() {
        sort_by_time(&mut events);
        let name = unattributed_line_name(queue);
        let id = i64::from(stream_lanes) + index as i64;
        let line = build_line(plane, id, name, &events, timeline);
        plane.plane_mut().lines.push(line);
    }
}

fn build_line(
    plane: &mut PlaneBuilder,
    id: i64,
    name: String,
    events: &[Placed<'_>],
    timeline: &Timeline,
) -> XLine {
    let mut line = XLine {
        id,
        display_id: id,
        name,
        timestamp_ns: timeline.line_timestamp_ns,
        ..XLine::default()
    };
    for placed in events {
        let placement = placed.placement;
        let metadata_name = if placed.event.name.is_empty() {
            placed.event.event_type.name()
        } else {
            &placed.event.name
        };
        let metadata_id = plane.event_metadata_id(metadata_name);
        let mut stats = event_stats(plane, placed.event, placed.device_ordinal);
        if let Some(recorded_as) = placed.recorded_as {
            stats.push(plane.ref_stat(RECORDED_DIRECTION_STAT, recorded_as.name()));
        }
        if let Some(copy_done_by) = placed.copy_done_by {
            stats.push(plane.ref_stat(COPY_DONE_BY_STAT, copy_done_by));
        }
        line.events.push(XEvent {
            metadata_id,
            duration_ps: placement.duration_ps,
            stats,
            data: Some(x_event::Data::OffsetPs(placement.offset_ps)),
        });
    }
    line
}

/// `ExportScopeRangeIdTree` (docs/xla-interface.md#scope-range-tree): one plane stat per edge, metadata id = child, value = parent.
fn scope_range_tree_plane(id: i64, tree: &BTreeMap<i64, i64>) -> super::xplane_proto::XPlane {
    let mut plane = PlaneBuilder::new(id, SCOPE_RANGE_TREE_PLANE_NAME);
    for (&child, &parent) in tree {
        plane.add_plane_stat(XStat {
            metadata_id: child,
            value: Some(x_stat::Value::Int64Value(parent)),
        });
    }
    plane.finish()
}
