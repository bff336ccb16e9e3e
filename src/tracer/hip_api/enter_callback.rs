//! The main context's HIP API callback. It runs on the application thread around every HIP
//! call: at ENTER it notes the last call the thread entered, what a copy call asked for and the
//! thread's annotation; EXIT does nothing. The hot-path rule holds here: no lock, no
//! allocation, no log (docs/ARCHITECTURE.md#the-hot-path).
//!
//! What it records into, the [`EnterTarget`], is given by the tracer ([`serve`]) when it is set
//! up and when an annotation source is installed: this room never reaches for the tracer.
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicPtr, Ordering};

use rocprofiler_sdk_sys as sys;

use crate::tracer::annotation::{AnnotationMap, AnnotationSource};
use crate::tracer::hip_api::copy_calls::{self, CopyCalls};
use crate::tracer::hip_api::event_calls;
use crate::tracer::hip_api::names as hip_api;
use crate::tracer::hip_api::payload;
use crate::tracer::thread_state;

/// What the HIP API ENTER records into: the tracer's annotation source, annotation map and
/// copy calls.
pub(crate) struct EnterTarget {
    pub(crate) source: &'static dyn AnnotationSource,
    pub(crate) annotations: &'static AnnotationMap,
    pub(crate) copy_calls: &'static CopyCalls,
}

/// Null until the tracer's set-up [`serve`]s a target. A static reached with one load, not the
/// callback data: read after the thread-local look-up, it keeps no register live across that
/// call (the benchmarks' hot path counts every instruction).
static TARGET: AtomicPtr<EnterTarget> = AtomicPtr::new(std::ptr::null_mut());

/// Records every later HIP API ENTER into `target`. Called at most twice per process (at the
/// set-up and when the annotation source is installed), so the target is leaked, never freed.
pub(crate) fn serve(target: EnterTarget) {
    TARGET.store(Box::into_raw(Box::new(target)), Ordering::Release);
}

/// The main context's HIP API callback: at ENTER, on the launching thread, records the
/// thread's annotation and scope-range ids under the call's internal correlation id.
pub(crate) unsafe extern "C" fn hip_api_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut c_void,
) {
    // EXIT needs nothing: the call's requests came before its EXIT (`correlation::LastHipCall`).
    // Kept apart from ENTER's work so that an EXIT returns without setting up a frame; the
    // phase is checked first, so an EXIT returns after one compare.
    if record.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER
        && record.kind == sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API
    {
        // SAFETY: the kind checked above makes `payload` the SDK's HIP API payload of
        // `operation`, valid during this callback.
        unsafe {
            hip_api_enter(
                record.correlation_id.internal,
                record.operation,
                record.payload,
            )
        };
    }
}

/// A HIP API ENTER on the calling thread: a copy call's arguments, the last call entered, the
/// annotation. Takes the record's fields, not the record, so that the callback can hand over
/// with a jump (`extern "C"`: it cannot unwind, so the callback needs no landing pad for it).
///
/// # Safety
/// `payload` is the SDK's HIP API payload of the call `operation`, valid during this call.
#[inline(never)]
unsafe extern "C" fn hip_api_enter(correlation_id: u64, operation: i32, payload: *mut c_void) {
    match noted(operation) {
        Noted::Nothing => {}
        Noted::Copy => {
            // SAFETY: passed on from this function's own contract.
            unsafe { note_copy_call(operation, payload, correlation_id) }
        }
        Noted::Event => {
            // SAFETY: passed on from this function's own contract.
            unsafe { event_calls::note_event_call(operation, payload, correlation_id) }
        }
    }
    // One thread-local access for the last call entered and the annotation (`thread_state`).
    thread_state::with(|thread| {
        thread.hip_calls.enter(correlation_id);
        // SAFETY: null or a leaked `EnterTarget`, published with Release, never freed.
        let Some(target) = (unsafe { TARGET.load(Ordering::Acquire).as_ref() }) else {
            return;
        };
        let _ = catch_unwind(AssertUnwindSafe(|| {
            target
                .source
                .record(correlation_id, target.annotations, thread)
        }));
    });
}

/// What a copy call asked for, at its HIP API ENTER: into the thread's own log, no lock. Out of
/// line with its own thread-local access, so that the common call keeps no copy argument live
/// across the one of [`hip_api_enter`].
///
/// # Safety
/// `payload` is the SDK's HIP API payload of the call `operation`, valid during this call.
#[cold]
unsafe fn note_copy_call(operation: i32, payload: *mut c_void, correlation_id: u64) {
    // SAFETY: null or a leaked `EnterTarget`, published with Release, never freed.
    let Some(target) = (unsafe { TARGET.load(Ordering::Acquire).as_ref() }) else {
        return;
    };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: this function's contract.
        let args = unsafe { payload::hip_api_args(payload as *const c_void) };
        if let Some(call) = copy_calls::copy_call(operation, args.as_ref()) {
            thread_state::with(|thread| {
                target
                    .copy_calls
                    .note_on_thread(thread, correlation_id, call)
            });
        }
    }));
}

/// What the ENTER callback notes of a call, by operation: one table load per HIP call instead
/// of a test per kind of note (the hot path, BENCHMARKS.md "xla_hot_path_instructions_bare").
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Noted {
    Nothing,
    Copy,
    Event,
}

const NOTED: [Noted; sys::ROCPROFILER_HIP_RUNTIME_API_ID_LAST as usize] = {
    let mut table = [Noted::Nothing; sys::ROCPROFILER_HIP_RUNTIME_API_ID_LAST as usize];
    let mut i = 0;
    while i < hip_api::COPY_APIS.len() {
        table[hip_api::COPY_APIS[i] as usize] = Noted::Copy;
        i += 1;
    }
    let mut i = 0;
    while i < event_calls::EVENT_CALLS.len() {
        table[event_calls::EVENT_CALLS[i] as usize] = Noted::Event;
        i += 1;
    }
    table
};

#[inline]
fn noted(operation: i32) -> Noted {
    usize::try_from(operation)
        .ok()
        .and_then(|at| NOTED.get(at))
        .copied()
        .unwrap_or(Noted::Nothing)
}

#[cfg(test)]
mod noted_tests {
    use super::*;

    #[test]
    fn the_table_notes_exactly_the_copy_and_event_calls() {
        for operation in -1..=sys::ROCPROFILER_HIP_RUNTIME_API_ID_LAST {
            let expected = if hip_api::is_copy_api(operation) {
                Noted::Copy
            } else if event_calls::is_event_call(operation) {
                Noted::Event
            } else {
                Noted::Nothing
            };
            assert_eq!(noted(operation), expected, "{operation}");
        }
    }
}
