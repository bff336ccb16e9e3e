//! The device timing model. Each HSA queue executes its kernels one after another; each SDMA
//! engine (device, direction) its copies; and a stream's work is ordered. So
//! `start = max(submit + launch latency, queue or engine busy-until, stream's last end)` and
//! `end = start + duration`. A stream that waits for an event (`hipStreamWaitEvent`) has its
//! last end moved up to the end of the work the event's record marked.
use parking_lot::Mutex;
use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;
use std::sync::LazyLock;

/// Time from writing a packet to the GPU starting it.
const LAUNCH_LATENCY_NS: u64 = 2_000;

#[derive(Default)]
struct Timing {
    busy_until: HashMap<Engine, u64>,
    stream_last_end: HashMap<(u32, u64), u64>,
    /// Start times of each HSA queue's kernels not yet launched at the last look, in
    /// submission order: their packets still take a slot of the queue.
    waiting_packets: HashMap<u64, VecDeque<u64>>,
}

/// When HSA queue `queue` has room for another packet, given that it is `now`: `None` if it
/// has room, else the time its oldest waiting packet is launched (the packet processor frees
/// the slot as it reads the packet). HIP's launch waits for room before writing a packet
/// (docs/simulator-fidelity.md#queue-capacity).
pub(crate) fn queue_full_until(queue: u64, now: u64) -> Option<u64> {
    let mut timing = TIMING.lock();
    let waiting = timing.waiting_packets.entry(queue).or_default();
    while waiting.front().is_some_and(|&start| start <= now) {
        waiting.pop_front();
    }
    let packets =
        usize::try_from(crate::machine::machine().aql_queue_packets).unwrap_or(usize::MAX);
    if waiting.len() < packets {
        if waiting.is_empty() && waiting.capacity() > 1024 {
            waiting.shrink_to(1024);
        }
        return None;
    }
    waiting.front().copied()
}

#[derive(Clone, Copy, Hash, PartialEq, Eq, Debug)]
pub(crate) enum Engine {
    /// An HSA compute queue, by handle.
    Queue(u64),
    /// An SDMA engine: (device, copy direction).
    Sdma(u32, i32),
}

static TIMING: LazyLock<Mutex<Timing>> = LazyLock::new(|| Mutex::new(Timing::default()));

/// Books `duration_ns` of work on `engine` for stream `stream`; returns (start, end).
pub(crate) fn schedule(
    engine: Engine,
    stream: (u32, u64),
    submit_ns: u64,
    duration_ns: u64,
) -> (u64, u64) {
    let mut timing = TIMING.lock();
    let engine_free = timing.busy_until.get(&engine).copied().unwrap_or(0);
    let stream_free = timing.stream_last_end.get(&stream).copied().unwrap_or(0);
    // Saturating: durations come from C callers and scenario files, and an overflow here would
    // panic after the work was counted as outstanding, leaving every later wait hanging.
    let start = submit_ns
        .saturating_add(LAUNCH_LATENCY_NS)
        .max(engine_free)
        .max(stream_free);
    let end = start.saturating_add(duration_ns.max(1));
    if let Engine::Queue(queue) = engine {
        timing
            .waiting_packets
            .entry(queue)
            .or_default()
            .push_back(start);
    }
    timing.busy_until.insert(engine, end);
    timing.stream_last_end.insert(stream, end);
    (start, end)
}

/// When the work submitted to stream `stream` so far ends (0: none): the time an event
/// recorded on it now completes.
pub(crate) fn stream_end(stream: (u32, u64)) -> u64 {
    TIMING
        .lock()
        .stream_last_end
        .get(&stream)
        .copied()
        .unwrap_or(0)
}

/// Stream `stream`'s later work starts no earlier than `at` (a wait for an event that
/// completes then).
pub(crate) fn stream_waits_until(stream: (u32, u64), at: u64) {
    let mut timing = TIMING.lock();
    let last_end = timing.stream_last_end.entry(stream).or_insert(0);
    *last_end = (*last_end).max(at);
}

/// When a barrier packet enqueued on stream `stream` at `submit_ns` starts: once the packet
/// processor reads it and the stream's earlier work ended (HIP_EVENT records, 10.1).
pub(crate) fn barrier_start(stream: (u32, u64), submit_ns: u64) -> u64 {
    submit_ns
        .saturating_add(LAUNCH_LATENCY_NS)
        .max(stream_end(stream))
}
