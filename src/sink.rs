//! What the tracer delivers events to: XLA's `RocmTraceCollector` seen from the tracer.
use crate::event::RocmTracerEvent;

/// Receives the events of one buffer callback as one batch, so a collector takes its lock once
/// per batch rather than once per event. Implemented by the Rust collector and, through the
/// C++ bridge, by any XLA `RocmTraceCollector` (including user subclasses).
pub trait EventSink: Send + Sync {
    /// Takes the events out of `batch` (it is drained, not consumed, so its allocation is reused).
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>);
    /// Events lost before they reached `add_events`, counted by reason.
    fn on_events_dropped(&self, reason: &str, count: u64);
    /// Called by `disable()` after the SDK buffer has been flushed.
    fn flush(&self);
}
