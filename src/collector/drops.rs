//! Events lost on the way to the trace, counted by reason, so that the exported XSpace can say
//! what is missing instead of silently thinning the timeline (XLA only VLOGs most of these).
use std::collections::BTreeMap;

pub use crate::drop_reason::{DropReason, MAX_TRACE_EVENTS_FLAG};

/// Drop counts of one capture by [`DropReason`], plus losses that code outside this crate
/// reported in its own words (a C++ caller of `OnEventsDropped`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropCounters {
    by_reason: BTreeMap<DropReason, u64>,
    by_reported_reason: BTreeMap<String, u64>,
}

impl DropCounters {
    pub(crate) fn add(&mut self, reason: DropReason, count: u64) {
        if count > 0 {
            let total = self.by_reason.entry(reason).or_insert(0);
            *total = total.saturating_add(count);
        }
    }

    pub(crate) fn add_reported(&mut self, reason: &str, count: u64) {
        if count > 0 {
            let total = self
                .by_reported_reason
                .entry(reason.to_owned())
                .or_insert(0);
            *total = total.saturating_add(count);
        }
    }

    pub(crate) fn merge(&mut self, other: &DropCounters) {
        for (&reason, &count) in &other.by_reason {
            self.add(reason, count);
        }
        for (reason, &count) in &other.by_reported_reason {
            self.add_reported(reason, count);
        }
    }

    pub fn count(&self, reason: DropReason) -> u64 {
        self.by_reason.get(&reason).copied().unwrap_or(0)
    }

    pub fn by_reason(&self) -> &BTreeMap<DropReason, u64> {
        &self.by_reason
    }

    pub(crate) fn by_reported_reason(&self) -> &BTreeMap<String, u64> {
        &self.by_reported_reason
    }

    /// One line per data-loss reason, in a fixed order, for `XSpace.warnings`. Every line
    /// starts with "Dropped <N> events: " ("event" for one; the annotation cap's with "Kept <N> events without
    /// their annotation", since those events are kept); cap lines also name the XLA flag that
    /// raises the cap.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (&reason, &count) in &self.by_reason {
            if !reason.is_data_loss() {
                continue;
            }
            let lost_in = if reason.is_tracer_loss() {
                "lost in the tracer: "
            } else {
                ""
            };
            if reason == DropReason::AnnotationCapReached {
                // Not a loss of events, so not "Dropped": the events are in the trace and
                // only their annotation is missing.
                lines.push(format!(
                    "Kept {count} {} without their annotation: the annotation string cap \
                     (max_annotation_strings) was reached. To keep more annotations, set \
                     XLA_FLAGS={MAX_TRACE_EVENTS_FLAG}=<larger value>",
                    if count == 1 { "event" } else { "events" }
                ));
                continue;
            }
            let events = if count == 1 { "event" } else { "events" };
            let mut line = format!("Dropped {count} {events}: {lost_in}{}", reason.describe());
            if reason.is_cap() {
                line.push_str(&format!(
                    ". To collect more GPU events, set XLA_FLAGS={MAX_TRACE_EVENTS_FLAG}=<larger value>"
                ));
            }
            lines.push(line);
        }
        for (reason, &count) in &self.by_reported_reason {
            let events = if count == 1 { "event" } else { "events" };
            lines.push(format!("Dropped {count} {events}: {reason}"));
        }
        lines
    }
}
