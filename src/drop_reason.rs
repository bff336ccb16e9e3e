//! Why an event did not reach the trace: one list of reasons for the tracer, the collector and
//! the export, so that every loss is counted under one name and described in one place.
use std::fmt;

/// The flag users raise when a cap is reached (openxla/xla#33666, ROCm/xla#874).
pub const MAX_TRACE_EVENTS_FLAG: &str = "--xla_gpu_rocm_max_trace_events";

/// Why the collector or the exporter did not keep an event.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// `max_callback_api_events` reached: HIP API events only.
    CallbackCapReached,
    /// `max_activity_api_events` reached: GPU activities only.
    ActivityCapReached,
    /// A HIP API event whose GPU activities the activity cap dropped: it is left out with them
    /// (XLA exports only API calls with an activity), counted apart so that the activity cap
    /// counts each lost kernel or copy once.
    ApiOfCappedActivity,
    /// A GPU activity whose HIP API event the HIP API cap dropped: without its call it has no
    /// stream or details, so it is left out; counted apart so that each cap counts its own kind.
    ActivityOfCappedApi,
    /// `max_annotation_strings` reached: the event was kept without its annotation.
    AnnotationCapReached,
    /// A GPU activity whose HIP API call never arrived.
    NoApiCounterpart,
    /// A second HIP API event under a correlation id already seen.
    DuplicateCorrelationId,
    /// An event whose device is not one of the capture's GPUs.
    InvalidDevice,
    /// Outside `[start_gputime, export time]`, or ending before it starts.
    OutOfTimeWindow,
    /// A GPU activity without a stream, or an API event without a thread: no lane to put it on.
    NoLane,
    /// An event that is neither an API callback nor an activity.
    InvalidSource,
    /// A buffer record with a null header or payload.
    NullRecord,
    /// A buffer record of a category the tracer does not read.
    UnsupportedCategory,
    /// A tracing record of a kind the tracer does not read.
    UnsupportedKind,
    /// A record smaller than the struct of its kind.
    Truncated,
    /// A record that started before the session was enabled.
    PreviousSession,
    /// Records the SDK dropped (a DISCARD buffer that was full).
    SdkDropped,
    /// Events a panicking `EventSink` lost while taking them.
    SinkPanicked,
    /// Records delivered while no session was enabled.
    NoSession,
    /// A record from an agent that is not a GPU HIP sees.
    NotVisibleGpu,
    /// Kernel dispatches and copies the session requested whose records had not arrived when
    /// `disable()` stopped waiting (`TracerOptions::disable_wait`).
    InFlightAtDisable,
    /// A HIP API call that launched no GPU work. XLA keeps only API calls with an activity
    /// (docs/xla-interface.md#xla-edge-2); this is expected, not data loss, so it is not exported as a warning.
    ApiWithoutActivity,
    /// A HIP copy call without a device record: the HIP runtime copied with the CPU. The call
    /// is kept on its host thread; counted so the trace can say why it has no device event.
    CopyDoneByCpu,
}

impl DropReason {
    /// Whether losing such events is a problem the trace should warn about.
    pub fn is_data_loss(self) -> bool {
        !matches!(
            self,
            DropReason::ApiWithoutActivity | DropReason::CopyDoneByCpu
        )
    }

    /// What the warning says after "Dropped N events: ", and what C++ collectors are told in
    /// `OnEventsDropped`.
    pub const fn describe(self) -> &'static str {
        match self {
            DropReason::NullRecord => "rocprofiler record with a null header or payload",
            DropReason::UnsupportedCategory => "rocprofiler record of an unsupported buffer category",
            DropReason::UnsupportedKind => "rocprofiler record of an unsupported tracing kind",
            DropReason::Truncated => "rocprofiler record smaller than its struct",
            DropReason::PreviousSession => "rocprofiler record from an earlier profiling session",
            DropReason::SdkDropped => "records dropped by rocprofiler-sdk (buffer full)",
            DropReason::SinkPanicked => "events lost because the EventSink panicked while taking them",
            DropReason::NoSession => "rocprofiler records delivered while no session was enabled",
            DropReason::NotVisibleGpu => {
                "rocprofiler record from an agent that is not a GPU HIP sees (unknown, or hidden by HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES)"
            }
            DropReason::InFlightAtDisable => {
                "kernel dispatches and copies still in flight at Disable (their records had not arrived)"
            }
            DropReason::CallbackCapReached => {
                "HIP API events over the HIP API event cap (max_callback_api_events)"
            }
            DropReason::ActivityCapReached => {
                "GPU activities over the GPU activity cap (max_activity_api_events)"
            }
            DropReason::ApiOfCappedActivity => {
                "HIP API events left out because the GPU activity cap dropped their GPU activities"
            }
            DropReason::ActivityOfCappedApi => {
                "GPU activities left out because the HIP API event cap dropped their HIP API events"
            }
            DropReason::AnnotationCapReached => {
                "the annotation string cap (max_annotation_strings) was reached; the events were kept without their annotation"
            }
            DropReason::NoApiCounterpart => "GPU activity without a matching HIP API event (correlation id)",
            DropReason::DuplicateCorrelationId => "HIP API event with a duplicate correlation id",
            DropReason::InvalidDevice => "device is not one of the traced GPUs",
            DropReason::OutOfTimeWindow => "outside the capture's time window",
            DropReason::NoLane => "no stream (GPU activity) or thread (HIP API event) to place it on",
            DropReason::InvalidSource => "event source is neither API callback nor activity",
            DropReason::ApiWithoutActivity => "HIP API call without GPU activity (or of a type XLA does not export)",
            DropReason::CopyDoneByCpu => "copy done by the CPU (the HIP runtime copied without a device record)",
        }
    }

    /// Lost before the events reached the collector: the warning says so.
    pub fn is_tracer_loss(self) -> bool {
        matches!(
            self,
            DropReason::NullRecord
                | DropReason::UnsupportedCategory
                | DropReason::UnsupportedKind
                | DropReason::Truncated
                | DropReason::PreviousSession
                | DropReason::SdkDropped
                | DropReason::SinkPanicked
                | DropReason::NoSession
                | DropReason::NotVisibleGpu
                | DropReason::InFlightAtDisable
        )
    }

    pub(crate) fn is_cap(self) -> bool {
        matches!(
            self,
            DropReason::CallbackCapReached
                | DropReason::ActivityCapReached
                | DropReason::ApiOfCappedActivity
                | DropReason::ActivityOfCappedApi
                | DropReason::AnnotationCapReached
        )
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}
