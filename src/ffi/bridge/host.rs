//! What the Rust core calls in C++: a C++ collector's sink, tsl's annotation stack, absl
//! logging.
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{ffi, FlatEvent};
use crate::drop_reason::DropReason;
use crate::event::{EventDetails, EventSource, EventType, RocmTracerEvent};
use crate::sink::{EventSink, SessionEnd};
use crate::tracer::annotation::{AnnotationMap, AnnotationSource};
use crate::tracer::thread_state::ThreadState;

/// The sink of a session whose collector is C++ code (a test's `RocmTraceCollectorImpl`
/// subclass, `hlo_op_profiler`'s collector), a `RocmTraceCollector*`: one crossing per buffer
/// callback.
pub(super) struct CppCollectorSink(pub usize);

impl EventSink for CppCollectorSink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        let named = |mut event: RocmTracerEvent| {
            if let (EventSource::Activity, EventDetails::Memcpy(details)) =
                (event.source, event.details)
            {
                if event.event_type == EventType::Kernel {
                    // A blit kernel that carries its copy call's facts.
                    crate::collector::name_blit_kernel_by_call(&mut event, details);
                } else if let Some(asked) = details.call_direction {
                    crate::collector::name_by_call(&mut event, asked);
                }
            }
            FlatEvent::of(&event)
        };
        let bridged: Vec<FlatEvent> = batch.drain(..).map(named).collect();
        ffi::deliver_events(self.0, &bridged);
    }

    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        ffi::deliver_dropped(self.0, reason.describe(), count);
    }

    /// What XLA's `RocmTraceCollector` interface can take of the end: the in-flight count
    /// (through `OnEventsDropped`) and the flush (`RocmTracer::Disable` calls `Flush()` itself
    /// once this returns). It has no hook for stream labels or trace warnings: the labels are
    /// dropped (C++ collectors name lanes by stream id, as XLA's do) and the warnings logged.
    fn end_session(&self, end: SessionEnd) {
        if end.in_flight > 0 {
            ffi::deliver_dropped(
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

/// Read on every HIP API ENTER: whether annotations go to the Rust annotation map or to the
/// C++ tracer's `annotation_map_` (sessions with a C++ collector). Set when a session starts,
/// by [`CppAnnotationSource`], from [`STARTING_FOR_CPP`].
static ANNOTATIONS_IN_RUST: AtomicBool = AtomicBool::new(true);

thread_local! {
    /// The session this thread is starting through the bridge, if any: whether it delivers to
    /// a C++ collector.
    pub(super) static STARTING_FOR_CPP: Cell<Option<bool>> = const { Cell::new(None) };
}

/// tsl's `AnnotationStack`, read through the C++ side.
pub(super) struct CppAnnotationSource;

impl CppAnnotationSource {
    /// The calling thread's tsl annotation text and scope-range ids, as the C++ side holds
    /// them.
    fn with_stack<R>(f: impl FnOnce(&[u8], &[i64]) -> R) -> R {
        let view = ffi::read_annotation_stack();
        if view.text.is_null() || view.text_len == 0 {
            return f(&[], &[]);
        }
        // SAFETY: the C++ side returns views of the calling thread's annotation stack, valid
        // until this thread changes it, which it cannot do while inside this call.
        let text = unsafe { std::slice::from_raw_parts(view.text, view.text_len) };
        let ids = if view.scope_range_ids.is_null() {
            &[][..]
        } else {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts(view.scope_range_ids, view.num_scope_range_ids) }
        };
        f(text, ids)
    }
}

impl AnnotationSource for CppAnnotationSource {
    fn with_current(&self, f: &mut dyn FnMut(&str, &[i64])) {
        Self::with_stack(|text, ids| {
            // tsl's annotations are UTF-8; the lossy copy is only for one that is not.
            match std::str::from_utf8(text) {
                Ok(text) => f(text, ids),
                Err(_) => f(&String::from_utf8_lossy(text), ids),
            }
        })
    }

    fn record_on_thread(&self, correlation_id: u64, map: &AnnotationMap, thread: &ThreadState) {
        if ANNOTATIONS_IN_RUST.load(Ordering::Acquire) {
            // The text is converted only when the thread's stack changed (the map's cache); an
            // empty one still records the thread's ROCTx label.
            Self::with_stack(|text, ids| map.add_on_thread(thread, correlation_id, text, ids));
        } else {
            ffi::record_hip_api_annotation(correlation_id);
            // The annotation is in the C++ store; the ROCTx label, if any, goes to ours.
            map.add_on_thread(thread, correlation_id, &[], &[]);
        }
    }

    /// The C++ tracer's map is cleared only for its own sessions: a C ABI session leaves it
    /// to the events of the last C++ one, which may point into it.
    fn session_starts(&self, map: &AnnotationMap) {
        map.clear();
        let through_bridge = STARTING_FOR_CPP.with(Cell::get);
        if through_bridge.is_some() {
            ffi::clear_hip_api_annotations();
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
            log::Level::Error => ffi::LogLevel::Error,
            log::Level::Warn => ffi::LogLevel::Warn,
            log::Level::Info => ffi::LogLevel::Info,
            log::Level::Debug => ffi::LogLevel::Debug,
            log::Level::Trace => ffi::LogLevel::Trace,
        };
        ffi::log_from_rust(level, &record.args().to_string());
    }

    fn flush(&self) {}
}
