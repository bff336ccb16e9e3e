//! The device timing model. Each HSA queue executes its kernels one after another; each SDMA
//! engine (device, direction) its copies; and a stream's work is ordered. So
//! `start = max(submit + launch latency, queue or engine busy-until, stream's last end)` and
//! `end = start + duration`.
use parking_lot::Mutex;
use rustc_hash::FxHashMap as HashMap;
use std::sync::LazyLock;

/// Time from writing a packet to the GPU starting it.
const LAUNCH_LATENCY_NS: u64 = 2_000;

#[derive(Default)]
struct Timing {
    busy_until: HashMap<Engine, u64>,
    stream_last_end: HashMap<(u32, u64), u64>,
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
    timing.busy_until.insert(engine, end);
    timing.stream_last_end.insert(stream, end);
    (start, end)
}
