//! A set of correlation ids as a bitmap over the span they cover. Correlation ids count HIP
//! calls, so the ids a cap drops once it is reached are dense: one bit each keeps the set's
//! memory to an eighth of a byte per HIP call, where a hash set would keep growing by tens of
//! bytes per dropped event (the caps exist to bound memory).
#[derive(Clone, Debug, Default)]
pub(super) struct IdSet {
    /// The id of bit 0 of `words[0]`; a multiple of 64.
    base: u64,
    words: Vec<u64>,
}

/// Ids further than this from the ones already in the set are not recorded: a bitmap that
/// large (64 MiB) means the ids are not a count of calls, and losing the mark only changes
/// which reason a counterpart's loss is counted under.
const MAX_SPAN: u64 = 1 << 29;

impl IdSet {
    pub(super) fn insert(&mut self, id: u64) {
        let word_base = id & !63;
        if self.words.is_empty() {
            self.base = word_base;
        } else if word_base < self.base {
            let extra = (self.base - word_base) / 64;
            if (self.words.len() as u64 + extra) * 64 > MAX_SPAN {
                return;
            }
            self.words
                .splice(0..0, std::iter::repeat_n(0, extra as usize));
            self.base = word_base;
        }
        let index = (word_base - self.base) / 64;
        if index * 64 >= MAX_SPAN {
            return;
        }
        let index = index as usize;
        if index >= self.words.len() {
            self.words.resize(index + 1, 0);
        }
        self.words[index] |= 1 << (id & 63);
    }

    pub(super) fn contains(&self, id: u64) -> bool {
        if id < self.base {
            return false;
        }
        let index = ((id - self.base) / 64) as usize;
        self.words
            .get(index)
            .is_some_and(|word| word & (1 << (id & 63)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_ids_in_any_order_and_nothing_else() {
        let mut set = IdSet::default();
        for id in [1000, 1001, 1063, 1064, 5, 700, 1000] {
            set.insert(id);
        }
        for id in [1000, 1001, 1063, 1064, 5, 700] {
            assert!(set.contains(id), "{id}");
        }
        for id in [0, 4, 6, 699, 701, 999, 1002, 1065, u64::MAX] {
            assert!(!set.contains(id), "{id}");
        }
    }

    #[test]
    fn dense_ids_cost_a_bit_each() {
        let mut set = IdSet::default();
        for id in 1_000_000..2_000_000 {
            set.insert(id);
        }
        assert!(set.words.len() <= 1_000_000 / 64 + 2);
        assert!(set.contains(1_500_000));
    }

    #[test]
    fn ids_far_from_the_set_are_not_recorded() {
        let mut set = IdSet::default();
        set.insert(10);
        set.insert(10 + MAX_SPAN * 2);
        assert!(!set.contains(10 + MAX_SPAN * 2));
        assert!(set.contains(10));
    }
}
