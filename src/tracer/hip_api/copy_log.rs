//! One thread's copy calls: what each of its HIP copy calls asked for, written at the call's
//! ENTER by that thread without a lock and taken by the buffer thread when it decodes the
//! call's records (`copy_calls.rs`).
//!
//! A single-producer ring, as the annotation log is (`annotation/thread_log.rs`): the owning
//! thread writes, one reader at a time (the copy calls' store, under its lock) takes what was
//! written since.
use crate::tracer::word_ring::{RingEntry, WordRing};

/// Copy calls a thread may note before a reader takes them (each entry is 24 bytes): more than
/// a buffer callback's worth of copies, so the thread rarely takes its notes in itself.
pub(crate) const COPY_LOG_CAPACITY: u64 = 1024;

/// One copy call as the log holds it: the call's correlation id, its size and the code of
/// its direction (`copy_calls.rs` codes them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct CopyNote {
    pub correlation_id: u64,
    pub bytes: u64,
    pub direction: u64,
}

impl RingEntry<3> for CopyNote {
    fn to_words(self) -> [u64; 3] {
        [self.correlation_id, self.bytes, self.direction]
    }

    fn from_words([correlation_id, bytes, direction]: [u64; 3]) -> CopyNote {
        CopyNote {
            correlation_id,
            bytes,
            direction,
        }
    }
}

pub(crate) type ThreadCopyLog = WordRing<CopyNote, 3, COPY_LOG_CAPACITY>;

#[cfg(test)]
mod tests {
    use super::*;

    fn note(correlation_id: u64, bytes: u64) -> CopyNote {
        CopyNote {
            correlation_id,
            bytes,
            direction: correlation_id % 4,
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
