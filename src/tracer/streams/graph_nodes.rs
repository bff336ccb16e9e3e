//! Graph nodes: which node of a `hipGraphLaunch` a kernel or copy is (docs/xla-interface.md#graph-nodes).
//!
//! AMD's records carry no node identity. From SDK 1.3.2 (ROCm 7.14) the SDK tells a tool,
//! with HIP_GRAPH EXEC_LAUNCH ENTER and EXIT, when a thread launches a graph executable and
//! which (ROCm/rocm-systems@3d3121e0 `hip/graph.cpp`); the launch's dispatches are requested
//! on that thread between the two, in the order the launch enqueues its nodes. As rocprofv3
//! and Kineto (pytorch/kineto#1567) do, the ENTER callback starts a per-launch counter on the
//! thread, and each external-correlation request of the launch takes the next ordinal and
//! writes it, with the stream, into the external value in one packing:
//!
//! ```text
//!  63            48 47                                             0
//! +----------------+------------------------------------------------+
//! |  ordinal + 1   |                 SDK stream id                  |
//! +----------------+------------------------------------------------+
//! ```
//!
//! A value whose top 16 bits are 0 (no node) or all ones (the reserved stream ids
//! [`RocmTracerEvent::INVALID_STREAM_ID`] and [`RocmTracerEvent::UNATTRIBUTED_STREAM_ID`]) is a
//! stream id alone, so every value written outside a graph launch reads back unchanged. A
//! node is packed only when its stream id fits 48 bits (the SDK's stream ids are a small
//! counter or a map index) and its ordinal is below [`MAX_PACKED_ORDINAL`]; otherwise the
//! stream alone is written and the node is left to the collector's dispatch-order rule.
//!
//! The executable's id is in the ENTER payload. The ENTER callback writes it, under the
//! launch's correlation id, into a fixed table of [`LAUNCH_SLOTS`] slots (two atomic stores,
//! no lock, no allocation); the buffer thread reads it back when it decodes a record that
//! carries a node. ENTER runs before the launch enqueues anything, so the entry is there
//! before any record of the launch; it is overwritten [`LAUNCH_SLOTS`] launches later, and a
//! record decoded after that gets its ordinal without the executable's id.
use std::sync::atomic::{AtomicU64, Ordering};

use crate::event::RocmTracerEvent;
use crate::tracer::thread_state::{GraphLaunchSlot, ThreadState};

/// Bits of the stream id in a packed value.
pub const STREAM_BITS: u32 = 48;
/// The stream id's part of a packed value.
pub const STREAM_MASK: u64 = (1 << STREAM_BITS) - 1;
/// Ordinals from this one on are not packed (the field's all-ones value is the reserved
/// stream ids').
pub const MAX_PACKED_ORDINAL: u64 = (1 << (64 - STREAM_BITS)) - 2;

/// The external value of a request for node `ordinal` of a launch on stream `stream_id`.
#[inline]
pub fn pack(stream_id: u64, ordinal: u64) -> u64 {
    if stream_id > STREAM_MASK || ordinal >= MAX_PACKED_ORDINAL {
        return stream_id;
    }
    ((ordinal + 1) << STREAM_BITS) | stream_id
}

/// The stream id and, if the value carries one, the node ordinal of an external value.
#[inline]
pub fn unpack(value: u64) -> (u64, Option<u32>) {
    let field = value >> STREAM_BITS;
    if field == 0 || value >= RocmTracerEvent::UNATTRIBUTED_STREAM_ID || field > MAX_PACKED_ORDINAL
    {
        return (value, None);
    }
    (value & STREAM_MASK, Some((field - 1) as u32))
}

/// The thread's graph launch in progress; layout in `thread_state`.
impl GraphLaunchSlot {
    /// EXEC_LAUNCH ENTER of the HIP call `correlation_id` on this thread: its dispatches
    /// count from 0.
    #[inline]
    pub(crate) fn enter(&self, correlation_id: u64) {
        self.correlation_id.set(correlation_id);
        self.next_ordinal.set(0);
    }

    /// EXEC_LAUNCH EXIT of the HIP call `correlation_id` (an outer launch's EXIT after a
    /// nested one finds the slot already cleared).
    #[inline]
    pub(crate) fn exit(&self, correlation_id: u64) {
        if self.correlation_id.get() == correlation_id {
            self.correlation_id.set(0);
        }
    }

    /// The external value of a request of call `correlation_id` on stream `stream_id`: the
    /// stream alone, or the stream and the next ordinal when the request is one of this
    /// thread's launch in progress. A load and a compare outside a launch.
    #[inline]
    pub(crate) fn stamp(&self, correlation_id: u64, stream_id: u64) -> u64 {
        if self.correlation_id.get() != correlation_id || correlation_id == 0 {
            return stream_id;
        }
        let ordinal = self.next_ordinal.get();
        self.next_ordinal.set(ordinal + 1);
        pack(stream_id, ordinal)
    }
}

/// Graph launches whose executable is remembered (a power of two).
pub const LAUNCH_SLOTS: usize = 16384;

/// One launch's executable: `correlation_id` is written last, so a reader that sees it sees
/// `exec_id` too.
struct LaunchSlot {
    correlation_id: AtomicU64,
    exec_id: AtomicU64,
}

static LAUNCHES: [LaunchSlot; LAUNCH_SLOTS] = [const {
    LaunchSlot {
        correlation_id: AtomicU64::new(0),
        exec_id: AtomicU64::new(0),
    }
}; LAUNCH_SLOTS];

fn slot(correlation_id: u64) -> &'static LaunchSlot {
    &LAUNCHES[correlation_id as usize & (LAUNCH_SLOTS - 1)]
}

/// Notes that launch `correlation_id` launched executable `exec_id`.
#[inline]
pub(crate) fn note_launch(correlation_id: u64, exec_id: u64) {
    let slot = slot(correlation_id);
    // A reader between these stores sees the old id (or 0) and gives up.
    slot.correlation_id.store(0, Ordering::Release);
    slot.exec_id.store(exec_id, Ordering::Release);
    slot.correlation_id.store(correlation_id, Ordering::Release);
}

/// The executable launch `correlation_id` launched; 0 when no ENTER told it (a release
/// without HIP_GRAPH) or it was overwritten since.
pub(crate) fn exec_of_launch(correlation_id: u64) -> u64 {
    let slot = slot(correlation_id);
    if slot.correlation_id.load(Ordering::Acquire) != correlation_id {
        return 0;
    }
    let exec_id = slot.exec_id.load(Ordering::Acquire);
    // Overwritten meanwhile: not this launch's.
    if slot.correlation_id.load(Ordering::Acquire) != correlation_id {
        return 0;
    }
    exec_id
}

/// The `graph_exec_id` of a HIP_GRAPH payload, if it is long enough to hold it.
///
/// # Safety
/// `payload` is null or the SDK's HIP_GRAPH payload, valid during the callback.
unsafe fn exec_id_of_payload(payload: *mut std::ffi::c_void) -> Option<u64> {
    use rocprofiler_sdk_sys as sys;
    let payload = payload as *const sys::rocprofiler_callback_tracing_hip_graph_data_t;
    if payload.is_null() {
        return None;
    }
    // SAFETY: non-null payload of this kind (the caller's contract); `size` first, so a short
    // payload is not overread.
    let size = unsafe { std::ptr::addr_of!((*payload).size).read_unaligned() };
    if size < 16 {
        return None;
    }
    // SAFETY: as above; the payload covers the id.
    Some(unsafe { std::ptr::addr_of!((*payload).graph_exec_id.handle).read_unaligned() })
}

/// The HIP_GRAPH callback (EXEC_LAUNCH only): starts and ends the thread's launch.
///
/// # Safety
/// The SDK's callback contract (a record by value, its payload valid during the call).
pub(crate) unsafe extern "C" fn hip_graph_callback(
    record: rocprofiler_sdk_sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut rocprofiler_sdk_sys::rocprofiler_user_data_t,
    _data: *mut std::ffi::c_void,
) {
    use rocprofiler_sdk_sys as sys;
    // Panic-free: a thread-local and two `Cell` stores.
    if record.kind != sys::ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH
        || record.operation != sys::ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH
    {
        return;
    }
    let correlation_id = record.correlation_id.internal;
    if record.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER {
        // SAFETY: this kind's payload (the caller's contract).
        if let Some(exec_id) = unsafe { exec_id_of_payload(record.payload) } {
            note_launch(correlation_id, exec_id);
        }
    }
    let _ = crate::tracer::thread_state::with(|thread: &ThreadState| match record.phase {
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER => thread.graph.enter(correlation_id),
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT => thread.graph.exit(correlation_id),
        _ => {}
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ids_outside_a_launch_read_back_unchanged() {
        for stream in [
            0,
            1,
            7,
            STREAM_MASK,
            RocmTracerEvent::UNATTRIBUTED_STREAM_ID,
            RocmTracerEvent::INVALID_STREAM_ID,
        ] {
            assert_eq!(unpack(stream), (stream, None), "{stream:#x}");
        }
    }

    #[test]
    fn nodes_round_trip_with_their_stream() {
        for (stream, ordinal) in [
            (0, 0),
            (3, 1),
            (STREAM_MASK, 17),
            (5, MAX_PACKED_ORDINAL - 1),
        ] {
            let value = pack(stream, ordinal);
            assert_eq!(unpack(value), (stream, Some(ordinal as u32)));
        }
        // Too large to pack: the stream alone.
        assert_eq!(pack(STREAM_MASK + 1, 0), STREAM_MASK + 1);
        assert_eq!(pack(4, MAX_PACKED_ORDINAL), 4);
        assert_eq!(
            pack(RocmTracerEvent::UNATTRIBUTED_STREAM_ID, 0),
            RocmTracerEvent::UNATTRIBUTED_STREAM_ID
        );
    }

    #[test]
    fn a_launch_is_found_until_its_slot_is_taken() {
        let id = 3 * LAUNCH_SLOTS as u64 + 5;
        note_launch(id, 42);
        assert_eq!(exec_of_launch(id), 42);
        assert_eq!(exec_of_launch(id + 1), 0);
        note_launch(id + LAUNCH_SLOTS as u64, 7);
        assert_eq!(exec_of_launch(id), 0);
        assert_eq!(exec_of_launch(id + LAUNCH_SLOTS as u64), 7);
    }

    #[test]
    fn a_launch_numbers_only_its_own_requests() {
        std::thread::spawn(|| {
            crate::tracer::thread_state::with(|thread| {
                assert_eq!(thread.graph.stamp(9, 4), 4);
                thread.graph.enter(9);
                assert_eq!(unpack(thread.graph.stamp(9, 4)), (4, Some(0)));
                // A request of another call (a copy HIP made for itself) is not a node.
                assert_eq!(thread.graph.stamp(8, 4), 4);
                assert_eq!(unpack(thread.graph.stamp(9, 4)), (4, Some(1)));
                thread.graph.exit(9);
                assert_eq!(thread.graph.stamp(9, 4), 4);
                // The next launch counts from 0 again.
                thread.graph.enter(12);
                assert_eq!(unpack(thread.graph.stamp(12, 2)), (2, Some(0)));
                thread.graph.exit(12);
            })
            .unwrap();
        })
        .join()
        .unwrap();
    }
}
