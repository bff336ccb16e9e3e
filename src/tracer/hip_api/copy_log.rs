//! One thread's copy calls: what each of its HIP copy calls asked for, written at the call's
//! ENTER by that thread without a lock and taken by the buffer thread when it decodes the
//! call's records (`copy_calls.rs`).
//!
//! A single-producer ring, as the annotation log is (`annotation/thread_log.rs`): the owning
//! thread writes, one reader at a time (the copy calls' store, under its lock) takes what was
//! written since.
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::copy_calls::CopyCall;
use crate::event::EventType;

/// Copy calls a thread may note before a reader takes them (each entry is 24 bytes): more than
/// a buffer callback's worth of copies, so the thread rarely takes its notes in itself.
pub(crate) const COPY_LOG_CAPACITY: u64 = 1024;

/// The directions a note can hold, by their index in the log.
const DIRECTIONS: [EventType; 4] = [
    EventType::MemcpyH2D,
    EventType::MemcpyD2H,
    EventType::MemcpyD2D,
    EventType::MemcpyOther,
];

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

    /// Owning thread only. Notes call `correlation_id`; false if the ring is full (a reader
    /// must take notes first). A direction no copy call has is not noted (true).
    pub(crate) fn push(&self, correlation_id: u64, call: CopyCall) -> bool {
        let Some(direction) = DIRECTIONS.iter().position(|&d| d == call.direction) else {
            return true;
        };
        let written = self.written.load(Ordering::Relaxed);
        if written - self.taken.load(Ordering::Acquire) >= COPY_LOG_CAPACITY {
            return false;
        }
        let slot = self.slot(written);
        slot.correlation_id.store(correlation_id, Ordering::Relaxed);
        slot.bytes.store(call.bytes, Ordering::Relaxed);
        slot.direction.store(direction as u8, Ordering::Relaxed);
        self.written.store(written + 1, Ordering::Release);
        true
    }

    /// One reader at a time. Hands every note written since the last take to `f` and frees
    /// its slot.
    pub(crate) fn take(&self, mut f: impl FnMut(u64, CopyCall)) {
        let taken = self.taken.load(Ordering::Relaxed);
        let written = self.written.load(Ordering::Acquire);
        for index in taken..written {
            let slot = self.slot(index);
            let direction = DIRECTIONS[usize::from(slot.direction.load(Ordering::Relaxed)) % 4];
            let call = CopyCall {
                direction,
                bytes: slot.bytes.load(Ordering::Relaxed),
            };
            f(slot.correlation_id.load(Ordering::Relaxed), call);
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

    fn call(direction: EventType, bytes: u64) -> CopyCall {
        CopyCall { direction, bytes }
    }

    #[test]
    fn notes_come_back_in_order_once_and_a_full_ring_refuses() {
        let log = ThreadCopyLog::new();
        assert!(log.push(1, call(EventType::MemcpyH2D, 64)));
        assert!(log.push(2, call(EventType::MemcpyOther, 0)));
        let mut taken = vec![];
        log.take(|id, call| taken.push((id, call)));
        assert_eq!(
            taken,
            vec![
                (1, call(EventType::MemcpyH2D, 64)),
                (2, call(EventType::MemcpyOther, 0))
            ]
        );
        log.take(|_, _| panic!("taken twice"));
        for id in 0..COPY_LOG_CAPACITY {
            assert!(log.push(id, call(EventType::MemcpyD2H, id)));
        }
        assert!(!log.push(7, call(EventType::MemcpyD2D, 7)));
        log.discard();
        assert!(log.push(7, call(EventType::MemcpyD2D, 7)));
        let mut count = 0;
        log.take(|id, noted| {
            assert_eq!((id, noted), (7, call(EventType::MemcpyD2D, 7)));
            count += 1;
        });
        assert_eq!(count, 1);
    }
}
