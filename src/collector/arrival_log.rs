//! Pending events of one source in arrival order, in fixed-size chunks: storing one is an
//! append (no tree descent, no half-full nodes), and the log never copies itself to grow, so
//! its memory is the events' size plus at most one partly filled chunk.
use std::collections::HashMap;
use std::sync::Arc;

use super::stored_event::{LogTables, PendingEvent, SessionStrings, StoredEvent};
use crate::event::RocmTracerEvent;

/// 4096 events of 48 bytes: 192 KiB per allocation.
const CHUNK_LEN: usize = 4096;

#[derive(Default)]
pub(super) struct ArrivalLog {
    chunks: Vec<Vec<StoredEvent>>,
    len: usize,
    tables: LogTables,
    /// `roctx_range`s by arrival index. Only work issued inside a ROCTx range has one, so
    /// this is kept aside rather than costing 16 bytes in every event (a program that wraps
    /// every call in a range pays a map entry per event instead).
    roctx_ranges: HashMap<usize, Arc<str>>,
}

impl ArrivalLog {
    #[inline(always)]
    pub(crate) fn push(&mut self, event: &RocmTracerEvent, strings: &mut SessionStrings) {
        if self
            .chunks
            .last()
            .is_none_or(|chunk| chunk.len() >= CHUNK_LEN)
        {
            self.chunks.push(Vec::with_capacity(CHUNK_LEN));
        }
        let Some(chunk) = self.chunks.last_mut() else {
            return;
        };
        // The chunk has room, so the push cannot grow it.
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

    /// The event that arrived `index`-th, readable with the session's `strings`; `index < len()`.
    #[inline]
    pub(crate) fn get<'a>(&'a self, index: usize, strings: &'a SessionStrings) -> PendingEvent<'a> {
        PendingEvent {
            event: self.stored(index),
            index,
            tables: &self.tables,
            strings,
        }
    }

    /// `(correlation id, annotation id)` of every event with an annotation.
    pub(crate) fn annotations(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.chunks.iter().flatten().filter_map(|event| {
            event
                .annotation()
                .map(|annotation| (event.correlation_id(), annotation))
        })
    }

    /// Removes the annotations `remove` says to; returns how many events lost theirs.
    pub(crate) fn remove_annotations(&mut self, remove: impl Fn(u32) -> bool) -> u64 {
        let mut removed = 0;
        for event in self.chunks.iter_mut().flatten() {
            if event.annotation().is_some_and(&remove) {
                event.remove_annotation();
                removed += 1;
            }
        }
        removed
    }

    pub(crate) fn roctx_range(&self, index: usize) -> Option<Arc<str>> {
        self.roctx_ranges.get(&index).cloned()
    }

    /// `(correlation id, arrival index)` of every event, ordered by id, ties in arrival
    /// order: the order the join walks, the same on every run. Ids usually arrive ascending,
    /// then no sort is needed.
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

    pub(crate) fn clear(&mut self) {
        *self = ArrivalLog::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(correlation_id: u64) -> RocmTracerEvent {
        RocmTracerEvent {
            correlation_id,
            ..RocmTracerEvent::default()
        }
    }

    #[test]
    fn orders_by_correlation_id_then_arrival_across_chunks() {
        let mut log = ArrivalLog::default();
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
        let mut log = ArrivalLog::default();
        let mut strings = SessionStrings::default();
        log.push(&event(1), &mut strings);
        log.push(
            &RocmTracerEvent {
                roctx_range: Some(Arc::from("range")),
                ..event(2)
            },
            &mut strings,
        );
        assert_eq!(log.roctx_range(0), None);
        assert_eq!(log.roctx_range(1).as_deref(), Some("range"));
        log.clear();
        assert!(log.is_empty());
    }
}
