//! What the tracer delivers events to: XLA's `RocmTraceCollector` seen from the tracer.
use crate::drop_reason::DropReason;
use crate::event::{EventType, RocmTracerEvent, StreamLabel};

/// Receives the events of one buffer callback as one batch, so a collector takes its lock once
/// per batch rather than once per event. Implemented by the Rust collector and, through the
/// C++ bridge, by any XLA `RocmTraceCollector` (including user subclasses).
pub trait EventSink: Send + Sync {
    /// Takes the events out of `batch` (it is drained, not consumed, so its allocation is reused).
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>);
    /// Events lost before they reached `add_events`, counted by reason.
    fn on_events_dropped(&self, reason: DropReason, count: u64);
    /// Called by `disable()` after the SDK buffer has been flushed.
    fn flush(&self);
    /// The copy activity of `correlation_id` was named by its HIP call's direction; the SDK
    /// recorded it as `recorded_as` (a small host-to-device copy done by a GPU blit is recorded
    /// as device-to-device). Sinks that export stats keep it; the default ignores it.
    fn on_copy_recorded_as(&self, correlation_id: u64, recorded_as: EventType) {
        let _ = (correlation_id, recorded_as);
    }
    /// Something the trace should warn about that is not a lost event (e.g. how many GPU
    /// submissions had no HIP stream). Sent at most once per kind per session, before
    /// `flush()`; the default ignores it.
    fn on_trace_warning(&self, warning: &str) {
        let _ = warning;
    }
    /// What the tracer knows about the session's streams (kind and ROCTx name by SDK stream
    /// id), sent once by `disable()` before `flush()`; the default ignores it.
    fn on_stream_labels(&self, labels: &[StreamLabel]) {
        let _ = labels;
    }
}
