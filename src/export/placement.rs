//! Which line each collected event goes on (docs/xla-interface.md#planes-and-lines), and what is
//! left out and counted: a HIP API call on its host thread's line, a GPU activity on its
//! device (its lane is chosen in device_lanes.rs), a HIP copy the CPU did on its thread's line
//! only, a ROCTx range or mark on its thread's ROCTx line. Events outside the capture window
//! or without a lane are counted by reason, and the warnings of the trace are written here.
//! A placed event is a 12-byte handle to where the trace keeps it, read in place by [`Events`]
//! (docs/ARCHITECTURE.md#collected-event-memory).
use std::borrow::Cow;
use std::collections::BTreeMap;

use super::event_stats::KernelDevice;
use super::timeline::Timeline;
use crate::collector::{CollectedTrace, DropCounters, DropReason, EventLog, LoggedEvent};
use crate::event::{EventSource, EventType, RocmTracerEvent};

/// Which of the trace's lists an exported event is kept in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum List {
    /// The joined events of a device ordinal.
    Device(u32),
    /// HIP copy calls the CPU did.
    HostOnly,
    /// ROCTx ranges and marks.
    Markers,
    /// The ends of the stream waits' flows (flows.rs), each on a device.
    FlowEnds,
}

/// One event on its way to a line: where the trace keeps it, not a copy of it, so that a
/// line of a million events costs 12 MB on its way (docs/ARCHITECTURE.md#collected-event-memory).
#[derive(Copy, Clone, Debug)]
pub(super) struct Placed {
    pub(super) list: List,
    pub(super) index: u32,
}

/// One end of a stream wait's flow (flows.rs): a zero-length event on a device lane, and its
/// `flow` stat.
pub(super) struct FlowEnd {
    pub(super) device_ordinal: u32,
    pub(super) event: RocmTracerEvent,
    pub(super) flow: u64,
}

/// The events of an export, read in place from the collected trace.
pub(super) struct Events<'a> {
    trace: &'a CollectedTrace,
    /// The joined events of each device ordinal below `num_gpus`.
    devices: Vec<Option<&'a EventLog>>,
    /// What the occupancy model needs of each device ordinal with a known agent.
    kernel_devices: Vec<Option<KernelDevice>>,
    /// The `copy_done_by` stat of a HIP copy call without a device record: "CPU", or
    /// "unknown" under indirect dispatch.
    copy_done_by: &'static str,
    /// The ends of the stream waits' flows.
    flow_ends: Vec<FlowEnd>,
}

impl<'a> Events<'a> {
    pub(super) fn new(trace: &'a CollectedTrace, copy_done_by: &'static str) -> Events<'a> {
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
            flow_ends: Vec::new(),
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
    pub(super) fn event(&self, placed: Placed) -> Cow<'a, RocmTracerEvent> {
        match placed.list {
            List::Device(ordinal) => Cow::Owned(self.logged(ordinal, placed.index).to_event()),
            List::HostOnly => Cow::Borrowed(&self.trace.host_only[placed.index as usize]),
            List::Markers => Cow::Borrowed(&self.trace.markers[placed.index as usize]),
            List::FlowEnds => Cow::Owned(self.flow_ends[placed.index as usize].event.clone()),
        }
    }

    /// The `flow` stat of a flow's end (flows.rs); other events carry none of ours.
    pub(super) fn flow_stat(&self, placed: Placed) -> Option<u64> {
        (placed.list == List::FlowEnds).then(|| self.flow_ends[placed.index as usize].flow)
    }

    /// What lane assignment reads: `(start, stream, queue, type)`, without rebuilding the
    /// event.
    pub(super) fn key(&self, placed: Placed) -> EventKey {
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
            List::FlowEnds => plain(&self.flow_ends[placed.index as usize].event),
        }
    }

    /// The event's correlation id (its HIP call's, the order calls were entered in).
    pub(super) fn correlation_id(&self, placed: Placed) -> u64 {
        match placed.list {
            List::Device(ordinal) => self.logged(ordinal, placed.index).correlation_id(),
            List::HostOnly => self.trace.host_only[placed.index as usize].correlation_id,
            List::Markers => self.trace.markers[placed.index as usize].correlation_id,
            List::FlowEnds => RocmTracerEvent::INVALID_CORRELATION_ID,
        }
    }

    /// `(start, end)`: where the event sits on its line.
    #[inline]
    pub(super) fn times(&self, placed: Placed) -> (u64, u64) {
        let plain = |event: &RocmTracerEvent| (event.start_time_ns, event.end_time_ns);
        match placed.list {
            List::Device(ordinal) => self.log(ordinal).times(placed.index as usize),
            List::HostOnly => plain(&self.trace.host_only[placed.index as usize]),
            List::Markers => plain(&self.trace.markers[placed.index as usize]),
            List::FlowEnds => plain(&self.flow_ends[placed.index as usize].event),
        }
    }

    /// The device plane an event belongs to (`u32::MAX`: none).
    pub(super) fn device_ordinal(&self, placed: Placed) -> u32 {
        match placed.list {
            List::Device(ordinal) => ordinal,
            List::FlowEnds => self.flow_ends[placed.index as usize].device_ordinal,
            List::HostOnly | List::Markers => u32::MAX,
        }
    }

    /// For an event of a GPU with a known agent: what the occupancy model needs.
    pub(super) fn device(&self, placed: Placed) -> Option<KernelDevice> {
        match placed.list {
            List::Device(ordinal) => self.kernel_devices[ordinal as usize],
            List::HostOnly | List::Markers | List::FlowEnds => None,
        }
    }

    pub(super) fn copy_done_by(&self, placed: Placed) -> Option<&'static str> {
        (placed.list == List::HostOnly).then_some(self.copy_done_by)
    }

    /// Sorting events by start (then end) keeps lines ordered whatever the arrival order
    /// was; the sort is stable, so equal times keep the collector's deterministic order.
    pub(super) fn sort_by_time(&self, events: &mut [Placed]) {
        events.sort_by_key(|&placed| self.times(placed));
    }
}

/// The fields of an event its lane depends on.
pub(super) struct EventKey {
    pub(super) start_time_ns: u64,
    pub(super) stream_id: u64,
    pub(super) queue_id: u64,
    pub(super) event_type: EventType,
}

/// The events of an export, each placed on its way to a line.
pub(super) struct PlacedEvents<'a> {
    /// The placed events, read in place.
    pub(super) events: Events<'a>,
    /// The HIP API calls and CPU copies of each host thread with any.
    pub(super) host_threads: BTreeMap<u64, Vec<Placed>>,
    /// The ROCTx ranges and marks of each thread.
    pub(super) roctx_threads: BTreeMap<u64, Vec<Placed>>,
    /// The activities of each device ordinal below `num_gpus`.
    pub(super) devices: Vec<Vec<Placed>>,
    /// What the export left out, by reason (the trace's warnings count them: [`warnings`]).
    pub(super) drops: DropCounters,
    /// How many activities no HIP API call submitted.
    pub(super) unattributed: u64,
}

impl PlacedEvents<'_> {
    /// Places the ends of the stream waits' flows, each on its device.
    pub(super) fn add_flow_ends(&mut self, ends: Vec<FlowEnd>) {
        for (index, end) in ends.iter().enumerate() {
            self.devices[end.device_ordinal as usize].push(Placed {
                list: List::FlowEnds,
                index: index as u32,
            });
        }
        self.events.flow_ends = ends;
    }

    /// How many events the lines will hold.
    pub(super) fn count(&self) -> usize {
        self.host_threads
            .values()
            .chain(self.roctx_threads.values())
            .chain(&self.devices)
            .map(Vec::len)
            .sum()
    }
}

/// Places every event of `trace` that `timeline` shows.
pub(super) fn place_events<'a>(trace: &'a CollectedTrace, timeline: &Timeline) -> PlacedEvents<'a> {
    let mut drops = DropCounters::default();
    let (mut host_threads, devices, unattributed) = place_joined(trace, timeline, &mut drops);
    // Under indirect dispatch a copy's record carries an id no call has, so a call without a
    // record may have had one: then nothing is claimed about who copied.
    let indirect_copies = trace.devices.values().any(|log| {
        (0..log.len()).any(|index| {
            let event = log.get(index, &trace.strings);
            event.stream_id() == RocmTracerEvent::UNATTRIBUTED_STREAM_ID
                && event.event_type().is_memcpy()
        })
    });
    let events = Events::new(trace, if indirect_copies { "unknown" } else { "CPU" });
    // Copies the CPU did: their HIP calls, on their threads, with no device.
    place_on_threads(
        &trace.host_only,
        List::HostOnly,
        timeline,
        &mut drops,
        &mut host_threads,
        |event, drops| {
            if event.thread_id == RocmTracerEvent::INVALID_THREAD_ID {
                drops.add(DropReason::NoLane, 1);
                return false;
            }
            if !indirect_copies {
                drops.add(DropReason::CopyDoneByCpu, 1);
            }
            true
        },
    );
    // ROCTx ranges and marks: a line of their own right after their thread's line. Like XLA,
    // a capture without GPUs exports none (they are counted as without a device).
    let mut roctx_threads = BTreeMap::new();
    if trace.options.num_gpus == 0 {
        drops.add(DropReason::InvalidDevice, trace.markers.len() as u64);
    } else {
        place_on_threads(
            &trace.markers,
            List::Markers,
            timeline,
            &mut drops,
            &mut roctx_threads,
            |_, _| true,
        );
    }
    // A thread whose every API event was left out has no line.
    host_threads.retain(|_, events| !events.is_empty());
    PlacedEvents {
        events,
        host_threads,
        roctx_threads,
        devices,
        drops,
        unattributed,
    }
}

/// The joined events: each HIP API call on its thread, each activity on its device. Returns
/// the threads, the devices, and how many activities no HIP API call submitted.
fn place_joined(
    trace: &CollectedTrace,
    timeline: &Timeline,
    drops: &mut DropCounters,
) -> (BTreeMap<u64, Vec<Placed>>, Vec<Vec<Placed>>, u64) {
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
    let mut host_threads: BTreeMap<u64, Vec<Placed>> = api_events_of_thread
        .into_iter()
        .map(|(thread, count)| (thread, Vec::with_capacity(count)))
        .collect();
    let mut devices = Vec::new();
    let mut unattributed = 0u64;
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
                drops.add(DropReason::OutOfTimeWindow, 1);
                continue;
            }
            let placed = Placed {
                list: List::Device(ordinal),
                index: index as u32,
            };
            if event.source() == EventSource::ApiCallback {
                if event.thread_id() == RocmTracerEvent::INVALID_THREAD_ID {
                    drops.add(DropReason::NoLane, 1);
                } else {
                    host_threads
                        .entry(event.thread_id())
                        .or_default()
                        .push(placed);
                }
            } else if event.stream_id() == RocmTracerEvent::INVALID_STREAM_ID {
                drops.add(DropReason::NoLane, 1);
            } else {
                if event.stream_id() == RocmTracerEvent::UNATTRIBUTED_STREAM_ID {
                    unattributed += 1;
                }
                device_events.push(placed);
            }
        }
        devices.push(device_events);
    }
    (host_threads, devices, unattributed)
}

/// The events of `list` on their threads' lines in `threads`: those `timeline` shows and
/// `placeable` keeps (it counts what it leaves out); the others are counted.
fn place_on_threads(
    events: &[RocmTracerEvent],
    list: List,
    timeline: &Timeline,
    drops: &mut DropCounters,
    threads: &mut BTreeMap<u64, Vec<Placed>>,
    placeable: impl Fn(&RocmTracerEvent, &mut DropCounters) -> bool,
) {
    for (index, event) in events.iter().enumerate() {
        if timeline
            .place((event.start_time_ns, event.end_time_ns))
            .is_none()
        {
            drops.add(DropReason::OutOfTimeWindow, 1);
        } else if placeable(event, drops) {
            let index = index as u32;
            threads
                .entry(event.thread_id)
                .or_default()
                .push(Placed { list, index });
        }
    }
}

/// The trace's warnings: the collector's drop counts merged with the export's, the note on
/// CPU copies, the warning on unattributed work, then the tracer's warnings.
pub(super) fn warnings(
    trace: &CollectedTrace,
    export_drops: &DropCounters,
    unattributed: u64,
) -> Vec<String> {
    let mut drops = trace.drops.clone();
    drops.merge(export_drops);
    let mut warnings = drops.warnings();
    let cpu_copies = drops.count(DropReason::CopyDoneByCpu);
    if cpu_copies > 0 {
        warnings.push(cpu_copies_note(cpu_copies));
    }
    if unattributed > 0 {
        warnings.push(unattributed_warning(unattributed));
    }
    warnings.extend(trace.warnings.iter().cloned());
    warnings
}

/// The trace note for HIP copy calls the CPU did (not a loss: nothing was recorded).
fn cpu_copies_note(count: u64) -> String {
    let (calls, have, they) = if count == 1 {
        ("call", "has", "it is")
    } else {
        ("calls", "have", "they are")
    };
    format!(
        "{count} HIP copy {calls} {have} no device record: {}; {they} shown on {} host \
         thread{} only",
        DropReason::CopyDoneByCpu.describe(),
        if count == 1 { "its" } else { "their" },
        if count == 1 { "" } else { "s" },
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
