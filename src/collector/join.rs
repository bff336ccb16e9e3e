//! XLA's `ApiActivityInfoExchange` (docs/xla-interface.md#join): HIP API events and GPU
//! activities meet by correlation id and lend each other what the other lacks.
use super::id_set::IdSet;

use super::arrival_log::ArrivalLog;
use super::copies::{self, CopyPieces};
use super::drops::{DropCounters, DropReason};
use super::stored_event::{PendingEvent, SessionStrings};
use crate::event::{EventDetails, EventSource, EventType, RocmTracerEvent};

/// Events waiting for their counterpart, in arrival order. The join sorts them by correlation
/// id, so the joined order (and with it everything exported) is the same on every run (XLA's
/// hash-map order made "Stream #0" vary between runs, docs/xla-interface.md#xla-edge-17).
#[derive(Default)]
pub(super) struct PendingEvents {
    pub api: ArrivalLog,
    pub auxiliary_api: ArrivalLog,
    /// Every activity of an id is kept: a hipGraph launch has many (openxla/xla#42879).
    pub activities: ArrivalLog,
    /// Names and annotations of the session's events, kept across joins.
    pub strings: SessionStrings,
}

impl PendingEvents {
    pub(crate) fn is_empty(&self) -> bool {
        self.api.is_empty() && self.auxiliary_api.is_empty() && self.activities.is_empty()
    }
}

/// Correlation ids whose API event or activities a cap dropped.
#[derive(Default)]
pub(super) struct CappedIds {
    pub api: IdSet,
    pub activities: IdSet,
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

/// `log`'s `(correlation id, arrival index)` pairs by id, keeping only the first arrival of
/// each id; the others are counted as duplicates.
fn first_of_each_id(log: &ArrivalLog, drops: &mut DropCounters) -> Vec<(u64, usize)> {
    let mut order = log.order_by_correlation_id();
    let before = order.len();
    let mut previous = None;
    order.retain(|&(id, _)| previous.replace(id) != Some(id));
    drops.add(
        DropReason::DuplicateCorrelationId,
        (before - order.len()) as u64,
    );
    order
}

/// Walks `order` (ascending correlation ids) forward from `*cursor` to `correlation_id`;
/// callers ask for ascending ids, so each walk over one list is linear in total.
fn seek(order: &[(u64, usize)], cursor: &mut usize, correlation_id: u64) -> Option<usize> {
    while let Some(&(id, index)) = order.get(*cursor) {
        if id >= correlation_id {
            return (id == correlation_id).then_some(index);
        }
        *cursor += 1;
    }
    None
}

/// Joins and empties `pending`, handing each joined event to `emit`: API events first, then
/// activities, each in correlation-id order (activities of one id in arrival order).
pub(super) fn join_api_and_activities(
    pending: &mut PendingEvents,
    drops: &mut DropCounters,
    capped: &CappedIds,
    mut emit: impl FnMut(RocmTracerEvent),
) {
    let api_order = first_of_each_id(&pending.api, drops);
    let auxiliary_order = first_of_each_id(&pending.auxiliary_api, drops);
    let activity_order = pending.activities.order_by_correlation_id();

    // API events take device, stream and details from the first activity of their id.
    let mut first_activities = Vec::with_capacity(api_order.len());
    let mut cursor = 0;
    for &(correlation_id, _) in &api_order {
        first_activities.push(seek(&activity_order, &mut cursor, correlation_id));
    }

    let strings = &pending.strings;
    for (&first, &(_, api_index)) in first_activities.iter().zip(&api_order) {
        let api_event = pending.api.get(api_index, strings);
        let roctx_range = || pending.api.roctx_range(api_index);
        if let Some(first) = first.filter(|_| is_kept_api_type(api_event.event_type())) {
            let first = pending.activities.get(first, strings);
            let mut event = api_event.to_event(EventSource::ApiCallback, roctx_range());
            event.device_id = first.device_id();
            event.stream_id = first.stream_id();
            if first.has_kernel_details() && api_event.event_type() == EventType::Kernel {
                event.details = first.details();
            } else if first.has_memcpy_details() && api_event.event_type().is_memcpy() {
                event.details = copies::api_copy_details(&api_event, &first);
            }
            emit(event);
        } else if first.is_none() && capped.activities.contains(api_event.correlation_id()) {
            // Its activity was dropped at the cap, and it is left out with it: counted apart,
            // so that the activity cap counts activities only.
            drops.add(DropReason::ApiOfCappedActivity, 1);
        } else if copies::is_done_by_cpu(&api_event) {
            // No device (`INVALID_DEVICE_ID`): the call stays on its host thread.
            emit(api_event.to_event(EventSource::ApiCallback, roctx_range()));
        } else {
            drops.add(DropReason::ApiWithoutActivity, 1);
        }
    }

    let (mut api_cursor, mut auxiliary_cursor) = (0, 0);
    for group in activity_order.chunk_by(|a, b| a.0 == b.0) {
        let (correlation_id, first_index) = group[0];
        let api = &pending.api;
        let auxiliary = &pending.auxiliary_api;
        let first = pending.activities.get(first_index, strings);
        // A (non-auxiliary) API event has taken its first activity's device and details.
        let api_event = seek(&api_order, &mut api_cursor, correlation_id)
            .map(|index| (api.get(index, strings), Some(first)))
            .or_else(|| {
                seek(&auxiliary_order, &mut auxiliary_cursor, correlation_id)
                    .map(|index| (auxiliary.get(index, strings), None))
            });
        let mut copy_pieces =
            CopyPieces::of_call(api_event.map(|(api_event, _)| api_event).as_ref());
        let Some(api_event) = api_event else {
            // Work HIP's worker thread submitted (no direct dispatch) carries a correlation id
            // no API call has, and the tracer marked its stream unknown: it is kept for an
            // "unattributed" lane of its queue. Any other activity lost its API event, to the
            // HIP API cap if that dropped it (counted apart: that cap counts API events only).
            let reason = if capped.api.contains(correlation_id) {
                DropReason::ActivityOfCappedApi
            } else {
                DropReason::NoApiCounterpart
            };
            for &(_, index) in group {
                let activity = pending.activities.get(index, strings);
                if activity.stream_id() == RocmTracerEvent::UNATTRIBUTED_STREAM_ID {
                    emit(
                        activity
                            .to_event(EventSource::Activity, pending.activities.roctx_range(index)),
                    );
                } else {
                    drops.add(reason, 1);
                }
            }
            continue;
        };
        for &(_, index) in group {
            let activity = pending
                .activities
                .get(index, strings)
                .to_event(EventSource::Activity, pending.activities.roctx_range(index));
            copy_pieces.pass(take_from_api_event(activity, api_event), &mut emit);
        }
        copy_pieces.finish(&mut emit);
    }

    pending.api.clear();
    pending.auxiliary_api.clear();
    pending.activities.clear();
}

/// What an activity takes from the HIP API event of its correlation id.
/// `api_event` comes with the first activity of its id if it took that activity's device and
/// details (it is not auxiliary).
#[inline]
fn take_from_api_event(
    mut activity: RocmTracerEvent,
    (api_event, first): (PendingEvent<'_>, Option<PendingEvent<'_>>),
) -> RocmTracerEvent {
    let api_details = match first {
        Some(first)
            if first.has_kernel_details() && api_event.event_type() == EventType::Kernel =>
        {
            first
        }
        _ => api_event,
    };
    match activity.event_type {
        // Deliberate change from XLA (docs/xla-interface.md#xla-edge-15): a dispatch keeps its own grid and
        // block sizes, so the kernels of one hipGraph launch are not all given the first
        // kernel's. The API event's details only fill in a dispatch that has none.
        EventType::Kernel
            if !matches!(activity.details, EventDetails::Kernel(_))
                && api_details.has_kernel_details() =>
        {
            activity.details = api_details.details();
        }
        EventType::Kernel => copies::name_blit_kernel(&mut activity, api_event),
        EventType::Memset if api_event.has_memset_details() => {
            activity.details = api_event.details();
        }
        EventType::MemoryAlloc | EventType::MemoryFree | EventType::Synchronization => {
            activity.device_id = first.map_or(api_event, |first| first).device_id();
        }
        _ => {}
    }
    activity
}
