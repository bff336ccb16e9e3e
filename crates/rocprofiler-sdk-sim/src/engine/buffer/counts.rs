//! What happened to each record pushed into a buffer ([`BufferRecordCounts`]), for tests that
//! account for every record (docs/simulator-fidelity.md#buffers).
use rocprofiler_sdk_sys as sys;

/// One slot per buffer tracing kind; kinds past the SDK's last one share the final slot.
const KIND_SLOTS: usize = sys::ROCPROFILER_BUFFER_TRACING_HIP_GRAPH as usize + 2;

pub(super) fn kind_slot(kind: u32) -> usize {
    (kind as usize).min(KIND_SLOTS - 1)
}

/// What happened to the records pushed into one buffer, for tests that account for every
/// record: `total_written() == delivered + destroyed_undelivered + (records still held)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferRecordCounts {
    pub(super) written: [u64; KIND_SLOTS],
    pub(super) discarded: [u64; KIND_SLOTS],
    pub(super) lost: [u64; KIND_SLOTS],
    /// Records handed to the tool's buffer callback (after it returned).
    pub delivered: u64,
    /// Written records thrown away because the buffer was destroyed before delivering them.
    pub destroyed_undelivered: u64,
    /// Times a producer waited for a buffer callback (`Machine::buffer_sync`).
    pub producer_waits: u64,
    /// Nanoseconds (real time) producers spent in those waits.
    pub producer_wait_ns: u64,
    /// Times a waiting flush (`rocprofiler_flush_buffer`, or a producer on a full LOSSLESS
    /// buffer) waited for a delivery already queued or running.
    pub flush_waits: u64,
    /// Times a non-waiting (watermark) flush answered BUFFER_BUSY because a delivery held the
    /// syncer it tests; with one syncer per buffer (ROCm 7.0 to 7.2) it did not flip the halves.
    pub busy_flushes: u64,
    /// Records dropped because their producer would have deadlocked on the buffer's own
    /// callback thread (only with `buffer_self_deadlock = "drop"`).
    pub self_deadlocks: u64,
}

impl Default for BufferRecordCounts {
    fn default() -> Self {
        BufferRecordCounts {
            written: [0; KIND_SLOTS],
            discarded: [0; KIND_SLOTS],
            lost: [0; KIND_SLOTS],
            delivered: 0,
            destroyed_undelivered: 0,
            producer_waits: 0,
            producer_wait_ns: 0,
            flush_waits: 0,
            busy_flushes: 0,
            self_deadlocks: 0,
        }
    }
}

impl BufferRecordCounts {
    /// Records of `kind` written into the buffer.
    pub fn written(&self, kind: u32) -> u64 {
        self.written[kind_slot(kind)]
    }

    pub fn total_written(&self) -> u64 {
        self.written.iter().sum()
    }

    /// Records of `kind` dropped under the DISCARD policy (reported as `drop_count`).
    pub fn discarded(&self, kind: u32) -> u64 {
        self.discarded[kind_slot(kind)]
    }

    pub fn total_discarded(&self) -> u64 {
        self.discarded.iter().sum()
    }

    /// Records of `kind` lost without a trace: written while the index pointed at DISCARD's
    /// unallocated half, or larger than the buffer. They are neither written nor discarded.
    pub fn lost(&self, kind: u32) -> u64 {
        self.lost[kind_slot(kind)]
    }

    pub fn total_lost(&self) -> u64 {
        self.lost.iter().sum()
    }
}
