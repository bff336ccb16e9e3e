//! Everything the SDK's callbacks keep per application thread, in one thread-local: the HIP
//! stream stack, the last HIP API call entered, the reserved stream handles seen lately, the
//! innermost ROCTx range, the annotation cache and where the thread counts its requests
//! (docs/ARCHITECTURE.md, "The hot path").
//!
//! Each callback around a HIP call reaches its thread's state once. The state is made of
//! `Cell`s of plain values with a constant initializer and no destructor, so reaching it is a
//! TLS address computation only (no lazy initialization, no destructor registration, no borrow
//! flag): it cannot fail or panic, even while the thread's other thread-locals are being
//! destroyed. Each part is defined, and its rules kept, in the module it belongs to; callbacks
//! may re-enter (a HIP call made from inside an annotation source), so no part is held across a
//! call out: `Cell`s are read and written in place.
use super::annotation::ThreadAnnotationCache;
use super::correlation::LastHipCall;
use super::roctx::InnermostRange;
use super::session_ledger::ThreadLedger;
use super::stream_names::SeenReservedHandles;
use super::stream_stack::ThreadStack;

/// The calling thread's tracer state; reached through [`with`].
pub struct ThreadState {
    pub(crate) streams: ThreadStack,
    pub(crate) hip_calls: LastHipCall,
    pub(crate) reserved_handles: SeenReservedHandles,
    pub(crate) roctx: InnermostRange,
    pub(crate) annotation: ThreadAnnotationCache,
    pub(crate) ledger: ThreadLedger,
}

impl ThreadState {
    #[allow(clippy::declare_interior_mutable_const)] // only the thread-local's initializer
    const EMPTY: ThreadState = ThreadState {
        streams: ThreadStack::EMPTY,
        hip_calls: LastHipCall::EMPTY,
        reserved_handles: SeenReservedHandles::EMPTY,
        roctx: InnermostRange::EMPTY,
        annotation: ThreadAnnotationCache::EMPTY,
        ledger: ThreadLedger::EMPTY,
    };
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_state_needs_no_destructor() {
        // A destructor would make every access check for it and fail during thread teardown.
        assert!(!std::mem::needs_drop::<super::ThreadState>());
    }
}
