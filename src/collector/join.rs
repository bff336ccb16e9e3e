//! XLA's `ApiActivityInfoExchange` (xla-rocm-tracer.md §6.2 step 1): HIP API events and GPU
//! activities meet by correlation id and lend each other what the other lacks.
use std::collections::{BTreeMap, BTreeSet};

use smallvec::SmallVec;

use super::drops::{DropCounters, DropReason};
use crate::event::{EventDetails, EventType, RocmTracerEvent};

/// Events waiting for their counterpart, keyed by correlation id. BTreeMaps, not hash maps,
/// so the joined order (and with it everything exported) is the same on every run (XLA's
/// hash-map order made "Stream #0" vary between runs, rough edge §7.17).
#[derive(Default)]
pub(super) struct PendingEvents {
    pub api: BTreeMap<u64, RocmTracerEvent>,
    pub auxiliary_api: BTreeMap<u64, RocmTracerEvent>,
    /// Every activity of an id is kept: a hipGraph launch has many (openxla/xla#42879). Most
    /// ids have exactly one, kept inline: a `Vec` would allocate room for four.
    pub activities: BTreeMap<u64, SmallVec<[RocmTracerEvent; 1]>>,
}

impl PendingEvents {
    pub fn is_empty(&self) -> bool {
        self.api.is_empty() && self.auxiliary_api.is_empty() && self.activities.is_empty()
    }
}

fn is_kept_api_type(event_type: EventType) -> bool {
    event_type.is_memcpy()
        || matches!(
            event_type,
            EventType::Kernel
                | EventType::Memset
                | EventType::MemoryAlloc
                | EventType::MemoryFree
                | EventType::Synchronization
        )
}

/// Joins and empties `pending`: API events first, then activities, each in correlation-id
/// order (activities of one id in arrival order).
pub(super) fn join_api_and_activities(
    pending: &mut PendingEvents,
    drops: &mut DropCounters,
) -> Vec<RocmTracerEvent> {
    // API events take device, stream and details from the first activity of their id.
    for (correlation_id, api_event) in pending.api.iter_mut() {
        let Some(first) = pending
            .activities
            .get(correlation_id)
            .and_then(|list| list.first())
        else {
            continue;
        };
        api_event.device_id = first.device_id;
        api_event.stream_id = first.stream_id;
        let takes_details = match first.details {
            EventDetails::Kernel(_) => api_event.event_type == EventType::Kernel,
            EventDetails::Memcpy(_) => api_event.event_type.is_memcpy(),
            _ => false,
        };
        if takes_details {
            api_event.details = first.details;
        }
    }

    let mut joined = Vec::with_capacity(pending.api.len() + pending.activities.len());
    let ids_with_activity: BTreeSet<u64> = pending.activities.keys().copied().collect();
    let mut joined_activities = Vec::new();
    for (correlation_id, activities) in std::mem::take(&mut pending.activities) {
        let api_event = pending
            .api
            .get(&correlation_id)
            .or_else(|| pending.auxiliary_api.get(&correlation_id));
        let Some(api_event) = api_event else {
            drops.add(DropReason::NoApiCounterpart, activities.len() as u64);
            continue;
        };
        for mut activity in activities {
            match activity.event_type {
                // Deliberate change from XLA (rough edge §7.15): a dispatch keeps its own grid
                // and block sizes, so the kernels of one hipGraph launch are not all given the
                // first kernel's. The API event's details only fill in a dispatch that has none.
                EventType::Kernel
                    if !matches!(activity.details, EventDetails::Kernel(_))
                        && matches!(api_event.details, EventDetails::Kernel(_)) =>
                {
                    activity.details = api_event.details;
                }
                EventType::Memset => {
                    if let EventDetails::Memset(_) = api_event.details {
                        activity.details = api_event.details;
                    }
                }
                EventType::MemoryAlloc | EventType::MemoryFree | EventType::Synchronization => {
                    activity.device_id = api_event.device_id;
                }
                _ => {}
            }
            joined_activities.push(activity);
        }
    }

    for (correlation_id, api_event) in std::mem::take(&mut pending.api) {
        if ids_with_activity.contains(&correlation_id) && is_kept_api_type(api_event.event_type) {
            joined.push(api_event);
        } else {
            drops.add(DropReason::ApiWithoutActivity, 1);
        }
    }
    pending.auxiliary_api.clear();
    joined.extend(joined_activities);
    joined
}
