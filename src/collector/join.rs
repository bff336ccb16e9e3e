//! XLA's `ApiActivityInfoExchange` (docs/xla-interface.md#join): HIP API events and GPU
//! activities meet by correlation id and lend each other what the other lacks.
use super::id_set::IdSet;

use super::copies::{self, CopyPieces};
use super::drops::{DropCounters, DropReason};
use super::event_log::EventLog;
use super::stored_event::{LoggedEvent, SessionStrings};
use crate::event::{EventDetails, EventType, GraphNode, RocmTracerEvent};

/// Events waiting for their counterpart, in arrival order. The join sorts them by correlation
/// id, so the joined order (and with it everything exported) is the same on every run (XLA's
/// hash-map order made "Stream #0" vary between runs, docs/xla-interface.md#xla-edge-17).
#[derive(Default)]
pub(super) struct PendingEvents {
    pub api: EventLog,
    pub auxiliary_api: EventLog,
    /// Every activity of an id is kept: a hipGraph launch has many (openxla/xla#42879).
    pub activities: EventLog,
    /// Names and annotations of the pending events, emptied with them by each join (so an
    /// annotation the limit rejected is not kept).
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
/// each id; the others are counted as duplicates and released at once (never read again).
/// The join has started releasing `log`.
fn first_of_each_id(log: &mut EventLog, drops: &mut DropCounters) -> Vec<(u64, usize)> {
    let mut order = log.order_by_correlation_id();
    let before = order.len();
    let mut previous = None;
    order.retain(|&(id, index)| {
        let first = previous.replace(id) != Some(id);
        if !first {
            // A duplicate is only counted: it is never read again.
            log.release(index);
        }
        first
    });
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

/// Joins and empties `pending`, handing each joined event to `emit` in correlation-id order:
/// an id's API event, then its activities in arrival order. Each chunk of pending events is
/// freed as soon as the walk has passed all of its events, so the joined events, stored as
/// they are emitted, take the memory the pending ones give back.
pub(super) fn join_api_and_activities(
    pending: &mut PendingEvents,
    drops: &mut DropCounters,
    capped: &CappedIds,
    mut emit: impl FnMut(RocmTracerEvent),
) {
    // From here each log frees a chunk once all of its events were released.
    for log in [
        &mut pending.api,
        &mut pending.auxiliary_api,
        &mut pending.activities,
    ] {
        log.start_releasing();
    }
    let api_order = first_of_each_id(&mut pending.api, drops);
    let auxiliary_order = first_of_each_id(&mut pending.auxiliary_api, drops);
    let activity_order = pending.activities.order_by_correlation_id();

    let mut groups = activity_order.chunk_by(|a, b| a.0 == b.0).peekable();
    let mut apis = api_order.iter().peekable();
    let (mut auxiliary_cursor, mut auxiliary_released) = (0, 0);
    loop {
        let group_id = groups.peek().map(|group| group[0].0);
        let api_id = apis.peek().map(|&&(id, _)| id);
        let Some(correlation_id) = group_id.into_iter().chain(api_id).min() else {
            break;
        };
        let group = groups.next_if(|group| group[0].0 == correlation_id);
        let api_index = apis
            .next_if(|&&(id, _)| id == correlation_id)
            .map(|&(_, index)| index);
        let strings = &pending.strings;
        let first = group.map(|group| pending.activities.get(group[0].1, strings));
        let api = api_index.map(|index| pending.api.get(index, strings));
        if let Some(api_event) = api {
            emit_api_event(api_event, first, capped, drops, &mut emit);
        }
        if let Some(group) = group {
            // A (non-auxiliary) API event has taken its first activity's device and details.
            let api_event = api.map(|api_event| (api_event, first)).or_else(|| {
                seek(&auxiliary_order, &mut auxiliary_cursor, correlation_id)
                    .map(|index| (pending.auxiliary_api.get(index, strings), None))
            });
            emit_activities(
                &pending.activities,
                strings,
                group,
                api_event,
                capped,
                drops,
                &mut emit,
            );
            for &(_, index) in group {
                pending.activities.release(index);
            }
        }
        if let Some(index) = api_index {
            pending.api.release(index);
        }
        // Ids only grow: no later id reads an auxiliary event of this one or an earlier one.
        while let Some(&(id, index)) = auxiliary_order.get(auxiliary_released) {
            if id > correlation_id {
                break;
            }
            pending.auxiliary_api.release(index);
            auxiliary_released += 1;
        }
    }

    pending.api.clear();
    pending.auxiliary_api.clear();
    pending.activities.clear();
    pending.strings = SessionStrings::default();
}

/// An API event takes device, stream and details from the first activity of its id; without
/// one it stays on its host thread only if the CPU did its copy.
fn emit_api_event(
    api_event: LoggedEvent<'_>,
    first: Option<LoggedEvent<'_>>,
    capped: &CappedIds,
    drops: &mut DropCounters,
    emit: &mut impl FnMut(RocmTracerEvent),
) {
    if let Some(first) = first.filter(|_| is_kept_api_type(api_event.event_type())) {
        let mut event = api_event.to_event();
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
        emit(api_event.to_event());
    } else {
        drops.add(DropReason::ApiWithoutActivity, 1);
    }
}

/// The activities of one correlation id (`group`, in arrival order), given what they take
/// from the id's API event (and its first activity, if that API event is not auxiliary).
fn emit_activities(
    activities: &EventLog,
    strings: &SessionStrings,
    group: &[(u64, usize)],
    api_event: Option<(LoggedEvent<'_>, Option<LoggedEvent<'_>>)>,
    capped: &CappedIds,
    drops: &mut DropCounters,
    emit: &mut impl FnMut(RocmTracerEvent),
) {
    let Some(api_event) = api_event else {
        // Work HIP's worker thread submitted (no direct dispatch) carries a correlation id
        // no API call has, and the tracer marked its stream unknown: it is kept for an
        // "unattributed" lane of its queue. Any other activity lost its API event, to the
        // HIP API cap if that dropped it (counted apart: that cap counts API events only).
        let reason = if capped.api.contains(group[0].0) {
            DropReason::ActivityOfCappedApi
        } else {
            DropReason::NoApiCounterpart
        };
        for &(_, index) in group {
            let activity = activities.get(index, strings);
            if activity.stream_id() == RocmTracerEvent::UNATTRIBUTED_STREAM_ID {
                emit(activity.to_event());
            } else {
                drops.add(reason, 1);
            }
        }
        return;
    };
    let mut copy_pieces = CopyPieces::of_call(Some(&api_event.0));
    let ordinals = dispatch_order_ordinals(activities, strings, group, &api_event.0);
    for (position, &(_, index)) in group.iter().enumerate() {
        let mut activity = activities.get(index, strings).to_event();
        if let Some(ordinals) = &ordinals {
            activity.graph = Some(GraphNode {
                exec_id: 0,
                ordinal: ordinals[position],
            });
        }
        copy_pieces.pass(take_from_api_event(activity, api_event), emit);
    }
    copy_pieces.finish(emit);
}

/// Whether `name` is a HIP function that launches a graph executable.
fn is_graph_launch(name: &str) -> bool {
    matches!(name, "hipGraphLaunch" | "hipGraphLaunch_spt")
}

/// The node ordinals of a graph launch's activities (`group`, in arrival order) when the
/// tracer could not tell them (an SDK without HIP_GRAPH tracing): the order the activities
/// started in, which is the order the launch dispatched them on one queue
/// (docs/xla-interface.md#graph-nodes). `None` for any other call, and for a launch whose
/// activities carry their ordinals already.
fn dispatch_order_ordinals(
    activities: &EventLog,
    strings: &SessionStrings,
    group: &[(u64, usize)],
    api_event: &LoggedEvent<'_>,
) -> Option<Vec<u32>> {
    if !is_graph_launch(api_event.name()) {
        return None;
    }
    let starts: Vec<(u64, usize)> = group
        .iter()
        .enumerate()
        .map(|(position, &(_, index))| {
            let activity = activities.get(index, strings);
            (activity.start_time_ns(), position)
        })
        .collect();
    if group
        .iter()
        .any(|&(_, index)| activities.get(index, strings).graph().is_some())
    {
        return None;
    }
    let mut by_start = starts;
    // Ties (never on one queue) keep arrival order.
    by_start.sort_by_key(|&(start, position)| (start, position));
    let mut ordinals = vec![0u32; group.len()];
    for (ordinal, &(_, position)) in by_start.iter().enumerate() {
        ordinals[position] = u32::try_from(ordinal).unwrap_or(u32::MAX);
    }
    Some(ordinals)
}

/// What an activity takes from the HIP API event of its correlation id.
/// `api_event` comes with the first activity of its id if it took that activity's device and
/// details (it is not auxiliary).
#[inline]
fn take_from_api_event(
    mut activity: RocmTracerEvent,
    (api_event, first): (LoggedEvent<'_>, Option<LoggedEvent<'_>>),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collector::event_chunk::live_chunk_bytes;
    use crate::collector::event_log::CHUNK_LEN;
    use crate::event::EventSource;
    use std::sync::Arc;

    fn kernel(source: EventSource, correlation_id: u64) -> RocmTracerEvent {
        RocmTracerEvent {
            event_type: EventType::Kernel,
            source,
            correlation_id,
            device_id: 7,
            stream_id: 3,
            thread_id: 1,
            start_time_ns: correlation_id * 10,
            end_time_ns: correlation_id * 10 + 5,
            ..RocmTracerEvent::default()
        }
    }

    /// Without node ordinals from the tracer (an SDK without HIP_GRAPH), a graph launch's
    /// activities are numbered by the order they started, whatever order they arrived in; an
    /// ordinal the tracer gave is kept, and other calls' activities get none.
    #[test]
    fn a_graph_launch_without_ordinals_is_numbered_by_start() {
        let mut pending = PendingEvents::default();
        let launch = RocmTracerEvent {
            name: Arc::from("hipGraphLaunch"),
            ..kernel(EventSource::ApiCallback, 4)
        };
        pending.api.push(&launch, &mut pending.strings);
        for start in [30, 10, 20] {
            let activity = RocmTracerEvent {
                start_time_ns: start,
                end_time_ns: start + 5,
                ..kernel(EventSource::Activity, 4)
            };
            pending.activities.push(&activity, &mut pending.strings);
        }
        // A plain launch, and a graph launch whose node the tracer numbered.
        pending
            .api
            .push(&kernel(EventSource::ApiCallback, 5), &mut pending.strings);
        pending
            .activities
            .push(&kernel(EventSource::Activity, 5), &mut pending.strings);
        let numbered = RocmTracerEvent {
            name: Arc::from("hipGraphLaunch"),
            ..kernel(EventSource::ApiCallback, 6)
        };
        pending.api.push(&numbered, &mut pending.strings);
        let node = GraphNode {
            exec_id: 2,
            ordinal: 7,
        };
        pending.activities.push(
            &RocmTracerEvent {
                graph: Some(node),
                ..kernel(EventSource::Activity, 6)
            },
            &mut pending.strings,
        );
        let mut nodes = Vec::new();
        join_api_and_activities(
            &mut pending,
            &mut DropCounters::default(),
            &CappedIds::default(),
            |event| {
                if event.source == EventSource::Activity {
                    nodes.push((event.correlation_id, event.start_time_ns, event.graph));
                }
            },
        );
        let at = |ordinal| {
            Some(GraphNode {
                exec_id: 0,
                ordinal,
            })
        };
        assert_eq!(
            nodes,
            [
                (4, 30, at(2)),
                (4, 10, at(0)),
                (4, 20, at(1)),
                (5, 50, None),
                (6, 60, Some(node)),
            ]
        );
    }

    #[test]
    fn the_join_frees_each_pending_chunk_once_it_has_read_it() {
        let n = 3 * CHUNK_LEN as u64;
        let mut pending = PendingEvents::default();
        for id in 1..=n {
            pending
                .api
                .push(&kernel(EventSource::ApiCallback, id), &mut pending.strings);
            pending
                .activities
                .push(&kernel(EventSource::Activity, id), &mut pending.strings);
        }
        // Three chunks of API events and three of activities.
        let before = live_chunk_bytes();
        let mut emitted = 0u64;
        let mut live_at_last = usize::MAX;
        let mut drops = DropCounters::default();
        join_api_and_activities(&mut pending, &mut drops, &CappedIds::default(), |event| {
            emitted += 1;
            if emitted == 2 * n {
                assert_eq!(event.correlation_id, n);
                live_at_last = live_chunk_bytes();
            }
        });
        assert_eq!(emitted, 2 * n);
        // While the last id is joined, only the chunks holding it are left.
        assert_eq!(live_at_last, before / 3);
        assert_eq!(live_chunk_bytes(), 0);
    }
}
