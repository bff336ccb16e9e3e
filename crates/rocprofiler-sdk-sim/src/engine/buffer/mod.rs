//! Buffers (docs/sdk-facts.md#buffers, #buffer-behaviour, docs/simulator-fidelity.md#buffers), modelled on the SDK's `buffer::instance` (`lib/buffer.hpp`
//! `instance::emplace`, `lib/buffer.cpp` `flush` and `rocprofiler_create_buffer`):
//!
//! * Two internal halves and an index saying which one producers write. Each half has a busy
//!   flag that a flush holds from the moment it takes the half until the tool's callback for
//!   it has returned. A flush flips the index, so producers move to the other half. Where the
//!   release's `syncer` is, and who takes it (`Machine::buffer_sync`,
//!   docs/simulator-fidelity.md#the-ledger), decides what a producer and a watermark flush do
//!   while a half is busy, whatever the policy:
//!   * per half (ROCm 7.13 to 10.1): a watermark flush flips first, then finds the half it left
//!     busy (BUFFER_BUSY). A producer whose current half is busy **waits** for that callback;
//!     so once the other half reaches the watermark too, the flip lands back on the half still
//!     being delivered and every producer (HIP API threads, the completion thread) waits for
//!     the tool's callback;
//!   * per buffer (ROCm 7.1, 7.2): a producer waits while **either** half is busy, so every
//!     producer waits for the whole callback of every flush;
//!   * none (ROCm 7.0): producers take no syncer; the buffer's one syncer is `flush`'s, tested
//!     before it flips. A watermark flush during a callback answers BUFFER_BUSY without
//!     flipping, so producers go on writing the free half past the watermark; when that half is
//!     full a LOSSLESS producer's waiting flush waits for the callback, then flips and delivers. A
//!     producer that met the half being delivered would wait for the half's lock (held for the
//!     callback and the clear) and write the cleared half; the sim's producers read the index
//!     and write under one lock, so that never happens here. The SDK's narrow race (space
//!     requested before the flush's lock, written after the clear: duplicated or overwritten
//!     records) is not modelled.
//!
//!   The time producers spent waiting is counted (`BufferRecordCounts::producer_wait_ns`), and
//!   the watermark flushes that found the syncer held (`BufferRecordCounts::busy_flushes`).
//! * Capacity is the requested size rounded up to whole pages (the SDK's ring buffer maps
//!   pages); a record larger than the capacity is lost (counted in `lost`, never reported).
//! * Reaching the watermark (bytes, not clamped to the size; 0 = every record) queues a
//!   non-waiting flush. LOSSLESS: a full half makes the producer run a waiting flush and retry.
//! * DISCARD (and POLICY_NONE, which the SDK accepts and treats alike): only the first half is
//!   allocated. A full half counts a drop; `drop_count` is cumulative and never reset. After a
//!   flush flipped the index to the unallocated half, records are lost silently (no drop is
//!   counted and no watermark flush happens) until the next explicit flush flips it back.
//! * The callback is not called for an empty half, even if drops were counted.
//! * `flush` (`rocprofiler_flush_buffer`) waits for the buffer's queued deliveries, then for a
//!   concurrent flush of the same half, and never answers BUFFER_BUSY for that. Called from the
//!   buffer's own callback thread it returns BUFFER_BUSY: the real SDK waits there on itself
//!   forever (docs/sdk-facts.md#what-may-be-called-where), and a silent success would hide that bug.
//! * A producer on the buffer's own callback thread that would have to wait (its half is being
//!   delivered by a task on this very thread, or it needs a waiting flush) deadlocks on the real
//!   SDK; the sim reports it (`Machine::buffer_self_deadlock`): abort with a message naming the
//!   buffer and its callback (default), or count it and drop the record.
//! * Headers and payloads live in memory the sim reuses; in debug builds it is overwritten with
//!   `0xDB` bytes as soon as the callback returns, so a tool that keeps pointers sees garbage.
//! * No sim lock is held while the tool's callback runs.
mod arena;
mod counts;

pub use counts::BufferRecordCounts;

use crate::engine::user_ptr::UserPtr;
use crate::machine::{BufferSync, SelfDeadlock};
use arena::Arena;
use counts::kind_slot;
use parking_lot::{Condvar, Mutex, MutexGuard, RwLock};
use rocprofiler_sdk_sys as sys;
use rustc_hash::FxHashMap as HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};

pub(crate) type BufferCallbackFn = unsafe extern "C" fn(
    sys::rocprofiler_context_id_t,
    sys::rocprofiler_buffer_id_t,
    *mut *mut sys::rocprofiler_record_header_t,
    usize,
    *mut c_void,
    u64,
);

/// The SDK's ring buffers are whole pages.
const PAGE: usize = 4096;

/// One internal half. `arena` is `None` while a delivery task has it out.
struct Half {
    arena: Option<Arena>,
    capacity: usize,
    /// The SDK's per-half `syncer`: held by a flush until the tool's callback returned.
    busy: bool,
}

impl Half {
    fn used(&self) -> usize {
        self.arena.as_ref().map_or(0, |a| a.used)
    }
}

struct State {
    halves: [Half; 2],
    /// The half producers write (the SDK's `buffer_idx % 2`).
    idx: usize,
    /// Cumulative, never reset, passed with every callback (the SDK's `drop_count`).
    drop_count: u64,
    destroyed: bool,
    queued: u64,
    completed: u64,
    counts: BufferRecordCounts,
}

pub(crate) struct Buffer {
    pub handle: u64,
    pub context: u64,
    watermark: usize,
    policy: u32,
    callback: Option<BufferCallbackFn>,
    data: UserPtr,
    thread: AtomicU64,
    state: Mutex<State>,
    changed: Condvar,
}

struct Buffers {
    offset: u64,
    created: u64,
    by_handle: HashMap<u64, Arc<Buffer>>,
}

static BUFFERS: LazyLock<RwLock<Buffers>> = LazyLock::new(|| {
    RwLock::new(Buffers {
        offset: crate::engine::handles::random_offset(),
        created: 0,
        by_handle: HashMap::default(),
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
    callback: Option<BufferCallbackFn>,
    data: UserPtr,
) -> u64 {
    // A size near usize::MAX stays as given (its allocation then fails as the SDK's would).
    let capacity = size.checked_next_multiple_of(PAGE).unwrap_or(size);
    // The second half is allocated for LOSSLESS only (`rocprofiler_create_buffer`).
    let second = if policy == sys::ROCPROFILER_BUFFER_POLICY_LOSSLESS {
        capacity
    } else {
        0
    };
    let half = |capacity: usize| Half {
        arena: Some(Arena::new(capacity)),
        capacity,
        busy: false,
    };
    let mut buffers = BUFFERS.write();
    let handle = buffers.offset + buffers.created;
    buffers.created += 1;
    let buffer = Arc::new(Buffer {
        handle,
        context,
        watermark,
        policy,
        callback,
        data,
        thread: AtomicU64::new(crate::engine::callback_thread::default_thread()),
        state: Mutex::new(State {
            halves: [half(capacity), half(second)],
            idx: 0,
            drop_count: 0,
            destroyed: false,
            queued: 0,
            completed: 0,
            counts: BufferRecordCounts::default(),
        }),
        changed: Condvar::new(),
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

/// Why a producer stopped.
enum Halt {
    Destroyed,
    SelfDeadlock,
}

impl Buffer {
    /// True on the callback thread that runs this buffer's deliveries: anything this thread
    /// waits for that only a delivery task can release never comes.
    fn on_own_callback_thread(&self) -> bool {
        let here = crate::engine::callback_thread::current();
        here != 0 && here == self.thread.load(Ordering::Acquire)
    }

    /// `instance::emplace`.
    fn push<T: Copy>(self: &Arc<Self>, kind: u32, record: &T) {
        let bytes = std::mem::size_of::<T>();
        let slot = kind_slot(kind);
        let mut state = self.state.lock();
        let mut idx = state.idx;
        if self.wait_for_half(&mut state, idx).is_err() {
            return;
        }
        if !Self::try_write(&mut state, idx, kind, record) {
            if state.halves[idx].capacity < bytes {
                // DISCARD's unallocated half, or a record larger than the buffer: the SDK
                // logs and returns without counting a drop or flushing.
                state.counts.lost[slot] += 1;
                return;
            }
            if self.policy == sys::ROCPROFILER_BUFFER_POLICY_LOSSLESS {
                loop {
                    if self.on_own_callback_thread() {
                        // The SDK's waiting flush starts with `task_group->wait()`, which
                        // waits for the task this thread is running.
                        self.self_deadlock(&mut state, "a full LOSSLESS buffer");
                        return;
                    }
                    if self.flush_waiting(&mut state).is_err() {
                        return;
                    }
                    idx = state.idx;
                    if self.wait_for_half(&mut state, idx).is_err() {
                        return;
                    }
                    if Self::try_write(&mut state, idx, kind, record) {
                        break;
                    }
                }
            } else {
                state.drop_count += 1;
                state.counts.discarded[slot] += 1;
            }
        }
        if state.halves[idx].used() >= self.watermark {
            if crate::engine::lifecycle::fini_status() < 0 {
                // During finalization the SDK turns every flush into a waiting one.
                if self.on_own_callback_thread() {
                    self.self_deadlock(&mut state, "a flush during finalization");
                } else {
                    let _ = self.flush_waiting(&mut state);
                }
            } else {
                self.flush_nonwaiting(&mut state);
            }
        }
    }

    fn try_write<T: Copy>(state: &mut State, idx: usize, kind: u32, record: &T) -> bool {
        let half = &mut state.halves[idx];
        let capacity = half.capacity;
        let Some(arena) = half.arena.as_mut() else {
            return false;
        };
        if !arena.fits(std::mem::size_of::<T>(), capacity) {
            return false;
        }
        arena.write(kind, record);
        state.counts.written[kind_slot(kind)] += 1;
        true
    }

    /// Waits until the producer may write half `idx`: the `local_sync` spin in `emplace`, on
    /// the release's syncer (`Machine::buffer_sync`); in 7.0, which has none there, the half's
    /// own lock (`record_header_buffer` `emplace` against `process_record_headers`).
    fn wait_for_half(&self, state: &mut MutexGuard<'_, State>, idx: usize) -> Result<(), Halt> {
        if state.destroyed {
            return Err(Halt::Destroyed);
        }
        let sync = crate::machine::machine().buffer_sync;
        let held = |state: &State| match sync {
            BufferSync::PerBuffer => state.halves.iter().any(|half| half.busy),
            BufferSync::PerHalf | BufferSync::None => state.halves[idx].busy,
        };
        if !held(state) {
            return Ok(());
        }
        if self.on_own_callback_thread() {
            let waiting_for = match sync {
                BufferSync::PerBuffer => "the buffer's syncer, held while its callback runs",
                _ => "the half being delivered",
            };
            self.self_deadlock(state, waiting_for);
            return Err(Halt::SelfDeadlock);
        }
        state.counts.producer_waits += 1;
        let started = std::time::Instant::now();
        while held(state) && !state.destroyed {
            self.changed.wait(state);
        }
        let waited = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        state.counts.producer_wait_ns = state.counts.producer_wait_ns.saturating_add(waited);
        if state.destroyed {
            return Err(Halt::Destroyed);
        }
        Ok(())
    }

    /// A producer on this buffer's callback thread would wait forever on the real SDK.
    fn self_deadlock(&self, state: &mut State, waiting_for: &str) {
        match crate::machine::machine().buffer_self_deadlock {
            SelfDeadlock::Abort => {
                eprintln!(
                    "rocprofiler-sdk-sim: deadlock: a record for buffer {} (context {}) was \
                     produced on that buffer's callback thread (rocsim-cb-{}), which would have to wait for {}; \
                     this thread is running the buffer callback {} (or another task of its \
                     callback thread). The real rocprofiler-sdk waits here forever (a traced \
                     call made from inside a buffer callback). Aborting \
                     (the machine key buffer_self_deadlock = \"drop\" counts and drops the record instead).",
                    self.handle,
                    self.context,
                    self.thread.load(Ordering::Acquire),
                    waiting_for,
                    self.callback_name(),
                );
                // This thread holds the buffer's lock: 10.1's abort flush would only wait out
                // its time limit on it.
                crate::engine::abort_flush::skip();
                std::process::abort();
            }
            SelfDeadlock::Drop => {
                if state.counts.self_deadlocks == 0 {
                    eprintln!(
                        "rocprofiler-sdk-sim: buffer {}: a record produced inside buffer \
                         callback {} would deadlock the real SDK; dropped and counted",
                        self.handle,
                        self.callback_name()
                    );
                }
                state.counts.self_deadlocks += 1;
            }
        }
    }

    fn callback_name(&self) -> String {
        let Some(callback) = self.callback else {
            return "(none)".to_owned();
        };
        let address = callback as usize;
        // SAFETY: dladdr only reads the loader's tables; `info` is a valid out-pointer.
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        // SAFETY: dladdr only reads the loader's tables and writes `info`, a live local.
        let found = unsafe { libc::dladdr(address as *const libc::c_void, &mut info) } != 0;
        if found && !info.dli_sname.is_null() {
            // SAFETY: dladdr returned a NUL-terminated symbol name.
            let name = unsafe { std::ffi::CStr::from_ptr(info.dli_sname) };
            format!("{} ({address:#x})", name.to_string_lossy())
        } else {
            format!("at {address:#x}")
        }
    }

    /// The SDK's `flush(id, wait = false)`: flip the index and queue the delivery of the half
    /// producers just left, unless the syncer is held (BUFFER_BUSY, ignored by `emplace`). With
    /// one syncer per buffer (7.0 to 7.2, `buffer.cpp` `flush` @ `64cf36de` and `1b1610fc`) it
    /// is tested before the flip, so a busy answer leaves the index where it was; with one per
    /// half (ROCm/rocm-systems#2334) the flip comes first and only the half it left is tested.
    fn flush_nonwaiting(self: &Arc<Self>, state: &mut State) {
        let left = state.idx;
        let syncer_held = match crate::machine::machine().buffer_sync {
            BufferSync::None | BufferSync::PerBuffer => state.halves.iter().any(|half| half.busy),
            BufferSync::PerHalf => {
                state.idx = left ^ 1;
                state.halves[left].busy
            }
        };
        if syncer_held {
            state.counts.busy_flushes += 1;
            return;
        }
        state.idx = left ^ 1;
        self.queue_delivery(state, left);
    }

    /// The SDK's `flush(id, wait = true)`: wait for queued deliveries, flip the index, wait
    /// for the half producers left, deliver it and wait for the callback.
    fn flush_waiting(self: &Arc<Self>, state: &mut MutexGuard<'_, State>) -> Result<(), Halt> {
        if state.completed < state.queued {
            state.counts.flush_waits += 1;
        }
        while state.completed < state.queued && !state.destroyed {
            self.changed.wait(state);
        }
        if state.destroyed {
            return Err(Halt::Destroyed);
        }
        let old = state.idx;
        state.idx ^= 1;
        if state.halves[old].busy {
            state.counts.flush_waits += 1;
            while state.halves[old].busy && !state.destroyed {
                self.changed.wait(state);
            }
            if state.destroyed {
                return Err(Halt::Destroyed);
            }
        }
        let target = self.queue_delivery(state, old);
        while state.completed < target && !state.destroyed {
            self.changed.wait(state);
        }
        Ok(())
    }

    /// Marks half `idx` busy and queues its delivery; returns the task's sequence number.
    fn queue_delivery(self: &Arc<Self>, state: &mut State, idx: usize) -> u64 {
        state.halves[idx].busy = true;
        state.queued += 1;
        let buffer = Arc::clone(self);
        crate::engine::callback_thread::submit(
            self.thread.load(Ordering::Acquire),
            Box::new(move || buffer.deliver(idx)),
        );
        state.queued
    }

    /// The flush task: runs on the callback thread, with no sim lock held during the tool's
    /// callback. Half `idx` stays busy until the callback returned.
    fn deliver(self: &Arc<Self>, idx: usize) {
        let (arena, drop_count, destroyed) = {
            let mut state = self.state.lock();
            (
                state.halves[idx].arena.take(),
                state.drop_count,
                state.destroyed,
            )
        };
        let mut records = 0;
        let mut arena = arena;
        if let Some(batch) = arena.as_mut() {
            records = batch.entries.len() as u64;
            if let (false, true, Some(callback)) = (destroyed, records > 0, self.callback) {
                batch.build_headers();
                // SAFETY: the tool's buffer callback; the header array and payloads stay valid
                // until it returns (and not after: docs/sdk-facts.md#buffer-behaviour "Lifetime").
                unsafe {
                    callback(
                        sys::rocprofiler_context_id_t {
                            handle: self.context,
                        },
                        sys::rocprofiler_buffer_id_t {
                            handle: self.handle,
                        },
                        batch.header_ptrs.as_mut_ptr(),
                        batch.header_ptrs.len(),
                        self.data.0,
                        drop_count,
                    )
                };
            }
            batch.recycle();
        }
        let mut state = self.state.lock();
        if destroyed {
            state.counts.destroyed_undelivered += records;
        } else {
            state.counts.delivered += records;
        }
        state.halves[idx].arena = arena;
        state.halves[idx].busy = false;
        state.completed += 1;
        self.changed.notify_all();
    }
}

/// The record counts of buffer `handle`, while it exists.
pub fn record_counts(handle: u64) -> Option<BufferRecordCounts> {
    get(handle).map(|buffer| buffer.state.lock().counts.clone())
}

/// `rocprofiler_flush_buffer`: deliver what the buffer holds and wait for the callback. A
/// concurrent flush is waited out, never answered with BUFFER_BUSY.
pub(crate) fn flush(handle: u64) -> sys::rocprofiler_status_t {
    if crate::engine::lifecycle::fini_status() > 0 {
        return sys::ROCPROFILER_STATUS_ERROR_FINALIZED;
    }
    let Some(buffer) = get(handle) else {
        return sys::ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    };
    if buffer.on_own_callback_thread() {
        // The real SDK waits here on the thread that would have to run the flush (docs/sdk-facts.md#what-may-be-called-where).
        return sys::ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
    }
    let mut state = buffer.state.lock();
    match buffer.flush_waiting(&mut state) {
        Ok(()) => sys::ROCPROFILER_STATUS_SUCCESS,
        Err(_) => sys::ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
    }
}

/// Flushes every buffer that is not delivering on this thread (the abort flush of
/// `engine/abort_flush.rs`).
pub(crate) fn flush_all() {
    let handles: Vec<u64> = BUFFERS.read().by_handle.keys().copied().collect();
    for handle in handles {
        let _ = flush(handle);
    }
}

/// `rocprofiler_destroy_buffer`: unflushed records are dropped (docs/sdk-facts.md#buffer-behaviour). BUFFER_BUSY while a
/// delivery holds either half.
pub(crate) fn destroy(handle: u64) -> sys::rocprofiler_status_t {
    let Some(buffer) = get(handle) else {
        return sys::ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    };
    {
        let mut state = buffer.state.lock();
        if state.halves.iter().any(|h| h.busy) {
            return sys::ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
        }
        state.destroyed = true;
        let mut dropped = 0;
        for half in &mut state.halves {
            if let Some(arena) = half.arena.as_mut() {
                dropped += arena.entries.len() as u64;
                arena.recycle();
            }
        }
        state.counts.destroyed_undelivered += dropped;
        buffer.changed.notify_all();
    }
    BUFFERS.write().by_handle.remove(&handle);
    sys::ROCPROFILER_STATUS_SUCCESS
}

/// Waits until every delivery queued for the client's buffers has run (the SDK joins its
/// callback threads' task groups at the end of finalization).
pub(crate) fn wait_client_deliveries(client: u32) {
    let buffers: Vec<Arc<Buffer>> = BUFFERS
        .read()
        .by_handle
        .values()
        .filter(|b| crate::engine::registry::client_of(b.context) == Some(client))
        .cloned()
        .collect();
    for buffer in buffers {
        if buffer.on_own_callback_thread() {
            continue;
        }
        let mut state = buffer.state.lock();
        while state.completed < state.queued && !state.destroyed {
            buffer.changed.wait(&mut state);
        }
    }
}
