//! One thread's copy calls: what each of its HIP copy calls asked for, written at the call's
//! ENTER by that thread without a lock and taken by the buffer thread when it decodes the
//! call's records (`copy_calls.rs`).
//!
//! A single-producer ring, as the annotation log is (`annotation/thread_log.rs`): the owning
//! thread writes, one reader at a time (the copy calls' store, under its lock) takes what was
//! written since.
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Copy calls a thread may note before a reader takes them (each entry is 24 bytes): more than
/// a buffer callback's worth of copies, so the thread rarely takes its notes in itself.
pub(crate) const COPY_LOG_CAPACITY: u64 = 1024;

/// One copy call as the log holds it: the call's correlation id, its size and the code of
/// its direction (`copy_calls.rs` codes them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct CopyNote {
    pub correlation_id: u64,
    pub bytes: u64,
    pub direction: u8,
}

#[derive(Default)]
struct Slot {
    correlation_id: AtomicU64,
    bytes: AtomicU64,
    direction: AtomicU8,
}

pub(crate) struct ThreadCopyLog {
    slots: Box<[Slot]>,
    /// Notes written so far (the producer's count).
    written: AtomicU64,
    /// Notes taken by readers.
    taken: AtomicU64,
}

impl ThreadCopyLog {
    pub(crate) fn new() -> ThreadCopyLog {
        ThreadCopyLog {
            slots: (0..COPY_LOG_CAPACITY).map(|_| Slot::default()).collect(),
            written: AtomicU64::new(0),
            taken: AtomicU64::new(0),
        }
    }

    fn slot(&self, index: u64) -> &Slot {
        // COPY_LOG_CAPACITY slots, indexed modulo their number: always in bounds.
        &self.slots[(index % COPY_LOG_CAPACITY) as usize]
    }

    /// Owning thread only. False if the ring is full (a reader must take notes first).
    pub(crate) fn push(&self, note: CopyNote) -> bool {
        let written = self.written.load(Ordering::Relaxed);
        if written - self.taken.load(Ordering::Acquire) >= COPY_LOG_CAPACITY {
            return false;
        }
        let slot = self.slot(written);
        slot.correlation_id
            .store(note.correlation_id, Ordering::Relaxed);
        slot.bytes.store(note.bytes, Ordering::Relaxed);
        slot.direction.store(note.direction, Ordering::Relaxed);
        self.written.store(written + 1, Ordering::Release);
        true
    }

    /// One reader at a time. Hands every note written since the last take to `f` and frees
    /// its slot.
    pub(crate) fn take(&self, mut f: impl FnMut(CopyNote)) {
        let taken = self.taken.load(Ordering::Relaxed);
        let written = self.written.load(Ordering::Acquire);
        for index in taken..written {
            let slot = self.slot(index);
            f(CopyNote {
                correlation_id: slot.correlation_id.load(Ordering::Relaxed),
                bytes: slot.bytes.load(Ordering::Relaxed),
                direction: slot.direction.load(Ordering::Relaxed),
            });
        }
        self.taken.store(written, Ordering::Release);
    }

    /// One reader at a time: forgets every note (a session starts or ended).
    pub(crate) fn discard(&self) {
        self.taken
            .store(self.written.load(Ordering::Acquire), Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(correlation_id: u64, bytes: u64) -> CopyNote {
        CopyNote {
            correlation_id,
            bytes,
            direction: (correlation_id % 4) as u8,
        }
    }

    #[test]
    fn notes_come_back_in_order_once_and_a_full_ring_refuses() {
        let log = ThreadCopyLog::new();
        assert!(log.push(note(1, 64)));
        assert!(log.push(note(2, 0)));
        let mut taken = vec![];
        log.take(|noted| taken.push(noted));
        assert_eq!(taken, vec![note(1, 64), note(2, 0)]);
        log.take(|_| panic!("taken twice"));
        for id in 0..COPY_LOG_CAPACITY {
            assert!(log.push(note(id, id)));
        }
        assert!(!log.push(note(7, 7)));
        log.discard();
        assert!(log.push(note(7, 7)));
        let mut count = 0;
        log.take(|noted| {
            assert_eq!(noted, note(7, 7));
            count += 1;
        });
        assert_eq!(count, 1);
    }
}
