//! Dense stream renumbering (openxla/xla#46182, docs/xla-interface.md#planes-and-lines): the SDK stream ids
//! of one device become lanes `Stream #0, #1, ...`.
use std::collections::{BTreeMap, BTreeSet};

use crate::event::{EventType, RocmTracerEvent};

/// Lane numbers of one device's streams, ordered by each stream's first event start and, for
/// equal starts, by the raw id. XLA numbers them in hash-map order, which differs between runs
/// (docs/xla-interface.md#xla-edge-17); this order is the same for the same events whatever their arrival order.
pub(crate) fn dense_stream_numbers<'a>(
    events: impl IntoIterator<Item = &'a RocmTracerEvent>,
) -> BTreeMap<u64, u32> {
    let mut first_start: BTreeMap<u64, u64> = BTreeMap::new();
    for event in events {
        if event.stream_id == RocmTracerEvent::INVALID_STREAM_ID
            || event.stream_id == RocmTracerEvent::UNATTRIBUTED_STREAM_ID
        {
            continue;
        }
        let start = first_start
            .entry(event.stream_id)
            .or_insert(event.start_time_ns);
        *start = (*start).min(event.start_time_ns);
    }
    let mut order: Vec<(u64, u64)> = first_start
        .into_iter()
        .map(|(stream, start)| (start, stream))
        .collect();
    order.sort_unstable();
    order
        .into_iter()
        .enumerate()
        .map(|(lane, (_, stream))| (stream, lane as u32))
        .collect()
}

/// Lane numbers of the HSA queues of one device's unattributed work (see
/// `RocmTracerEvent::UNATTRIBUTED_STREAM_ID`), in the same order as [`dense_stream_numbers`].
pub(crate) fn dense_queue_numbers<'a>(
    events: impl IntoIterator<Item = &'a RocmTracerEvent>,
) -> BTreeMap<u64, u32> {
    let mut first_start: BTreeMap<u64, u64> = BTreeMap::new();
    for event in events {
        let start = first_start
            .entry(event.queue_id)
            .or_insert(event.start_time_ns);
        *start = (*start).min(event.start_time_ns);
    }
    let mut order: Vec<(u64, u64)> = first_start
        .into_iter()
        .map(|(queue, start)| (start, queue))
        .collect();
    order.sort_unstable();
    order
        .into_iter()
        .enumerate()
        .map(|(lane, (_, queue))| (queue, lane as u32))
        .collect()
}

/// `"Unattributed (queue #<n>)"`: work of one HSA queue whose stream is unknown;
/// `"Unattributed (copies)"` for copies, which have no queue.
pub(crate) fn unattributed_line_name(queue: Option<u32>) -> String {
    match queue {
        Some(queue) => format!("Unattributed (queue #{queue})"),
        None => "Unattributed (copies)".to_owned(),
    }
}

/// `"Stream #<n>"`, or with `cuda_style` CUPTI's `"Stream #<n>(Kernel,MemcpyH2D)"`: the types
/// seen on the lane in enum order, `Unsupported` left out (docs/xla-interface.md#cupti-lane-names).
pub(crate) fn stream_line_name(lane: u32, types: &BTreeSet<EventType>, cuda_style: bool) -> String {
    let names: Vec<&str> = types
        .iter()
        .filter(|&&event_type| event_type != EventType::Unsupported)
        .map(|event_type| event_type.name())
        .collect();
    if cuda_style && !names.is_empty() {
        format!("Stream #{lane}({})", names.join(","))
    } else {
        format!("Stream #{lane}")
    }
}
