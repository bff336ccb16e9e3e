//! The memory of one chunk of an [`super::event_log::EventLog`], mapped from the system for
//! the chunk alone, so that freeing the chunk gives its memory back at once. Taken from
//! malloc, a chunk the SDK's buffer thread stored would go back, when the join frees it, to
//! that thread's arena, where the thread that joins (and stores the joined events) cannot
//! reuse it, and where it stays after the export (docs/ARCHITECTURE.md#collected-event-memory).
use std::alloc::Layout;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::stored_event::StoredEvent;

// A chunk frees its memory without dropping its events.
const _: () = assert!(!std::mem::needs_drop::<StoredEvent>());

/// Bytes of event chunks mapped from the system now, in the whole process.
static MAPPED_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Bytes of collected events held in memory mapped from the system, which a counting
/// global allocator does not see (the chunks that fell back to the heap are seen there).
pub fn mapped_event_bytes() -> usize {
    MAPPED_BYTES.load(Ordering::Relaxed)
}

#[cfg(test)]
thread_local! {
    /// Bytes of the chunks this thread made and has not freed yet (tests only).
    static LIVE_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Bytes held by the chunks the calling thread made and has not freed (tests only).
#[cfg(test)]
pub(super) fn live_chunk_bytes() -> usize {
    LIVE_BYTES.get()
}

/// A fixed-capacity list of stored events, in memory of its own.
pub(super) struct EventChunk {
    events: NonNull<StoredEvent>,
    len: usize,
    capacity: usize,
    /// From `mmap`; otherwise (the system refused a mapping) from the global allocator.
    mapped: bool,
}

// SAFETY: the chunk owns its memory alone, as a `Vec` does; `StoredEvent` is plain data.
unsafe impl Send for EventChunk {}
// SAFETY: shared access only reads, as for a `Vec`.
unsafe impl Sync for EventChunk {}

impl EventChunk {
    /// A chunk with no room, holding no memory (what a released chunk becomes).
    pub(crate) fn empty() -> EventChunk {
        EventChunk {
            events: NonNull::dangling(),
            len: 0,
            capacity: 0,
            mapped: false,
        }
    }

    /// A chunk with room for `capacity` events (none for 0). The system's pages are only
    /// taken as events are written.
    pub(crate) fn with_capacity(capacity: usize) -> EventChunk {
        if capacity == 0 {
            return EventChunk::empty();
        }
        let layout = Self::layout(capacity);
        #[cfg(test)]
        LIVE_BYTES.set(LIVE_BYTES.get() + layout.size());
        // SAFETY: an anonymous private mapping of a non-zero length; the result is checked.
        let mapped = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                layout.size(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if mapped != libc::MAP_FAILED {
            if let Some(events) = NonNull::new(mapped.cast::<StoredEvent>()) {
                MAPPED_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
                return EventChunk {
                    events,
                    len: 0,
                    capacity,
                    mapped: true,
                };
            }
        }
        // The process may have run out of mappings (`vm.max_map_count`): the heap will do.
        // SAFETY: the layout has a non-zero size.
        let allocated = unsafe { std::alloc::alloc(layout) };
        let Some(events) = NonNull::new(allocated.cast::<StoredEvent>()) else {
            std::alloc::handle_alloc_error(layout)
        };
        EventChunk {
            events,
            len: 0,
            capacity,
            mapped: false,
        }
    }

    fn layout(capacity: usize) -> Layout {
        // A chunk's capacity is a small constant, so the size cannot overflow.
        Layout::array::<StoredEvent>(capacity).expect("a chunk's size fits in memory")
    }

    pub(crate) fn is_full(&self) -> bool {
        self.len == self.capacity
    }

    /// Appends `event`; the chunk must not be full.
    #[inline]
    pub(crate) fn push(&mut self, event: StoredEvent) {
        assert!(self.len < self.capacity, "push onto a full event chunk");
        // SAFETY: `len < capacity`, so the slot is inside the chunk's memory and unused.
        unsafe { self.events.as_ptr().add(self.len).write(event) };
        self.len += 1;
    }

    /// Bytes of memory the chunk holds.
    #[cfg(test)]
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.capacity * std::mem::size_of::<StoredEvent>()
    }
}

impl Deref for EventChunk {
    type Target = [StoredEvent];

    fn deref(&self) -> &[StoredEvent] {
        // SAFETY: the first `len` slots were written by `push`; a dangling pointer with length
        // 0 is a valid empty slice.
        unsafe { std::slice::from_raw_parts(self.events.as_ptr(), self.len) }
    }
}

impl DerefMut for EventChunk {
    fn deref_mut(&mut self) -> &mut [StoredEvent] {
        // SAFETY: as for `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.events.as_ptr(), self.len) }
    }
}

impl Drop for EventChunk {
    fn drop(&mut self) {
        if self.capacity == 0 {
            return;
        }
        // `StoredEvent` has no drop glue: the memory is all there is to free.
        let layout = Self::layout(self.capacity);
        #[cfg(test)]
        LIVE_BYTES.set(LIVE_BYTES.get().saturating_sub(layout.size()));
        if self.mapped {
            // SAFETY: the mapping of exactly this length, made by `with_capacity`.
            unsafe { libc::munmap(self.events.as_ptr().cast(), layout.size()) };
            MAPPED_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        } else {
            // SAFETY: allocated by `with_capacity` with this layout.
            unsafe { std::alloc::dealloc(self.events.as_ptr().cast(), layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collector::stored_event::{LogTables, SessionStrings};
    use crate::event::RocmTracerEvent;

    #[test]
    fn a_chunk_keeps_what_was_pushed_until_full() {
        let mut tables = LogTables::default();
        let mut strings = SessionStrings::default();
        let mut chunk = EventChunk::with_capacity(3);
        for id in 0..3 {
            let event = RocmTracerEvent {
                correlation_id: id,
                ..RocmTracerEvent::default()
            };
            assert!(!chunk.is_full());
            chunk.push(StoredEvent::store(
                &event,
                id as usize,
                &mut tables,
                &mut strings,
            ));
        }
        assert!(chunk.is_full());
        let ids: Vec<u64> = chunk.iter().map(StoredEvent::correlation_id).collect();
        assert_eq!(ids, [0, 1, 2]);
        assert!(EventChunk::empty().is_empty());
        assert!(EventChunk::empty().is_full());
    }
}
