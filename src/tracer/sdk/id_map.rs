//! A hash map keyed by an id the SDK hands out (a kernel id, an agent handle): the buffer
//! thread looks one up for every record, and std's default SipHash (built to resist keys
//! chosen by an attacker, which SDK ids are not) costs about 140 instructions per look-up.
//! One multiplication spreads the id's bits over the table instead.
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// `HashMap<u64, V>` with [`SdkIdHasher`].
pub(crate) type SdkIdMap<V> = HashMap<u64, V, BuildHasherDefault<SdkIdHasher>>;

/// Fibonacci hashing of one `u64`: the key times 2^64 / golden ratio. hashbrown takes the
/// top seven bits as its tag and the low bits as the bucket, and the product mixes both from
/// every bit of a small or aligned id.
#[derive(Default)]
pub(crate) struct SdkIdHasher(u64);

impl Hasher for SdkIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys reach this map; anything else still hashes, byte by byte.
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u64(&mut self, id: u64) {
        let mixed = (self.0 ^ id).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = mixed ^ (mixed >> 29);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_kind_of_id() {
        let mut map = SdkIdMap::default();
        // Small counters, page-aligned handles, and ids that differ only in high bits.
        let ids: std::collections::BTreeSet<u64> = (0..1000)
            .chain((1..1000).map(|i| i << 12))
            .chain((1..64).map(|i| 1u64 << i))
            .chain([u64::MAX, u64::MAX - 1])
            .collect();
        for &id in &ids {
            map.insert(id, id.wrapping_mul(3));
        }
        assert_eq!(map.len(), ids.len());
        for &id in &ids {
            assert_eq!(map.get(&id), Some(&id.wrapping_mul(3)));
        }
        assert_eq!(map.get(&12345), None);
    }

    #[test]
    fn spreads_aligned_handles_over_buckets() {
        // Agent handles are pointers: a hasher that kept their zero low bits would put
        // them all in one bucket.
        let buckets: std::collections::HashSet<u64> = (1..=64u64)
            .map(|i| {
                let mut hasher = SdkIdHasher::default();
                hasher.write_u64(0x7f00_0000_0000 + (i << 12));
                hasher.finish() & 63
            })
            .collect();
        assert!(buckets.len() > 32, "{} buckets of 64", buckets.len());
    }
}
