//! The `inspect` summary of a trace counted while the export streams it by (an export sink),
//! without keeping its events: the same [`PlaneSummary`] values [`summarize_plane`] gives for
//! each plane, and the `hipMemset*` calls [`add_memset_calls`] collects.
//!
//! Events are counted by class: what [`event_kind::kind`] and the copy bytes read of an event
//! (its metadata id, which details stats it has, its `memcpy_details` value, whether its
//! correlation id is a memset call's), so memory grows with the distinct classes of a plane,
//! not with its events. The names a class is judged by are those the sink is told before the
//! events (`name_event_metadata`, `name_stat_metadata`); the kinds are decided at the end of
//! the plane, from its metadata, by the rule [`summarize_plane`] uses.
//!
//! [`summarize_plane`]: crate::inspect::summarize_plane
//! [`add_memset_calls`]: crate::event_kind::add_memset_calls
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use xla_rocm_tracer::event::EventType;
use xla_rocm_tracer::export::plane_names::{
    CUDA_GRAPH_ID_STAT, GPU_PLANE_PREFIX, GRAPH_NODE_ID_STAT, MEMCPY_DETAILS_STAT,
};
use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
use xla_rocm_tracer::export::{
    EventView, LineHeader, XPlane, XSpace, XSpaceSink, XStat, XStatMetadata,
};

use crate::event_kind::{
    self, is_memset_call_name, memcpy_details_bytes, memset_call_id, parse_correlation_id,
    DetailsStats, NameHints, CORRELATION_ID_STAT,
};
use crate::inspect::{uint64_stat, LaneSummary, PlaneSummary};
use crate::xspace_view::{metadata_name, referenced_text, span_ps};

/// The value of an event's first `memcpy_details` stat, as far as it can say anything: the
/// rule reads a direction (`kind_src:`/`kind_dst:`) and a `size:` from it, which a number or
/// no value never holds.
#[derive(Clone, PartialEq, Eq, Hash)]
enum CopyDetails {
    /// A ref value: the stat metadata id of its string (the way our export stores it).
    Ref(u64),
    Text(String),
    Silent,
}

/// What the kind and copy bytes of an event depend on: events of one class are counted as one.
#[derive(Clone, PartialEq, Eq, Hash)]
struct EventClass {
    metadata_id: i64,
    /// [`DetailsStats::present`] of the event's stats.
    present: u8,
    /// `None`: the event has no `memcpy_details` stat.
    copy_details: Option<CopyDetails>,
    /// Its correlation id is that of a `hipMemset*` call seen before it.
    memset_call: bool,
}

/// Up to this many classes on a plane are found by scanning them (a plane has a few: its
/// event names, by the details stats they carry), more by hashing.
const SCANNED_CLASSES: usize = 32;

/// One line's events, counted by class (indexes into [`StreamingSummary::classes`]).
struct LaneCounts {
    name: String,
    events: u64,
    by_class: BTreeMap<usize, u64>,
}

/// The summarizing sink: feed it an export, then read [`StreamingSummary::finish`].
#[derive(Default)]
pub struct StreamingSummary {
    /// Correlation ids of the `hipMemset*` calls of the planes finished so far.
    memset_calls: HashSet<u64>,
    // The plane being streamed.
    /// Event metadata ids named as `hipMemset*` calls (a few; scanned per event).
    memset_call_metadata: Vec<i64>,
    /// Stat metadata names that read as a correlation id, for a ref-valued correlation id
    /// (only these: a plane has a name per distinct annotation, a long replay a million).
    numeric_stat_names: HashMap<i64, u64>,
    details_stats: DetailsStats,
    /// Ids of the `correlation_id` and `memcpy_details` stat metadata (one each, in practice:
    /// scanned, not hashed, as every stat of every event is looked up).
    correlation_stats: Vec<i64>,
    copy_details_stats: Vec<i64>,
    /// Ids of the `graph_node_id` and `cuda_graph_id` stat metadata, and what they counted.
    graph_node_stats: Vec<i64>,
    graph_id_stats: Vec<i64>,
    graph_nodes: u64,
    graph_ids: BTreeSet<u64>,
    classes: Vec<EventClass>,
    /// Where each class is in `classes`, once there are too many to scan.
    class_index: HashMap<EventClass, usize>,
    /// The class of the last event: consecutive events mostly share one.
    last_class: Option<usize>,
    lanes: Vec<LaneCounts>,
    line_timestamp_ns: i64,
    span_ps: Option<(i128, i128)>,
    /// Metadata id and stats of each `hipMemset*` call: the calls are few, and their
    /// correlation ids are read with the plane's metadata.
    memset_call_events: Vec<(i64, Vec<XStat>)>,
    // What is kept.
    summaries: Vec<PlaneSummary>,
    space: XSpace,
}

impl StreamingSummary {
    /// The space's planes without their lines (headers, stats, and only the stat metadata the
    /// plane's stats use) and texts, and each plane's summary, in plane order: what
    /// `inspect::render_summarized` takes.
    pub fn finish(self) -> (XSpace, Vec<PlaneSummary>) {
        (self.space, self.summaries)
    }

    fn class_of(&self, event: &EventView<'_>) -> EventClass {
        let present = self
            .details_stats
            .present(event.stats.iter().map(|stat| stat.metadata_id));
        let copy_details = event
            .stats
            .iter()
            .find(|stat| self.copy_details_stats.contains(&stat.metadata_id))
            .map(|stat| match &stat.value {
                Some(Value::RefValue(id)) => CopyDetails::Ref(*id),
                Some(Value::StrValue(text)) => CopyDetails::Text(text.clone()),
                _ => CopyDetails::Silent,
            });
        // As the rule reads it: the first correlation id stat, as text, parsed; and only when
        // a memset call could match.
        let memset_call = !self.memset_calls.is_empty()
            && event
                .stats
                .iter()
                .find(|stat| self.correlation_stats.contains(&stat.metadata_id))
                .and_then(|stat| self.correlation_id(stat))
                .is_some_and(|id| self.memset_calls.contains(&id));
        EventClass {
            metadata_id: event.metadata_id,
            present,
            copy_details,
            memset_call,
        }
    }

    /// Where `class` is in `classes` (added if new).
    fn index_of(&mut self, class: EventClass) -> usize {
        if let Some(last) = self.last_class {
            if self.classes[last] == class {
                return last;
            }
        }
        let found = if self.classes.len() <= SCANNED_CLASSES {
            self.classes.iter().position(|known| *known == class)
        } else {
            self.class_index.get(&class).copied()
        };
        let index = found.unwrap_or_else(|| {
            let index = self.classes.len();
            self.classes.push(class.clone());
            if self.classes.len() > SCANNED_CLASSES {
                if self.class_index.is_empty() {
                    for (index, class) in self.classes.iter().enumerate() {
                        self.class_index.insert(class.clone(), index);
                    }
                } else {
                    self.class_index.insert(class, index);
                }
            }
            index
        });
        self.last_class = Some(index);
        index
    }

    /// A correlation id stat's value read as `xspace_view::stat_text` reads it.
    fn correlation_id(&self, stat: &XStat) -> Option<u64> {
        match &stat.value {
            Some(Value::Uint64Value(id)) => Some(*id),
            Some(Value::Int64Value(id)) => u64::try_from(*id).ok(),
            Some(Value::StrValue(text)) => parse_correlation_id(text),
            Some(Value::RefValue(id)) => i64::try_from(*id)
                .ok()
                .and_then(|id| self.numeric_stat_names.get(&id).copied()),
            // A double's text has a point or an exponent, bytes show as `<n bytes>`.
            _ => None,
        }
    }

    /// The kind and the copy bytes of the events of `class` on `plane`.
    /// The kind of the class's events (`Err(true)`: flow ends, `Err(false)`: other), and the
    /// bytes of one if they are copies.
    fn judge(plane: &XPlane, class: &EventClass) -> (Result<EventType, bool>, u64) {
        let text = || match class.copy_details.as_ref()? {
            CopyDetails::Ref(id) => Some(referenced_text(plane, *id).to_owned()),
            CopyDetails::Text(text) => Some(text.clone()),
            CopyDetails::Silent => None,
        };
        let name = NameHints::of(metadata_name(plane, class.metadata_id));
        let kind = event_kind::kind(name, class.present, text, || class.memset_call)
            .ok_or_else(|| event_kind::is_flow_end(class.present));
        let bytes = match kind {
            Ok(kind) if kind.is_memcpy() => text().as_deref().and_then(memcpy_details_bytes),
            _ => None,
        };
        (kind, bytes.unwrap_or(0))
    }

    fn reset_plane(&mut self) {
        self.memset_call_metadata.clear();
        self.numeric_stat_names.clear();
        self.details_stats = DetailsStats::default();
        self.correlation_stats.clear();
        self.copy_details_stats.clear();
        self.graph_node_stats.clear();
        self.graph_id_stats.clear();
        self.graph_nodes = 0;
        self.graph_ids.clear();
        self.classes.clear();
        self.class_index.clear();
        self.last_class = None;
        self.lanes.clear();
        self.span_ps = None;
        self.memset_call_events.clear();
    }
}

/// What the report reads of a finished plane: its header and stats, with the stat metadata
/// those use. Its other metadata can be tens of MB (a stat metadata per distinct annotation),
/// and would otherwise be held until the last plane is written.
fn plane_header(plane: XPlane) -> XPlane {
    let used = |id: i64| {
        plane.stats.iter().any(|stat| {
            stat.metadata_id == id
                || matches!(stat.value, Some(Value::RefValue(value)) if i64::try_from(value) == Ok(id))
        })
    };
    let stat_metadata = plane
        .stat_metadata
        .into_iter()
        .filter(|(id, _)| used(*id))
        .collect();
    XPlane {
        id: plane.id,
        name: plane.name,
        lines: Vec::new(),
        event_metadata: Default::default(),
        stat_metadata,
        stats: plane.stats,
    }
}

impl XSpaceSink for StreamingSummary {
    fn name_event_metadata(&mut self, metadata_id: i64, name: &str) {
        self.memset_call_metadata.retain(|id| *id != metadata_id);
        if is_memset_call_name(name) {
            self.memset_call_metadata.push(metadata_id);
        }
    }

    fn name_stat_metadata(&mut self, metadata_id: i64, name: &str) {
        self.details_stats.add(metadata_id, name);
        if name == CORRELATION_ID_STAT {
            self.correlation_stats.push(metadata_id);
        }
        if name == MEMCPY_DETAILS_STAT {
            self.copy_details_stats.push(metadata_id);
        }
        if name == GRAPH_NODE_ID_STAT {
            self.graph_node_stats.push(metadata_id);
        }
        if name == CUDA_GRAPH_ID_STAT {
            self.graph_id_stats.push(metadata_id);
        }
        match parse_correlation_id(name) {
            Some(id) => self.numeric_stat_names.insert(metadata_id, id),
            None => self.numeric_stat_names.remove(&metadata_id),
        };
    }

    fn start_line(&mut self, line: LineHeader<'_>) {
        self.lanes.push(LaneCounts {
            name: line.shown_name().to_owned(),
            events: 0,
            by_class: BTreeMap::new(),
        });
        self.line_timestamp_ns = line.timestamp_ns;
    }

    fn add_event(&mut self, event: EventView<'_>) {
        // A sink is fed a line before its events; an event without one is in no summary.
        if self.lanes.is_empty() {
            return;
        }
        let (start, end) = span_ps(self.line_timestamp_ns, event.data, event.duration_ps);
        self.span_ps = Some(match self.span_ps {
            Some((low, high)) => (low.min(start), high.max(end)),
            None => (start, end),
        });
        if uint64_stat(event.stats, |id| self.graph_node_stats.contains(&id)).is_some() {
            self.graph_nodes += 1;
        }
        if let Some(id) = uint64_stat(event.stats, |id| self.graph_id_stats.contains(&id)) {
            self.graph_ids.insert(id);
        }
        if self.memset_call_metadata.contains(&event.metadata_id) {
            self.memset_call_events
                .push((event.metadata_id, event.stats.to_vec()));
        }
        let class = self.class_of(&event);
        let index = self.index_of(class);
        if let Some(lane) = self.lanes.last_mut() {
            lane.events += 1;
            *lane.by_class.entry(index).or_insert(0) += 1;
        }
    }

    fn finish_plane_with_stat_names(&mut self, mut plane: XPlane, stat_names: Vec<Arc<str>>) {
        // Only the stat metadata `finish_plane` reads: the plane's own stats', the copy
        // details' texts and the memset calls' stats' (not one per distinct annotation).
        let mut needed = BTreeSet::new();
        let mut need = |stats: &[XStat]| {
            for stat in stats {
                needed.insert(stat.metadata_id);
                if let Some(Value::RefValue(id)) = stat.value {
                    needed.extend(i64::try_from(id));
                }
            }
        };
        need(&plane.stats);
        for (_, stats) in &self.memset_call_events {
            need(stats);
        }
        for class in &self.classes {
            if let Some(CopyDetails::Ref(id)) = class.copy_details {
                needed.extend(i64::try_from(id));
            }
        }
        for id in needed {
            let Some(name) = id
                .checked_sub(1)
                .and_then(|at| usize::try_from(at).ok())
                .and_then(|at| stat_names.get(at))
            else {
                continue;
            };
            let metadata = XStatMetadata {
                id,
                name: name.to_string(),
                ..XStatMetadata::default()
            };
            plane.stat_metadata.insert(id, metadata);
        }
        self.finish_plane(plane);
    }

    fn finish_plane(&mut self, plane: XPlane) {
        // As `add_memset_calls` does, before the plane is summarized.
        for (metadata_id, stats) in &self.memset_call_events {
            if let Some(id) = memset_call_id(&plane, metadata_name(&plane, *metadata_id), stats) {
                self.memset_calls.insert(id);
            }
        }
        // Kinds and bytes are counted on device planes only (as `summarize_plane` does).
        let is_device = plane.name.starts_with(GPU_PLANE_PREFIX);
        let judged: Vec<_> = if is_device {
            self.classes
                .iter()
                .map(|class| StreamingSummary::judge(&plane, class))
                .collect()
        } else {
            Vec::new()
        };
        let mut summary = PlaneSummary {
            name: plane.name.clone(),
            id: plane.id,
            is_device,
            lanes: Vec::with_capacity(self.lanes.len()),
            memcpy_bytes: BTreeMap::new(),
            span_ps: self.span_ps,
            // Counted on device planes only (as `summarize_plane` does).
            graph_nodes: if is_device { self.graph_nodes } else { 0 },
            graph_ids: if is_device {
                std::mem::take(&mut self.graph_ids)
            } else {
                BTreeSet::new()
            },
        };
        for lane in std::mem::take(&mut self.lanes) {
            let mut by_kind = BTreeMap::new();
            let mut others = 0;
            let mut flow_ends = 0;
            for (class, count) in &lane.by_class {
                let Some((kind, bytes)) = judged.get(*class) else {
                    continue;
                };
                let kind = match kind {
                    Ok(kind) => kind,
                    Err(true) => {
                        flow_ends += count;
                        continue;
                    }
                    Err(false) => {
                        others += count;
                        continue;
                    }
                };
                *by_kind.entry(*kind).or_insert(0) += count;
                if kind.is_memcpy() {
                    *summary.memcpy_bytes.entry(*kind).or_insert(0) += bytes * count;
                }
            }
            summary.lanes.push(LaneSummary {
                name: lane.name,
                events: lane.events,
                by_kind,
                others,
                flow_ends,
            });
        }
        self.summaries.push(summary);
        self.space.planes.push(plane_header(plane));
        self.reset_plane();
    }

    fn finish_space(&mut self, errors: &[String], warnings: &[String], hostnames: &[String]) {
        self.space.errors = errors.to_vec();
        self.space.warnings = warnings.to_vec();
        self.space.hostnames = hostnames.to_vec();
    }
}

#[cfg(test)]
mod tests {
    use xla_rocm_tracer::export::plane_names::{FLOW_STAT, KERNEL_DETAILS_STAT};
    use xla_rocm_tracer::export::xplane_proto::x_event::Data;
    use xla_rocm_tracer::export::{
        read_xspace_file, replay_xspace, XEvent, XEventMetadata, XLine, XStatMetadata,
    };

    use super::*;
    use crate::event_kind::add_memset_calls;
    use crate::inspect::summarize_plane;

    /// The planes' summaries as `replay` made them before it streamed: each plane summarized
    /// with the memset calls of the planes up to it.
    fn prost_summaries(space: &XSpace) -> Vec<PlaneSummary> {
        let mut memsets = HashSet::new();
        space
            .planes
            .iter()
            .map(|plane| {
                add_memset_calls(plane, &mut memsets);
                summarize_plane(plane, &memsets)
            })
            .collect()
    }

    fn streamed(space: &XSpace) -> (XSpace, Vec<PlaneSummary>) {
        let mut sink = StreamingSummary::default();
        replay_xspace(space, &mut sink);
        sink.finish()
    }

    /// [`streamed`], each plane whose stat metadata are named only (ids `1..=n`) finished
    /// with its names, as the export finishes its planes.
    fn streamed_with_names(space: &XSpace) -> (XSpace, Vec<PlaneSummary>) {
        struct WithNames(StreamingSummary);
        impl XSpaceSink for WithNames {
            fn name_event_metadata(&mut self, id: i64, name: &str) {
                self.0.name_event_metadata(id, name);
            }
            fn name_stat_metadata(&mut self, id: i64, name: &str) {
                self.0.name_stat_metadata(id, name);
            }
            fn start_line(&mut self, line: LineHeader<'_>) {
                self.0.start_line(line);
            }
            fn add_event(&mut self, event: EventView<'_>) {
                self.0.add_event(event);
            }
            fn finish_plane(&mut self, mut plane: XPlane) {
                let named_only = (1..)
                    .zip(plane.stat_metadata.iter())
                    .all(|(at, (id, m))| *id == at && m.id == at && m.description.is_empty());
                if !named_only {
                    return self.0.finish_plane(plane);
                }
                let names = std::mem::take(&mut plane.stat_metadata)
                    .into_values()
                    .map(|metadata| Arc::from(metadata.name))
                    .collect();
                self.0.finish_plane_with_stat_names(plane, names);
            }
            fn finish_space(&mut self, errors: &[String], warnings: &[String], hosts: &[String]) {
                self.0.finish_space(errors, warnings, hosts);
            }
        }
        let mut sink = WithNames(StreamingSummary::default());
        replay_xspace(space, &mut sink);
        sink.0.finish()
    }

    fn assert_same_summaries(space: &XSpace) {
        let (headers, summaries) = streamed(space);
        assert_eq!(summaries, prost_summaries(space));
        let (named_headers, named_summaries) = streamed_with_names(space);
        assert_eq!(named_summaries, summaries);
        assert_eq!(named_headers, headers);
        assert_eq!(headers.planes.len(), space.planes.len());
        for (header, plane) in headers.planes.iter().zip(&space.planes) {
            assert!(header.lines.is_empty());
            assert_eq!(header.name, plane.name);
            assert_eq!(header.stats, plane.stats);
            // The metadata the plane's stats name or refer to, no other.
            let used: Vec<i64> = plane
                .stats
                .iter()
                .flat_map(|stat| {
                    let referred = match stat.value {
                        Some(Value::RefValue(id)) => Some(id as i64),
                        _ => None,
                    };
                    [Some(stat.metadata_id), referred]
                })
                .flatten()
                .filter(|id| plane.stat_metadata.contains_key(id))
                .collect();
            assert!(header.stat_metadata.keys().all(|id| used.contains(id)));
            for id in used {
                assert_eq!(header.stat_metadata.get(&id), plane.stat_metadata.get(&id));
            }
            assert!(header.event_metadata.is_empty());
        }
        assert_eq!(headers.warnings, space.warnings);
        assert_eq!(headers.errors, space.errors);
        assert_eq!(headers.hostnames, space.hostnames);
    }

    fn stat(metadata_id: i64, value: Value) -> XStat {
        XStat {
            metadata_id,
            value: Some(value),
        }
    }

    fn event(metadata_id: i64, offset_ps: i64, stats: Vec<XStat>) -> XEvent {
        XEvent {
            metadata_id,
            data: Some(Data::OffsetPs(offset_ps)),
            duration_ps: 1000,
            stats,
        }
    }

    fn plane(id: i64, name: &str, events: &[&str], stats: &[&str]) -> XPlane {
        let mut plane = XPlane {
            id,
            name: name.to_owned(),
            ..XPlane::default()
        };
        for (index, name) in events.iter().enumerate() {
            let id = index as i64 + 1;
            plane.event_metadata.insert(
                id,
                XEventMetadata {
                    id,
                    name: (*name).to_owned(),
                    ..XEventMetadata::default()
                },
            );
        }
        for (index, name) in stats.iter().enumerate() {
            let id = index as i64 + 1;
            plane.stat_metadata.insert(
                id,
                XStatMetadata {
                    id,
                    name: (*name).to_owned(),
                    ..XStatMetadata::default()
                },
            );
        }
        plane
    }

    /// A host plane with memset calls (correlation ids as numbers, text and a ref) and a
    /// device plane whose plain kernels carry those ids, copies with details as a ref, as
    /// text and as a number, and events of no kind, over two lines.
    fn space_with_memset_kernels_and_copies() -> XSpace {
        let mut host = plane(
            0,
            "/host:CPU",
            &["hipMemsetAsync", "hipLaunchKernel", "hipMemsetD32"],
            &[CORRELATION_ID_STAT, "41"],
        );
        host.lines.push(XLine {
            id: 7,
            name: "Host Threads/7".to_owned(),
            timestamp_ns: 1_000,
            events: vec![
                event(1, 0, vec![stat(1, Value::Uint64Value(40))]),
                event(2, 10, vec![stat(1, Value::Uint64Value(42))]),
                event(1, 20, vec![stat(1, Value::RefValue(2))]),
                event(3, 30, vec![stat(1, Value::StrValue("43".to_owned()))]),
                event(3, 40, vec![stat(1, Value::Int64Value(-44))]),
            ],
            ..XLine::default()
        });
        let mut device = plane(
            0,
            "/device:GPU:0",
            &["gemm", "MemcpyH2D", "copy", "Memset 3", "marker"],
            &[
                CORRELATION_ID_STAT,
                KERNEL_DETAILS_STAT,
                MEMCPY_DETAILS_STAT,
                "size:4096 kind_src:host kind_dst:device",
                "40",
                FLOW_STAT,
            ],
        );
        let kernel = |id: Value| vec![stat(2, Value::RefValue(4)), stat(1, id)];
        device.lines.push(XLine {
            id: 1,
            name: "Stream #1".to_owned(),
            display_name: "Stream #1 (compute)".to_owned(),
            timestamp_ns: 900,
            events: vec![
                event(1, 0, kernel(Value::Uint64Value(40))),
                event(1, 5, kernel(Value::Uint64Value(42))),
                event(1, 9, kernel(Value::RefValue(5))),
                event(1, 11, kernel(Value::StrValue("43".to_owned()))),
                event(1, 12, kernel(Value::Int64Value(41))),
                event(4, 13, vec![]),
                event(5, 14, vec![stat(1, Value::Uint64Value(40))]),
                // A stream wait's flow end.
                event(5, 15, vec![stat(6, Value::Uint64Value(7 << 2 | 1))]),
            ],
            ..XLine::default()
        });
        device.lines.push(XLine {
            id: 2,
            name: "Stream #2".to_owned(),
            timestamp_ns: 2_000,
            events: vec![
                event(2, 0, vec![stat(3, Value::RefValue(4))]),
                event(3, 100, vec![stat(3, Value::RefValue(4))]),
                event(
                    3,
                    200,
                    vec![stat(
                        3,
                        Value::StrValue("kind_src:device kind_dst:pinned size:12".to_owned()),
                    )],
                ),
                event(3, 300, vec![stat(3, Value::Uint64Value(5))]),
                XEvent {
                    metadata_id: 2,
                    data: Some(Data::NumOccurrences(3)),
                    duration_ps: 7,
                    stats: vec![stat(3, Value::RefValue(4))],
                },
            ],
            ..XLine::default()
        });
        device.lines.push(XLine {
            id: 3,
            name: "Stream #3".to_owned(),
            ..XLine::default()
        });
        XSpace {
            planes: vec![
                host,
                device,
                plane(0, "/host:__ScopeRangeCallStack__", &[], &[]),
            ],
            warnings: vec!["lost 3".to_owned()],
            hostnames: vec!["node".to_owned()],
            ..XSpace::default()
        }
    }

    #[test]
    fn streamed_summary_equals_the_prost_planes_summary() {
        let space = space_with_memset_kernels_and_copies();
        assert_same_summaries(&space);
        // The rules are exercised, not vacuous: kernels of memset calls by id (number, ref,
        // text) are memsets, the rest kernels; copies have directions and bytes.
        let (_, summaries) = streamed(&space);
        let device = &summaries[1];
        let kinds: Vec<String> = device.lanes[0]
            .by_kind
            .iter()
            .map(|(kind, count)| format!("{} {count}", kind.name()))
            .collect();
        assert_eq!(kinds, ["Kernel 1", "Memset 5"]);
        assert_eq!(device.lanes[0].others, 1);
        assert_eq!(device.lanes[0].flow_ends, 1);
        assert_eq!(device.lanes[0].name, "Stream #1 (compute)");
        assert_eq!(device.memcpy_bytes.values().sum::<u64>(), 3 * 4096 + 12);
        assert_eq!(device.lanes[2].events, 0);
    }

    #[test]
    fn many_classes_on_a_plane_are_counted_as_few() {
        // Copies of 100 sizes, most twice and apart: past the classes that are scanned, the
        // classes are hashed, and the copies of one size still count as one class.
        let mut device = plane(
            1,
            "/device:GPU:1",
            &["MemcpyD2H", "kernel"],
            &[MEMCPY_DETAILS_STAT, KERNEL_DETAILS_STAT],
        );
        let events = (0..200)
            .map(|n| {
                let details = format!("size:{} kind_src:device kind_dst:pinned", n % 100);
                if n % 3 == 0 {
                    event(2, n, vec![stat(2, Value::StrValue(details))])
                } else {
                    event(1, n, vec![stat(1, Value::StrValue(details))])
                }
            })
            .collect();
        device.lines.push(XLine {
            id: 1,
            name: "Stream #1".to_owned(),
            events,
            ..XLine::default()
        });
        let space = XSpace {
            planes: vec![device],
            ..XSpace::default()
        };
        assert_same_summaries(&space);
        let (_, summaries) = streamed(&space);
        assert!(summaries[0].memcpy_bytes.values().sum::<u64>() > 0);
    }

    #[test]
    fn streamed_summary_of_xlas_own_trace_equals_the_prost_one() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/jax_matmul_cuda.xplane.pb"
        );
        let space = read_xspace_file(path).unwrap();
        assert_same_summaries(&space);
        let (_, summaries) = streamed(&space);
        assert!(summaries.iter().any(|summary| summary.is_device
            && !summary.memcpy_bytes.is_empty()
            && summary.lanes.len() > 1));
    }
}
