//! Values that collected events repeat (names, annotations, a kernel's dispatch facts, where an
//! event ran) kept once and referred to by a `u32` id. A workload launches a few kernels many
//! times from a few threads onto a few streams, so each distinct value costs one table entry
//! and each event four bytes. Storing an event is on the buffer callback's path: a small
//! direct-mapped cache, indexed by a cheap mix of the value ([`CacheSlot`]), finds a value
//! seen recently with one comparison, and only a value not in it is hashed.
use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Where a value sits in an [`Interner`]'s cache: any bits, spread over the low ones, and
/// cheaper to compute than a hash of the whole value (equal values must give equal slots).
pub(super) trait CacheSlot {
    fn cache_slot(&self) -> u64;
}

/// Multiplies `bits` so that every input bit reaches the top bits the cache uses.
#[inline]
pub(super) fn spread(bits: u64) -> u64 {
    bits.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Slots in an interner's cache: more than the streams, threads or kernels a workload usually
/// alternates between.
const CACHE_BITS: u32 = 6;
/// An empty cache slot.
const NO_ID: u32 = u32::MAX;

pub(super) struct Interner<K> {
    /// The ids by their value's hash; each value is held once, in `values` (a map from value
    /// to id would hold it twice: a quarter-million annotations cost 10 MB more).
    ids: HashTable<u32>,
    values: Vec<K>,
    /// Ids of recently interned values by [`CacheSlot`]; [`NO_ID`] when empty.
    cache: [u32; 1 << CACHE_BITS],
}

impl<K> Default for Interner<K> {
    fn default() -> Self {
        Interner {
            ids: HashTable::new(),
            values: Vec::new(),
            cache: [NO_ID; 1 << CACHE_BITS],
        }
    }
}

impl<K: Hash + Eq + Clone + CacheSlot> Interner<K> {
    /// `key`'s id, given it one (and a clone of `key`) if it is new. Ids are dense, in first-seen order. A session
    /// holds fewer than 2^32 distinct values: each needs a stored event, and the collector's
    /// caps bound those far lower (the ids would wrap, not panic, past that).
    #[inline]
    pub(crate) fn intern(&mut self, key: &K) -> u32 {
        let slot = (key.cache_slot() >> (64 - CACHE_BITS)) as usize;
        let cached = self.cache[slot];
        // For `Arc<str>`, `==` compares the pointers first.
        if self
            .values
            .get(cached as usize)
            .is_some_and(|value| value == key)
        {
            return cached;
        }
        let id = self.intern_uncached(key);
        self.cache[slot] = id;
        id
    }

    #[cold]
    fn intern_uncached(&mut self, key: &K) -> u32 {
        let hash = FxBuildHasher.hash_one(key);
        let values = &self.values;
        if let Some(&id) = self.ids.find(hash, |&id| values[id as usize] == *key) {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(key.clone());
        let values = &self.values;
        self.ids
            .insert_unique(hash, id, |&id| FxBuildHasher.hash_one(&values[id as usize]));
        id
    }

    /// The value of an id [`Interner::intern`] returned.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> &K {
        &self.values[id as usize]
    }

    /// How many distinct values were interned.
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }
}

/// Strings are interned by content, cached by allocation: the tracer shares one `Arc` per
/// kernel name and per annotation run.
impl CacheSlot for std::sync::Arc<str> {
    #[inline]
    fn cache_slot(&self) -> u64 {
        spread(std::sync::Arc::as_ptr(self).cast::<u8>() as usize as u64)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn equal_values_share_an_id_and_ids_return_their_values() {
        let mut names: Interner<Arc<str>> = Interner::default();
        let a = names.intern(&Arc::from("gemm"));
        let b = names.intern(&Arc::from("copy"));
        // An equal string from another allocation, after another value and right after itself.
        assert_eq!(names.intern(&Arc::from("gemm")), a);
        assert_eq!(names.intern(&Arc::from("gemm")), a);
        assert_eq!(names.intern(&Arc::from("copy")), b);
        assert_ne!(a, b);
        assert_eq!(&**names.get(a), "gemm");
        assert_eq!(&**names.get(b), "copy");
        assert_eq!(names.len(), 2);
    }

    /// A value whose cache slot is always the same, so that values evict each other.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Colliding(u32);

    impl CacheSlot for Colliding {
        fn cache_slot(&self) -> u64 {
            0
        }
    }

    #[test]
    fn values_that_share_a_cache_slot_keep_their_ids() {
        let mut values = Interner::default();
        let ids: Vec<u32> = (0..40).map(|v| values.intern(&Colliding(v % 20))).collect();
        for (v, id) in ids.iter().enumerate() {
            assert_eq!(*id, (v % 20) as u32);
            assert_eq!(values.get(*id), &Colliding((v % 20) as u32));
        }
        assert_eq!(values.len(), 20);
    }
}
