//! Which `/device:GPU:<i>` plane an event belongs to (docs/xla-interface.md#device-numbering).
use std::collections::BTreeMap;

use super::drops::{DropCounters, DropReason};
use crate::event::{EventSource, RocmTracerEvent};
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

    pub(crate) fn by_minimum_handle(events: &[RocmTracerEvent]) -> DeviceNumbering {
        let minimum = events
            .iter()
            .map(|event| event.device_id)
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

/// Moves events one by one to the list of their device, counting those without a valid one.
/// HIP copy calls the CPU did (API events of a copy without a device) go to the host-only list.
pub(super) struct DevicePlacement<'a> {
    numbering: &'a DeviceNumbering,
    num_gpus: u32,
    per_device: &'a mut BTreeMap<u32, Vec<RocmTracerEvent>>,
    host_only: &'a mut Vec<RocmTracerEvent>,
    invalid_device: u64,
}

impl<'a> DevicePlacement<'a> {
    pub(crate) fn new(
        numbering: &'a DeviceNumbering,
        num_gpus: u32,
        per_device: &'a mut BTreeMap<u32, Vec<RocmTracerEvent>>,
        host_only: &'a mut Vec<RocmTracerEvent>,
    ) -> DevicePlacement<'a> {
        DevicePlacement {
            numbering,
            num_gpus,
            per_device,
            host_only,
            invalid_device: 0,
        }
    }

    pub(crate) fn place(&mut self, event: RocmTracerEvent) {
        if event.source == EventSource::ApiCallback
            && event.device_id == RocmTracerEvent::INVALID_DEVICE_ID
            && event.event_type.is_memcpy()
        {
            self.host_only.push(event);
            return;
        }
        match self.numbering.ordinal(event.device_id, self.num_gpus) {
            Some(ordinal) => self.per_device.entry(ordinal).or_default().push(event),
            None => self.invalid_device += 1,
        }
    }

    /// Counts the events that had no valid device as drops.
    pub(crate) fn finish(self, drops: &mut DropCounters) {
        drops.add(DropReason::InvalidDevice, self.invalid_device);
    }
}
