//! What the tracer delivers events to: XLA's `RocmTraceCollector` seen from the tracer.
use crate::drop_reason::DropReason;
use crate::event::EventCall;
use crate::event::{RocmTracerEvent, StreamLabel};

/// Receives the events of one buffer callback as one batch, so a collector takes its lock once
/// per batch rather than once per event. Implemented by the Rust collector and, through the
/// C++ bridge, by any XLA `RocmTraceCollector` (including user subclasses). Every fact about
/// an event rides on the event; what belongs to no event comes once, in [`SessionEnd`].
pub trait EventSink: Send + Sync {
    /// Takes the events out of `batch` (it is drained, not consumed, so its allocation is reused).
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>);
    /// Events lost before they reached `add_events`, counted by reason.
    fn on_events_dropped(&self, reason: DropReason, count: u64);
    /// Called once by `disable()` after the last batch: the session is over.
    fn end_session(&self, end: SessionEnd);
}

/// What the end of a session carries besides its events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionEnd {
    /// Kernel dispatches and copies the session requested whose records had not arrived when
    /// `disable()` stopped waiting ([`DropReason::InFlightAtDisable`]).
    pub in_flight: u64,
    /// What the tracer knows about the session's streams: kind and ROCTx name by SDK stream
    /// id (docs/xla-interface.md#stream-lanes).
    pub stream_labels: Vec<StreamLabel>,
    /// Things the trace should warn about that are not lost events (e.g. how many GPU
    /// submissions had no HIP stream), each once.
    pub warnings: Vec<String>,
    /// The session's `hipEventRecord` and `hipStreamWaitEvent` calls, in correlation order
    /// (docs/xla-interface.md#stream-waits).
    pub event_calls: Vec<EventCall>,
}
