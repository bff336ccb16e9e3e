//! The one export model: a collected trace becomes an `XSpace` (docs/xla-interface.md#export,
//! docs/xla-interface.md#planes-and-lines), built line by line into a sink (xspace_sink.rs): a
//! prost `XSpace`, the bridge's columns for the C++ shim (src/ffi/flat_xspace.rs), or a file's
//! bytes (trace_file.rs).
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::device_capabilities::add_device_capabilities;
use super::event_stats::{event_stats, KernelDevice};
use super::plane_builder::PlaneBuilder;
use super::plane_names::{
    gpu_plane_name, host_line_name, roctx_line_name, HOST_PLANE_NAME, ROCTX_LINE_ID_BASE,
    SCOPE_RANGE_TREE_PLANE_NAME,
};
use super::stream_lanes::{
    dense_queue_numbers, dense_stream_numbers, lane_line_id, queue_line_name,
    queue_line_name_for_copies, stream_label_suffix, stream_line_name, unattributed_line_name,
};
use super::timeline::Timeline;
use super::xplane_proto::{x_event, x_stat, XSpace, XStat};
use super::xspace_encoder::XSpaceEncoder;
use super::xspace_sink::{EventView, LineHeader, XSpaceAssembler, XSpaceSink};
use crate::collector::{
    recorded_direction, CollectedTrace, Collector, DropCounters, DropReason, EventLog, LoggedEvent,
};
use crate::event::{EventSource, EventType, RocmTracerEvent, StreamKind, StreamLabel};

/// Choices that change the exported trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Name device lines like XLA's CUPTI collector, `"Stream #0(Kernel,MemcpyH2D)"`, instead
    /// of the ROCm collector's plain `"Stream #0"`.
    pub cuda_style_line_names: bool,
    /// One device lane per HIP stream (the default) or per HSA queue.
    pub group_by: GroupBy,
}

/// What a device lane stands for (docs/xla-interface.md#stream-lanes).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum GroupBy {
    /// One lane per HIP stream, `Stream #n`, as XLA's collector does.
    #[default]
    Stream,
    /// One lane per HSA queue, `Queue #n` (rocprofv3's `--group-by-queue`): which hardware
    /// queue the runtime put each stream's work on. Copies have no queue and get one lane.
    Queue,
}

impl GroupBy {
    /// Parses `stream` or `queue` (any case, surrounding spaces ignored).
    pub fn parse(text: &str) -> Option<GroupBy> {
        match text.trim().to_ascii_lowercase().as_str() {
            "stream" => Some(GroupBy::Stream),
            "queue" => Some(GroupBy::Queue),
            _ => None,
        }
    }
}

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

impl Collector {
    /// Flushes and exports everything collected so far. `end_gputime_ns` is the SDK clock now
    /// (XLA reads `rocprofiler_get_timestamp()` here); later events are dropped and counted.
    /// The collector keeps its events, so exporting twice gives the same XSpace.
    pub fn export(&self, end_gputime_ns: u64, options: &ExportOptions) -> XSpace {
        self.with_collected(|trace| build_xspace(trace, end_gputime_ns, options))
    }

    /// The device lanes [`Collector::export`] with the same arguments writes.
    pub fn lanes(&self, end_gputime_ns: u64, options: &ExportOptions) -> Vec<Lane> {
        self.export_with_lanes(end_gputime_ns, options).1
    }

    /// Writes the encoding of [`Collector::export`]'s XSpace to `out` as it is built, without
    /// building the XSpace (xspace_encoder.rs); returns how many bytes were written.
    pub fn write_xspace_to(
        &self,
        end_gputime_ns: u64,
        options: &ExportOptions,
        out: impl std::io::Write,
    ) -> std::io::Result<u64> {
        self.with_collected(|trace| {
            let mut encoder = XSpaceEncoder::new(out);
            export_into(trace, end_gputime_ns, options, &mut encoder);
            encoder.finish()
        })
    }

    /// [`Collector::export`]'s XSpace handed to `sink` as it is built (xspace_sink.rs);
    /// returns which stream or queue each device line shows.
    pub fn export_into_sink(
        &self,
        end_gputime_ns: u64,
        options: &ExportOptions,
        sink: &mut impl XSpaceSink,
    ) -> Vec<Lane> {
        self.with_collected(|trace| export_into(trace, end_gputime_ns, options, sink))
    }

    /// [`Collector::export`] and [`Collector::lanes`] from one build of the XSpace.
    pub fn export_with_lanes(
        &self,
        end_gputime_ns: u64,
        options: &ExportOptions,
    ) -> (XSpace, Vec<Lane>) {
        self.with_collected(|trace| build_xspace_with_lanes(trace, end_gputime_ns, options))
    }
}

/// Which of the trace's lists an exported event is kept in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum List {
    /// The joined events of a device ordinal.
    Device(u32),
    /// HIP copy calls the CPU did.
    HostOnly,
    /// ROCTx ranges and marks.
    Markers,
}

/// One event on its way to a line: where the trace keeps it, not a copy of it, so that a
/// line of a million events costs 12 MB on its way (docs/ARCHITECTURE.md#collected-event-memory).
#[derive(Copy, Clone, Debug)]
struct Placed {
    list: List,
    index: u32,
}

/// The events of an export, read in place from the collected trace.
struct Events<'a> {
    trace: &'a CollectedTrace,
    /// The joined events of each device ordinal below `num_gpus`.
    devices: Vec<Option<&'a EventLog>>,
    /// What the occupancy model needs of each device ordinal with a known agent.
    kernel_devices: Vec<Option<KernelDevice>>,
    /// The `copy_done_by` stat of a HIP copy call without a device record: "CPU", or
    /// "unknown" under indirect dispatch.
    copy_done_by: &'static str,
}

impl<'a> Events<'a> {
    fn new(trace: &'a CollectedTrace, copy_done_by: &'static str) -> Events<'a> {
        let ordinals = 0..trace.options.num_gpus;
        Events {
            trace,
            devices: ordinals.clone().map(|o| trace.devices.get(&o)).collect(),
            kernel_devices: ordinals
                .map(|ordinal| {
                    trace
                        .gpu_agents
                        .get(ordinal as usize)
                        .map(|agent| KernelDevice {
                            gfx_target_version: agent.gfx_target_version,
                            cu_count: agent.cu_count,
                        })
                })
                .collect(),
            copy_done_by,
        }
    }

    /// The joined events of a device that events were placed from.
    #[inline]
    fn log(&self, ordinal: u32) -> &'a EventLog {
        self.devices[ordinal as usize].expect("a placed event's device has a log")
    }

    /// A device's joined event, read in place.
    #[inline]
    fn logged(&self, ordinal: u32, index: u32) -> LoggedEvent<'a> {
        self.log(ordinal).get(index as usize, &self.trace.strings)
    }

    /// The event, as the tracer sent it (joined events are rebuilt from their stored form).
    fn event(&self, placed: Placed) -> Cow<'a, RocmTracerEvent> {
        match placed.list {
            List::Device(ordinal) => Cow::Owned(self.logged(ordinal, placed.index).to_event()),
            List::HostOnly => Cow::Borrowed(&self.trace.host_only[placed.index as usize]),
            List::Markers => Cow::Borrowed(&self.trace.markers[placed.index as usize]),
        }
    }

    /// What lane assignment reads: `(start, stream, queue, type)`, without rebuilding the
    /// event.
    fn key(&self, placed: Placed) -> EventKey {
        let plain = |event: &RocmTracerEvent| EventKey {
            start_time_ns: event.start_time_ns,
            stream_id: event.stream_id,
            queue_id: event.queue_id,
            event_type: event.event_type,
        };
        match placed.list {
            List::Device(ordinal) => {
                let event = self.logged(ordinal, placed.index);
                EventKey {
                    start_time_ns: event.start_time_ns(),
                    stream_id: event.stream_id(),
                    queue_id: event.queue_id(),
                    event_type: event.event_type(),
                }
            }
            List::HostOnly => plain(&self.trace.host_only[placed.index as usize]),
            List::Markers => plain(&self.trace.markers[placed.index as usize]),
        }
    }

    /// `(start, end)`: where the event sits on its line.
    #[inline]
    fn times(&self, placed: Placed) -> (u64, u64) {
        let plain = |event: &RocmTracerEvent| (event.start_time_ns, event.end_time_ns);
        match placed.list {
            List::Device(ordinal) => self.log(ordinal).times(placed.index as usize),
            List::HostOnly => plain(&self.trace.host_only[placed.index as usize]),
            List::Markers => plain(&self.trace.markers[placed.index as usize]),
        }
    }

    /// The device plane an event belongs to (`u32::MAX`: none).
    fn device_ordinal(placed: Placed) -> u32 {
        match placed.list {
            List::Device(ordinal) => ordinal,
            List::HostOnly | List::Markers => u32::MAX,
        }
    }

    /// For an event of a GPU with a known agent: what the occupancy model needs.
    fn device(&self, placed: Placed) -> Option<KernelDevice> {
        match placed.list {
            List::Device(ordinal) => self.kernel_devices[ordinal as usize],
            List::HostOnly | List::Markers => None,
        }
    }

    fn copy_done_by(&self, placed: Placed) -> Option<&'static str> {
        (placed.list == List::HostOnly).then_some(self.copy_done_by)
    }

    /// Sorting events by start (then end) keeps lines ordered whatever the arrival order
    /// was; the sort is stable, so equal times keep the collector's deterministic order.
    fn sort_by_time(&self, events: &mut [Placed]) {
        events.sort_by_key(|&placed| self.times(placed));
    }
}

/// For a copy named by its HIP call's direction: the type of its SDK record.
fn recorded_as(event: &RocmTracerEvent) -> Option<EventType> {
    if event.source == EventSource::Activity && event.event_type.is_memcpy() {
        recorded_direction(event)
    } else {
        None
    }
}

/// The fields of an event its lane depends on.
struct EventKey {
    start_time_ns: u64,
    stream_id: u64,
    queue_id: u64,
    event_type: EventType,
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

pub fn build_xspace(
    trace: &CollectedTrace,
    end_gputime_ns: u64,
    options: &ExportOptions,
) -> XSpace {
    build_xspace_with_lanes(trace, end_gputime_ns, options).0
}

/// [`build_xspace`], and which stream or queue each device line shows.
pub fn build_xspace_with_lanes(
    trace: &CollectedTrace,
    end_gputime_ns: u64,
    options: &ExportOptions,
) -> (XSpace, Vec<Lane>) {
    let mut assembler = XSpaceAssembler::default();
    let lanes = export_into(trace, end_gputime_ns, options, &mut assembler);
    (assembler.finish(), lanes)
}

/// The export of `trace` into `sink` (planes in order: host, devices, scope-range tree; then
/// the warnings). Returns which stream or queue each device line shows.
pub fn export_into<S: XSpaceSink>(
    trace: &CollectedTrace,
    end_gputime_ns: u64,
    options: &ExportOptions,
    sink: &mut S,
) -> Vec<Lane> {
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
    // Each list gets room for all of its events at once: a list that grows by doubling holds
    // up to twice its events, and both copies while it grows.
    let mut api_events_of_thread: BTreeMap<u64, usize> = BTreeMap::new();
    let mut activities_of_device: BTreeMap<u32, usize> = BTreeMap::new();
    for (&ordinal, log) in &trace.devices {
        for index in 0..log.len() {
            let event = log.get(index, &trace.strings);
            if event.source() == EventSource::ApiCallback {
                *api_events_of_thread.entry(event.thread_id()).or_default() += 1;
            } else {
                *activities_of_device.entry(ordinal).or_default() += 1;
            }
        }
    }
    let mut host_events: BTreeMap<u64, Vec<Placed>> = api_events_of_thread
        .into_iter()
        .map(|(thread, count)| (thread, Vec::with_capacity(count)))
        .collect();
    let mut events_of_device = Vec::new();
    let mut unattributed = 0u64;
    let mut all_lanes = Vec::new();

    for ordinal in 0..trace.options.num_gpus {
        let log = trace.devices.get(&ordinal);
        let activities = activities_of_device.get(&ordinal).copied().unwrap_or(0);
        let mut device_events: Vec<Placed> = Vec::with_capacity(activities);
        for index in 0..log.map_or(0, EventLog::len) {
            let Some(event) = log.map(|log| log.get(index, &trace.strings)) else {
                break;
            };
            if timeline
                .place((event.start_time_ns(), event.end_time_ns()))
                .is_none()
            {
                export_drops.add(DropReason::OutOfTimeWindow, 1);
                continue;
            }
            let placed = Placed {
                list: List::Device(ordinal),
                index: index as u32,
            };
            if event.source() == EventSource::ApiCallback {
                if event.thread_id() == RocmTracerEvent::INVALID_THREAD_ID {
                    export_drops.add(DropReason::NoLane, 1);
                } else {
                    host_events
                        .entry(event.thread_id())
                        .or_default()
                        .push(placed);
                }
            } else if event.stream_id() == RocmTracerEvent::INVALID_STREAM_ID {
                export_drops.add(DropReason::NoLane, 1);
            } else {
                if event.stream_id() == RocmTracerEvent::UNATTRIBUTED_STREAM_ID {
                    unattributed += 1;
                }
                device_events.push(placed);
            }
        }
        events_of_device.push(device_events);
    }

    // Copies the CPU did: their HIP calls, on their threads, with no device. Under indirect
    // dispatch a copy's record carries an id no call has, so a call without a record may have
    // had one: then nothing is claimed about who copied.
    let indirect_copies = trace.devices.values().any(|log| {
        (0..log.len()).any(|index| {
            let event = log.get(index, &trace.strings);
            event.stream_id() == RocmTracerEvent::UNATTRIBUTED_STREAM_ID
                && event.event_type().is_memcpy()
        })
    });
    let events = Events::new(trace, if indirect_copies { "unknown" } else { "CPU" });
    for (index, event) in trace.host_only.iter().enumerate() {
        if timeline
            .place((event.start_time_ns, event.end_time_ns))
            .is_none()
        {
            export_drops.add(DropReason::OutOfTimeWindow, 1);
            continue;
        }
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
                list: List::HostOnly,
                index: index as u32,
            });
    }

    // ROCTx ranges and marks: a line of their own right after their thread's line. Like XLA,
    // a capture without GPUs exports none (they are counted as without a device).
    let mut marker_events: BTreeMap<u64, Vec<Placed>> = BTreeMap::new();
    if trace.options.num_gpus == 0 && !trace.markers.is_empty() {
        export_drops.add(DropReason::InvalidDevice, trace.markers.len() as u64);
    }
    let markers = if trace.options.num_gpus == 0 {
        &[][..]
    } else {
        &trace.markers[..]
    };
    for (index, event) in markers.iter().enumerate() {
        if timeline
            .place((event.start_time_ns, event.end_time_ns))
            .is_none()
        {
            export_drops.add(DropReason::OutOfTimeWindow, 1);
            continue;
        }
        marker_events
            .entry(event.thread_id)
            .or_default()
            .push(Placed {
                list: List::Markers,
                index: index as u32,
            });
    }
    // A thread whose every API event was left out has no line.
    host_events.retain(|_, events| !events.is_empty());
    let total: usize = host_events
        .values()
        .chain(marker_events.values())
        .chain(&events_of_device)
        .map(Vec::len)
        .sum();
    sink.expect_events(total);

    // The planes in XSpace order: host, devices, scope-range tree.
    let threads: BTreeSet<u64> = host_events
        .keys()
        .chain(marker_events.keys())
        .copied()
        .collect();
    let mut host_plane = PlaneBuilder::new(0, HOST_PLANE_NAME);
    let mut line_builder = LineBuilder {
        sink,
        timeline: &timeline,
        events,
        stats: Vec::new(),
    };
    for thread_id in threads {
        if let Some(mut events) = host_events.remove(&thread_id) {
            line_builder.events.sort_by_time(&mut events);
            line_builder.build_line(
                &mut host_plane,
                thread_id as i64,
                &host_line_name(thread_id),
                &events,
                &[],
            );
        }
        if let Some(mut events) = marker_events.remove(&thread_id) {
            // Enclosing ranges first: ranges pushed at one instant nest outermost first.
            events.sort_by_key(|&placed| {
                let (start, end) = line_builder.events.times(placed);
                (start, std::cmp::Reverse(end))
            });
            line_builder.build_line(
                &mut host_plane,
                ROCTX_LINE_ID_BASE.saturating_add(thread_id as i64),
                &roctx_line_name(thread_id),
                &events,
                &[],
            );
        }
    }
    host_plane.finish_into(line_builder.sink);

    for (ordinal, device_events) in (0..trace.options.num_gpus).zip(events_of_device) {
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
            GroupBy::Stream => {
                add_stream_lines(&mut plane, &mut line_builder, device_events, &context)
            }
            GroupBy::Queue => {
                add_queue_lines(&mut plane, &mut line_builder, device_events, &context)
            }
        };
        all_lanes.extend(lanes);
        plane.finish_into(line_builder.sink);
    }
    // Id 0 like XLA's: it adds the plane by name and never sets an id
    // (docs/xla-interface.md#scope-range-tree).
    let sink = line_builder.sink;
    sink.finish_plane(scope_range_tree_plane(0, &trace.scope_range_tree));

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
    sink.finish_space(&[], &warnings, &[]);
    all_lanes
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
    let stream_of_lane: BTreeMap<u32, u64> = lanes
        .iter()
        .map(|(&stream, &lane)| (lane, stream))
        .collect();
    // Work no HIP call submitted has no known stream: one lane per HSA queue, and one for
    // the copies (which have no queue), after the stream lanes so line ids stay unique.
    let queues = dense_queue_numbers(
        events
            .iter()
            .map(|&placed| key(placed))
            .filter(|key| unattributed(key) && key.queue_id != 0)
            .map(|key| (key.queue_id, key.start_time_ns)),
    );
    let stream_lanes = lanes.len();
    // Groups: the stream lanes in order, then the copies without a queue, then the queues.
    let (mut grouped, starts) = group_in_order(events, stream_lanes + 1 + queues.len(), |placed| {
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
    for (lane, range) in (0u32..).zip(starts.windows(2).take(stream_lanes)) {
        if range[0] == range[1] {
            continue;
        }
        let events = &mut grouped[range[0]..range[1]];
        lines.events.sort_by_time(events);
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
    let unattributed_groups = starts.windows(2).skip(stream_lanes).enumerate();
    let mut index = 0u32;
    for (group, range) in unattributed_groups {
        if range[0] == range[1] {
            continue;
        }
        let events = &mut grouped[range[0]..range[1]];
        lines.events.sort_by_time(events);
        let queue = group.checked_sub(1).map(|queue| queue as u32);
        let name = unattributed_line_name(queue);
        let id = lane_line_id(stream_lanes as u32 + index);
        lines.build_line(plane, id, &name, events, &[]);
        index += 1;
    }
    out
}

/// `events` grouped by `group_of` (`None`: left out) into `groups` groups, in group order,
/// each group's events in their order in `events`, and where each group starts (with the end
/// last). A counting sort: the events are held twice at most, not once per grouping step.
fn group_in_order(
    events: Vec<Placed>,
    groups: usize,
    group_of: impl Fn(Placed) -> Option<usize>,
) -> (Vec<Placed>, Vec<usize>) {
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
    (grouped, starts)
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

/// `--group-by queue`: one lane per HSA queue of the device, `Queue #n` in order of first
/// work, whatever stream submitted it; copies, which run on no queue, on `Queue (copies)`.
fn add_queue_lines<S: XSpaceSink>(
    plane: &mut PlaneBuilder,
    lines: &mut LineBuilder<'_, S>,
    events: Vec<Placed>,
    context: &LaneContext<'_>,
) -> Vec<Lane> {
    let key = |placed: Placed| lines.events.key(placed);
    let queues = dense_queue_numbers(
        events
            .iter()
            .map(|&placed| key(placed))
            .filter(|key| key.queue_id != 0)
            .map(|key| (key.queue_id, key.start_time_ns)),
    );
    let queue_of_lane: BTreeMap<u32, u64> =
        queues.iter().map(|(&queue, &lane)| (lane, queue)).collect();
    let queue_lanes = queues.len();
    // Copies after the queues, so `Queue #n` is line `base + n` and lines are in lane order.
    let (mut grouped, starts) = group_in_order(events, queue_lanes + 1, |placed| {
        let lane = queues.get(&key(placed).queue_id).copied();
        Some(lane.map_or(queue_lanes, |lane| lane as usize))
    });
    let mut out = Vec::new();
    for (lane, range) in (0u32..).zip(starts.windows(2)) {
        if range[0] == range[1] {
            continue;
        }
        let events = &mut grouped[range[0]..range[1]];
        lines.events.sort_by_time(events);
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

/// Builds lines into a sink, with one stats buffer for all of their events.
struct LineBuilder<'a, S> {
    sink: &'a mut S,
    timeline: &'a Timeline,
    events: Events<'a>,
    stats: Vec<XStat>,
}

impl<S: XSpaceSink> LineBuilder<'_, S> {
    fn build_line(
        &mut self,
        plane: &mut PlaneBuilder,
        id: i64,
        name: &str,
        events: &[Placed],
        line_stats: &[(&str, String)],
    ) {
        self.sink.start_line(LineHeader {
            id,
            display_id: id,
            name,
            display_name: "",
            timestamp_ns: self.timeline.line_timestamp_ns,
            duration_ps: 0,
        });
        let stats = &mut self.stats;
        // The last event name and its metadata id: a line's events mostly share names, and
        // the names live in the trace for the whole call, so an equal address and length is
        // an equal name.
        let mut last_name: Option<(*const u8, usize, i64)> = None;
        for &placed in events {
            let event = self.events.event(placed);
            let Some(placement) = self
                .timeline
                .place((event.start_time_ns, event.end_time_ns))
            else {
                // Events outside the window were counted and left out before.
                continue;
            };
            let metadata_name = if event.name.is_empty() {
                event.event_type.name()
            } else {
                &event.name
            };
            let metadata_id = match last_name {
                Some((address, len, id))
                    if address == metadata_name.as_ptr() && len == metadata_name.len() =>
                {
                    id
                }
                _ => {
                    let id = plane.event_metadata_id(metadata_name);
                    last_name = Some((metadata_name.as_ptr(), metadata_name.len(), id));
                    id
                }
            };
            stats.clear();
            event_stats(
                plane,
                &event,
                Events::device_ordinal(placed),
                self.events.device(placed),
                stats,
            );
            if let Some(recorded_as) = recorded_as(&event) {
                stats.push(plane.ref_stat(RECORDED_DIRECTION_STAT, recorded_as.name()));
            }
            if let Some(copy_done_by) = self.events.copy_done_by(placed) {
                stats.push(plane.ref_stat(COPY_DONE_BY_STAT, copy_done_by));
            }
            for (stat, value) in line_stats {
                stats.push(plane.ref_stat(stat, value));
            }
            plane.tell_names(self.sink);
            self.sink.add_event(EventView {
                metadata_id,
                data: Some(x_event::Data::OffsetPs(placement.offset_ps)),
                duration_ps: placement.duration_ps,
                stats,
            });
        }
    }
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
