//! A device plane: its capabilities, then its lanes (docs/xla-interface.md#stream-lanes): one
//! line per HIP stream, then the unattributed work's lines, or under `--group-by queue` one
//! line per HSA queue. Lanes are numbered and named by the rules of stream_lanes.rs; this file
//! groups the device's placed events into them and builds their lines.
use std::collections::{BTreeMap, BTreeSet};

use super::device_capabilities::add_device_capabilities;
use super::line_builder::LineBuilder;
use super::options::{ExportOptions, GroupBy};
use super::placement::{EventKey, Events, List, Placed};
use super::plane_builder::PlaneBuilder;
use super::plane_names::gpu_plane_name;
use super::stream_lanes::{
    dense_lane_numbers, dense_stream_numbers, lane_line_id, queue_line_name,
    queue_line_name_for_copies, stream_label_suffix, stream_line_name, unattributed_line_name,
};
use super::xspace_sink::XSpaceSink;
use crate::collector::CollectedTrace;
use crate::event::{EventType, RocmTracerEvent, StreamKind, StreamLabel};

/// One device lane of an export: which line of which device plane shows which stream or queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    pub device_ordinal: u32,
    /// The lane's number in its name (`Stream #<lane>`, `Queue #<lane>`).
    pub lane: u32,
    pub line_id: i64,
    pub line_name: String,
    /// The SDK stream id of a stream lane.
    pub stream_id: Option<u64>,
    /// The HSA queue handle of a queue lane.
    pub queue_id: Option<u64>,
    /// What the tracer knew about the stream.
    pub label: Option<StreamLabel>,
}

/// What the line builders of one device plane share.
struct LaneContext<'a> {
    device_ordinal: u32,
    options: &'a ExportOptions,
    labels: &'a BTreeMap<u64, StreamLabel>,
}

/// The stat a stream lane's events carry for its kind (null, legacy, per-thread).
const STREAM_KIND_STAT: &str = "stream_kind";
/// The stat a stream lane's events carry for its ROCTx name.
const STREAM_NAME_STAT: &str = "stream_name";

/// Device `ordinal`'s plane: its capabilities, then the lines of its `events`, grouped as
/// `options` says; returns which stream or queue each line shows.
pub(super) fn add_device_plane<S: XSpaceSink>(
    lines: &mut LineBuilder<'_, S>,
    trace: &CollectedTrace,
    ordinal: u32,
    events: Vec<Placed>,
    options: &ExportOptions,
) -> Vec<Lane> {
    let mut plane = PlaneBuilder::new(i64::from(ordinal), gpu_plane_name(ordinal));
    if let Some(agent) = trace.gpu_agents.get(ordinal as usize) {
        add_device_capabilities(&mut plane, agent);
    }
    let context = LaneContext {
        device_ordinal: ordinal,
        options,
        labels: &trace.stream_labels,
    };
    let lanes = match options.group_by {
        GroupBy::Stream => add_stream_lines(&mut plane, lines, events, &context),
        GroupBy::Queue => add_queue_lines(&mut plane, lines, events, &context),
    };
    plane.finish_into(lines.sink);
    lanes
}

fn add_stream_lines<S: XSpaceSink>(
    plane: &mut PlaneBuilder,
    lines: &mut LineBuilder<'_, S>,
    events: Vec<Placed>,
    context: &LaneContext<'_>,
) -> Vec<Lane> {
    let key = |placed: Placed| lines.events.key(placed);
    let unattributed = |key: &EventKey| key.stream_id == RocmTracerEvent::UNATTRIBUTED_STREAM_ID;
    // `dense_stream_numbers` leaves the unattributed pseudo-stream out.
    let lanes = dense_stream_numbers(events.iter().map(|&placed| {
        let key = key(placed);
        (key.stream_id, key.start_time_ns)
    }));
    let stream_of_lane = by_lane(&lanes);
    // Work no HIP call submitted has no known stream: one lane per HSA queue, and one for
    // the copies (which have no queue), after the stream lanes so line ids stay unique.
    let queues = queue_numbers(&lines.events, &events, unattributed);
    let stream_lanes = lanes.len();
    // Groups: the stream lanes in order, then the copies without a queue, then the queues.
    let groups = stream_lanes + 1 + queues.len();
    let mut grouped = group_in_order(events, groups, |placed| {
        let key = key(placed);
        if unattributed(&key) {
            let queue = queues
                .get(&key.queue_id)
                .map_or(0, |&queue| queue as usize + 1);
            Some(stream_lanes + queue)
        } else {
            lanes.get(&key.stream_id).map(|&lane| lane as usize)
        }
    });

    let mut out = Vec::new();
    for lane in 0..stream_lanes as u32 {
        let Some(events) = grouped.sorted(lane as usize, &lines.events) else {
            continue;
        };
        let types: BTreeSet<EventType> = events
            .iter()
            .map(|&placed| lines.events.key(placed).event_type)
            .collect();
        let stream_id = stream_of_lane.get(&lane).copied();
        let label = stream_id.and_then(|stream| stream_label(context.labels, stream));
        let mut name = stream_line_name(lane, &types, context.options.cuda_style_line_names);
        name.push_str(&stream_label_suffix(label.as_ref()));
        let mut stats = Vec::new();
        if let Some(kind) = label.as_ref().and_then(|label| label.kind.label()) {
            stats.push((STREAM_KIND_STAT, kind.to_owned()));
        }
        if let Some(stream_name) = label.as_ref().and_then(|label| label.name.as_deref()) {
            stats.push((STREAM_NAME_STAT, stream_name.to_owned()));
        }
        let id = lane_line_id(lane);
        lines.build_line(plane, id, &name, events, &stats);
        out.push(Lane {
            device_ordinal: context.device_ordinal,
            lane,
            line_id: id,
            line_name: name,
            stream_id,
            queue_id: None,
            label,
        });
    }
    // The copies without a queue first, then the queues in their dense order; an empty
    // group has no line and takes no line id.
    let mut index = 0u32;
    for group in stream_lanes..groups {
        let Some(events) = grouped.sorted(group, &lines.events) else {
            continue;
        };
        let queue = (group - stream_lanes)
            .checked_sub(1)
            .map(|queue| queue as u32);
        let name = unattributed_line_name(queue);
        let id = lane_line_id(stream_lanes as u32 + index);
        lines.build_line(plane, id, &name, events, &[]);
        index += 1;
    }
    out
}

/// `--group-by queue`: one lane per HSA queue of the device, `Queue #n` in order of first
/// work, whatever stream submitted it; copies, which run on no queue, on `Queue (copies)`.
fn add_queue_lines<S: XSpaceSink>(
    plane: &mut PlaneBuilder,
    lines: &mut LineBuilder<'_, S>,
    events: Vec<Placed>,
    context: &LaneContext<'_>,
) -> Vec<Lane> {
    let queues = queue_numbers(&lines.events, &events, |_| true);
    let queue_of_lane = by_lane(&queues);
    let queue_lanes = queues.len();
    // Copies after the queues, so `Queue #n` is line `base + n` and lines are in lane order.
    let mut grouped = group_in_order(events, queue_lanes + 1, |placed| {
        let lane = queues.get(&lines.events.key(placed).queue_id).copied();
        Some(lane.map_or(queue_lanes, |lane| lane as usize))
    });

    let mut out = Vec::new();
    for lane in 0..=queue_lanes as u32 {
        let Some(events) = grouped.sorted(lane as usize, &lines.events) else {
            continue;
        };
        let (name, queue_id) = match queue_of_lane.get(&lane) {
            Some(&queue) => (queue_line_name(lane), Some(queue)),
            None => (queue_line_name_for_copies(), None),
        };
        let id = lane_line_id(lane);
        lines.build_line(plane, id, &name, events, &[]);
        out.push(Lane {
            device_ordinal: context.device_ordinal,
            lane,
            line_id: id,
            line_name: name,
            stream_id: None,
            queue_id,
            label: None,
        });
    }
    out
}

/// The lane numbers of the HSA queues of the `events` that `keeps` accepts (queue 0 is none:
/// copies run on no queue).
fn queue_numbers(
    view: &Events<'_>,
    events: &[Placed],
    keeps: impl Fn(&EventKey) -> bool,
) -> BTreeMap<u64, u32> {
    dense_lane_numbers(
        events
            .iter()
            .map(|&placed| view.key(placed))
            .filter(|key| keeps(key) && key.queue_id != 0)
            .map(|key| (key.queue_id, key.start_time_ns)),
    )
}

/// The stream or queue of each lane number.
fn by_lane(numbers: &BTreeMap<u64, u32>) -> BTreeMap<u32, u64> {
    numbers.iter().map(|(&id, &lane)| (lane, id)).collect()
}

/// A device's events grouped into lanes, each group's events together.
struct Grouped {
    events: Vec<Placed>,
    /// Where each group starts in `events`, with the end last.
    starts: Vec<usize>,
}

impl Grouped {
    /// The events of `group` in time order, or `None` when it has none (and no line).
    fn sorted(&mut self, group: usize, view: &Events<'_>) -> Option<&[Placed]> {
        let (start, end) = (self.starts[group], self.starts[group + 1]);
        if start == end {
            return None;
        }
        let events = &mut self.events[start..end];
        view.sort_by_time(events);
        Some(events)
    }
}

/// `events` grouped by `group_of` (`None`: left out) into `groups` groups, in group order,
/// each group's events in their order in `events`. A counting sort: the events are held twice
/// at most, not once per grouping step.
fn group_in_order(
    events: Vec<Placed>,
    groups: usize,
    group_of: impl Fn(Placed) -> Option<usize>,
) -> Grouped {
    let of_each: Vec<u32> = events
        .iter()
        .map(|&placed| group_of(placed).map_or(u32::MAX, |group| group as u32))
        .collect();
    let mut starts = vec![0usize; groups + 1];
    for &group in &of_each {
        if let Some(count) = starts.get_mut(group as usize + 1) {
            *count += 1;
        }
    }
    for group in 0..groups {
        starts[group + 1] += starts[group];
    }
    let filler = Placed {
        list: List::Markers,
        index: 0,
    };
    let mut grouped = vec![filler; starts[groups]];
    let mut next = starts.clone();
    for (placed, group) in events.into_iter().zip(of_each) {
        if let Some(slot) = next.get_mut(group as usize) {
            grouped[*slot] = placed;
            *slot += 1;
        }
    }
    Grouped {
        events: grouped,
        starts,
    }
}

/// What is known about `stream`; the null stream (id 0) is the null stream even when the
/// tracer sent nothing (a trace from an older tracer, or a sink fed by hand).
fn stream_label(labels: &BTreeMap<u64, StreamLabel>, stream: u64) -> Option<StreamLabel> {
    labels.get(&stream).cloned().or_else(|| {
        (stream == 0).then_some(StreamLabel {
            stream_id: 0,
            handle: 0,
            kind: StreamKind::Null,
            name: None,
        })
    })
}
