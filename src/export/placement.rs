//! Which line each collected event goes on (docs/xla-interface.md#planes-and-lines), and what is
//! left out and counted: a HIP API call on its host thread's line, a GPU activity on its
//! device (its lane is chosen in device_lanes.rs), a HIP copy the CPU did on its thread's line
//! only, a ROCTx range or mark on its thread's ROCTx line. Events outside the capture window
//! or without a lane are counted by reason, and the warnings of the trace are written here.
use std::collections::BTreeMap;

use super::placed::{Events, List, Placed};
use super::timeline::Timeline;
use crate::collector::{CollectedTrace, DropCounters, DropReason, EventLog};
use crate::event::{EventSource, RocmTracerEvent};

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
    /// The trace's warnings: the collector's drops and the export's, then its notes.
    pub(super) warnings: Vec<String>,
}

impl PlacedEvents<'_> {
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
    place_cpu_copies(
        trace,
        timeline,
        indirect_copies,
        &mut host_threads,
        &mut drops,
    );
    let roctx_threads = place_roctx(trace, timeline, &mut drops);
    // A thread whose every API event was left out has no line.
    host_threads.retain(|_, events| !events.is_empty());
    PlacedEvents {
        events: Events::new(trace, if indirect_copies { "unknown" } else { "CPU" }),
        host_threads,
        roctx_threads,
        devices,
        warnings: warnings(trace, &drops, unattributed),
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

/// Copies the CPU did: their HIP calls, on their threads, with no device; counted as
/// [`DropReason::CopyDoneByCpu`] unless `indirect_copies` leaves the copier unknown.
fn place_cpu_copies(
    trace: &CollectedTrace,
    timeline: &Timeline,
    indirect_copies: bool,
    host_threads: &mut BTreeMap<u64, Vec<Placed>>,
    drops: &mut DropCounters,
) {
    for (index, event) in trace.host_only.iter().enumerate() {
        if timeline
            .place((event.start_time_ns, event.end_time_ns))
            .is_none()
        {
            drops.add(DropReason::OutOfTimeWindow, 1);
            continue;
        }
        if event.thread_id == RocmTracerEvent::INVALID_THREAD_ID {
            drops.add(DropReason::NoLane, 1);
            continue;
        }
        if !indirect_copies {
            drops.add(DropReason::CopyDoneByCpu, 1);
        }
        host_threads
            .entry(event.thread_id)
            .or_default()
            .push(Placed {
                list: List::HostOnly,
                index: index as u32,
            });
    }
}

/// ROCTx ranges and marks, by thread: a line of their own right after their thread's line.
/// Like XLA, a capture without GPUs exports none (they are counted as without a device).
fn place_roctx(
    trace: &CollectedTrace,
    timeline: &Timeline,
    drops: &mut DropCounters,
) -> BTreeMap<u64, Vec<Placed>> {
    let mut roctx_threads: BTreeMap<u64, Vec<Placed>> = BTreeMap::new();
    if trace.options.num_gpus == 0 {
        drops.add(DropReason::InvalidDevice, trace.markers.len() as u64);
        return roctx_threads;
    }
    for (index, event) in trace.markers.iter().enumerate() {
        if timeline
            .place((event.start_time_ns, event.end_time_ns))
            .is_none()
        {
            drops.add(DropReason::OutOfTimeWindow, 1);
            continue;
        }
        roctx_threads
            .entry(event.thread_id)
            .or_default()
            .push(Placed {
                list: List::Markers,
                index: index as u32,
            });
    }
    roctx_threads
}

/// The trace's warnings: the collector's drop counts merged with the export's, the note on
/// CPU copies, the warning on unattributed work, then the tracer's warnings.
fn warnings(trace: &CollectedTrace, export_drops: &DropCounters, unattributed: u64) -> Vec<String> {
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
