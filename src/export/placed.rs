//! A placed event: a 12-byte handle to where the collected trace keeps an exported event, and
//! the view that reads placed events in place (docs/ARCHITECTURE.md#collected-event-memory).
//! Where each event is placed is decided in placement.rs.
use std::borrow::Cow;

use super::event_stats::KernelDevice;
use crate::collector::{CollectedTrace, EventLog, LoggedEvent};
use crate::event::{EventType, RocmTracerEvent};

/// Which of the trace's lists an exported event is kept in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum List {
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
pub(super) struct Placed {
    pub(super) list: List,
    pub(super) index: u32,
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
        }
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
        }
    }

    /// The device plane an event belongs to (`u32::MAX`: none).
    pub(super) fn device_ordinal(placed: Placed) -> u32 {
        match placed.list {
            List::Device(ordinal) => ordinal,
            List::HostOnly | List::Markers => u32::MAX,
        }
    }

    /// For an event of a GPU with a known agent: what the occupancy model needs.
    pub(super) fn device(&self, placed: Placed) -> Option<KernelDevice> {
        match placed.list {
            List::Device(ordinal) => self.kernel_devices[ordinal as usize],
            List::HostOnly | List::Markers => None,
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
