//! The strings of one annotation session, as the map owns them: each distinct annotation text
//! and ROCTx label held once and named by its index, and the one word a run names its
//! annotation by (the session generation above, the index or a sentinel below).
//!
//! Each table is a `hashbrown::HashTable` of positions into its list of values, not a map that
//! holds every key a second time (docs/ARCHITECTURE.md#collected-event-memory). Fx hashing:
//! a string is interned once per session, on a thread's cache miss, and neither the strings
//! nor the ids are chosen by an adversary.
use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

/// The string index of a run whose annotation the full map refused.
pub(super) const REFUSED: u64 = u32::MAX as u64;
/// The string index of a run of calls without annotation (made inside a ROCTx range).
pub(super) const NO_ANNOTATION: u64 = REFUSED - 1;
/// A run's `label` when its calls were made outside any ROCTx range of the session.
pub(super) const NO_LABEL: u64 = u64::MAX;

/// A run's `string`: the session generation above, the string's index below.
pub(super) fn packed_string(generation: u64, index: u64) -> u64 {
    (generation << 32) | (index & 0xffff_ffff)
}

/// The session generation of a run's `string`.
pub(super) fn generation_of(string: u64) -> u64 {
    string >> 32
}

/// The string index (or sentinel) of a run's `string`.
pub(super) fn index_of(string: u64) -> u64 {
    string & 0xffff_ffff
}

/// The next session generation after `generation` (it fits the word's upper half).
pub(super) fn next_generation(generation: u64) -> u64 {
    (generation + 1) & 0xffff_ffff
}

#[derive(Default)]
pub(super) struct SessionStrings {
    /// Indexes into `strings` by the string's hash (each string held once, in `strings`).
    index_of: HashTable<u32>,
    strings: Vec<Arc<str>>,
    /// The session's ROCTx labels, interned as the annotations are (not counted against the
    /// annotation capacity: a label is one per range the program pushed).
    label_index_of: FxHashMap<Arc<str>, u64>,
    labels: Vec<Arc<str>>,
}

impl SessionStrings {
    /// The index of `text`, interned if it is new and fewer than `max` strings are held;
    /// `None` when the full table refuses it.
    pub(super) fn intern(&mut self, text: &str, max: u64) -> Option<u64> {
        let hash = FxBuildHasher.hash_one(text);
        let strings = &self.strings;
        if let Some(&index) = self
            .index_of
            .find(hash, |&index| *strings[index as usize] == *text)
        {
            return Some(u64::from(index));
        }
        if self.strings.len() as u64 >= max {
            return None;
        }
        let index = self.strings.len() as u32;
        self.strings.push(Arc::from(text));
        let strings = &self.strings;
        self.index_of.insert_unique(hash, index, |&index| {
            FxBuildHasher.hash_one(&*strings[index as usize])
        });
        Some(u64::from(index))
    }

    pub(super) fn get(&self, index: u64) -> Option<Arc<str>> {
        self.strings.get(index as usize).cloned()
    }

    /// Distinct annotation strings held.
    pub(super) fn len(&self) -> usize {
        self.strings.len()
    }

    /// The interned index of a ROCTx label in this session.
    pub(super) fn intern_label(&mut self, label: &Arc<str>) -> u64 {
        if let Some(&index) = self.label_index_of.get(label) {
            return index;
        }
        let index = self.labels.len() as u64;
        self.labels.push(label.clone());
        self.label_index_of.insert(label.clone(), index);
        index
    }

    /// The label of index `label` (a run's `label`; [`NO_LABEL`] has none).
    pub(super) fn label(&self, label: u64) -> Option<Arc<str>> {
        usize::try_from(label)
            .ok()
            .and_then(|index| self.labels.get(index).cloned())
    }
}
