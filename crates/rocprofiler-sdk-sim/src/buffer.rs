//! Buffers (§7.1-7.2, §18.24-29): byte-accounted with the real record sizes, double-buffered,
//! delivered on the buffer's callback thread.
//!
//! * Reaching the watermark queues a non-blocking flush (watermark 0 = every record).
//! * At most one batch is in flight per buffer (the SDK's second internal buffer). A producer
//!   that finds the active half full while a batch is in flight blocks under LOSSLESS and
//!   drops (counted, reported as `drop_count` with the next batch) under DISCARD.
//! * `flush` blocks until the callback ran. It returns BUFFER_BUSY while another flush or a
//!   destroy is in progress, and when called from the buffer's own callback thread: the real
//!   SDK deadlocks there (§13.4), and a silent success would hide that bug.
//! * Headers and payloads live in memory the sim reuses; in debug builds it is overwritten with
//!   `0xDB` bytes as soon as the callback returns, so a tool that keeps pointers sees garbage.
use crate::user_ptr::UserPtr;
use parking_lot::{Condvar, Mutex, RwLock};
use rocprofiler_sdk_sys as sys;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};

pub(crate) type BufferCallbackFn = unsafe extern "C" fn(
    sys::rocprofiler_context_id_t,
    sys::rocprofiler_buffer_id_t,
    *mut *mut sys::rocprofiler_record_header_t,
    usize,
    *mut c_void,
    u64,
);

const POISON: u64 = 0xDBDB_DBDB_DBDB_DBDB;

/// One slot per buffer tracing kind; kinds past the SDK's last one share the final slot.
const KIND_SLOTS: usize = sys::ROCPROFILER_BUFFER_TRACING_LAST as usize + 1;

fn kind_slot(kind: u32) -> usize {
    (kind as usize).min(KIND_SLOTS - 1)
}

/// What happened to the records pushed into one buffer, for tests that account for every
/// record: `total_written() == delivered + destroyed_undelivered + (records still held)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferRecordCounts {
    written: [u64; KIND_SLOTS],
    discarded: [u64; KIND_SLOTS],
    /// Records handed to the tool's buffer callback (after it returned).
    pub delivered: u64,
    /// Written records thrown away because the buffer was destroyed before delivering them.
    pub destroyed_undelivered: u64,
}

impl Default for BufferRecordCounts {
    fn default() -> Self {
        BufferRecordCounts {
            written: [0; KIND_SLOTS],
            discarded: [0; KIND_SLOTS],
            delivered: 0,
            destroyed_undelivered: 0,
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
}

/// One half of a buffer: records packed at 8-byte aligned offsets, plus the header arrays
/// built for delivery.
struct Arena {
    words: Vec<u64>,
    used: usize,
    entries: Vec<(u32, usize)>,
    headers: Vec<sys::rocprofiler_record_header_t>,
    header_ptrs: Vec<*mut sys::rocprofiler_record_header_t>,
}

// SAFETY: the raw pointers in `headers`/`header_ptrs` only ever point into this arena's own
// vectors, and are rebuilt before each use; moving the arena to the callback thread is sound.
unsafe impl Send for Arena {}

impl Arena {
    fn new(capacity_bytes: usize) -> Self {
        Arena {
            words: Vec::with_capacity(capacity_bytes.div_ceil(8)),
            used: 0,
            entries: Vec::new(),
            headers: Vec::new(),
            header_ptrs: Vec::new(),
        }
    }

    /// An empty arena accepts any one record, so a buffer smaller than a record still works.
    fn fits(&self, bytes: usize, limit: usize) -> bool {
        self.used == 0 || self.used + bytes <= limit
    }

    fn write<T: Copy>(&mut self, kind: u32, record: &T) {
        debug_assert!(std::mem::align_of::<T>() <= 8);
        let offset = self.used;
        let end = (offset + std::mem::size_of::<T>()).div_ceil(8) * 8;
        if self.words.len() < end / 8 {
            self.words.resize(end / 8, 0);
        }
        // SAFETY: `offset` is a multiple of 8 inside `words` (resized above), the base of a
        // Vec<u64> is 8-aligned and T needs at most 8-byte alignment.
        unsafe {
            let dst = self.words.as_mut_ptr().cast::<u8>().add(offset).cast::<T>();
            std::ptr::write(dst, *record);
        }
        self.entries.push((kind, offset));
        self.used = end;
    }

    fn build_headers(&mut self) {
        let base = self.words.as_mut_ptr().cast::<u8>();
        self.headers.clear();
        for &(kind, offset) in &self.entries {
            self.headers.push(sys::rocprofiler_record_header_t {
                id: sys::rocprofiler_record_header_id_t {
                    ck: sys::rocprofiler_record_header_category_kind_t {
                        category: sys::ROCPROFILER_BUFFER_CATEGORY_TRACING,
                        kind,
                    },
                },
                // SAFETY: every entry offset lies inside `words`.
                payload: unsafe { base.add(offset) }.cast(),
            });
        }
        self.header_ptrs.clear();
        let headers = self.headers.as_mut_ptr();
        // SAFETY: indices are within `headers`, which is not resized until the next build.
        self.header_ptrs
            .extend((0..self.headers.len()).map(|i| unsafe { headers.add(i) }));
    }

    /// Forgets the records; in debug builds, first overwrites everything a tool was shown.
    fn recycle(&mut self) {
        if cfg!(debug_assertions) {
            self.words.fill(POISON);
            for header in &mut self.headers {
                header.id.hash = POISON;
                header.payload = POISON as usize as *mut c_void;
            }
            for ptr in &mut self.header_ptrs {
                *ptr = POISON as usize as *mut _;
            }
        }
        self.used = 0;
        self.entries.clear();
    }
}

struct State {
    active: Arena,
    spare: Option<Arena>,
    in_flight: bool,
    drops: u64,
    flush_wanted: bool,
    destroyed: bool,
    submitted: u64,
    completed: u64,
    counts: BufferRecordCounts,
}

pub(crate) struct Buffer {
    pub handle: u64,
    pub context: u64,
    size: usize,
    watermark: usize,
    policy: u32,
    callback: BufferCallbackFn,
    data: UserPtr,
    thread: AtomicU64,
    state: Mutex<State>,
    changed: Condvar,
    /// Held by a blocking flush or a destroy (the SDK's `syncer` flag).
    syncer: AtomicBool,
}

struct Buffers {
    offset: u64,
    created: u64,
    by_handle: HashMap<u64, Arc<Buffer>>,
}

static BUFFERS: LazyLock<RwLock<Buffers>> = LazyLock::new(|| {
    RwLock::new(Buffers {
        offset: crate::handles::random_offset(),
        created: 0,
        by_handle: HashMap::new(),
    })
});

fn get(handle: u64) -> Option<Arc<Buffer>> {
    BUFFERS.read().by_handle.get(&handle).cloned()
}

pub(crate) fn exists(handle: u64) -> bool {
    BUFFERS.read().by_handle.contains_key(&handle)
}

pub(crate) fn create(
    context: u64,
    size: usize,
    watermark: usize,
    policy: u32,
    callback: BufferCallbackFn,
    data: UserPtr,
) -> u64 {
    let mut buffers = BUFFERS.write();
    let handle = buffers.offset + buffers.created;
    buffers.created += 1;
    let buffer = Arc::new(Buffer {
        handle,
        context,
        size,
        watermark: watermark.min(size),
        policy,
        callback,
        data,
        thread: AtomicU64::new(crate::callback_thread::default_thread()),
        state: Mutex::new(State {
            active: Arena::new(size),
            spare: Some(Arena::new(size)),
            in_flight: false,
            drops: 0,
            flush_wanted: false,
            destroyed: false,
            submitted: 0,
            completed: 0,
            counts: BufferRecordCounts::default(),
        }),
        changed: Condvar::new(),
        syncer: AtomicBool::new(false),
    });
    buffers.by_handle.insert(handle, buffer);
    handle
}

pub(crate) fn assign_thread(handle: u64, thread: u64) -> bool {
    match get(handle) {
        Some(buffer) => {
            buffer.thread.store(thread, Ordering::Release);
            true
        }
        None => false,
    }
}

/// Appends one record; records for unknown or destroyed buffers are ignored.
pub(crate) fn push<T: Copy>(handle: u64, kind: u32, record: &T) {
    if let Some(buffer) = get(handle) {
        buffer.push(kind, record);
    }
}

impl Buffer {
    fn push<T: Copy>(self: &Arc<Self>, kind: u32, record: &T) {
        let bytes = std::mem::size_of::<T>();
        let mut state = self.state.lock();
        loop {
            if state.destroyed {
                return;
            }
            if state.active.fits(bytes, self.size) {
                state.active.write(kind, record);
                state.counts.written[kind_slot(kind)] += 1;
                break;
            }
            if !state.in_flight {
                self.submit(&mut state);
                continue;
            }
            if self.policy == sys::ROCPROFILER_BUFFER_POLICY_DISCARD {
                state.drops += 1;
                state.counts.discarded[kind_slot(kind)] += 1;
                return;
            }
            // LOSSLESS: wait for the in-flight batch to be delivered (§7.1, §18.27).
            self.changed.wait(&mut state);
        }
        if state.active.used >= self.watermark {
            if state.in_flight {
                state.flush_wanted = true;
            } else {
                self.submit(&mut state);
            }
        }
    }

    /// Detaches the active half and queues its delivery. Caller checked `!in_flight`.
    fn submit(self: &Arc<Self>, state: &mut State) {
        let fresh = state.spare.take().unwrap_or_else(|| Arena::new(self.size));
        let batch = std::mem::replace(&mut state.active, fresh);
        let drops = std::mem::take(&mut state.drops);
        state.in_flight = true;
        state.flush_wanted = false;
        state.submitted += 1;
        let buffer = Arc::clone(self);
        crate::callback_thread::submit(
            self.thread.load(Ordering::Acquire),
            Box::new(move || buffer.deliver(batch, drops)),
        );
    }

    /// Runs on the callback thread, with no sim lock held during the tool's callback.
    fn deliver(self: &Arc<Self>, mut batch: Arena, drops: u64) {
        let destroyed = self.state.lock().destroyed;
        if !destroyed && (!batch.entries.is_empty() || drops > 0) {
            batch.build_headers();
            // SAFETY: the tool's buffer callback; the header array and payloads stay valid
            // until it returns (and not after: §7.2 "Lifetime").
            unsafe {
                (self.callback)(
                    sys::rocprofiler_context_id_t {
                        handle: self.context,
                    },
                    sys::rocprofiler_buffer_id_t {
                        handle: self.handle,
                    },
                    batch.header_ptrs.as_mut_ptr(),
                    batch.header_ptrs.len(),
                    self.data.0,
                    drops,
                )
            };
        }
        let records = batch.entries.len() as u64;
        batch.recycle();
        let mut state = self.state.lock();
        if destroyed {
            state.counts.destroyed_undelivered += records;
        } else {
            state.counts.delivered += records;
        }
        state.spare = Some(batch);
        state.in_flight = false;
        state.completed += 1;
        let has_data = state.active.used > 0 || state.drops > 0;
        let wanted = state.flush_wanted || state.active.used >= self.watermark;
        if !state.destroyed && has_data && wanted {
            self.submit(&mut state);
        }
        self.changed.notify_all();
    }
}

/// The record counts of buffer `handle`, while it exists.
pub fn record_counts(handle: u64) -> Option<BufferRecordCounts> {
    get(handle).map(|buffer| buffer.state.lock().counts.clone())
}

/// `rocprofiler_flush_buffer`: deliver what the buffer holds and wait for the callback.
pub(crate) fn flush(handle: u64) -> sys::rocprofiler_status_t {
    if crate::registration::fini_status() == 1 {
        return sys::ROCPROFILER_STATUS_ERROR_FINALIZED;
    }
    let Some(buffer) = get(handle) else {
        return sys::ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    };
    let here = crate::callback_thread::current();
    if here != 0 && here == buffer.thread.load(Ordering::Acquire) {
        // The real SDK waits here on the thread that would have to run the flush (§13.4).
        return sys::ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
    }
    if buffer.syncer.swap(true, Ordering::AcqRel) {
        return sys::ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
    }
    {
        let mut state = buffer.state.lock();
        while state.in_flight {
            buffer.changed.wait(&mut state);
        }
        if !state.destroyed && (state.active.used > 0 || state.drops > 0) {
            buffer.submit(&mut state);
            let target = state.submitted;
            while state.completed < target {
                buffer.changed.wait(&mut state);
            }
        }
    }
    buffer.syncer.store(false, Ordering::Release);
    sys::ROCPROFILER_STATUS_SUCCESS
}

/// `rocprofiler_destroy_buffer`: unflushed records are dropped (§7.2).
pub(crate) fn destroy(handle: u64) -> sys::rocprofiler_status_t {
    let Some(buffer) = get(handle) else {
        return sys::ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    };
    if buffer.syncer.swap(true, Ordering::AcqRel) {
        return sys::ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
    }
    {
        let mut state = buffer.state.lock();
        if state.in_flight {
            drop(state);
            buffer.syncer.store(false, Ordering::Release);
            return sys::ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
        }
        state.destroyed = true;
        state.counts.destroyed_undelivered += state.active.entries.len() as u64;
        state.active.recycle();
        buffer.changed.notify_all();
    }
    BUFFERS.write().by_handle.remove(&handle);
    sys::ROCPROFILER_STATUS_SUCCESS
}

/// Finalization: flush every buffer of the client's contexts, waiting out concurrent flushes.
pub(crate) fn flush_client_buffers(client: u32) {
    let handles: Vec<u64> = BUFFERS
        .read()
        .by_handle
        .values()
        .filter(|b| crate::registry::client_of(b.context) == Some(client))
        .map(|b| b.handle)
        .collect();
    for handle in handles {
        for _ in 0..10_000 {
            if flush(handle) != sys::ROCPROFILER_STATUS_ERROR_BUFFER_BUSY {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
