//! HIP streams and the SDK's stream ids (§6.5 including "Newer SDKs"): the null stream and
//! `hipStreamLegacy` are id 0; `hipStreamPerThread` gets an id lazily per thread; created
//! streams get 1, 2, ... in creation order; a reused address gets a new id; destroy removes.
//! Each stream also remembers its device and the HSA queue its next work goes to.
use crate::SimError;
use parking_lot::Mutex;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::LazyLock;

pub const NULL_STREAM: u64 = 0;
pub const STREAM_LEGACY: u64 = 0x1;
pub const STREAM_PER_THREAD: u64 = 0x2;

/// Fake `hipStream_t` addresses of created streams.
const STREAM_ADDRESS_BASE: u64 = 0x7f00_0000_0000;
/// Fake HSA queue addresses of the queues streams get by default.
const QUEUE_ADDRESS_BASE: u64 = 0x7e00_0000_0000;

struct Entry {
    id: u64,
    device: u32,
    queue: Option<u64>,
}

struct Streams {
    by_value: HashMap<u64, Entry>,
    next_id: u64,
    created: u64,
    /// Addresses of destroyed streams, reused LIFO like a heap allocator would.
    free_values: Vec<u64>,
    /// Queue bindings of the null and per-thread streams, by (device, id).
    implicit_queues: HashMap<(u32, u64), u64>,
    default_queues: HashMap<(u32, u64), u64>,
}

static STREAMS: LazyLock<Mutex<Streams>> = LazyLock::new(|| {
    Mutex::new(Streams {
        by_value: HashMap::new(),
        next_id: 1,
        created: 0,
        free_values: Vec::new(),
        implicit_queues: HashMap::new(),
        default_queues: HashMap::new(),
    })
});

thread_local! {
    static PER_THREAD_ID: Cell<u64> = const { Cell::new(0) };
}

/// Everything a HIP call needs to know about its stream.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StreamInfo {
    /// SDK stream id (`rocprofiler_stream_id_t`).
    pub id: u64,
    /// The `hipStream_t` value.
    pub value: u64,
    pub device: u32,
    /// HSA queue handle the next work goes to.
    pub queue: u64,
}

impl StreamInfo {
    /// Identity for ordering and synchronisation: (device, SDK id).
    pub(crate) fn key(&self) -> (u32, u64) {
        (self.device, self.id)
    }
}

impl Streams {
    fn default_queue(&mut self, device: u32, id: u64) -> u64 {
        let count = self.default_queues.len() as u64;
        *self
            .default_queues
            .entry((device, id))
            .or_insert(QUEUE_ADDRESS_BASE + 0x10_0000 * device as u64 + 0x1000 * (count + 1))
    }
}

/// `hipStreamCreate` on `device`: returns (hipStream_t, SDK id).
pub(crate) fn create(device: u32) -> (u64, u64) {
    let mut streams = STREAMS.lock();
    let value = streams.free_values.pop().unwrap_or_else(|| {
        streams.created += 1;
        STREAM_ADDRESS_BASE + 0x100 * streams.created
    });
    let id = streams.next_id;
    streams.next_id += 1;
    streams.by_value.insert(
        value,
        Entry {
            id,
            device,
            queue: None,
        },
    );
    (value, id)
}

/// `hipStreamDestroy`: returns the SDK id the stream had.
pub(crate) fn destroy(value: u64) -> Result<(u64, u32), SimError> {
    let mut streams = STREAMS.lock();
    let entry = streams
        .by_value
        .remove(&value)
        .ok_or(SimError::UnknownStream(value))?;
    streams.free_values.push(value);
    Ok((entry.id, entry.device))
}

/// Maps a `hipStream_t` used by a call on a thread whose current device is `current_device`.
pub(crate) fn resolve(value: u64, current_device: u32) -> Result<StreamInfo, SimError> {
    let mut streams = STREAMS.lock();
    let (id, device, bound) = match value {
        NULL_STREAM | STREAM_LEGACY => (
            0,
            current_device,
            streams.implicit_queues.get(&(current_device, 0)).copied(),
        ),
        STREAM_PER_THREAD => {
            let mut id = PER_THREAD_ID.get();
            if id == 0 {
                id = streams.next_id;
                streams.next_id += 1;
                PER_THREAD_ID.set(id);
            }
            (
                id,
                current_device,
                streams.implicit_queues.get(&(current_device, id)).copied(),
            )
        }
        _ => {
            let entry = streams
                .by_value
                .get(&value)
                .ok_or(SimError::UnknownStream(value))?;
            (entry.id, entry.device, entry.queue)
        }
    };
    let queue = match bound {
        Some(queue) => queue,
        None => streams.default_queue(device, id),
    };
    Ok(StreamInfo {
        id,
        value,
        device,
        queue,
    })
}

/// Sends the stream's next work to HSA queue `queue` (several streams may share one).
pub(crate) fn bind_queue(value: u64, current_device: u32, queue: u64) -> Result<(), SimError> {
    let info = resolve(value, current_device)?;
    let mut streams = STREAMS.lock();
    match value {
        NULL_STREAM | STREAM_LEGACY | STREAM_PER_THREAD => {
            streams
                .implicit_queues
                .insert((info.device, info.id), queue);
        }
        _ => {
            if let Some(entry) = streams.by_value.get_mut(&value) {
                entry.queue = Some(queue);
            }
        }
    }
    Ok(())
}
