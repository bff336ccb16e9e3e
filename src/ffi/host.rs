//! The host functions' cxx bridge: what the Rust core calls in C++ (a C++ collector's sink,
//! tsl's annotation stack, absl logging). The HIP API ENTER's annotation recording is a plain
//! C pair beside it (`xrt_bridge_record_annotation`, below): a cxx call there would cost a
//! frame on every HIP call.
use std::cell::Cell;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use super::event::XrtEvents;
use crate::drop_reason::DropReason;
use crate::event::{EventDetails, EventSource, EventType, RocmTracerEvent};
use crate::sink::{EventSink, SessionEnd};
use crate::tracer::annotation::{AnnotationMap, AnnotationSource};
use crate::tracer::roctx;
use crate::tracer::thread_state::{self, SourceStackSlot, ThreadState};

#[cxx::bridge(namespace = "xla::profiler::rust_bridge")]
mod bridge {
    /// `log::Level`, for the shim's absl LOG.
    enum LogLevel {
        Error,
        Warn,
        Info,
        Debug,
        Trace,
    }

    extern "C++" {
        include!("xla_rocm_tracer.h");
        #[namespace = ""]
        type XrtEvent = crate::ffi::event::XrtEvent;
    }

    unsafe extern "C++" {
        include!("xla-rocm-tracer/cpp/bridge_callbacks.h");

        /// Records tsl's `AnnotationStack` of the calling thread under `correlation_id` into
        /// the C++ tracer's `annotation_map_` (sessions with a C++ collector).
        fn record_hip_api_annotation(correlation_id: u64);
        /// Clears the C++ tracer's `annotation_map_`: a session is starting.
        fn clear_hip_api_annotations();
        /// One buffer callback's events, for `collector` (a `RocmTraceCollector*`); their
        /// strings are valid for the call.
        fn deliver_events(collector: usize, events: &[XrtEvent]);
        fn deliver_dropped(collector: usize, reason: &str, count: u64);
        /// The absl VLOG verbosity of the shim (0 if none), read once for Rust's log level.
        fn shim_vlog_level() -> i32;
        fn log_from_rust(level: LogLevel, message: &str);
    }
}

pub(super) use bridge::shim_vlog_level;
use bridge::{clear_hip_api_annotations, deliver_dropped, record_hip_api_annotation, LogLevel};

/// The sink of a session whose collector is C++ code (a test's `RocmTraceCollectorImpl`
/// subclass, `hlo_op_profiler`'s collector), a `RocmTraceCollector*`: one crossing per buffer
/// callback.
pub(super) struct CppCollectorSink(pub usize);

impl EventSink for CppCollectorSink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        let named = |event: &mut RocmTracerEvent| {
            if let (EventSource::Activity, EventDetails::Memcpy(details)) =
                (event.source, event.details)
            {
                if event.event_type == EventType::Kernel {
                    // A blit kernel that carries its copy call's facts.
                    crate::collector::name_blit_kernel_by_call(event, details);
                } else if let Some(asked) = details.call_direction {
                    crate::collector::name_by_call(event, asked);
                }
            }
        };
        batch.iter_mut().for_each(named);
        let bridged = XrtEvents::of(batch);
        batch.clear();
        bridge::deliver_events(self.0, &bridged.events);
    }

    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        deliver_dropped(self.0, reason.describe(), count);
    }

    /// What XLA's `RocmTraceCollector` interface can take of the end: the in-flight count
    /// (through `OnEventsDropped`) and the flush (`RocmTracer::Disable` calls `Flush()` itself
    /// once this returns). It has no hook for stream labels or trace warnings: the labels are
    /// dropped (C++ collectors name lanes by stream id, as XLA's do) and the warnings logged.
    fn end_session(&self, end: SessionEnd) {
        if end.in_flight > 0 {
            deliver_dropped(
                self.0,
                DropReason::InFlightAtDisable.describe(),
                end.in_flight,
            );
        }
        for warning in &end.warnings {
            log::warn!("{warning}");
        }
    }
}

/// A session with a C++ collector: the annotation goes to the C++ tracer's store, the ROCTx
/// label, if any, to ours.
#[cold]
#[inline(never)]
fn record_in_cpp(correlation_id: u64, map: &AnnotationMap, thread: &ThreadState) {
    record_hip_api_annotation(correlation_id);
    map.add_on_thread(thread, correlation_id, &[], &[]);
}

/// Read on every HIP API ENTER: whether annotations go to the Rust annotation map or to the
/// C++ tracer's `annotation_map_` (sessions with a C++ collector). Set when a session starts,
/// by [`CppAnnotationSource`], from [`STARTING_FOR_CPP`].
static ANNOTATIONS_IN_RUST: AtomicBool = AtomicBool::new(true);

thread_local! {
    /// The session this thread is starting through the bridge, if any: whether it delivers to
    /// a C++ collector.
    pub(super) static STARTING_FOR_CPP: Cell<Option<bool>> = const { Cell::new(None) };
}

/// tsl's annotation stack of the calling thread, borrowed from the C++ side
/// (`XrtAnnotationStack` in cpp/bridge_callbacks.h): valid until that thread changes its
/// stack. `text` is null when there is no annotation; the ids are outermost first.
#[repr(C)]
pub struct AnnotationStackView {
    text: *const u8,
    text_len: usize,
    scope_range_ids: *const i64,
    num_scope_range_ids: usize,
}

impl AnnotationStackView {
    /// The text and ids.
    ///
    /// # Safety
    /// The view is the C++ side's, of the calling thread's stack, unchanged since.
    unsafe fn parts(&self) -> (&[u8], &[i64]) {
        if self.text.is_null() || self.text_len == 0 {
            return (&[], &[]);
        }
        // SAFETY: the C++ side's view of the calling thread's stack (this function's
        // contract), valid until the thread changes it.
        let text = unsafe { std::slice::from_raw_parts(self.text, self.text_len) };
        let ids = if self.scope_range_ids.is_null() {
            &[][..]
        } else {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts(self.scope_range_ids, self.num_scope_range_ids) }
        };
        (text, ids)
    }
}

extern "C" {
    /// The HIP API ENTER's recording of the calling thread's tsl annotation
    /// (cpp/rocm_tracer.cc; a weak default without tsl in cpp/bridge_defaults.cc): returns at
    /// once for a thread without annotation and `label_frame` 0, else calls
    /// [`xrt_bridge_record_annotation_stack`] with `thread`, `map` and `correlation_id`. `slot`
    /// is the thread's [`SourceStackSlot`], where the C++ side keeps where tsl holds the
    /// thread's text so that an unchanged thread reaches it without tsl's thread-local
    /// look-ups; `generation` is the tracer's session generation, which makes the first call of
    /// a session read it through tsl. A plain C call rather than a cxx one, and a tail call
    /// both ways: every HIP call makes it, and a thread without annotation is the common case.
    /// Never unwinds (`noexcept` on the C++ side).
    fn xrt_bridge_record_annotation(
        slot: *const SourceStackSlot,
        generation: u64,
        label_frame: u64,
        thread: *const c_void,
        map: *const c_void,
        correlation_id: u64,
    );

    /// The calling thread's tsl annotation stack (cpp/rocm_tracer.cc; empty without tsl).
    fn xrt_bridge_read_annotation_stack(
        slot: *const SourceStackSlot,
        generation: u64,
    ) -> AnnotationStackView;
}

/// The C++ side's answer to [`xrt_bridge_record_annotation`] for a thread with an annotation
/// or a labelled ROCTx range: records `stack` under `correlation_id` into `map` on `thread`.
///
/// # Safety
/// `thread` and `map` are what this module passed to `xrt_bridge_record_annotation` on the
/// calling thread, during that call; `stack` is the C++ side's view of the calling thread's
/// stack.
#[no_mangle]
pub unsafe extern "C" fn xrt_bridge_record_annotation_stack(
    thread: *const c_void,
    map: *const c_void,
    correlation_id: u64,
    stack: *const AnnotationStackView,
) {
    // A panic must not unwind into C++.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: this function's contract: live references of the calling thread's call.
        let (thread, map, stack) = unsafe {
            (
                &*(thread as *const ThreadState),
                &*(map as *const AnnotationMap),
                &*stack,
            )
        };
        // SAFETY: as above.
        let (text, ids) = unsafe { stack.parts() };
        // The text is converted only when the thread's stack changed (the map's cache); an
        // empty one still records the thread's ROCTx label.
        map.add_on_thread(thread, correlation_id, text, ids);
    }));
}

/// tsl's `AnnotationStack`, read through the C++ side.
pub(super) struct CppAnnotationSource;

impl AnnotationSource for CppAnnotationSource {
    fn with_current(&self, f: &mut dyn FnMut(&str, &[i64])) {
        let read = thread_state::with(|thread| {
            // SAFETY: the slot is the calling thread's own, `#[repr(C)]` as the C++ side
            // declares it, and written only by this thread (the C++ side, inside this call).
            let stack = unsafe {
                xrt_bridge_read_annotation_stack(&thread.source_stack, roctx::session_generation())
            };
            // SAFETY: just read on this thread, which has not changed its stack since.
            let (text, ids) = unsafe { stack.parts() };
            // tsl's annotations are UTF-8; the lossy copy is only for one that is not.
            match std::str::from_utf8(text) {
                Ok(text) => f(text, ids),
                Err(_) => f(&String::from_utf8_lossy(text), ids),
            }
        });
        if read.is_none() {
            f("", &[]);
        }
    }

    #[inline]
    fn record(&self, correlation_id: u64, map: &AnnotationMap, thread: &ThreadState) {
        if !ANNOTATIONS_IN_RUST.load(Ordering::Acquire) {
            return record_in_cpp(correlation_id, map, thread);
        }
        // SAFETY: the slot is the calling thread's own, `#[repr(C)]` as the C++ side declares
        // it and written only by this thread (the C++ side, inside this call); `thread` and
        // `map` come back, during this call, to `xrt_bridge_record_annotation_stack`.
        unsafe {
            xrt_bridge_record_annotation(
                &thread.source_stack,
                roctx::session_generation(),
                thread.roctx.labelled_frame(),
                thread as *const ThreadState as *const c_void,
                map as *const AnnotationMap as *const c_void,
                correlation_id,
            )
        }
    }

    /// The C++ tracer's map is cleared only for its own sessions: a C ABI session leaves it
    /// to the events of the last C++ one, which may point into it.
    fn session_starts(&self, map: &AnnotationMap) {
        map.clear();
        let through_bridge = STARTING_FOR_CPP.with(Cell::get);
        if through_bridge.is_some() {
            clear_hip_api_annotations();
        }
        ANNOTATIONS_IN_RUST.store(through_bridge != Some(true), Ordering::Release);
    }
}

pub(super) struct CppLogger;
pub(super) static CPP_LOGGER: CppLogger = CppLogger;

impl log::Log for CppLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let level = match record.level() {
            log::Level::Error => LogLevel::Error,
            log::Level::Warn => LogLevel::Warn,
            log::Level::Info => LogLevel::Info,
            log::Level::Debug => LogLevel::Debug,
            log::Level::Trace => LogLevel::Trace,
        };
        bridge::log_from_rust(level, &record.args().to_string());
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocprofiler_sdk_sys as sys;

    /// Without tsl (the weak C++ default of `xrt_bridge_record_annotation`, as in a program
    /// without the shims) the C++ source still sends a call made inside a labelled ROCTx range
    /// back to the Rust map with its label, and one outside any range records nothing.
    #[test]
    fn a_call_without_annotation_records_only_its_roctx_label() {
        std::thread::spawn(|| {
            let map = AnnotationMap::new(8);
            let record = |correlation_id| {
                thread_state::with(|thread| {
                    CppAnnotationSource.record(correlation_id, &map, thread)
                })
                .unwrap()
            };
            record(1);
            assert_eq!(map.look_up_call(1), Default::default());
            // Another test may start a session meanwhile (a new generation hides the range):
            // tried again until one attempt ran within one generation.
            for correlation_id in 2..100 {
                let generation = roctx::session_generation();
                roctx::on_marker_call(
                    sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA,
                    Some("train_step".into()),
                    1,
                );
                record(correlation_id);
                roctx::on_marker_call(sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, None, 1);
                if roctx::session_generation() != generation {
                    continue;
                }
                let call = map.look_up_call(correlation_id);
                assert_eq!(call.roctx_label.as_deref(), Some("train_step"));
                assert_eq!((call.annotation, call.scope_range_id), (None, 0));
                return;
            }
            panic!("no attempt ran within one session generation");
        })
        .join()
        .unwrap();
    }
}
