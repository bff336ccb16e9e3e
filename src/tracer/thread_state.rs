//! Everything the SDK's callbacks keep per application thread, in one thread-local: the HIP
//! stream stack, the last HIP API call entered, the reserved stream handles seen lately, the
//! innermost ROCTx range, the annotation cache, where the annotation source found the thread's
//! stack, where the thread counts its requests and where it notes its copy calls
//! (docs/ARCHITECTURE.md, "The hot path").
//!
//! Each callback around a HIP call reaches its thread's state once. The state is made of
//! `Cell`s of plain values with a constant initializer and no destructor, so reaching it is a
//! TLS address computation only (no lazy initialization, no destructor registration, no borrow
//! flag): it cannot fail or panic, even while the thread's other thread-locals are being
//! destroyed. Callbacks may re-enter (a HIP call made from inside an annotation source), so no
//! part is held across a call out: `Cell`s are read and written in place.
//!
//! This room owns the layout of every part, which the rooms that use it share; each part's
//! rules are methods in its own room (named on each part), so those rooms depend on this one
//! and not the other way round.
use std::cell::Cell;
use std::sync::atomic::AtomicU64;

use crate::tracer::annotation::thread_log::ThreadAnnotationLog;
use crate::tracer::hip_api::copy_log::ThreadCopyLog;

/// The calling thread's tracer state; reached through [`with`].
pub struct ThreadState {
    pub(crate) streams: ThreadStack,
    pub(crate) hip_calls: LastHipCall,
    pub(crate) reserved_handles: SeenReservedHandles,
    pub(crate) roctx: InnermostRange,
    pub(crate) annotation: ThreadAnnotationCache,
    pub(crate) source_stack: SourceStackSlot,
    pub(crate) ledger: ThreadLedger,
    pub(crate) copy_calls: ThreadCopyCalls,
    pub(crate) graph: GraphLaunchSlot,
}

thread_local! {
    static STATE: ThreadState = const { ThreadState::EMPTY };
}

/// Runs `f` on the calling thread's state. The state has a constant initializer and no
/// destructor, so this never fails; `None` is kept for the (impossible) failure.
#[inline]
pub(crate) fn with<R>(f: impl FnOnce(&ThreadState) -> R) -> Option<R> {
    STATE.try_with(f).ok()
}

/// Stream entries stored above the base null-stream entry (`stream_stack::MAX_DEPTH`).
pub(crate) const STREAM_STACK_DEPTH: usize = 32;

/// The thread's HIP stream stack and its statistics; rules in `streams/stack.rs`.
pub(crate) struct ThreadStack {
    /// Logical entries above the base, including any beyond the stored depth.
    pub(crate) depth: Cell<u64>,
    pub(crate) entries: [Cell<u64>; STREAM_STACK_DEPTH],
    pub(crate) pushes: Cell<u64>,
    pub(crate) unmatched_exits: Cell<u64>,
    /// Deepest logical depth a nested push reached, counting the base entry (a push onto the
    /// base, depth 2, leaves it alone: `stream_stack::current_thread_stats` derives that one).
    pub(crate) max_depth: Cell<u64>,
}

/// The internal correlation id of the last HIP API call this thread entered (0: none); rules
/// in `streams/correlation.rs`.
pub(crate) struct LastHipCall(pub(crate) Cell<u64>);

/// SDK ids remembered per reserved stream handle and thread (`streams/names.rs`).
pub(crate) const REMEMBERED_IDS: usize = 4;

/// The SDK ids this thread saw for each reserved handle (row 0 null, 1 legacy, 2 per-thread;
/// most recent first; `u64::MAX` = none); rules in `streams/names.rs`.
pub(crate) struct SeenReservedHandles(pub(crate) Cell<[[u64; REMEMBERED_IDS]; 3]>);

/// The thread's innermost ROCTx range as the HIP path needs it; rules in `roctx`.
pub(crate) struct InnermostRange {
    /// The id of the push that opened it; 0 when the stack is empty or the range has no label.
    pub(crate) frame: Cell<u64>,
    /// The generation it was pushed in.
    pub(crate) generation: Cell<u64>,
}

/// How a thread's annotation stack looked when an annotation was resolved for it: tsl gives
/// every pushed scope a fresh scope-range id, so the innermost id, the depth and the text's
/// place and length identify an unchanged stack without reading the text. A stack without ids
/// is compared by its text. Rules in `annotation`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct StackIdentity {
    pub(crate) innermost_scope_range_id: i64,
    pub(crate) depth: usize,
    pub(crate) text_ptr: usize,
    pub(crate) text_len: usize,
}

impl StackIdentity {
    /// An empty stack's.
    pub(crate) const EMPTY: StackIdentity = StackIdentity {
        innermost_scope_range_id: 0,
        depth: 0,
        text_ptr: 0,
        text_len: 0,
    };
}

/// A copy of the thread's most recently used annotation entry: what a call needs to see that it
/// only extends its open run, without a second thread-local or a borrow flag. Rules in
/// `annotation` (`ThreadAnnotationCache`'s methods there).
pub(crate) struct ThreadAnnotationCache {
    /// The map of the copied entry; 0 (no map has it) when nothing is cached.
    pub(crate) map_id: Cell<u64>,
    /// The entry's log. Set only from an entry the thread's annotation entries own (an `Arc`
    /// keeps the log alive); forgotten (`map_id` 0) before an entry can leave them.
    pub(crate) log: Cell<*const ThreadAnnotationLog>,
    pub(crate) epoch: Cell<u64>,
    pub(crate) identity: Cell<StackIdentity>,
    pub(crate) label_frame: Cell<u64>,
    pub(crate) open_last: Cell<u64>,
}

/// Where the annotation source found the calling thread's annotation stack, kept so that a
/// HIP call reaches it without the source's own thread-local look-ups. Opaque to Rust: the C++
/// side (`cpp/rocm_tracer.cc`, `FindTslText`; `ffi/host.rs` passes the slot through)
/// stores the address of tsl's per-thread annotation text, which tsl keeps at one place for the
/// thread's life, and the session generation it was taken in (`roctx::session_generation`); a
/// new session makes it find tsl's text through tsl again. The address only tells whether the
/// text is empty: a non-empty text is read through tsl (see `StackOf` there).
/// `#[repr(C)]`: the C++ side reads and writes it (`cpp/bridge_callbacks.h`,
/// `XrtSourceStackSlot`).
#[repr(C)]
pub(crate) struct SourceStackSlot {
    pub(crate) stack: Cell<*const std::ffi::c_void>,
    pub(crate) generation: Cell<u64>,
}

/// One thread's requests through a session ledger, written by that thread alone (a load and a
/// store each, no read-modify-write) and read by `disable()`. Rules in `session/ledger.rs`.
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct ThreadRequests {
    /// Requests this thread ever made through the ledger (only while a session runs).
    pub(crate) requests: AtomicU64,
    /// `requests` when the running (or last) session began: written by the ledger's `begin`,
    /// while no session runs, so no request moves it meanwhile.
    pub(crate) at_begin: AtomicU64,
    /// The largest correlation id this thread ever requested.
    pub(crate) max_id: AtomicU64,
}

/// Where the calling thread's [`ThreadRequests`] for one ledger are. Rules in `session/ledger.rs`.
pub(crate) struct ThreadLedger {
    /// The key of the running session these counters were last noted for (0: none; keys start
    /// at 1). Equal to a ledger's running session's key only when `requests` are that ledger's.
    pub(crate) session_key: Cell<u64>,
    /// Set only from an `Arc` the thread's own list of counters holds, which keeps it alive;
    /// forgotten before that list goes.
    pub(crate) requests: Cell<*const ThreadRequests>,
}

/// Where the calling thread notes its copy calls for one store, without a lock. Rules in
/// `hip_api/copy_calls.rs`.
pub(crate) struct ThreadCopyCalls {
    /// The store the log is registered with (0: none; store ids start at 1).
    pub(crate) store_id: Cell<u64>,
    /// Set only from an `Arc` the thread's own handle on its log holds, which keeps it alive;
    /// forgotten before that handle goes.
    pub(crate) log: Cell<*const ThreadCopyLog>,
}

/// The thread's `hipGraphLaunch` between its HIP_GRAPH EXEC_LAUNCH ENTER and EXIT, and the
/// ordinal its next dispatch takes; rules in `streams/graph_nodes.rs`.
pub(crate) struct GraphLaunchSlot {
    /// The launch's internal correlation id (0: no launch in progress).
    pub(crate) correlation_id: Cell<u64>,
    pub(crate) next_ordinal: Cell<u64>,
}

impl ThreadState {
    #[allow(clippy::declare_interior_mutable_const)] // only the thread-local's initializer
    const EMPTY: ThreadState = ThreadState {
        streams: ThreadStack {
            depth: Cell::new(0),
            // The null stream's id, 0.
            entries: [const { Cell::new(0) }; STREAM_STACK_DEPTH],
            pushes: Cell::new(0),
            unmatched_exits: Cell::new(0),
            max_depth: Cell::new(1),
        },
        hip_calls: LastHipCall(Cell::new(0)),
        reserved_handles: SeenReservedHandles(Cell::new([[u64::MAX; REMEMBERED_IDS]; 3])),
        roctx: InnermostRange {
            frame: Cell::new(0),
            generation: Cell::new(0),
        },
        annotation: ThreadAnnotationCache {
            map_id: Cell::new(0),
            log: Cell::new(std::ptr::null()),
            epoch: Cell::new(0),
            identity: Cell::new(StackIdentity::EMPTY),
            label_frame: Cell::new(0),
            open_last: Cell::new(0),
        },
        source_stack: SourceStackSlot {
            stack: Cell::new(std::ptr::null()),
            generation: Cell::new(0),
        },
        ledger: ThreadLedger {
            session_key: Cell::new(0),
            requests: Cell::new(std::ptr::null()),
        },
        copy_calls: ThreadCopyCalls {
            store_id: Cell::new(0),
            log: Cell::new(std::ptr::null()),
        },
        graph: GraphLaunchSlot {
            correlation_id: Cell::new(0),
            next_ordinal: Cell::new(0),
        },
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_state_needs_no_destructor() {
        // A destructor would make every access check for it and fail during thread teardown.
        assert!(!std::mem::needs_drop::<super::ThreadState>());
    }
}
