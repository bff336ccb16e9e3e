//! The main context's HIP API callback. It runs on the application thread around every HIP
//! call: at ENTER it notes the last call the thread entered, what a copy call asked for and the
//! thread's annotation; EXIT does nothing. The hot-path rule holds here: no lock, no
//! allocation, no log (docs/ARCHITECTURE.md#the-hot-path).
//!
//! The callback reaches the tracer only through its callback data, as an [`EnterTarget`]: what
//! this room needs of a tracer, which the tracer implements.
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use rocprofiler_sdk_sys as sys;

use crate::tracer::annotation::{AnnotationMap, AnnotationSource};
use crate::tracer::hip_api::copy_calls::{self, CopyCalls};
use crate::tracer::hip_api::names as hip_api;
use crate::tracer::thread_state::{self, ThreadState};

/// What the HIP API ENTER records into: the tracer it was registered with.
pub(crate) trait EnterTarget: Sync {
    /// Where the calling thread's annotation comes from.
    fn annotation_source(&self) -> &dyn AnnotationSource;
    fn annotations(&self) -> &AnnotationMap;
    fn copy_calls(&self) -> &CopyCalls;
}

/// The main context's HIP API callback: at ENTER, on the launching thread, records the
/// thread's annotation and scope-range ids under the call's internal correlation id.
/// `target` is the callback data the tracer registered it with.
///
/// # Safety
/// `target` is null or points to a `'static` `T` (`sdk/setup.rs` registers the tracer so).
pub(crate) unsafe extern "C" fn hip_api_callback<T: EnterTarget>(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    target: *mut c_void,
) {
    // EXIT needs nothing: the call's requests came before its EXIT (`correlation::LastHipCall`).
    // Kept apart from ENTER's work so that an EXIT returns without setting up a frame; the
    // phase is checked first, so an EXIT returns after one compare.
    if record.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER
        && record.kind == sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API
    {
        // SAFETY: the kind checked above makes `payload` the SDK's HIP API payload of
        // `operation`, valid during this callback; `target` is this function's.
        unsafe {
            hip_api_enter::<T>(
                target as *const T,
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
/// `target` is null or a `'static` `T`; `payload` is the SDK's HIP API payload of the call
/// `operation`, valid during this call.
#[inline(never)]
unsafe extern "C" fn hip_api_enter<T: EnterTarget>(
    target: *const T,
    correlation_id: u64,
    operation: i32,
    payload: *mut c_void,
) {
    // SAFETY: this function's contract.
    let Some(target) = (unsafe { target.as_ref() }) else {
        return;
    };
    // One thread-local access for the last call entered, a copy call's note and the
    // annotation (`thread_state`).
    thread_state::with(|thread| {
        thread.hip_calls.enter(correlation_id);
        if hip_api::is_copy_api(operation) {
            // SAFETY: passed on from this function's own contract.
            unsafe {
                note_copy_call(
                    target.copy_calls(),
                    thread,
                    operation,
                    payload,
                    correlation_id,
                )
            };
        }
        let _ = catch_unwind(AssertUnwindSafe(|| {
            target
                .annotation_source()
                .record(correlation_id, target.annotations(), thread)
        }));
    });
}

/// What a copy call asked for, at its HIP API ENTER: into the thread's own log, no lock.
///
/// # Safety
/// `payload` is the SDK's HIP API payload of the call `operation`, valid during this call.
#[cold]
unsafe fn note_copy_call(
    calls: &CopyCalls,
    thread: &ThreadState,
    operation: i32,
    payload: *mut c_void,
    correlation_id: u64,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: this function's contract.
        let args = unsafe { copy_calls::hip_api_args(payload as *const c_void) };
        if let Some(call) = copy_calls::copy_call(operation, args.as_ref()) {
            calls.note_on_thread(thread, correlation_id, call);
        }
    }));
}
