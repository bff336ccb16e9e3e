//! A single-producer ring of fixed-size entries of `u64` words, written by the thread that
//! owns it without a lock and read by one reader at a time, who takes what was written since
//! (the annotation's per-thread log, `annotation/thread_log.rs`, and the copy calls' one,
//! `hip_api/copy_log.rs`).
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

/// An entry kept as `WORDS` words.
pub(crate) trait RingEntry<const WORDS: usize>: Copy {
    fn to_words(self) -> [u64; WORDS];
    fn from_words(words: [u64; WORDS]) -> Self;
}

pub(crate) struct WordRing<T, const WORDS: usize, const CAPACITY: u64> {
    slots: Box<[[AtomicU64; WORDS]]>,
    /// Entries written so far (the producer's count).
    written: AtomicU64,
    /// Entries taken by readers.
    taken: AtomicU64,
    entry: PhantomData<T>,
}

impl<T: RingEntry<WORDS>, const WORDS: usize, const CAPACITY: u64> WordRing<T, WORDS, CAPACITY> {
    pub(crate) fn new() -> Self {
        WordRing {
            slots: (0..CAPACITY)
                .map(|_| std::array::from_fn(|_| AtomicU64::new(0)))
                .collect(),
            written: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            entry: PhantomData,
        }
    }

    fn slot(&self, index: u64) -> &[AtomicU64; WORDS] {
        // CAPACITY slots, indexed modulo their number: always in bounds.
        &self.slots[(index % CAPACITY) as usize]
    }

    /// Owning thread only. False if the ring is full (a reader must take entries first).
    pub(crate) fn push(&self, entry: T) -> bool {
        let written = self.written.load(Ordering::Relaxed);
        if written - self.taken.load(Ordering::Acquire) >= CAPACITY {
            return false;
        }
        for (word, value) in self.slot(written).iter().zip(entry.to_words()) {
            word.store(value, Ordering::Relaxed);
        }
        self.written.store(written + 1, Ordering::Release);
        true
    }

    /// Owning thread only: word `word` of the newest entry, which readers may be reading in
    /// place, becomes `value`.
    pub(crate) fn set_newest_word(&self, word: usize, value: u64) {
        let written = self.written.load(Ordering::Relaxed);
        if written > 0 {
            self.slot(written - 1)[word].store(value, Ordering::Release);
        }
    }

    fn read(&self, index: u64) -> T {
        T::from_words(
            self.slot(index)
                .each_ref()
                .map(|w| w.load(Ordering::Acquire)),
        )
    }

    /// One reader at a time. Hands the entries written since the last take, except the newest
    /// `keep` of them, to `f` and frees their slots.
    fn take_all_but(&self, keep: u64, mut f: impl FnMut(T)) {
        let taken = self.taken.load(Ordering::Relaxed);
        let written = self.written.load(Ordering::Acquire);
        if written <= taken + keep {
            return;
        }
        for index in taken..written - keep {
            f(self.read(index));
        }
        self.taken.store(written - keep, Ordering::Release);
    }

    /// One reader at a time. Hands every entry written since the last take to `f`.
    pub(crate) fn take(&self, f: impl FnMut(T)) {
        self.take_all_but(0, f);
    }

    /// One reader at a time. Hands every closed entry (all but the newest) to `f`.
    pub(crate) fn take_closed(&self, f: impl FnMut(T)) {
        self.take_all_but(1, f);
    }

    /// One reader at a time: the newest entry, which its thread may still change, if not taken.
    pub(crate) fn newest(&self) -> Option<T> {
        let written = self.written.load(Ordering::Acquire);
        (written > self.taken.load(Ordering::Relaxed)).then(|| self.read(written - 1))
    }

    /// One reader at a time: forgets every entry (a session starts or ended).
    pub(crate) fn discard(&self) {
        self.taken
            .store(self.written.load(Ordering::Acquire), Ordering::Release);
    }
}
