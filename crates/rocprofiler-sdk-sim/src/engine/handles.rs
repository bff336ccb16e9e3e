//! Handle numbering. The real SDK starts context and buffer handles at a random offset, and
//! agent handles are `logical_node_id + offset` with one offset per process drawn from
//! [255, 65535] (docs/sdk-facts.md#agents, docs/simulator-fidelity.md#configuration-rules). Tools must not assume small or stable handles. Under the virtual
//! clock the offsets come from `seed`, so a replay's agent handles repeat.
use std::hash::{BuildHasher, Hasher};

/// A fresh random value in [255, 65535].
pub(crate) fn random_offset() -> u64 {
    if let Some(seeded) = crate::time::clock::seeded_offset() {
        return 255 + seeded % (65535 - 255 + 1);
    }
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(crate::time::clock::now_ns());
    hasher.write_u64(crate::time::clock::getpid());
    255 + hasher.finish() % (65535 - 255 + 1)
}
