//! What a HIP copy call asked for, noted at its API ENTER.
//!
//! The HIP API record of a copy has no arguments, and the SDK's copy record says how the
//! runtime moved the bytes, not what the program asked for (docs/ARCHITECTURE.md#a-copy). So
//! the HIP API ENTER callback notes, per correlation id, the direction the call asked for
//! (from the function, `hipMemcpyHtoD*` / `DtoH*` / `DtoD*`, or from the `kind` argument of
//! `hipMemcpy`, `hipMemcpyAsync` and `hipMemcpyWithStream`) and its size, in the calling
//! thread's own log, without a lock (`copy_log.rs`); the decoder takes the note when it decodes
//! the call's API record and puts it on that event's `MemcpyDetails`. The collector does the
//! rest (`collector/copies.rs`).

use std::cell::RefCell;
use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;
use rustc_hash::FxHashMap;

use super::copy_log::{CopyNote, ThreadCopyLog};
use super::memory_kinds::{known_kind, side_kind};
use crate::event::{EventType, MemoryKind};
use crate::tracer::thread_state::{self, ThreadCopyCalls, ThreadState};

/// What one HIP copy call asked for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CopyCall {
    /// `MemcpyH2D`, `MemcpyD2H`, `MemcpyD2D`, `MemcpyP2P` (`hipMemcpyPeer*`), or `MemcpyOther`
    /// for host-to-host; `None` for a `hipMemcpyDefault` call whose pointers do not say (a
    /// managed side), which its record's own direction names.
    pub direction: Option<EventType>,
    /// The call's `sizeBytes`; 0 when the arguments were not available.
    pub bytes: u64,
    /// An `...Async` function: it returns before the copy is done.
    pub is_async: bool,
    /// The memory its `src` and `dst` pointers are in (`memory_kinds.rs`).
    pub src_kind: MemoryKind,
    pub dst_kind: MemoryKind,
}

impl CopyCall {
    /// The call's facts every event of the call carries: async, and the memory kinds.
    pub(crate) fn facts(self) -> crate::event::MemcpyDetails {
        crate::event::MemcpyDetails {
            is_async: self.is_async,
            src_kind: self.src_kind,
            dst_kind: self.dst_kind,
            ..crate::event::MemcpyDetails::default()
        }
    }
}

/// `hipMemcpyKind` values (HIP's `hip_runtime_api.h`).
const HIP_MEMCPY_HOST_TO_HOST: i32 = 0;
const HIP_MEMCPY_HOST_TO_DEVICE: i32 = 1;
const HIP_MEMCPY_DEVICE_TO_HOST: i32 = 2;
const HIP_MEMCPY_DEVICE_TO_DEVICE: i32 = 3;
const HIP_MEMCPY_DEFAULT: i32 = 4;
const HIP_MEMCPY_DEVICE_TO_DEVICE_NO_CU: i32 = 1024;

/// The direction a `hipMemcpyKind` names; `hipMemcpyDefault` (4, unified addressing decides)
/// and unknown values name none.
pub(crate) fn direction_of_kind(kind: i32) -> Option<EventType> {
    match kind {
        HIP_MEMCPY_HOST_TO_HOST => Some(EventType::MemcpyOther),
        HIP_MEMCPY_HOST_TO_DEVICE => Some(EventType::MemcpyH2D),
        HIP_MEMCPY_DEVICE_TO_HOST => Some(EventType::MemcpyD2H),
        HIP_MEMCPY_DEVICE_TO_DEVICE | HIP_MEMCPY_DEVICE_TO_DEVICE_NO_CU => {
            Some(EventType::MemcpyD2D)
        }
        _ => None,
    }
}

/// Whether the operation's arguments start `(dst, src, sizeBytes, kind, ...)`.
fn has_kind_argument(operation: i32) -> bool {
    matches!(
        operation,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy
            | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync
            | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyWithStream
    )
}

/// The direction the function's name gives; its arguments start `(dst, src, sizeBytes)`,
/// except the peer copies'.
fn direction_of_function(operation: i32) -> Option<EventType> {
    match operation {
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoD
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync => Some(EventType::MemcpyH2D),
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoH
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoHAsync => Some(EventType::MemcpyD2H),
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoD
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoDAsync => Some(EventType::MemcpyD2D),
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeer
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeerAsync => Some(EventType::MemcpyP2P),
        _ => None,
    }
}

/// Whether the copy function is one of HIP's `...Async` forms (CUPTI's `async:1`).
fn is_async_function(operation: i32) -> bool {
    usize::try_from(operation)
        .ok()
        .and_then(|index| sys::HIP_RUNTIME_API_NAMES.get(index))
        .is_some_and(|name| name.ends_with("Async"))
}

/// Which sides of a copy in `direction` are device memory, `(src, dst)`.
fn device_sides(direction: EventType) -> (bool, bool) {
    match direction {
        EventType::MemcpyH2D => (false, true),
        EventType::MemcpyD2H => (true, false),
        EventType::MemcpyD2D | EventType::MemcpyP2P => (true, true),
        _ => (false, false),
    }
}

/// What a HIP API ENTER of `operation` asked for, if it is a copy whose direction is known.
/// `args` is the callback payload when the SDK passed one at least as large as the
/// `(dst, src, sizeBytes, kind)` prefix of the argument union.
pub(crate) fn copy_call(
    operation: i32,
    args: Option<&sys::rocprofiler_callback_tracing_hip_api_data_t>,
) -> Option<CopyCall> {
    // hipMemcpy's member has the layout every function here starts with, but the peer copies.
    // SAFETY: the argument union holds plain integers and pointers; any bit pattern is valid.
    let prefix = args.map(|data| unsafe { data.args.hipMemcpy });
    let direction = match direction_of_function(operation) {
        Some(direction) => Some(direction),
        None if has_kind_argument(operation) => match prefix?.kind {
            HIP_MEMCPY_DEFAULT => None,
            kind => Some(direction_of_kind(kind)?),
        },
        None => return None,
    };
    let (bytes, src, dst) = if direction == Some(EventType::MemcpyP2P) {
        // SAFETY: as above; the peer copies' member.
        let peer = args.map(|data| unsafe { data.args.hipMemcpyPeer });
        peer.map_or((0, 0, 0), |peer| {
            (peer.sizeBytes as u64, peer.src as usize, peer.dst as usize)
        })
    } else {
        prefix.map_or((0, 0, 0), |prefix| {
            (
                prefix.sizeBytes as u64,
                prefix.src as usize,
                prefix.dst as usize,
            )
        })
    };
    let (src_kind, dst_kind) = match direction {
        Some(direction) => {
            let (src_on_device, dst_on_device) = device_sides(direction);
            (side_kind(src, src_on_device), side_kind(dst, dst_on_device))
        }
        None => (pointer_kind(src), pointer_kind(dst)),
    };
    Some(CopyCall {
        direction: direction.or_else(|| direction_of_sides(src_kind, dst_kind)),
        bytes,
        is_async: is_async_function(operation),
        src_kind,
        dst_kind,
    })
}

/// A `hipMemcpyDefault` pointer's memory: with unified addressing HIP tells the sides apart by
/// the allocation holding each pointer, and so does the tracer, from what HIP's allocation
/// calls said (`memory_kinds.rs`); memory in no allocation HIP made is host memory.
fn pointer_kind(address: usize) -> MemoryKind {
    known_kind(address).unwrap_or(MemoryKind::Pageable)
}

/// The direction a `hipMemcpyDefault` call's sides make: device memory is the device side,
/// pinned and pageable memory the host side; managed memory can be either, so a copy with a
/// managed side has no direction of its own (docs/xla-interface.md#copy-details).
fn direction_of_sides(src: MemoryKind, dst: MemoryKind) -> Option<EventType> {
    let on_device = |kind| match kind {
        MemoryKind::Device => Some(true),
        MemoryKind::Pinned | MemoryKind::Pageable => Some(false),
        _ => None,
    };
    Some(match (on_device(src)?, on_device(dst)?) {
        (false, true) => EventType::MemcpyH2D,
        (true, false) => EventType::MemcpyD2H,
        (true, true) => EventType::MemcpyD2D,
        (false, false) => EventType::MemcpyOther,
    })
}

/// Copy calls of the running session by correlation id, from ENTER to the session's end (its
/// API record and copy records come in any order). A call is noted on its own thread without a
/// lock, in that thread's log (`copy_log.rs`); the buffer thread takes the logs into one map
/// when it looks for a call it has not seen. Bounded: past the bound new calls are not
/// noted, and their records keep the record's own direction.
pub struct CopyCalls {
    /// Tells the threads' cached logs of this store from another store's (tests make more).
    id: u64,
    noted: Mutex<Noted>,
}

#[derive(Default)]
struct Noted {
    calls: FxHashMap<u64, CopyCall>,
    /// Every thread's log (a thread's own is registered at its first copy call).
    logs: Vec<Arc<ThreadCopyLog>>,
}

impl Noted {
    fn insert(&mut self, correlation_id: u64, call: CopyCall) {
        insert_bounded(&mut self.calls, correlation_id, call);
    }

    /// Takes what every log noted since; the log of a thread that has exited is dropped.
    fn take_logs(&mut self) {
        let calls = &mut self.calls;
        let mut keep = |note| {
            let (correlation_id, call) = call_of(note);
            insert_bounded(calls, correlation_id, call)
        };
        self.logs.retain(|log| {
            log.take(&mut keep);
            if Arc::strong_count(log) > 1 {
                return true;
            }
            // Its thread dropped its handle: the writes before that are visible after this.
            fence(Ordering::Acquire);
            log.take(&mut keep);
            false
        });
    }

    /// Forgets every call, noted or still in a log.
    fn forget(&mut self) {
        for log in &self.logs {
            log.discard();
        }
        self.logs.retain(|log| Arc::strong_count(log) > 1);
    }
}

/// Copy calls noted per session at most; a noted call costs about 40 bytes.
const MAX_NOTED_CALLS: usize = 1 << 20;

fn insert_bounded(calls: &mut FxHashMap<u64, CopyCall>, correlation_id: u64, call: CopyCall) {
    if calls.len() < MAX_NOTED_CALLS {
        calls.insert(correlation_id, call);
    }
}

/// The directions a copy call can ask for, coded by their index in a thread's log.
const DIRECTIONS: [EventType; 5] = [
    EventType::MemcpyH2D,
    EventType::MemcpyD2H,
    EventType::MemcpyD2D,
    EventType::MemcpyOther,
    EventType::MemcpyP2P,
];

/// A note's third word: the direction's index in bits 0-3 ([`NO_DIRECTION`] for none),
/// `is_async` in bit 4, the source's and the destination's memory kinds in bits 8-15 and 16-23.
const ASYNC_BIT: u64 = 1 << 4;
const NO_DIRECTION: u64 = 0xf;
const SRC_KIND_SHIFT: u32 = 8;
const DST_KIND_SHIFT: u32 = 16;

/// `call` as its thread's log holds it; `None` for a direction no copy call asks for.
fn note_of(correlation_id: u64, call: CopyCall) -> Option<CopyNote> {
    let direction = match call.direction {
        Some(direction) => DIRECTIONS.iter().position(|&d| d == direction)? as u64,
        None => NO_DIRECTION,
    };
    Some(CopyNote {
        correlation_id,
        bytes: call.bytes,
        direction: direction
            | if call.is_async { ASYNC_BIT } else { 0 }
            | call.src_kind.code() << SRC_KIND_SHIFT
            | call.dst_kind.code() << DST_KIND_SHIFT,
    })
}

/// What a note in a thread's log stands for.
fn call_of(note: CopyNote) -> (u64, CopyCall) {
    let word = note.direction;
    let call = CopyCall {
        direction: DIRECTIONS.get((word & 0xf) as usize).copied(),
        bytes: note.bytes,
        is_async: word & ASYNC_BIT != 0,
        src_kind: MemoryKind::from_code((word >> SRC_KIND_SHIFT) & 0xff),
        dst_kind: MemoryKind::from_code((word >> DST_KIND_SHIFT) & 0xff),
    };
    (note.correlation_id, call)
}

static NEXT_STORE_ID: AtomicU64 = AtomicU64::new(1);

impl Default for CopyCalls {
    fn default() -> Self {
        CopyCalls {
            id: NEXT_STORE_ID.fetch_add(1, Ordering::Relaxed),
            noted: Mutex::new(Noted::default()),
        }
    }
}

/// The calling thread's log and the store it is registered with; they own the thread's log.
struct OwnLog(RefCell<Option<(u64, Arc<ThreadCopyLog>)>>);

impl Drop for OwnLog {
    fn drop(&mut self) {
        // The log may go with this: the thread's state must not point at it any more.
        thread_state::with(|thread| thread.copy_calls.forget());
    }
}

thread_local! {
    static OWN_LOG: OwnLog = const { OwnLog(RefCell::new(None)) };
}

/// The thread's pointer to its log (layout in `thread_state`): set only from the `Arc` in this
/// thread's [`OwnLog`], forgotten before that can go.
impl ThreadCopyCalls {
    fn forget(&self) {
        self.store_id.set(0);
        self.log.set(std::ptr::null());
    }
}

impl CopyCalls {
    /// At the call's HIP API ENTER, on the calling thread, whose state the caller holds: into
    /// the thread's own log, without a lock. A thread's first copy call registers its log
    /// (once, under the store's lock), and a thread whose log is full (none of its notes taken
    /// for `COPY_LOG_CAPACITY` calls) takes the logs in itself.
    #[inline]
    pub(crate) fn note_on_thread(&self, thread: &ThreadState, correlation_id: u64, call: CopyCall) {
        let Some(note) = note_of(correlation_id, call) else {
            return;
        };
        let own = &thread.copy_calls;
        if own.store_id.get() == self.id {
            // SAFETY: a store id of this store means `log` points at the log this thread's
            // `OwnLog` holds (see `ThreadCopyCalls`), alive.
            if unsafe { &*own.log.get() }.push(note) {
                return;
            }
        }
        self.note_slow(thread, note);
    }

    /// [`CopyCalls::note_on_thread`] for a caller without the thread's state.
    #[cfg(test)]
    pub fn note(&self, correlation_id: u64, call: CopyCall) {
        if thread_state::with(|thread| self.note_on_thread(thread, correlation_id, call)).is_none()
        {
            self.noted.lock().insert(correlation_id, call);
        }
    }

    /// The thread's first copy call for this store, or its log is full.
    #[cold]
    #[inline(never)]
    fn note_slow(&self, thread: &ThreadState, note: CopyNote) {
        let written = OWN_LOG.try_with(|own| {
            let Ok(mut own) = own.0.try_borrow_mut() else {
                return false;
            };
            let log = match own.as_ref() {
                Some((id, log)) if *id == self.id => log.clone(),
                _ => {
                    let log = Arc::new(ThreadCopyLog::new());
                    self.noted.lock().logs.push(log.clone());
                    // The thread's state stops pointing at the log this replaces first.
                    thread.copy_calls.forget();
                    *own = Some((self.id, log.clone()));
                    thread.copy_calls.log.set(Arc::as_ptr(&log));
                    thread.copy_calls.store_id.set(self.id);
                    log
                }
            };
            if log.push(note) {
                return true;
            }
            // Nobody has read the logs for a while: take them in here.
            self.noted.lock().take_logs();
            log.push(note)
        });
        if written != Ok(true) {
            // No thread-local (the thread is exiting) or a re-entrant call: into the map.
            let (correlation_id, call) = call_of(note);
            self.noted.lock().insert(correlation_id, call);
        }
    }

    /// On the buffer thread: what call `correlation_id` asked for, if it was noted.
    pub fn get(&self, correlation_id: u64) -> Option<CopyCall> {
        let mut noted = self.noted.lock();
        if let Some(&call) = noted.calls.get(&correlation_id) {
            return Some(call);
        }
        if noted.logs.is_empty() {
            // No thread noted a copy call (most records of most sessions): no second look.
            return None;
        }
        noted.take_logs();
        noted.calls.get(&correlation_id).copied()
    }

    pub fn clear(&self) {
        let mut noted = self.noted.lock();
        noted.forget();
        noted.calls.clear();
    }

    /// Forgets every call and gives the table's memory back (the session's records were
    /// all decoded).
    pub fn release(&self) {
        let mut noted = self.noted.lock();
        noted.forget();
        drop(std::mem::take(&mut noted.calls));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn directions_come_from_the_function_or_its_kind() {
        // SAFETY: plain data, zero is valid.
        let mut data: sys::rocprofiler_callback_tracing_hip_api_data_t =
            unsafe { std::mem::zeroed() };
        data.args.hipMemcpyAsync = sys::rocprofiler_hip_api_args_hipMemcpyAsync_t {
            dst: std::ptr::null_mut(),
            src: std::ptr::null(),
            sizeBytes: 4096,
            kind: HIP_MEMCPY_DEVICE_TO_HOST,
            stream: std::ptr::null_mut(),
        };
        let async_copy = sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync;
        assert_eq!(
            copy_call(async_copy, Some(&data)),
            Some(CopyCall {
                direction: Some(EventType::MemcpyD2H),
                bytes: 4096,
                is_async: true,
                // No allocation known: the device side is device memory, the host's pageable.
                src_kind: MemoryKind::Device,
                dst_kind: MemoryKind::Pageable,
            })
        );
        assert_eq!(
            copy_call(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy, Some(&data))
                .map(|c| c.is_async),
            Some(false)
        );
        assert_eq!(copy_call(async_copy, None), None);
        // hipMemcpyDefault: the pointers say. Null ones are in no allocation: host to host.
        data.args.hipMemcpyAsync.kind = 4;
        assert_eq!(
            copy_call(async_copy, Some(&data)).map(|c| (c.direction, c.src_kind, c.dst_kind)),
            Some((
                Some(EventType::MemcpyOther),
                MemoryKind::Pageable,
                MemoryKind::Pageable
            ))
        );
        assert_eq!(
            copy_call(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync, None),
            Some(CopyCall {
                direction: Some(EventType::MemcpyH2D),
                bytes: 0,
                is_async: true,
                src_kind: MemoryKind::Pageable,
                dst_kind: MemoryKind::Device,
            })
        );
        // SAFETY: plain data, zero is valid.
        let mut peer: sys::rocprofiler_callback_tracing_hip_api_data_t =
            unsafe { std::mem::zeroed() };
        peer.args.hipMemcpyPeer = sys::rocprofiler_hip_api_args_hipMemcpyPeer_t {
            dst: 0x10 as *mut std::ffi::c_void,
            dstDeviceId: 1,
            src: 0x20 as *const std::ffi::c_void,
            srcDeviceId: 0,
            sizeBytes: 1 << 20,
            stream: std::ptr::null_mut(),
        };
        let peer_call = copy_call(
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeer,
            Some(&peer),
        );
        assert_eq!(
            peer_call.map(|c| (c.direction, c.bytes, c.is_async, c.src_kind, c.dst_kind)),
            Some((
                Some(EventType::MemcpyP2P),
                1 << 20,
                false,
                MemoryKind::Device,
                MemoryKind::Device
            ))
        );
        assert_eq!(
            copy_call(
                sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel,
                Some(&data)
            ),
            None
        );
        assert_eq!(direction_of_kind(0), Some(EventType::MemcpyOther));
        assert_eq!(direction_of_kind(HIP_MEMCPY_DEFAULT), None);
        assert_eq!(direction_of_kind(1024), Some(EventType::MemcpyD2D));
    }

    #[test]
    fn a_default_copy_takes_its_direction_from_the_memory_of_its_pointers() {
        use MemoryKind::{Device, Managed, Pageable, Pinned};
        let cases = [
            ((Pinned, Device), Some(EventType::MemcpyH2D)),
            ((Pageable, Device), Some(EventType::MemcpyH2D)),
            ((Device, Pinned), Some(EventType::MemcpyD2H)),
            ((Device, Device), Some(EventType::MemcpyD2D)),
            ((Pinned, Pageable), Some(EventType::MemcpyOther)),
            // Managed memory moves between host and device: no direction of its own.
            ((Managed, Device), None),
            ((Pinned, Managed), None),
        ];
        for ((src, dst), direction) in cases {
            assert_eq!(
                direction_of_sides(src, dst),
                direction,
                "{src:?} -> {dst:?}"
            );
        }
        // A note without a direction reads back as one.
        let call = CopyCall {
            direction: None,
            bytes: 8,
            is_async: true,
            src_kind: Managed,
            dst_kind: Device,
        };
        assert_eq!(call_of(note_of(3, call).unwrap()), (3, call));
    }

    #[test]
    fn released_calls_are_forgotten_and_new_ones_noted() {
        let calls = CopyCalls::default();
        let asked = CopyCall {
            direction: Some(EventType::MemcpyH2D),
            bytes: 64,
            is_async: true,
            src_kind: MemoryKind::Pinned,
            dst_kind: MemoryKind::Managed,
        };
        calls.note(7, asked);
        assert_eq!(calls.get(7), Some(asked));
        calls.release();
        assert_eq!(calls.get(7), None);
        assert_eq!(calls.noted.lock().calls.capacity(), 0);
        calls.note(8, asked);
        assert_eq!(calls.get(8), Some(asked));
    }

    #[test]
    fn notes_of_exited_threads_and_of_full_logs_reach_the_store() {
        use crate::tracer::hip_api::copy_log::COPY_LOG_CAPACITY;
        let calls = Arc::new(CopyCalls::default());
        let asked = |bytes| CopyCall {
            direction: Some(EventType::MemcpyD2H),
            bytes,
            is_async: false,
            src_kind: MemoryKind::Device,
            dst_kind: MemoryKind::Pageable,
        };
        let threads: Vec<_> = (0..3u64)
            .map(|thread| {
                let calls = calls.clone();
                std::thread::spawn(move || {
                    // More than the log holds: the thread takes the logs in itself once.
                    for i in 0..COPY_LOG_CAPACITY + 10 {
                        calls.note(thread * 10_000 + i, asked(i));
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        for thread in 0..3u64 {
            for i in [0, COPY_LOG_CAPACITY - 1, COPY_LOG_CAPACITY + 9] {
                assert_eq!(calls.get(thread * 10_000 + i), Some(asked(i)));
            }
        }
        assert!(
            calls.noted.lock().logs.is_empty(),
            "the logs of exited threads go once taken"
        );
    }
}
