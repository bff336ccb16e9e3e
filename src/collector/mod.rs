//! The Rust counterpart of XLA's `RocmTraceCollectorImpl` and `PerDeviceCollector`
//! (docs/xla-interface.md#collector): receives the tracer's events, joins HIP API calls with their GPU
//! activities, assigns events to devices and keeps them for export.
mod copies;
mod device_numbering;
mod drops;
mod event_chunk;
mod event_log;
mod id_set;
mod interner;
mod join;
mod options;
mod stored_event;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use parking_lot::Mutex;

pub use crate::gpu_agent::{GpuAgentInfo, MemoryBank};
pub use copies::recorded_direction;
pub(crate) use copies::{name_blit_kernel_by_call, name_by_call};
pub use drops::{DropCounters, DropReason, MAX_TRACE_EVENTS_FLAG};
pub use event_chunk::mapped_event_bytes;
pub use options::{CaptureStart, CollectorOptions};

use crate::event::EventCall;
use crate::event::{EventSource, EventType, RocmTracerEvent, StreamLabel};
use crate::sink::{EventSink, SessionEnd};
use device_numbering::{DeviceNumbering, DevicePlacement};
pub(crate) use event_log::EventLog;
use join::{join_api_and_activities, CappedIds, PendingEvents};
pub(crate) use stored_event::LoggedEvent;
use stored_event::SessionStrings;

/// Everything a capture collected, ready for export.
#[derive(Default)]
pub struct CollectedTrace {
    pub start: CaptureStart,
    /// The capture's caps and number of GPU planes, as the collector was created with.
    pub options: CollectorOptions,
    pub gpu_agents: Vec<GpuAgentInfo>,
    /// Joined events by device ordinal, in join order ([`CollectedTrace::device_events`]).
    /// Events keep their raw `device_id` (agent handle).
    pub(crate) devices: BTreeMap<u32, EventLog>,
    /// The names and annotations of the joined events.
    pub(crate) strings: SessionStrings,
    /// Scope-range-id tree, `child -> parent`.
    pub scope_range_tree: BTreeMap<i64, i64>,
    pub drops: DropCounters,
    /// HIP copy calls without a device record (the CPU copied): exported on their host thread
    /// only, and counted by export as [`DropReason::CopyDoneByCpu`].
    pub host_only: Vec<RocmTracerEvent>,
    /// Warnings the tracer sent at the end of its session, each once, in arrival order.
    pub warnings: Vec<String>,
    /// Kinds and ROCTx names of streams by SDK stream id, sent at the end of the session.
    pub stream_labels: BTreeMap<u64, StreamLabel>,
    /// ROCTx ranges and marks (`Generic` host events), in arrival order: XLA's standalone
    /// events, which join nothing and belong to no device.
    pub markers: Vec<RocmTracerEvent>,
    /// The sessions' event record and wait calls, sent at the end of each session: the
    /// export's wait flows (docs/xla-interface.md#stream-waits).
    pub event_calls: Vec<EventCall>,
}

impl CollectedTrace {
    /// The ordinals of the devices with events.
    pub fn device_ordinals(&self) -> impl Iterator<Item = u32> + '_ {
        self.devices.keys().copied()
    }

    /// The joined events of device `ordinal`, in join order.
    pub fn device_events(&self, ordinal: u32) -> impl Iterator<Item = RocmTracerEvent> + '_ {
        self.devices
            .get(&ordinal)
            .into_iter()
            .flat_map(|log| log.events(&self.strings))
    }

    /// How many joined events the devices hold.
    pub fn num_device_events(&self) -> usize {
        self.devices.values().map(EventLog::len).sum()
    }
}

/// Collects one capture. Thread-safe; each [`EventSink::add_events`] batch takes the lock once.
pub struct Collector {
    state: Mutex<CollectorState>,
}

#[derive(Default)]
struct CollectorState {
    pending: PendingEvents,
    num_callback_events: u64,
    num_auxiliary_events: u64,
    num_activity_events: u64,
    /// The annotations the limit let in so far (at most `max_annotation_strings`).
    admitted_annotations: FxHashSet<Arc<str>>,
    trace: CollectedTrace,
    caps_warned: BTreeSet<DropReason>,
    /// Without GPU agents: the smallest device id of every flush so far, so that a handle's
    /// ordinal does not depend on which flush its events came in.
    minimum_device_id: Option<u32>,
    /// Correlation ids of events a cap dropped, so that their counterparts, left alone, are
    /// counted under the same cap instead of as unexplained or expected.
    capped: CappedIds,
}

impl Collector {
    pub fn new(options: CollectorOptions, start: CaptureStart) -> Collector {
        let trace = CollectedTrace {
            start,
            options,
            ..CollectedTrace::default()
        };
        Collector {
            state: Mutex::new(CollectorState {
                trace,
                ..CollectorState::default()
            }),
        }
    }

    pub fn options(&self) -> CollectorOptions {
        self.state.lock().trace.options.clone()
    }

    pub fn start(&self) -> CaptureStart {
        self.state.lock().trace.start
    }

    /// The GPUs HIP sees, in SDK query order; position `i` is `/device:GPU:<i>`.
    pub fn set_gpu_agents(&self, agents: Vec<GpuAgentInfo>) {
        self.state.lock().trace.gpu_agents = agents;
    }

    /// XLA's `AddEvent(event, is_auxiliary)`: auxiliary API events only lend their data to
    /// activities and are never exported themselves.
    pub fn add_event(&self, event: RocmTracerEvent, is_auxiliary: bool) {
        let mut state = self.state.lock();
        state.add(&event, is_auxiliary);
    }

    /// Adds `child -> parent` edges of the scope-range-id tree (`SetScopeRangeIdTree`).
    pub fn set_scope_range_id_tree(&self, tree: impl IntoIterator<Item = (i64, i64)>) {
        self.state.lock().trace.scope_range_tree.extend(tree);
    }

    /// XLA's `Flush()`: joins what arrived so far and assigns it to devices.
    pub fn flush(&self) {
        self.state.lock().flush();
    }

    /// Counts a loss that code outside this crate reported in its own words (a C++ caller of
    /// `RocmTraceCollector::OnEventsDropped`).
    pub fn add_reported_drop(&self, reason: &str, count: u64) {
        self.state.lock().trace.drops.add_reported(reason, count);
    }

    pub fn drop_counters(&self) -> DropCounters {
        self.state.lock().trace.drops.clone()
    }

    /// Flushes, then lends the collected trace to `read` under the lock (no copy of the events).
    pub fn with_collected<R>(&self, read: impl FnOnce(&CollectedTrace) -> R) -> R {
        let mut state = self.state.lock();
        state.flush();
        read(&state.trace)
    }
}

impl CollectorState {
    /// Inlined into the batch loop: a call per event costs its register saves and restores.
    #[inline(always)]
    fn add(&mut self, event: &RocmTracerEvent, is_auxiliary: bool) {
        let max_callback_api_events = self.trace.options.max_callback_api_events;
        let max_activity_api_events = self.trace.options.max_activity_api_events;
        if event.event_type == EventType::Generic {
            // XLA counts ROCTx events against the API callback cap.
            if self.num_callback_events >= max_callback_api_events {
                self.drop_at_cap(DropReason::CallbackCapReached, max_callback_api_events);
                return;
            }
            self.num_callback_events += 1;
            self.trace.markers.push(event.clone());
            return;
        }
        let pending = &mut self.pending;
        let log = match event.source {
            EventSource::ApiCallback => {
                // Auxiliary events do not count against XLA's cap; a cap of their own keeps
                // their memory bounded too.
                let count = if is_auxiliary {
                    &mut self.num_auxiliary_events
                } else {
                    &mut self.num_callback_events
                };
                if *count >= max_callback_api_events {
                    if !is_auxiliary {
                        self.capped.api.insert(event.correlation_id);
                    }
                    self.drop_at_cap(DropReason::CallbackCapReached, max_callback_api_events);
                    return;
                }
                *count += 1;
                // A duplicate correlation id is found and counted by the join.
                if is_auxiliary {
                    &mut pending.auxiliary_api
                } else {
                    &mut pending.api
                }
            }
            EventSource::Activity => {
                // Every activity counts, so the cap bounds memory (unlike XLA, docs/xla-interface.md#xla-edge-12).
                if self.num_activity_events >= max_activity_api_events {
                    self.capped.activities.insert(event.correlation_id);
                    self.drop_at_cap(DropReason::ActivityCapReached, max_activity_api_events);
                    return;
                }
                self.num_activity_events += 1;
                &mut pending.activities
            }
            EventSource::Invalid => {
                self.trace.drops.add(DropReason::InvalidSource, 1);
                return;
            }
        };
        // One call site, so that storing inlines here and the event is not copied on the way.
        log.push(event, &mut pending.strings);
    }

    /// Keeps at most `max_annotation_strings` distinct annotations, admitting new ones in
    /// launch order (the smallest correlation id each first appears under), not in the order
    /// batches reached the collector; later new ones are removed from their events, which stay.
    fn limit_annotations(&mut self) {
        let max_annotation_strings = self.trace.options.max_annotation_strings;
        let strings = &self.pending.strings.annotations;
        // By this flush's annotation id: whether an earlier flush admitted the string.
        let mut admitted: Vec<bool> = (0..strings.len() as u32)
            .map(|id| self.admitted_annotations.contains(strings.get(id)))
            .collect();
        let new_count = admitted.iter().filter(|&&known| !known).count() as u64;
        if self.admitted_annotations.len() as u64 + new_count <= max_annotation_strings {
            // Every new annotation fits: nothing to order or remove.
            for (id, known) in admitted.iter().enumerate() {
                if !known {
                    self.admitted_annotations
                        .insert(strings.get(id as u32).clone());
                }
            }
            return;
        }
        let logs = [
            &self.pending.api,
            &self.pending.auxiliary_api,
            &self.pending.activities,
        ];
        let mut first_id: FxHashMap<u32, u64> = FxHashMap::default();
        for log in logs {
            for (correlation_id, annotation) in log.annotations() {
                if !admitted[annotation as usize] {
                    let id = first_id.entry(annotation).or_insert(u64::MAX);
                    *id = (*id).min(correlation_id);
                }
            }
        }
        // Ties between first ids are broken by the text, as the order must not depend on ids
        // given in arrival order.
        let mut new: Vec<(u64, &str, u32)> = first_id
            .into_iter()
            .map(|(annotation, id)| (id, &**strings.get(annotation), annotation))
            .collect();
        new.sort_unstable();
        let mut any_rejected = false;
        for (_, _, annotation) in new {
            if (self.admitted_annotations.len() as u64) < max_annotation_strings {
                admitted[annotation as usize] = true;
                self.admitted_annotations
                    .insert(strings.get(annotation).clone());
            } else {
                any_rejected = true;
            }
        }
        if !any_rejected {
            return;
        }
        let mut removed = 0;
        for log in [
            &mut self.pending.api,
            &mut self.pending.auxiliary_api,
            &mut self.pending.activities,
        ] {
            removed += log.remove_annotations(|annotation| !admitted[annotation as usize]);
        }
        for _ in 0..removed {
            self.drop_at_cap(DropReason::AnnotationCapReached, max_annotation_strings);
        }
    }

    /// Counts the drop and warns once per cap per capture (XLA warns once per event for the
    /// callback cap, docs/xla-interface.md#xla-edge-13).
    fn drop_at_cap(&mut self, reason: DropReason, cap: u64) {
        self.trace.drops.add(reason, 1);
        if !self.caps_warned.insert(reason) {
            return;
        }
        if reason == DropReason::AnnotationCapReached {
            // The events stay; only their annotation is lost.
            log::warn!(
                "xla-rocm-tracer: {} (limit {cap}); further events are kept without their \
                 annotation. To keep more annotations, set \
                 XLA_FLAGS={MAX_TRACE_EVENTS_FLAG}=<larger value>",
                reason.describe()
            );
        } else {
            log::warn!(
                "xla-rocm-tracer: {} (limit {cap}); further such events are dropped. \
                 To collect more GPU events, set XLA_FLAGS={MAX_TRACE_EVENTS_FLAG}=<larger value>",
                reason.describe()
            );
        }
    }

    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.limit_annotations();
        let trace = &mut self.trace;
        let capped = &self.capped;
        if trace.gpu_agents.is_empty() {
            // The fallback numbering needs the smallest device id of all joined events first,
            // of this flush and of every earlier one: the joined events wait in a log of
            // their own (48 bytes each, as the pending ones it replaces).
            let mut joined = EventLog::default();
            let mut joined_strings = SessionStrings::default();
            join_api_and_activities(&mut self.pending, &mut trace.drops, capped, |event| {
                joined.push(&event, &mut joined_strings)
            });
            let device_ids =
                (0..joined.len()).map(|index| joined.get(index, &joined_strings).device_id());
            let numbering = match (
                DeviceNumbering::by_minimum_handle(device_ids),
                self.minimum_device_id,
            ) {
                (DeviceNumbering::ByMinimumHandle(Some(new)), Some(old)) if new < old => {
                    // Events placed earlier move up by the difference; those pushed past the
                    // last GPU are dropped now, as they would have been in one flush.
                    renumber_devices(trace, old - new);
                    DeviceNumbering::ByMinimumHandle(Some(new))
                }
                (DeviceNumbering::ByMinimumHandle(None), old) | (_, old @ Some(_)) => {
                    DeviceNumbering::ByMinimumHandle(old)
                }
                (numbering, None) => numbering,
            };
            if let DeviceNumbering::ByMinimumHandle(minimum @ Some(_)) = numbering {
                self.minimum_device_id = minimum;
            }
            let mut placement = DevicePlacement::new(
                &numbering,
                trace.options.num_gpus,
                &mut trace.devices,
                &mut trace.strings,
                &mut trace.host_only,
            );
            for event in joined.events(&joined_strings) {
                placement.place(event);
            }
            placement.finish(&mut trace.drops);
        } else {
            // Known agents number devices without looking at events: place each joined event
            // as it comes, so the joined events are never held twice.
            let numbering = DeviceNumbering::by_agents(&trace.gpu_agents);
            let mut placement = DevicePlacement::new(
                &numbering,
                trace.options.num_gpus,
                &mut trace.devices,
                &mut trace.strings,
                &mut trace.host_only,
            );
            join_api_and_activities(&mut self.pending, &mut trace.drops, capped, |event| {
                placement.place(event)
            });
            placement.finish(&mut trace.drops);
        }
    }
}

/// Moves every device list `shift` ordinals up, dropping (and counting) the lists that leave
/// the capture's GPUs.
fn renumber_devices(trace: &mut CollectedTrace, shift: u32) {
    let num_gpus = trace.options.num_gpus;
    let devices = std::mem::take(&mut trace.devices);
    for (ordinal, events) in devices {
        match ordinal.checked_add(shift).filter(|&moved| moved < num_gpus) {
            Some(moved) => {
                trace.devices.insert(moved, events);
            }
            None => trace
                .drops
                .add(DropReason::InvalidDevice, events.len() as u64),
        }
    }
}

impl EventSink for Collector {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        let mut state = self.state.lock();
        // Events are read in place and dropped together after (their strings are shared).
        for event in batch.iter() {
            state.add(event, false);
        }
        drop(state);
        batch.clear();
    }

    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        self.state.lock().trace.drops.add(reason, count);
    }

    fn end_session(&self, end: SessionEnd) {
        let mut state = self.state.lock();
        state
            .trace
            .drops
            .add(DropReason::InFlightAtDisable, end.in_flight);
        let trace = &mut state.trace;
        for warning in end.warnings {
            if !trace.warnings.contains(&warning) {
                trace.warnings.push(warning);
            }
        }
        for label in end.stream_labels {
            trace.stream_labels.insert(label.stream_id, label);
        }
        trace.event_calls.extend(end.event_calls);
        state.flush();
    }
}
