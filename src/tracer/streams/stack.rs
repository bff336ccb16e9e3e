//! The per-thread HIP stream stack (openxla/xla#46182; docs/sdk-facts.md#hip-stream-tracing, #stream-attribution).
//!
//! HIP_STREAM SET ENTER pushes the SDK stream id of the HIP call that is starting on this
//! thread, SET EXIT pops it; the external-correlation request, which the SDK makes on the
//! same thread inside that window (direct dispatch, docs/sdk-facts.md#direct-dispatch), reads the top. The logical stack
//! starts as `{0}` (the null stream) and never loses that base entry: it is stored implicitly,
//! so `pushed` holds only the entries above it and "pop while len > 1" becomes "pop if
//! non-empty".
//!
//! This runs around every HIP call of the profiled program: no locks, no allocation, no
//! logging, one thread-local access at SET ENTER and none at SET EXIT (the ENTER keeps where
//! the stack is in the window's `user_data`, which the SDK hands back at EXIT). The stack is a fixed array of `Cell`s in the
//! thread's [`ThreadState`](crate::tracer::thread_state) (one thread-local without destructor), so
//! reaching it can never fail or panic, even during thread teardown. Nesting deeper than [`MAX_DEPTH`] entries (the SDK
//! never nests deeper than one) is counted, not stored: the deepest stored stream stays the
//! top until the extra entries are popped. A SET on a reserved handle (null, legacy,
//! per-thread) is also noted for the lane labels (`names.rs`): a `try_lock` (never a
//! wait) and a map insert only when the thread has not seen that handle with that id lately.
use std::sync::atomic::{AtomicU64, Ordering};

use rocprofiler_sdk_sys as sys;

use crate::tracer::thread_state::{self, ThreadStack, ThreadState};

/// The stream id used before any SET: the null stream.
pub(crate) const NULL_STREAM_ID: u64 = 0;

/// Entries stored above the base null-stream entry.
pub(crate) const MAX_DEPTH: usize = thread_state::STREAM_STACK_DEPTH;

/// SET EXITs that found only the base entry, over all threads. Rare by construction (it means
/// a SET ENTER was missed, e.g. the stream context started inside a HIP call), so one relaxed
/// atomic is cheap enough.
static UNMATCHED_EXITS: AtomicU64 = AtomicU64::new(0);

/// Statistics of the calling thread's stack.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct ThreadStreamStats {
    pub pushes: u64,
    pub pops: u64,
    /// SET EXITs on this thread that had nothing to pop.
    pub unmatched_exits: u64,
    /// Deepest logical depth seen, counting the base `{0}` entry.
    pub max_depth: u64,
}

impl ThreadStreamStats {
    const ZERO: ThreadStreamStats = ThreadStreamStats {
        pushes: 0,
        pops: 0,
        unmatched_exits: 0,
        max_depth: 1,
    };
}

/// The stack's rules; its layout is `thread_state`'s.
impl ThreadStack {
    /// The innermost stored entry, `None` at the base.
    #[inline]
    pub(crate) fn top(&self) -> Option<u64> {
        let depth = self.depth.get() as usize;
        match self.entries.get(depth.wrapping_sub(1)) {
            Some(entry) => Some(entry.get()),
            // At the base (`depth - 1` wraps) or nested beyond the stored entries.
            None => self.top_beyond_stored(depth),
        }
    }

    /// [`Self::top`] at the base or deeper than [`MAX_DEPTH`]: the deepest stored entry.
    #[cold]
    #[inline(never)]
    fn top_beyond_stored(&self, depth: usize) -> Option<u64> {
        if depth == 0 {
            return None;
        }
        Some(self.entries[depth.min(MAX_DEPTH) - 1].get())
    }

    /// SET ENTER: `stream_id` becomes the current stream of this thread.
    #[inline]
    pub(crate) fn push(&self, stream_id: u64) {
        let depth = self.depth.get();
        if depth != 0 {
            return self.push_nested(depth, stream_id);
        }
        // The common case (the SDK nests at most one SET window): the first stored entry, and
        // a logical depth of 2, which `max_depth` need not record (`current_thread_stats`
        // derives it from `pushes`).
        self.entries[0].set(stream_id);
        self.depth.set(1);
        self.pushes.set(self.pushes.get() + 1);
    }

    /// [`Self::push`] onto a stack that already holds an entry above the base.
    #[cold]
    #[inline(never)]
    fn push_nested(&self, depth: u64, stream_id: u64) {
        if let Some(entry) = self.entries.get(depth as usize) {
            entry.set(stream_id);
        }
        self.depth.set(depth + 1);
        self.pushes.set(self.pushes.get() + 1);
        // Counting the base entry; written only when it grows (almost never).
        if depth + 2 > self.max_depth.get() {
            self.max_depth.set(depth + 2);
        }
    }

    /// SET EXIT: drops the innermost stream, never the base null-stream entry.
    #[inline]
    pub(crate) fn pop(&self) {
        let depth = self.depth.get();
        if depth > 0 {
            self.depth.set(depth - 1);
        } else {
            self.unmatched_exit();
        }
    }

    #[cold]
    fn unmatched_exit(&self) {
        self.unmatched_exits.set(self.unmatched_exits.get() + 1);
        UNMATCHED_EXITS.fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs `f` on the calling thread's stack.
fn with_stack<R>(f: impl FnOnce(&ThreadStack) -> R) -> Option<R> {
    thread_state::with(|thread| f(&thread.streams))
}

/// SET ENTER: `stream_id` becomes the current stream of this thread.
#[cfg(any(test, feature = "testing"))]
pub fn push(stream_id: u64) {
    with_stack(|stack| stack.push(stream_id));
}

/// SET EXIT: drops the innermost stream, never the base null-stream entry.
pub fn pop() {
    with_stack(ThreadStack::pop);
}

/// The stream id the calling thread's current HIP call runs on (0 outside any SET window).
pub fn top() -> u64 {
    innermost_set().unwrap_or(NULL_STREAM_ID)
}

/// The stream of the innermost open SET window of the calling thread, `None` outside any.
pub(crate) fn innermost_set() -> Option<u64> {
    with_stack(ThreadStack::top).flatten()
}

/// The logical depth of the calling thread's stack, counting the base entry.
pub fn depth() -> usize {
    with_stack(|stack| stack.depth.get() as usize).unwrap_or(0) + 1
}

/// The HIP_STREAM callback of the process-lifetime stream context: SET ENTER pushes
/// `stream_id.handle`, SET EXIT pops; CREATE, DESTROY and SETs on the reserved handles are
/// noted for the lane labels (`names.rs`); unknown operations are ignored.
///
/// # Safety
/// Called by the SDK with `record.payload` null or pointing to a
/// `rocprofiler_callback_tracing_hip_stream_data_t` valid for the duration of the call, and
/// `user_data` null or the SDK's per-invocation storage, kept from ENTER to EXIT.
#[doc(hidden)] // public for tests/hot_path_alloc.rs, which calls it as the SDK does
pub unsafe extern "C" fn hip_stream_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut std::ffi::c_void,
) {
    // Panic-free: integer compares, a checked pointer read and the functions above.
    // The kind and the operation, adjacent in the record, compared at once: a HIP_STREAM SET
    // costs one compare before its phase (the SDK calls this around every HIP call).
    if kind_and_operation(&record) != STREAM_SET {
        if record.kind == sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM {
            // SAFETY: the caller's contract.
            unsafe { note_stream_lifetime(record.operation, record.payload) };
        }
        return;
    }
    // Each phase in a function of its own, reached by a jump: a SET EXIT sets up no frame for
    // what a SET ENTER needs (`extern "C"`: they cannot unwind, so no landing pad here either).
    match record.phase {
        // SAFETY: the caller's contract.
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER => unsafe { set_enter(record.payload, user_data) },
        // SAFETY: the caller's contract.
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT => unsafe { set_exit(user_data) },
        _ => {}
    }
}

/// A record's `kind` and `operation` as one value: the 8 bytes from `kind`, in native order
/// (the two 4-byte fields lie next to each other in the record, checked below).
#[inline]
fn kind_and_operation(record: &sys::rocprofiler_callback_tracing_record_t) -> u64 {
    // SAFETY: `operation` follows `kind` directly (the assertion below), so the 8 bytes from
    // `kind` are both fields of this record; read unaligned, so no alignment is assumed.
    unsafe {
        std::ptr::addr_of!(record.kind)
            .cast::<u64>()
            .read_unaligned()
    }
}

/// [`kind_and_operation`] of a HIP_STREAM SET record.
const STREAM_SET: u64 = {
    let kind = sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM.to_ne_bytes();
    let operation = sys::ROCPROFILER_HIP_STREAM_SET.to_ne_bytes();
    u64::from_ne_bytes([
        kind[0],
        kind[1],
        kind[2],
        kind[3],
        operation[0],
        operation[1],
        operation[2],
        operation[3],
    ])
};

const _: () = {
    type Record = sys::rocprofiler_callback_tracing_record_t;
    assert!(
        std::mem::offset_of!(Record, operation) == std::mem::offset_of!(Record, kind) + 4
            && std::mem::size_of::<sys::rocprofiler_callback_tracing_kind_t>() == 4
            && std::mem::size_of::<sys::rocprofiler_tracing_operation_t>() == 4
    );
};

/// SET ENTER on the calling thread.
///
/// # Safety
/// As [`hip_stream_callback`]'s `record.payload` and `user_data`.
#[inline(never)]
unsafe extern "C" fn set_enter(
    payload: *mut std::ffi::c_void,
    user_data: *mut sys::rocprofiler_user_data_t,
) {
    thread_state::with(|thread| {
        // SAFETY: the caller's contract.
        unsafe { remember_stack(user_data, &thread.streams) };
        // SAFETY: the caller's contract.
        if let Some((stream_id, handle)) = unsafe { read_set(payload) } {
            push_set(thread, stream_id, handle);
        }
    });
}

/// SET EXIT on the calling thread.
///
/// # Safety
/// As [`hip_stream_callback`]'s `user_data`.
#[inline(never)]
unsafe extern "C" fn set_exit(user_data: *mut sys::rocprofiler_user_data_t) {
    // SAFETY: the caller's contract.
    match unsafe { remembered_stack(user_data) } {
        Some(stack) => stack.pop(),
        None => pop_without_user_data(),
    }
}

/// A SET EXIT whose `user_data` does not say where the stack is.
#[cold]
#[inline(never)]
fn pop_without_user_data() {
    pop();
}

/// SET ENTER: keeps where the calling thread's stack is in the window's `user_data`, which
/// the SDK preserves from ENTER to EXIT of one invocation, on one thread, for one context
/// (docs/sdk-facts.md#callback-tracing): the EXIT pops it without a thread-local look-up.
///
/// # Safety
/// `user_data` is null or the SDK's per-invocation storage of this SET window.
#[inline]
unsafe fn remember_stack(user_data: *mut sys::rocprofiler_user_data_t, stack: &ThreadStack) {
    if !user_data.is_null() {
        // SAFETY: non-null per-invocation storage, writable during the callback.
        unsafe { (*user_data).ptr = stack as *const ThreadStack as *mut std::ffi::c_void };
    }
}

/// SET EXIT: the stack its ENTER kept in `user_data`, if any (a window whose ENTER this
/// context did not see starts with the SDK's zeroed `user_data`).
///
/// # Safety
/// `user_data` is null or the SDK's per-invocation storage of this SET window, which only
/// [`remember_stack`] writes: it then points at the calling thread's stack, which has no
/// destructor and lives as long as the thread.
#[inline]
unsafe fn remembered_stack<'a>(
    user_data: *mut sys::rocprofiler_user_data_t,
) -> Option<&'a ThreadStack> {
    if user_data.is_null() {
        return None;
    }
    // SAFETY: the caller's contract: null or what `remember_stack` wrote on this thread.
    let stack = unsafe { (*user_data).ptr } as *const ThreadStack;
    // SAFETY: as above.
    unsafe { stack.as_ref() }
}

/// CREATE and DESTROY (any other operation but SET is ignored): noted for the lane labels.
///
/// # Safety
/// `payload` as [`hip_stream_callback`]'s `record.payload`.
#[cold]
#[inline(never)]
unsafe extern "C" fn note_stream_lifetime(
    operation: sys::rocprofiler_tracing_operation_t,
    payload: *mut std::ffi::c_void,
) {
    if operation != sys::ROCPROFILER_HIP_STREAM_CREATE
        && operation != sys::ROCPROFILER_HIP_STREAM_DESTROY
    {
        return;
    }
    // SAFETY: the caller's contract, as for SET.
    if let Some((stream_id, handle)) = unsafe { read_stream(payload) } {
        // Queued without a lock (`notes.rs`) on the creating thread; a panic must
        // not reach the SDK.
        let _ = std::panic::catch_unwind(|| {
            if operation == sys::ROCPROFILER_HIP_STREAM_CREATE {
                crate::tracer::streams::names::note_created(stream_id, handle);
            } else {
                crate::tracer::streams::names::note_destroyed(handle);
            }
        });
    }
}

/// SET ENTER on this thread: pushes the stream and notes a reserved handle (`u64::MAX` when the
/// payload was too short to carry it).
#[inline]
fn push_set(thread: &ThreadState, stream_id: u64, handle: u64) {
    thread.streams.push(stream_id);
    crate::tracer::streams::names::note_set(thread, stream_id, handle);
}

/// The SDK stream id of a SET payload and the `hipStream_t` behind it (`u64::MAX`, an ordinary
/// handle, when the payload is too short for it); `None` when it is too short for the id.
///
/// # Safety
/// As [`hip_stream_callback`]'s `record.payload`.
#[inline]
unsafe fn read_set(payload: *mut std::ffi::c_void) -> Option<(u64, u64)> {
    let payload = payload as *const sys::rocprofiler_callback_tracing_hip_stream_data_t;
    if payload.is_null() {
        return None;
    }
    // SAFETY: non-null payload of this kind, valid during the call (the caller's contract).
    // `size` is checked before anything else is read so a truncated payload is never overread.
    let size = unsafe { std::ptr::addr_of!((*payload).size).read_unaligned() };
    if size < STREAM_VALUE_END {
        // SAFETY: as above.
        return unsafe { read_short_set(payload, size) };
    }
    // SAFETY: as above; the payload covers both fields.
    let (stream_id, value) = unsafe {
        (
            std::ptr::addr_of!((*payload).stream_id).read_unaligned(),
            std::ptr::addr_of!((*payload).stream_value).read_unaligned(),
        )
    };
    // SAFETY: every member of the address union is a plain 8-byte value.
    Some((stream_id.handle, unsafe { value.value }))
}

/// [`read_set`] of a payload shorter than the current layout (an older SDK's).
///
/// # Safety
/// `payload` is a non-null HIP stream payload of `size` bytes, valid during the call.
#[cold]
#[inline(never)]
unsafe fn read_short_set(
    payload: *const sys::rocprofiler_callback_tracing_hip_stream_data_t,
    size: u64,
) -> Option<(u64, u64)> {
    if size < STREAM_ID_END {
        return None;
    }
    // SAFETY: the caller's contract; the payload covers `stream_id`.
    let stream_id = unsafe { std::ptr::addr_of!((*payload).stream_id).read_unaligned() };
    Some((stream_id.handle, u64::MAX))
}

/// Bytes a HIP stream payload must have for `stream_id` to be readable.
const STREAM_ID_END: u64 = (std::mem::offset_of!(
    sys::rocprofiler_callback_tracing_hip_stream_data_t,
    stream_id
) + std::mem::size_of::<sys::rocprofiler_stream_id_t>()) as u64;

/// Bytes a HIP stream payload must have for `stream_value` to be readable.
const STREAM_VALUE_END: u64 =
    std::mem::size_of::<sys::rocprofiler_callback_tracing_hip_stream_data_t>() as u64;

/// The SDK stream id and `hipStream_t` of a HIP stream payload, if it is long enough.
///
/// # Safety
/// `payload` is null or points to a `rocprofiler_callback_tracing_hip_stream_data_t` (or at
/// least its `size` field and as many bytes as it says).
unsafe fn read_stream(payload: *mut std::ffi::c_void) -> Option<(u64, u64)> {
    let payload = payload as *const sys::rocprofiler_callback_tracing_hip_stream_data_t;
    if payload.is_null() {
        return None;
    }
    // SAFETY: the caller's contract; `size` first so a short payload is never overread.
    let size = unsafe { std::ptr::addr_of!((*payload).size).read_unaligned() };
    if size < STREAM_VALUE_END {
        return None;
    }
    // SAFETY: as above; the payload covers both fields.
    let (stream_id, value) = unsafe {
        (
            std::ptr::addr_of!((*payload).stream_id).read_unaligned(),
            std::ptr::addr_of!((*payload).stream_value).read_unaligned(),
        )
    };
    // SAFETY: every member of the address union is a plain 8-byte value.
    Some((stream_id.handle, unsafe { value.value }))
}

pub fn current_thread_stats() -> ThreadStreamStats {
    with_stack(|stack| {
        let pushes = stack.pushes.get();
        ThreadStreamStats {
            pushes,
            // Every push is popped once its SET EXIT comes; what is still open is not.
            pops: pushes - stack.depth.get(),
            unmatched_exits: stack.unmatched_exits.get(),
            // A push onto the base reaches depth 2 without writing `max_depth` (`push`).
            max_depth: stack.max_depth.get().max(if pushes > 0 { 2 } else { 1 }),
        }
    })
    .unwrap_or(ThreadStreamStats::ZERO)
}

pub(crate) fn unmatched_exits_total() -> u64 {
    UNMATCHED_EXITS.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests;
