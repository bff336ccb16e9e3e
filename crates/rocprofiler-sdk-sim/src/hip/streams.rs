//! HIP streams and the SDK's stream ids (docs/sdk-facts.md#stream-ids). Two layers:
//! * the HIP runtime's streams: which `hipStream_t` values are live, their device and the HSA
//!   queue their next work goes to, and an identity that orders and synchronises their work;
//! * the SDK's map from `hipStream_t` to `rocprofiler_stream_id_t`, in one of two behaviours
//!   ([`StreamMap`], `stream_map`):
//!   * `Sdk1_0` (rocprofiler-sdk 1.0.0, ROCm 7.0, `hip/stream.cpp`): the null stream is id 0;
//!     a stream is added only when its creation is seen by an active HIP_STREAM callback
//!     context, with id `map size + offset` (a reused address bumps the offset and gets a new
//!     id); DESTROY keeps the entry; a SET or DESTROY on a value the map lacks (also
//!     `hipStreamLegacy` and `hipStreamPerThread`) aborts the process ([`abort_unmapped`]);
//!   * `Sdk1_1` (1.1.0 to 1.3.0, ROCm 7.1 to 7.13): the same map, but `hipStreamLegacy` and
//!     `hipStreamPerThread` are looked up as the null stream, id 0 (ROCm/rocm-systems#343), and
//!     a traced SET or DESTROY on a value the map lacks adds it there, with the next size-based
//!     id and no CREATE callback (#1142, on the 7.1 branch by #1488) ([`unmapped_id`]);
//!   * `Newer`: the null stream and `hipStreamLegacy` are id 0; `hipStreamPerThread` gets an id
//!     lazily per thread; created streams get 1, 2, ... in creation order whether traced or
//!     not; a reused address gets a new id; destroy removes.
use crate::machine::StreamMap;
use crate::SimError;
use parking_lot::Mutex;
use rustc_hash::FxHashMap as HashMap;
use std::cell::Cell;
use std::sync::LazyLock;

pub const NULL_STREAM: u64 = 0;
pub const STREAM_LEGACY: u64 = 0x1;
pub const STREAM_PER_THREAD: u64 = 0x2;

/// Fake `hipStream_t` addresses of created streams.
const STREAM_ADDRESS_BASE: u64 = 0x7f00_0000_0000;
/// Fake HSA queue addresses of the queues streams get by default.
const QUEUE_ADDRESS_BASE: u64 = 0x7e00_0000_0000;

struct Entry {
    /// The SDK id under the newer map (assigned at creation).
    id: u64,
    /// The HIP runtime's identity of this stream (unique per creation).
    serial: u64,
    device: u32,
    queue: Option<u64>,
}

struct Streams {
    by_value: HashMap<u64, Entry>,
    next_id: u64,
    /// Next HIP stream identity; 0 is the null stream's.
    next_serial: u64,
    created: u64,
    /// Addresses of destroyed streams, reused LIFO like a heap allocator would.
    free_values: Vec<u64>,
    /// Queue bindings of the null and per-thread streams, by (device, serial).
    implicit_queues: HashMap<(u32, u64), u64>,
    default_queues: HashMap<(u32, u64), u64>,
    /// The SDK 1.0.0 map: `hipStream_t` -> id, entries never removed.
    sdk_map: HashMap<u64, u64>,
    /// Added to the map size when an address already in the map is added again.
    sdk_offset: u64,
}

/// What a scenario replay adds to the abort above: the scenario line that uses a special
/// stream (`scenario::replay` sets it).
pub(crate) static SCENARIO_HINT: Mutex<Option<String>> = Mutex::new(None);

static STREAMS: LazyLock<Mutex<Streams>> = LazyLock::new(|| {
    Mutex::new(Streams {
        by_value: HashMap::default(),
        next_id: 1,
        next_serial: 1,
        created: 0,
        free_values: Vec::new(),
        implicit_queues: HashMap::default(),
        default_queues: HashMap::default(),
        // The HIP table registration adds the null stream first: id 0.
        sdk_map: HashMap::from_iter([(NULL_STREAM, 0)]),
        sdk_offset: 0,
    })
});

thread_local! {
    static PER_THREAD_ID: Cell<u64> = const { Cell::new(0) };
    static PER_THREAD_SERIAL: Cell<u64> = const { Cell::new(0) };
}

fn stream_map() -> StreamMap {
    crate::machine::machine().stream_map
}

/// Everything a HIP call needs to know about its stream.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StreamInfo {
    /// SDK stream id (`rocprofiler_stream_id_t`); meaningless when `!mapped`.
    pub id: u64,
    /// Whether the SDK's map has this value (always true under the newer map).
    pub mapped: bool,
    /// The `hipStream_t` value.
    pub value: u64,
    pub device: u32,
    /// HSA queue handle the next work goes to.
    pub queue: u64,
    /// The HIP runtime's identity of the stream.
    serial: u64,
}

impl StreamInfo {
    /// Identity for ordering and synchronisation: (device, HIP stream identity).
    pub(crate) fn key(&self) -> (u32, u64) {
        (self.device, self.serial)
    }
}

impl Streams {
    fn default_queue(&mut self, device: u32, serial: u64) -> u64 {
        let count = self.default_queues.len() as u64;
        *self
            .default_queues
            .entry((device, serial))
            .or_insert(QUEUE_ADDRESS_BASE + 0x10_0000 * device as u64 + 0x1000 * (count + 1))
    }

    /// `add_stream` of SDK 1.0.0: id = map size + offset; a value already present bumps the
    /// offset and is given the new id.
    fn sdk_add(&mut self, value: u64) -> u64 {
        let id = self.sdk_map.len() as u64 + self.sdk_offset;
        if self.sdk_map.insert(value, id).is_some() {
            self.sdk_offset += 1;
        }
        id
    }
}

/// `hipStreamCreate` on `device`: returns the new `hipStream_t`. Its SDK id comes from
/// [`register_created`].
pub(crate) fn create(device: u32) -> u64 {
    let mut streams = STREAMS.lock();
    let value = streams.free_values.pop().unwrap_or_else(|| {
        streams.created += 1;
        STREAM_ADDRESS_BASE + 0x100 * streams.created
    });
    let id = streams.next_id;
    streams.next_id += 1;
    let serial = streams.next_serial;
    streams.next_serial += 1;
    streams.by_value.insert(
        value,
        Entry {
            id,
            serial,
            device,
            queue: None,
        },
    );
    value
}

/// The SDK's CREATE bookkeeping for `value`, when a HIP_STREAM callback context sees the
/// creation (`traced`): the id the CREATE callback carries, or `None` if no callback fires.
/// Under SDK 1.0.0 only a traced creation enters the map (whatever `*stream` holds, even after
/// a failed create); under the newer map every created stream already has its id.
pub(crate) fn register_created(value: u64, traced: bool) -> Option<u64> {
    let mut streams = STREAMS.lock();
    match stream_map() {
        StreamMap::Sdk1_0 | StreamMap::Sdk1_1 => traced.then(|| streams.sdk_add(value)),
        StreamMap::Newer => {
            let id = streams.by_value.get(&value).map(|e| e.id);
            id.filter(|_| traced)
        }
    }
}

/// `hipStreamDestroy` of a live stream: forgets it in the HIP runtime; returns its device.
/// The SDK 1.0.0 map keeps its entry.
pub(crate) fn destroy(value: u64) -> Result<u32, SimError> {
    let mut streams = STREAMS.lock();
    let entry = streams
        .by_value
        .remove(&value)
        .ok_or(SimError::UnknownStream(value))?;
    streams.free_values.push(value);
    Ok(entry.device)
}

/// The id the SDK 1.0.0/1.1.0 map gives `value`, if any.
pub(crate) fn sdk_id(value: u64) -> Option<u64> {
    sdk_lookup(&STREAMS.lock(), value, stream_map())
}

/// `get_stream_id` of SDK 1.0.0/1.1.0: 1.1.0 first turns the two special handles into the
/// null stream (ROCm/rocm-systems#343).
fn sdk_lookup(streams: &Streams, value: u64, map: StreamMap) -> Option<u64> {
    match value {
        STREAM_LEGACY | STREAM_PER_THREAD if map == StreamMap::Sdk1_1 => Some(0),
        _ => streams.sdk_map.get(&value).copied(),
    }
}

/// The id a traced SET or DESTROY gets for a stream the SDK's map lacks: SDK 1.0.0 aborts
/// ([`abort_unmapped`]); from 1.1.0 the map registers it lazily (`Sdk1_1`).
pub(crate) fn unmapped_id(value: u64, operation: &str) -> u64 {
    match stream_map() {
        StreamMap::Sdk1_0 => abort_unmapped(value, operation),
        StreamMap::Sdk1_1 | StreamMap::Newer => STREAMS.lock().sdk_add(value),
    }
}

/// What the real SDK 1.0.0 does when a traced HIP call names a stream its map lacks:
/// `get_stream_id` logs an error and `std::unordered_map::at` throws `std::out_of_range` out
/// of the HIP entry point, which ends the process. Never returns.
fn abort_unmapped(value: u64, operation: &str) -> ! {
    let what = match value {
        STREAM_LEGACY => " (hipStreamLegacy)",
        STREAM_PER_THREAD => " (hipStreamPerThread)",
        _ => "",
    };
    eprintln!(
        "rocprofiler-sdk-sim: HIP_STREAM {operation} on hipStream_t {value:#x}{what}, which the \
         SDK's stream map never saw (created while no HIP_STREAM callback context was active, \
         or a special handle). rocprofiler-sdk 1.0.0 (ROCm 7.0) throws std::out_of_range \
         from get_stream_id in hip/stream.cpp here, and the uncaught exception aborts the \
         process. The machine key rocm = \"7.1\" or later (or stream_map = \"sdk-1.1\", in \
         ROCSIM_MACHINE or a scenario's [machine]) models the later SDKs that map it.{}",
        SCENARIO_HINT.lock().as_deref().unwrap_or("")
    );
    std::process::abort()
}

/// Maps a `hipStream_t` used by a call on a thread whose current device is `current_device`.
pub(crate) fn resolve(value: u64, current_device: u32) -> Result<StreamInfo, SimError> {
    let map = stream_map();
    let mut streams = STREAMS.lock();
    let (id, serial, device, bound) = match value {
        NULL_STREAM | STREAM_LEGACY => (
            0,
            0,
            current_device,
            streams.implicit_queues.get(&(current_device, 0)).copied(),
        ),
        STREAM_PER_THREAD => {
            let mut serial = PER_THREAD_SERIAL.get();
            if serial == 0 {
                serial = streams.next_serial;
                streams.next_serial += 1;
                PER_THREAD_SERIAL.set(serial);
            }
            let mut id = PER_THREAD_ID.get();
            if id == 0 && map == StreamMap::Newer {
                id = streams.next_id;
                streams.next_id += 1;
                PER_THREAD_ID.set(id);
            }
            (
                id,
                serial,
                current_device,
                streams
                    .implicit_queues
                    .get(&(current_device, serial))
                    .copied(),
            )
        }
        _ => {
            let entry = streams
                .by_value
                .get(&value)
                .ok_or(SimError::UnknownStream(value))?;
            (entry.id, entry.serial, entry.device, entry.queue)
        }
    };
    let (id, mapped) = match map {
        StreamMap::Newer => (id, true),
        StreamMap::Sdk1_0 | StreamMap::Sdk1_1 => match sdk_lookup(&streams, value, map) {
            Some(id) => (id, true),
            None => (u64::MAX, false),
        },
    };
    let queue = match bound {
        Some(queue) => queue,
        None => streams.default_queue(device, serial),
    };
    Ok(StreamInfo {
        id,
        mapped,
        value,
        device,
        queue,
        serial,
    })
}

/// What a SET on `value`, a stream the HIP runtime does not know, carries: under the SDK
/// 1.0.0/1.1.0 map the id the map kept for it (or unmapped); under the newer map there is no
/// SET (`None`).
pub(crate) fn unknown_to_hip(value: u64, device: u32) -> Option<StreamInfo> {
    if !stream_map().is_size_indexed() {
        return None;
    }
    let id = sdk_id(value);
    Some(StreamInfo {
        id: id.unwrap_or(u64::MAX),
        mapped: id.is_some(),
        value,
        device,
        queue: 0,
        serial: u64::MAX,
    })
}

/// Sends the stream's next work to HSA queue `queue` (several streams may share one).
pub(crate) fn bind_queue(value: u64, current_device: u32, queue: u64) -> Result<(), SimError> {
    let info = resolve(value, current_device)?;
    let mut streams = STREAMS.lock();
    match value {
        NULL_STREAM | STREAM_LEGACY | STREAM_PER_THREAD => {
            streams.implicit_queues.insert(info.key(), queue);
        }
        _ => {
            if let Some(entry) = streams.by_value.get_mut(&value) {
                entry.queue = Some(queue);
            }
        }
    }
    Ok(())
}
