//! Collected events in the order they were appended, 48 bytes each ([`StoredEvent`]), in
//! fixed-size chunks ([`EventChunk`]): storing one is an append (no tree descent, no
//! half-full nodes), and the log never copies itself to grow, so its memory is the events'
//! size plus at most one partly written chunk. The collector keeps its pending events of each
//! source in one (arrival order) and its joined events of each device in one (join order); a
//! chunk of pending events is given back as soon as the join has read all of it, so that the
//! joined events take the memory the pending ones leave
//! (docs/ARCHITECTURE.md#collected-event-memory).
use super::event_chunk::EventChunk;
use super::stored_event::{LogTables, LoggedEvent, RoctxRanges, SessionStrings, StoredEvent};
use crate::event::RocmTracerEvent;

/// 32768 events of 48 bytes: 1.5 MiB per mapping, of which only the pages written are taken;
/// a billion events in one log (XLA's largest cap) would make 30,518 mappings, under Linux's
/// default limit of 65,530 per process. Past the limit a chunk comes from the heap instead.
pub(super) const CHUNK_LEN: usize = 32768;

#[derive(Default)]
pub(crate) struct EventLog {
    chunks: Vec<EventChunk>,
    len: usize,
    tables: LogTables,
    /// `roctx_range`s by index. Only work issued inside a ROCTx range has one, so this is
    /// kept aside rather than costing 16 bytes in every event (a program that wraps every
    /// call in a range pays a map entry per event instead).
    roctx_ranges: RoctxRanges,
    /// While a join reads the log: how many events of each chunk it has yet to release.
    unreleased: Vec<u32>,
}

impl EventLog {
    #[inline(always)]
    pub(crate) fn push(&mut self, event: &RocmTracerEvent, strings: &mut SessionStrings) {
        if self.chunks.last().is_none_or(EventChunk::is_full) {
            self.chunks.push(EventChunk::with_capacity(CHUNK_LEN));
        }
        let Some(chunk) = self.chunks.last_mut() else {
            return;
        };
        chunk.push(StoredEvent::store(
            event,
            self.len,
            &mut self.tables,
            strings,
        ));
        if let Some(range) = &event.roctx_range {
            self.roctx_ranges.insert(self.len, range.clone());
        }
        self.len += 1;
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    fn stored(&self, index: usize) -> &StoredEvent {
        &self.chunks[index / CHUNK_LEN][index % CHUNK_LEN]
    }

    /// The `index`-th event, readable with the session's `strings`; `index < len()`, and
    /// not released.
    #[inline]
    pub(crate) fn get<'a>(&'a self, index: usize, strings: &'a SessionStrings) -> LoggedEvent<'a> {
        LoggedEvent {
            event: self.stored(index),
            index,
            tables: &self.tables,
            strings,
            roctx_ranges: &self.roctx_ranges,
        }
    }

    /// `(start, end)` of the `index`-th event, read without the rest of it.
    #[inline]
    pub(crate) fn times(&self, index: usize) -> (u64, u64) {
        self.stored(index).times(index, &self.tables)
    }

    /// Every event in order, as the tracer sent it.
    pub(crate) fn events<'a>(
        &'a self,
        strings: &'a SessionStrings,
    ) -> impl Iterator<Item = RocmTracerEvent> + 'a {
        (0..self.len).map(move |index| self.get(index, strings).to_event())
    }

    /// `(correlation id, annotation id)` of every event with an annotation.
    pub(crate) fn annotations(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.chunks
            .iter()
            .flat_map(|chunk| chunk.iter())
            .filter_map(|event| {
                event
                    .annotation()
                    .map(|annotation| (event.correlation_id(), annotation))
            })
    }

    /// Removes the annotations `remove` says to; returns how many events lost theirs.
    pub(crate) fn remove_annotations(&mut self, remove: impl Fn(u32) -> bool) -> u64 {
        let mut removed = 0;
        for event in self.chunks.iter_mut().flat_map(|chunk| chunk.iter_mut()) {
            if event.annotation().is_some_and(&remove) {
                event.remove_annotation();
                removed += 1;
            }
        }
        removed
    }

    /// `(correlation id, index)` of every event, ordered by id, ties in index order: the
    /// order the join walks, the same on every run. Ids usually arrive ascending, then no sort
    /// is needed.
    pub(crate) fn order_by_correlation_id(&self) -> Vec<(u64, usize)> {
        let mut keyed: Vec<(u64, usize)> = Vec::with_capacity(self.len);
        for (chunk_index, chunk) in self.chunks.iter().enumerate() {
            let first = chunk_index * CHUNK_LEN;
            keyed.extend(
                chunk
                    .iter()
                    .enumerate()
                    .map(|(offset, event)| (event.correlation_id(), first + offset)),
            );
        }
        if !keyed.is_sorted() {
            // Keys are unique (the index breaks ties), so an unstable sort is deterministic.
            keyed.sort_unstable();
        }
        keyed
    }

    /// Starts counting releases: from now on, a chunk whose events have all been passed to
    /// [`EventLog::release`] is freed, and its events must not be read again.
    pub(crate) fn start_releasing(&mut self) {
        self.unreleased = self.chunks.iter().map(|chunk| chunk.len() as u32).collect();
    }

    /// Tells the log the join will not read the `index`-th event again (each index once).
    #[inline]
    pub(crate) fn release(&mut self, index: usize) {
        let chunk = index / CHUNK_LEN;
        let Some(left) = self.unreleased.get_mut(chunk) else {
            return;
        };
        *left = left.saturating_sub(1);
        if *left == 0 {
            self.chunks[chunk] = EventChunk::empty();
        }
    }

    /// Bytes the log's events take now, chunks freed by [`EventLog::release`] excluded.
    #[cfg(test)]
    fn resident_bytes(&self) -> usize {
        self.chunks.iter().map(EventChunk::capacity_bytes).sum()
    }

    pub(crate) fn clear(&mut self) {
        *self = EventLog::default();
    }
}
#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn event(correlation_id: u64) -> RocmTracerEvent {
        RocmTracerEvent {
            correlation_id,
            ..RocmTracerEvent::default()
        }
    }

    #[test]
    fn orders_by_correlation_id_then_arrival_across_chunks() {
        let mut log = EventLog::default();
        let ids: Vec<u64> = (0..2 * CHUNK_LEN as u64 + 10)
            .rev()
            .map(|i| i / 2)
            .collect();
        let mut strings = SessionStrings::default();
        for &id in &ids {
            log.push(&event(id), &mut strings);
        }
        assert_eq!(log.len(), ids.len());
        let order = log.order_by_correlation_id();
        let sorted: Vec<u64> = order.iter().map(|&(id, _)| id).collect();
        let mut expected = ids.clone();
        expected.sort();
        assert_eq!(sorted, expected);
        for pair in order.windows(2) {
            assert_eq!(log.get(pair[0].1, &strings).correlation_id(), pair[0].0);
            if pair[0].0 == pair[1].0 {
                assert!(pair[0].1 < pair[1].1, "ties must keep arrival order");
            }
        }
    }

    #[test]
    fn keeps_a_roctx_range_with_its_event() {
        let mut log = EventLog::default();
        let mut strings = SessionStrings::default();
        log.push(&event(1), &mut strings);
        log.push(
            &RocmTracerEvent {
                roctx_range: Some(Arc::from("range")),
                ..event(2)
            },
            &mut strings,
        );
        let ranges: Vec<Option<Arc<str>>> = log
            .events(&strings)
            .map(|event| event.roctx_range)
            .collect();
        assert_eq!(ranges, [None, Some(Arc::from("range"))]);
        log.clear();
        assert!(log.is_empty());
    }

    #[test]
    fn a_chunk_is_freed_once_all_its_events_are_released() {
        let mut log = EventLog::default();
        let mut strings = SessionStrings::default();
        for id in 0..2 * CHUNK_LEN as u64 + 1 {
            log.push(&event(id), &mut strings);
        }
        let chunk_bytes = CHUNK_LEN * std::mem::size_of::<StoredEvent>();
        assert_eq!(log.resident_bytes(), 3 * chunk_bytes);
        log.start_releasing();
        // The second chunk, all but its last event, in any order.
        for index in (CHUNK_LEN..2 * CHUNK_LEN - 1).rev() {
            log.release(index);
        }
        assert_eq!(log.resident_bytes(), 3 * chunk_bytes);
        log.release(2 * CHUNK_LEN - 1);
        assert_eq!(log.resident_bytes(), 2 * chunk_bytes);
        // The events of the chunks left are still there to read.
        assert_eq!(log.get(0, &strings).correlation_id(), 0);
        assert_eq!(
            log.get(2 * CHUNK_LEN, &strings).correlation_id(),
            2 * CHUNK_LEN as u64
        );
    }
}
