//! HIP_STREAM CREATE and DESTROY as the application thread reports them: a bounded lock-free
//! queue of notes that the next holder of the stream-label registry applies, in order
//! (`names.rs`), so that a thread creating or destroying a stream never waits for the
//! registry's lock or grows its maps.
//!
//! A bounded multi-producer queue in the manner of Vyukov's: each slot carries a sequence
//! number saying whether it is free for the producer of position `pos` (`pos`) or holds that
//! producer's note (`pos + 1`). The single consumer is whoever holds the registry's lock.
use std::sync::atomic::{AtomicU64, Ordering};

/// Notes queued before a registry holder applies them; a full queue makes the producer take
/// the lock itself (rare: a program creating this many streams between two HIP calls on a
/// reserved stream, two names, or two sessions).
const CAPACITY: u64 = 1024;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum StreamNote {
    /// CREATE: `handle` now has SDK id `stream_id`.
    Created { stream_id: u64, handle: u64 },
    /// DESTROY: `handle` is free for reuse.
    Destroyed { handle: u64 },
}

const CREATED: u64 = 1;
const DESTROYED: u64 = 2;

struct Slot {
    sequence: AtomicU64,
    kind: AtomicU64,
    stream_id: AtomicU64,
    handle: AtomicU64,
}

pub(crate) struct StreamNotes {
    slots: Box<[Slot]>,
    /// Next position a producer claims.
    tail: AtomicU64,
    /// Next position the consumer reads (only the registry's holder moves it).
    head: AtomicU64,
}

impl StreamNotes {
    pub(crate) fn new() -> StreamNotes {
        StreamNotes {
            slots: (0..CAPACITY)
                .map(|position| Slot {
                    sequence: AtomicU64::new(position),
                    kind: AtomicU64::new(0),
                    stream_id: AtomicU64::new(0),
                    handle: AtomicU64::new(0),
                })
                .collect(),
            tail: AtomicU64::new(0),
            head: AtomicU64::new(0),
        }
    }

    fn slot(&self, position: u64) -> &Slot {
        // CAPACITY slots, indexed modulo their number: always in bounds.
        &self.slots[(position % CAPACITY) as usize]
    }

    /// Any thread. False if the queue is full.
    pub(crate) fn push(&self, note: StreamNote) -> bool {
        let (kind, stream_id, handle) = match note {
            StreamNote::Created { stream_id, handle } => (CREATED, stream_id, handle),
            StreamNote::Destroyed { handle } => (DESTROYED, 0, handle),
        };
        let mut position = self.tail.load(Ordering::Relaxed);
        loop {
            let slot = self.slot(position);
            let sequence = slot.sequence.load(Ordering::Acquire);
            if sequence == position {
                match self.tail.compare_exchange_weak(
                    position,
                    position + 1,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        slot.kind.store(kind, Ordering::Relaxed);
                        slot.stream_id.store(stream_id, Ordering::Relaxed);
                        slot.handle.store(handle, Ordering::Relaxed);
                        slot.sequence.store(position + 1, Ordering::Release);
                        return true;
                    }
                    Err(now) => position = now,
                }
            } else if sequence < position {
                // The slot still holds the note of the previous lap: full.
                return false;
            } else {
                position = self.tail.load(Ordering::Relaxed);
            }
        }
    }

    /// The single consumer (the registry's holder): hands every note to `f` in queue order.
    /// A note claimed but not yet written is waited for: its producer is a few stores away.
    pub(crate) fn take(&self, mut f: impl FnMut(StreamNote)) {
        let mut position = self.head.load(Ordering::Relaxed);
        while position < self.tail.load(Ordering::Acquire) {
            let slot = self.slot(position);
            while slot.sequence.load(Ordering::Acquire) != position + 1 {
                std::thread::yield_now();
            }
            let handle = slot.handle.load(Ordering::Relaxed);
            f(match slot.kind.load(Ordering::Relaxed) {
                CREATED => StreamNote::Created {
                    stream_id: slot.stream_id.load(Ordering::Relaxed),
                    handle,
                },
                _ => StreamNote::Destroyed { handle },
            });
            slot.sequence.store(position + CAPACITY, Ordering::Release);
            position += 1;
            self.head.store(position, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn notes_come_out_in_order_and_a_full_queue_refuses() {
        let notes = StreamNotes::new();
        for handle in 0..CAPACITY {
            assert!(notes.push(StreamNote::Destroyed { handle }));
        }
        assert!(!notes.push(StreamNote::Destroyed { handle: 0 }));
        let mut seen = vec![];
        notes.take(|note| seen.push(note));
        let expected: Vec<_> = (0..CAPACITY)
            .map(|handle| StreamNote::Destroyed { handle })
            .collect();
        assert_eq!(seen, expected);
        let created = StreamNote::Created {
            stream_id: 7,
            handle: 0x1000,
        };
        assert!(notes.push(created));
        seen.clear();
        notes.take(|note| seen.push(note));
        assert_eq!(seen, vec![created]);
    }

    #[test]
    fn every_thread_s_notes_arrive_once_and_in_its_order() {
        let notes = Arc::new(StreamNotes::new());
        let producers: Vec<_> = (0..4u64)
            .map(|thread| {
                let notes = notes.clone();
                std::thread::spawn(move || {
                    for i in 0..5_000u64 {
                        let note = StreamNote::Created {
                            stream_id: i,
                            handle: thread,
                        };
                        while !notes.push(note) {
                            std::thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        let mut next = [0u64; 4];
        let mut record = |note| match note {
            StreamNote::Created { stream_id, handle } => {
                assert_eq!(stream_id, next[handle as usize]);
                next[handle as usize] += 1;
            }
            StreamNote::Destroyed { .. } => panic!("no destroy was pushed"),
        };
        while producers.iter().any(|p| !p.is_finished()) {
            notes.take(&mut record);
        }
        notes.take(&mut record);
        for producer in producers {
            producer.join().unwrap();
        }
        notes.take(&mut record);
        assert_eq!(next, [5_000; 4]);
    }
}
