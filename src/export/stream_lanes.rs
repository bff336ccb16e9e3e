//! Dense stream renumbering (openxla/xla#46182, docs/xla-interface.md#planes-and-lines): the SDK stream ids
//! of one device become lanes `Stream #0, #1, ...`.
use std::collections::{BTreeMap, BTreeSet};

use crate::event::{EventType, RocmTracerEvent, StreamLabel};

/// Lane numbers of one device's streams (the numbering of [`dense_lane_numbers`]), without the
/// invalid and the unattributed pseudo-streams. `events`: each event's `(stream_id, start_time_ns)`.
pub(crate) fn dense_stream_numbers(
    events: impl IntoIterator<Item = (u64, u64)>,
) -> BTreeMap<u64, u32> {
    dense_lane_numbers(events.into_iter().filter(|&(stream_id, _)| {
        stream_id != RocmTracerEvent::INVALID_STREAM_ID
            && stream_id != RocmTracerEvent::UNATTRIBUTED_STREAM_ID
    }))
}

/// Lane numbers of one device's streams or HSA queues, ordered by each id's first event start
/// and, for equal starts, by the raw id. XLA numbers streams in hash-map order, which differs
/// between runs (docs/xla-interface.md#xla-edge-17); this order is the same for the same events
/// whatever their arrival order. `events`: each event's `(id, start_time_ns)`.
pub(crate) fn dense_lane_numbers(
    events: impl IntoIterator<Item = (u64, u64)>,
) -> BTreeMap<u64, u32> {
    let mut first_start: BTreeMap<u64, u64> = BTreeMap::new();
    for (id, start_time_ns) in events {
        let start = first_start.entry(id).or_insert(start_time_ns);
        *start = (*start).min(start_time_ns);
    }
    let mut order: Vec<(u64, u64)> = first_start
        .into_iter()
        .map(|(id, start)| (start, id))
        .collect();
    order.sort_unstable();
    order
        .into_iter()
        .enumerate()
        .map(|(lane, (_, id))| (id, lane as u32))
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

/// The line id of a device plane's lane `n` is `LANE_LINE_ID_BASE + n`. xprof's trace viewer
/// (`GenerateDerivedTimeLines`, `DeriveEventsFromAnnotations` for GPU planes) gives display ids
/// 1, 2, ... to the busiest 16 stream lines of a device and the "XLA Ops"-style lines it derives
/// from them, at most 7 per stream; every other line keeps its own id as its row. Ids from
/// 1000 up stay clear of those (16 × 7 = 112 with room to spare), so no two lanes share a row
/// and the rest follow in lane order. XLA copies only the line id (not `display_id`) into its
/// planes, so the id itself is the lever (docs/xla-interface.md#stream-lanes).
pub const LANE_LINE_ID_BASE: i64 = 1000;

pub(crate) fn lane_line_id(lane: u32) -> i64 {
    LANE_LINE_ID_BASE + i64::from(lane)
}

/// `"Queue #<n>"`: the lanes of `--group-by queue`.
pub(crate) fn queue_line_name(lane: u32) -> String {
    format!("Queue #{lane}")
}

/// The lane of `--group-by queue` for copies, which run on no HSA queue.
pub(crate) fn queue_line_name_for_copies() -> String {
    "Queue (copies)".to_owned()
}

/// What follows `Stream #<n>` in a lane label: ` (null)`, ` (legacy)` or ` (per-thread)` for the
/// streams HIP reserves, then the ROCTx name in quotes, e.g. `Stream #3 "h2d"`.
pub(crate) fn stream_label_suffix(label: Option<&StreamLabel>) -> String {
    let mut suffix = String::new();
    let Some(label) = label else {
        return suffix;
    };
    if let Some(kind) = label.kind.label() {
        suffix.push_str(&format!(" ({kind})"));
    }
    if let Some(name) = &label.name {
        suffix.push_str(&format!(" \"{name}\""));
    }
    suffix
}
