//! Which `/device:GPU:<i>` plane an event belongs to (docs/xla-interface.md#device-numbering).
use std::collections::BTreeMap;

use super::drops::{DropCounters, DropReason};
use super::event_log::EventLog;
use super::stored_event::SessionStrings;
use crate::event::{EventDetails, EventSource, RocmTracerEvent};
use crate::gpu_agent::GpuAgentInfo;

/// Turns event device ids (agent handles truncated to 32 bits) into ordinals `< num_gpus`.
///
/// With the GPU agents known, a handle maps to its agent's position in the list: a capture
/// that used only the second GPU is shown as GPU 1. XLA instead subtracts the smallest handle
/// seen in the capture, which shows it as GPU 0 (docs/xla-interface.md#xla-edge-16); that rule remains the
/// fallback when no agents were given.
pub(super) enum DeviceNumbering {
    ByAgentHandle(Vec<u32>),
    ByMinimumHandle(Option<u32>),
}

impl DeviceNumbering {
    pub(crate) fn by_agents(agents: &[GpuAgentInfo]) -> DeviceNumbering {
        // The tracer stores `(uint32_t)handle` in events (docs/xla-interface.md#event-fields), so compare truncated.
        DeviceNumbering::ByAgentHandle(agents.iter().map(|agent| agent.handle as u32).collect())
    }

    /// `device_ids`: those of every joined event.
    pub(crate) fn by_minimum_handle(device_ids: impl Iterator<Item = u32>) -> DeviceNumbering {
        let minimum = device_ids
            .filter(|&id| id != RocmTracerEvent::INVALID_DEVICE_ID)
            .min();
        DeviceNumbering::ByMinimumHandle(minimum)
    }

    pub(crate) fn ordinal(&self, device_id: u32, num_gpus: u32) -> Option<u32> {
        if device_id == RocmTracerEvent::INVALID_DEVICE_ID {
            return None;
        }
        let ordinal = match self {
            DeviceNumbering::ByAgentHandle(handles) => {
                handles.iter().position(|&handle| handle == device_id)? as u32
            }
            DeviceNumbering::ByMinimumHandle(minimum) => device_id.checked_sub((*minimum)?)?,
        };
        (ordinal < num_gpus).then_some(ordinal)
    }
}

/// Stores events one by one in the log of their device, counting those without a valid one.
/// HIP copy calls the CPU did (API events of a copy without a device) go to the host-only list.
pub(super) struct DevicePlacement<'a> {
    numbering: &'a DeviceNumbering,
    num_gpus: u32,
    per_device: &'a mut BTreeMap<u32, EventLog>,
    strings: &'a mut SessionStrings,
    host_only: &'a mut Vec<RocmTracerEvent>,
    invalid_device: u64,
    /// The logs of the devices this flush placed events on, taken out of `per_device` until
    /// [`DevicePlacement::finish`]. A capture has a few devices and consecutive events mostly
    /// share one, so placing an event is a comparison and a push, not a tree search.
    logs: Vec<(u32, EventLog)>,
    /// The device id of the event placed last and the index of its log in `logs`.
    last: Option<(u32, usize)>,
}

impl<'a> DevicePlacement<'a> {
    pub(crate) fn new(
        numbering: &'a DeviceNumbering,
        num_gpus: u32,
        per_device: &'a mut BTreeMap<u32, EventLog>,
        strings: &'a mut SessionStrings,
        host_only: &'a mut Vec<RocmTracerEvent>,
    ) -> DevicePlacement<'a> {
        DevicePlacement {
            numbering,
            num_gpus,
            per_device,
            strings,
            host_only,
            invalid_device: 0,
            logs: Vec::new(),
            last: None,
        }
    }

    #[inline]
    pub(crate) fn place(&mut self, mut event: RocmTracerEvent) {
        if let EventDetails::Memcpy(details) = &mut event.details {
            details.destination = self.destination_ordinal(details.destination, event.device_id);
        }
        if event.source == EventSource::ApiCallback
            && event.device_id == RocmTracerEvent::INVALID_DEVICE_ID
            && event.event_type.is_memcpy()
        {
            self.host_only.push(event);
            return;
        }
        let index = match self.last {
            Some((device_id, index)) if device_id == event.device_id => index,
            _ => match self.log_of(event.device_id) {
                Some(index) => index,
                None => {
                    self.invalid_device += 1;
                    return;
                }
            },
        };
        self.logs[index].1.push(&event, self.strings);
    }

    /// A copy's `dest` as CUPTI writes it: the ordinal of the destination GPU, numbered as the
    /// planes are; a copy into host memory names the GPU that did it (docs/xla-interface.md#copy-details).
    fn destination_ordinal(&self, destination: u32, device_id: u32) -> u32 {
        let ordinal = |id| self.numbering.ordinal(id, self.num_gpus);
        ordinal(destination)
            .or_else(|| ordinal(device_id))
            .unwrap_or(0)
    }

    /// The index in `logs` of the log of `device_id`'s device, if it has a valid ordinal.
    fn log_of(&mut self, device_id: u32) -> Option<usize> {
        let ordinal = self.numbering.ordinal(device_id, self.num_gpus)?;
        let index = match self.logs.iter().position(|&(known, _)| known == ordinal) {
            Some(index) => index,
            None => {
                // Events of earlier flushes stay first.
                let log = self.per_device.remove(&ordinal).unwrap_or_default();
                self.logs.push((ordinal, log));
                self.logs.len() - 1
            }
        };
        self.last = Some((device_id, index));
        Some(index)
    }

    /// Puts the logs back, and counts the events that had no valid device as drops.
    pub(crate) fn finish(self, drops: &mut DropCounters) {
        drops.add(DropReason::InvalidDevice, self.invalid_device);
        self.per_device.extend(self.logs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn activity(device_id: u32, correlation_id: u64) -> RocmTracerEvent {
        RocmTracerEvent {
            source: EventSource::Activity,
            device_id,
            correlation_id,
            ..RocmTracerEvent::default()
        }
    }

    #[test]
    fn interleaved_devices_keep_their_order_after_earlier_flushes() {
        let numbering = DeviceNumbering::ByAgentHandle(vec![10, 20]);
        let mut per_device = BTreeMap::new();
        let mut strings = SessionStrings::default();
        let mut host_only = Vec::new();
        let mut drops = DropCounters::default();
        for flush in 0..2u64 {
            let mut placement =
                DevicePlacement::new(&numbering, 2, &mut per_device, &mut strings, &mut host_only);
            for (i, device) in [20, 10, 10, 20, 99, 20].into_iter().enumerate() {
                placement.place(activity(device, flush * 10 + i as u64));
            }
            placement.finish(&mut drops);
        }
        let ids = |ordinal: u32| -> Vec<u64> {
            per_device[&ordinal]
                .events(&strings)
                .map(|event| event.correlation_id)
                .collect()
        };
        assert_eq!(ids(0), [1, 2, 11, 12]);
        assert_eq!(ids(1), [0, 3, 5, 10, 13, 15]);
        assert_eq!(drops.count(DropReason::InvalidDevice), 2);
        assert!(host_only.is_empty());
    }
}
