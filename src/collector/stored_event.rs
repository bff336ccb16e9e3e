//! The collector's own form of an event, pending or joined: 48 bytes instead of the 200 of a
//! `RocmTracerEvent`. What events of a workload repeat is interned: names and annotations per
//! session ([`SessionStrings`]), where an event ran (thread, stream, queue, device) and its
//! details per log ([`LogTables`]); the duration fits 32 bits unless the event ran over four
//! seconds (then its end is kept aside). Nothing is lost: [`LoggedEvent::to_event`] gives back
//! the event as the tracer sent it.
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::interner::{spread, CacheSlot, Interner};
use crate::event::{
    EventDetails, EventDomain, EventSource, EventType, GraphNode, KernelDetails, MemAllocDetails,
    MemcpyDetails, MemsetDetails, RocmTracerEvent,
};

/// Names and annotations of one session's events, each string once. Annotation ids are what
/// the annotation limit counts (one per distinct string).
#[derive(Default)]
pub(crate) struct SessionStrings {
    pub(super) names: Interner<Arc<str>>,
    pub(super) annotations: Interner<Arc<str>>,
}

/// Where an event ran: four fields that take one of a few combinations in a capture.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Place {
    pub thread_id: u64,
    pub stream_id: u64,
    pub queue_id: u64,
    pub device_id: u32,
}

impl CacheSlot for Place {
    #[inline]
    fn cache_slot(&self) -> u64 {
        spread(
            self.stream_id
                .wrapping_add(self.thread_id.rotate_left(16))
                .wrapping_add(self.queue_id.rotate_left(32))
                .wrapping_add(u64::from(self.device_id).rotate_left(48)),
        )
    }
}

/// A kernel's dispatch facts as the words [`KernelDetails::to_array`] gives: compared as one
/// block of memory, not field by field (this compare runs for every stored kernel event).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct KernelWords([u32; crate::event::KERNEL_WORDS]);

impl CacheSlot for KernelWords {
    #[inline]
    fn cache_slot(&self) -> u64 {
        // Grid and block sizes and register counts tell a workload's kernels apart.
        let [_, group_segment, block_x, _, _, grid_x, grid_y, grid_z, vgprs, _, sgprs, _] = self.0;
        spread(
            u64::from(grid_x ^ grid_y.rotate_left(8) ^ grid_z.rotate_left(16))
                ^ (u64::from(block_x ^ group_segment.rotate_left(8)) << 32)
                ^ (u64::from(vgprs ^ sgprs.rotate_left(8)) << 16),
        )
    }
}

impl CacheSlot for MemcpyDetails {
    #[inline]
    fn cache_slot(&self) -> u64 {
        spread(
            self.num_bytes
                ^ u64::from(self.destination).rotate_left(32)
                ^ self
                    .call_direction
                    .map_or(0, |t| t as u64 + 1)
                    .rotate_left(24),
        )
    }
}

impl CacheSlot for MemsetDetails {
    #[inline]
    fn cache_slot(&self) -> u64 {
        spread(self.num_bytes)
    }
}

impl CacheSlot for MemAllocDetails {
    #[inline]
    fn cache_slot(&self) -> u64 {
        spread(self.num_bytes)
    }
}

/// The values one log's events refer to by id, dropped with the log (a pending log's at the
/// join, a device log's with the collected trace).
#[derive(Default)]
pub(super) struct LogTables {
    places: Interner<Place>,
    kernels: Interner<KernelWords>,
    copies: Interner<MemcpyDetails>,
    memsets: Interner<MemsetDetails>,
    allocs: Interner<MemAllocDetails>,
    /// End times of events whose duration does not fit [`StoredEvent::duration_ns`] (over
    /// four seconds, or ending before they start), by arrival index.
    long_ends: FxHashMap<usize, u64>,
    /// The graph nodes of the events that ran as one (kernels and copies of a graph launch),
    /// by arrival index: kept aside, as most events are none.
    graph_nodes: FxHashMap<usize, GraphNode>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
enum DetailsKind {
    None,
    Kernel,
    Memcpy,
    Memset,
    MemAlloc,
}

/// `duration_ns` of an event whose end is kept in [`LogTables::long_ends`].
const LONG_DURATION: u32 = u32::MAX;
/// `annotation` of an event without one.
const NO_ANNOTATION: u32 = u32::MAX;

/// The `roctx_range`s of a log's events, by index (most events have none).
pub(super) type RoctxRanges = FxHashMap<usize, Arc<str>>;

/// One collected event, pending or joined; a `roctx_range` (set only on work issued inside a
/// ROCTx range) is kept aside by its log, see [`super::event_log`].
#[derive(Clone, Debug)]
pub(super) struct StoredEvent {
    start_time_ns: u64,
    correlation_id: u64,
    scope_range_id: i64,
    duration_ns: u32,
    place: u32,
    name: u32,
    annotation: u32,
    /// Index into the table of `details_kind` (0 for `None`).
    details: u32,
    details_kind: DetailsKind,
    /// `EventType`, `EventSource` and `EventDomain` are `repr(u32)`; a byte each holds them.
    event_type: u8,
    source: u8,
    domain: u8,
}

impl StoredEvent {
    /// What the log keeps of `event`, its `index`-th event; the caller keeps the event's
    /// `roctx_range` aside. Read in place: the caller's event is not moved (200 bytes) and
    /// only a value new to a table is cloned.
    #[inline(always)]
    pub(crate) fn store(
        event: &RocmTracerEvent,
        index: usize,
        tables: &mut LogTables,
        strings: &mut SessionStrings,
    ) -> StoredEvent {
        let duration_ns = match event.end_time_ns.checked_sub(event.start_time_ns) {
            Some(duration) if duration < u64::from(LONG_DURATION) => duration as u32,
            _ => {
                tables.long_ends.insert(index, event.end_time_ns);
                LONG_DURATION
            }
        };
        let place = tables.places.intern(&Place {
            thread_id: event.thread_id,
            stream_id: event.stream_id,
            queue_id: event.queue_id,
            device_id: event.device_id,
        });
        if let Some(node) = event.graph {
            tables.graph_nodes.insert(index, node);
        }
        let (details_kind, details) = match event.details {
            EventDetails::None => (DetailsKind::None, 0),
            EventDetails::Kernel(kernel) => (
                DetailsKind::Kernel,
                tables.kernels.intern(&KernelWords(kernel.to_array())),
            ),
            EventDetails::Memcpy(ref copy) => (DetailsKind::Memcpy, tables.copies.intern(copy)),
            EventDetails::Memset(ref set) => (DetailsKind::Memset, tables.memsets.intern(set)),
            EventDetails::MemAlloc(ref alloc) => {
                (DetailsKind::MemAlloc, tables.allocs.intern(alloc))
            }
        };
        StoredEvent {
            start_time_ns: event.start_time_ns,
            correlation_id: event.correlation_id,
            scope_range_id: event.scope_range_id,
            duration_ns,
            place,
            name: strings.names.intern(&event.name),
            annotation: event
                .annotation
                .as_ref()
                .map_or(NO_ANNOTATION, |annotation| {
                    strings.annotations.intern(annotation)
                }),
            details,
            details_kind,
            event_type: event.event_type as u8,
            source: event.source as u8,
            domain: event.domain as u8,
        }
    }

    #[inline]
    pub(crate) fn correlation_id(&self) -> u64 {
        self.correlation_id
    }

    /// `(start, end)` of the event, the log's `index`-th, whose tables are `tables`.
    #[inline]
    pub(crate) fn times(&self, index: usize, tables: &LogTables) -> (u64, u64) {
        let start = self.start_time_ns;
        if self.duration_ns == LONG_DURATION {
            // Every long event has its end kept under its index.
            let end = tables.long_ends.get(&index).copied().unwrap_or(start);
            return (start, end);
        }
        (start, start + u64::from(self.duration_ns))
    }

    /// The id of the event's annotation in [`SessionStrings::annotations`], if it has one.
    pub(crate) fn annotation(&self) -> Option<u32> {
        (self.annotation != NO_ANNOTATION).then_some(self.annotation)
    }

    pub(crate) fn remove_annotation(&mut self) {
        self.annotation = NO_ANNOTATION;
    }
}

/// A logged event with the tables it refers to: what the join and the export read.
#[derive(Copy, Clone)]
pub(crate) struct LoggedEvent<'a> {
    pub(super) event: &'a StoredEvent,
    pub(super) index: usize,
    pub(super) tables: &'a LogTables,
    pub(super) strings: &'a SessionStrings,
    /// The `roctx_range`s the log keeps aside, by index; read only to rebuild the event.
    pub(super) roctx_ranges: &'a RoctxRanges,
}

impl LoggedEvent<'_> {
    #[inline]
    pub(crate) fn correlation_id(&self) -> u64 {
        self.event.correlation_id
    }

    #[inline]
    pub(crate) fn event_type(&self) -> EventType {
        EventType::from_u32(self.event.event_type.into()).unwrap_or(EventType::Unsupported)
    }

    #[inline]
    pub(crate) fn source(&self) -> EventSource {
        EventSource::from_u32(self.event.source.into()).unwrap_or(EventSource::Invalid)
    }

    fn domain(&self) -> EventDomain {
        EventDomain::from_u32(self.event.domain.into()).unwrap_or(EventDomain::InvalidDomain)
    }

    #[inline]
    fn place(&self) -> &Place {
        self.tables.places.get(self.event.place)
    }

    pub(crate) fn device_id(&self) -> u32 {
        self.place().device_id
    }

    pub(crate) fn stream_id(&self) -> u64 {
        self.place().stream_id
    }

    pub(crate) fn queue_id(&self) -> u64 {
        self.place().queue_id
    }

    pub(crate) fn thread_id(&self) -> u64 {
        self.place().thread_id
    }

    pub(crate) fn graph(&self) -> Option<GraphNode> {
        let nodes = &self.tables.graph_nodes;
        if nodes.is_empty() {
            return None;
        }
        nodes.get(&self.index).copied()
    }

    pub(crate) fn name(&self) -> &str {
        self.strings.names.get(self.event.name)
    }

    #[inline]
    pub(crate) fn start_time_ns(&self) -> u64 {
        self.event.start_time_ns
    }

    #[inline]
    pub(crate) fn end_time_ns(&self) -> u64 {
        self.event.times(self.index, self.tables).1
    }

    #[inline]
    pub(crate) fn details(&self) -> EventDetails {
        let (tables, id) = (self.tables, self.event.details);
        match self.event.details_kind {
            DetailsKind::None => EventDetails::None,
            DetailsKind::Kernel => {
                EventDetails::Kernel(KernelDetails::from_array(tables.kernels.get(id).0))
            }
            DetailsKind::Memcpy => EventDetails::Memcpy(*tables.copies.get(id)),
            DetailsKind::Memset => EventDetails::Memset(*tables.memsets.get(id)),
            DetailsKind::MemAlloc => EventDetails::MemAlloc(*tables.allocs.get(id)),
        }
    }

    pub(crate) fn has_kernel_details(&self) -> bool {
        self.event.details_kind == DetailsKind::Kernel
    }

    pub(crate) fn has_memcpy_details(&self) -> bool {
        self.event.details_kind == DetailsKind::Memcpy
    }

    pub(crate) fn has_memset_details(&self) -> bool {
        self.event.details_kind == DetailsKind::Memset
    }

    /// The event as it was stored, with the `roctx_range` its log kept aside.
    #[inline]
    pub(crate) fn to_event(self) -> RocmTracerEvent {
        let place = self.place();
        let event = self.event;
        RocmTracerEvent {
            event_type: self.event_type(),
            source: self.source(),
            domain: self.domain(),
            name: self.strings.names.get(event.name).clone(),
            annotation: (event.annotation != NO_ANNOTATION)
                .then(|| self.strings.annotations.get(event.annotation).clone()),
            roctx_range: self.roctx_ranges.get(&self.index).cloned(),
            start_time_ns: event.start_time_ns,
            end_time_ns: self.end_time_ns(),
            device_id: place.device_id,
            correlation_id: event.correlation_id,
            thread_id: place.thread_id,
            stream_id: place.stream_id,
            queue_id: place.queue_id,
            scope_range_id: event.scope_range_id,
            details: self.details(),
            graph: self.graph(),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_stored_event_is_at_most_48_bytes() {
        assert!(std::mem::size_of::<StoredEvent>() <= 48);
    }

    fn round_trip(events: &[RocmTracerEvent]) -> Vec<RocmTracerEvent> {
        let mut tables = LogTables::default();
        let mut strings = SessionStrings::default();
        let stored: Vec<StoredEvent> = events
            .iter()
            .enumerate()
            .map(|(index, event)| StoredEvent::store(event, index, &mut tables, &mut strings))
            .collect();
        let roctx_ranges: RoctxRanges = events
            .iter()
            .enumerate()
            .filter_map(|(index, event)| Some((index, event.roctx_range.clone()?)))
            .collect();
        stored
            .iter()
            .enumerate()
            .map(|(index, event)| {
                LoggedEvent {
                    event,
                    index,
                    tables: &tables,
                    strings: &strings,
                    roctx_ranges: &roctx_ranges,
                }
                .to_event()
            })
            .collect()
    }

    fn kernel(seed: u32) -> KernelDetails {
        KernelDetails::from_array(std::array::from_fn(|i| seed.wrapping_mul(i as u32 + 1)))
    }

    #[test]
    fn every_detail_kind_survives_storing() {
        let all = [
            EventDetails::None,
            EventDetails::Kernel(kernel(u32::MAX)),
            EventDetails::Memcpy(MemcpyDetails {
                num_bytes: u64::MAX - 5,
                destination: 0xdead_beef,
                is_async: true,
                call_direction: Some(EventType::MemcpyH2D),
                recorded_direction: Some(EventType::MemcpyD2D),
                src_kind: crate::event::MemoryKind::Pinned,
                dst_kind: crate::event::MemoryKind::Managed,
            }),
            EventDetails::Memset(MemsetDetails {
                num_bytes: 1 << 40,
                is_async: true,
            }),
            EventDetails::MemAlloc(MemAllocDetails {
                num_bytes: (1 << 33) + 7,
            }),
        ];
        let events: Vec<RocmTracerEvent> = all
            .iter()
            .map(|&details| RocmTracerEvent {
                details,
                ..RocmTracerEvent::default()
            })
            .collect();
        assert_eq!(round_trip(&events), events);
    }

    #[test]
    fn long_and_backwards_durations_survive_storing() {
        let events: Vec<RocmTracerEvent> = [(0, u64::MAX), (10, 5), (7, 7 + u64::from(u32::MAX))]
            .iter()
            .map(|&(start_time_ns, end_time_ns)| RocmTracerEvent {
                start_time_ns,
                end_time_ns,
                ..RocmTracerEvent::default()
            })
            .collect();
        assert_eq!(round_trip(&events), events);
    }

    fn event_type() -> impl Strategy<Value = EventType> {
        (0..=EventType::Generic as u32).prop_map(|value| EventType::from_u32(value).unwrap())
    }

    fn details() -> impl Strategy<Value = EventDetails> {
        // Few distinct values, as in a workload, so that interning is exercised.
        prop_oneof![
            Just(EventDetails::None),
            (0u32..3).prop_map(|seed| EventDetails::Kernel(kernel(seed))),
            (0u64..3, any::<bool>(), proptest::option::of(event_type())).prop_map(
                |(num_bytes, is_async, call_direction)| EventDetails::Memcpy(MemcpyDetails {
                    num_bytes,
                    destination: 1,
                    is_async,
                    call_direction,
                    recorded_direction: None,
                    src_kind: crate::event::MemoryKind::from_code(num_bytes),
                    dst_kind: crate::event::MemoryKind::Device,
                })
            ),
            (any::<u64>(), any::<bool>()).prop_map(|(num_bytes, is_async)| EventDetails::Memset(
                MemsetDetails {
                    num_bytes,
                    is_async
                }
            )),
            any::<u64>()
                .prop_map(|num_bytes| EventDetails::MemAlloc(MemAllocDetails { num_bytes })),
        ]
    }

    fn string() -> impl Strategy<Value = Arc<str>> {
        prop_oneof![Just("gemm"), Just("copy"), Just(""), Just("op#hlo_op=x#")].prop_map(Arc::from)
    }

    prop_compose! {
        fn event()(
            event_type in event_type(),
            source in 0u32..3,
            domain in 0u32..3,
            name in string(),
            annotation in proptest::option::of(string()),
            roctx_range in proptest::option::of(string()),
            start_time_ns in any::<u64>(),
            duration in prop_oneof![0u64..1000, any::<u64>()],
            device_id in prop_oneof![0u32..2, Just(u32::MAX)],
            correlation_id in any::<u64>(),
            thread_id in 0u64..3,
            stream_id in prop_oneof![0u64..3, Just(u64::MAX), Just(u64::MAX - 1)],
            queue_id in 0u64..2,
            scope_range_id in any::<i64>(),
            details in details(),
            graph in proptest::option::of((0u64..3, 0u32..4)),
        ) -> RocmTracerEvent {
            RocmTracerEvent {
                event_type,
                source: EventSource::from_u32(source).unwrap(),
                domain: EventDomain::from_u32(domain).unwrap(),
                name,
                annotation,
                roctx_range,
                start_time_ns,
                end_time_ns: start_time_ns.wrapping_add(duration),
                device_id,
                correlation_id,
                thread_id,
                stream_id,
                queue_id,
                scope_range_id,
                details,
                graph: graph.map(|(exec_id, ordinal)| GraphNode { exec_id, ordinal }),
            }
        }
    }

    proptest! {
        #[test]
        fn events_survive_storing(events in proptest::collection::vec(event(), 0..64)) {
            prop_assert_eq!(round_trip(&events), events);
        }
    }
}
