//! One thread's annotation record: which of its HIP calls ran under which annotation, written
//! by that thread without a lock and read by the buffer thread (docs/ARCHITECTURE.md, "A
//! kernel", step 1).
//!
//! Calls are kept as runs: consecutive correlation ids issued by this thread under one
//! annotation and one innermost ROCTx range label share one entry, whose `last` the thread extends while its annotation does not
//! change. A run only grows by `last + 1`, an id this thread issued, so a run never claims
//! another thread's call. The log is a single-producer ring: the owning thread writes, one
//! reader at a time (the annotation map, under its lock) takes the closed runs, and reads the
//! newest run, still open, in place.
use crate::tracer::word_ring::{RingEntry, WordRing};

/// Runs a thread may write before a reader takes them (each entry is 40 bytes).
pub(crate) const LOG_CAPACITY: u64 = 256;

/// One run: calls `first..=last` of the thread had the interned string `string` (session
/// generation in the high half, string index in the low half), scope-range id
/// `scope_range_id` and the interned ROCTx label `label` (index in the session's labels).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub first: u64,
    pub last: u64,
    pub string: u64,
    pub scope_range_id: i64,
    pub label: u64,
}

impl RingEntry<5> for Run {
    fn to_words(self) -> [u64; 5] {
        let scope_range_id = self.scope_range_id as u64;
        [
            self.first,
            self.last,
            self.string,
            scope_range_id,
            self.label,
        ]
    }

    fn from_words([first, last, string, scope_range_id, label]: [u64; 5]) -> Run {
        let scope_range_id = scope_range_id as i64;
        Run {
            first,
            last,
            string,
            scope_range_id,
            label,
        }
    }
}

pub(crate) type ThreadAnnotationLog = WordRing<Run, 5, LOG_CAPACITY>;

impl ThreadAnnotationLog {
    /// Owning thread only: the newest run now ends at `last`.
    pub(crate) fn extend_newest(&self, last: u64) {
        self.set_newest_word(1, last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(first: u64, last: u64) -> Run {
        Run {
            first,
            last,
            string: 1,
            scope_range_id: 0,
            label: 0,
        }
    }

    #[test]
    fn the_newest_run_stays_until_closed_and_grows_in_place() {
        let log = ThreadAnnotationLog::new();
        assert!(log.newest().is_none());
        assert!(log.push(run(1, 1)));
        log.extend_newest(5);
        let mut taken = vec![];
        log.take_closed(|r| taken.push(r));
        assert!(taken.is_empty(), "the open run is read in place, not taken");
        assert_eq!(log.newest(), Some(run(1, 5)));
        assert!(log.push(run(9, 9)));
        log.take_closed(|r| taken.push(r));
        assert_eq!(taken, vec![run(1, 5)]);
        assert_eq!(log.newest(), Some(run(9, 9)));
        log.discard();
        assert!(log.newest().is_none());
        let mut after = 0;
        log.take_closed(|_| after += 1);
        assert_eq!(after, 0);
    }

    #[test]
    fn a_full_ring_refuses_until_a_reader_takes() {
        let log = ThreadAnnotationLog::new();
        for i in 0..LOG_CAPACITY {
            assert!(log.push(run(2 * i, 2 * i)));
        }
        assert!(!log.push(run(1000, 1000)));
        let mut count = 0;
        log.take_closed(|_| count += 1);
        assert_eq!(count, LOG_CAPACITY - 1);
        assert!(log.push(run(1000, 1000)));
        assert_eq!(log.newest(), Some(run(1000, 1000)));
    }

    #[test]
    fn a_reader_on_another_thread_sees_every_run() {
        let log = std::sync::Arc::new(ThreadAnnotationLog::new());
        let writer = {
            let log = log.clone();
            std::thread::spawn(move || {
                let mut next = 0u64;
                while next < 10_000 {
                    // Runs of three calls, ids 4k..4k+2.
                    if log.push(run(next, next)) {
                        log.extend_newest(next + 1);
                        log.extend_newest(next + 2);
                        next += 4;
                    } else {
                        std::thread::yield_now();
                    }
                }
            })
        };
        let mut seen = vec![];
        while !writer.is_finished() || seen.len() < 2499 {
            log.take_closed(|r| seen.push(r));
        }
        writer.join().unwrap();
        for (i, r) in seen.iter().enumerate() {
            assert_eq!(*r, run(4 * i as u64, 4 * i as u64 + 2));
        }
        assert_eq!(log.newest(), Some(run(9996, 9998)));
    }
}
