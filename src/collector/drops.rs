//! Events lost on the way to the trace, counted by reason, so that the exported XSpace can say
//! what is missing instead of silently thinning the timeline (XLA only VLOGs most of these).
use std::collections::BTreeMap;

/// The flag users raise when a cap is reached (openxla/xla#33666, ROCm/xla#874).
pub const MAX_TRACE_EVENTS_FLAG: &str = "--xla_gpu_rocm_max_trace_events";

/// Why the collector or the exporter did not keep an event.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// `max_callback_api_events` reached.
    CallbackCapReached,
    /// `max_activity_api_events` reached.
    ActivityCapReached,
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
    /// A HIP API call that launched no GPU work. XLA keeps only API calls with an activity
    /// (rough edge §7.2); this is expected, not data loss, so it is not exported as a warning.
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

    /// What the warning says after "Dropped N events: ".
    pub fn describe(self) -> &'static str {
        match self {
            DropReason::CallbackCapReached => "the HIP API event cap (max_callback_api_events) was reached",
            DropReason::ActivityCapReached => "the GPU activity cap (max_activity_api_events) was reached",
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

    fn is_cap(self) -> bool {
        matches!(
            self,
            DropReason::CallbackCapReached
                | DropReason::ActivityCapReached
                | DropReason::AnnotationCapReached
        )
    }
}

/// Drop counts of one capture: the collector's own by [`DropReason`], and the tracer's (events
/// lost before they reached the collector) by the reason text the tracer gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropCounters {
    by_reason: BTreeMap<DropReason, u64>,
    by_tracer_reason: BTreeMap<String, u64>,
}

impl DropCounters {
    pub fn add(&mut self, reason: DropReason, count: u64) {
        if count > 0 {
            let total = self.by_reason.entry(reason).or_insert(0);
            *total = total.saturating_add(count);
        }
    }

    pub fn add_tracer_drop(&mut self, reason: &str, count: u64) {
        if count > 0 {
            let total = self.by_tracer_reason.entry(reason.to_owned()).or_insert(0);
            *total = total.saturating_add(count);
        }
    }

    pub fn merge(&mut self, other: &DropCounters) {
        for (&reason, &count) in &other.by_reason {
            self.add(reason, count);
        }
        for (reason, &count) in &other.by_tracer_reason {
            self.add_tracer_drop(reason, count);
        }
    }

    pub fn count(&self, reason: DropReason) -> u64 {
        self.by_reason.get(&reason).copied().unwrap_or(0)
    }

    pub fn tracer_count(&self, reason: &str) -> u64 {
        self.by_tracer_reason.get(reason).copied().unwrap_or(0)
    }

    pub fn by_reason(&self) -> &BTreeMap<DropReason, u64> {
        &self.by_reason
    }

    pub fn by_tracer_reason(&self) -> &BTreeMap<String, u64> {
        &self.by_tracer_reason
    }

    /// One line per data-loss reason, in a fixed order, for `XSpace.warnings`. Every line
    /// starts with "Dropped <N> events: "; cap lines also name the XLA flag that raises the cap.
    pub fn warnings(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (&reason, &count) in &self.by_reason {
            if !reason.is_data_loss() {
                continue;
            }
            let mut line = format!("Dropped {count} events: {}", reason.describe());
            if reason.is_cap() {
                line.push_str(&format!(
                    ". To collect more GPU events, set XLA_FLAGS={MAX_TRACE_EVENTS_FLAG}=<larger value>"
                ));
            }
            lines.push(line);
        }
        for (reason, &count) in &self.by_tracer_reason {
            lines.push(format!(
                "Dropped {count} events: lost in the tracer: {reason}"
            ));
        }
        lines
    }
}
