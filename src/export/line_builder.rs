//! One line into a sink: its header, then each placed event with its metadata id, its stats
//! (event_stats.rs, plus the copy stats below, a wait's flow (flows.rs) and the line's own)
//! and its place on the timeline (docs/xla-interface.md#event-stats).
use super::event_stats::event_stats;
use super::placement::{Events, Placed};
use super::plane_builder::PlaneBuilder;
use super::plane_names::FLOW_STAT;
use super::timeline::Timeline;
use super::xplane_proto::{x_event, XStat};
use super::xspace_sink::{EventView, LineHeader, XSpaceSink};
use crate::collector::recorded_direction;
use crate::event::{EventSource, EventType, RocmTracerEvent};

/// The `recorded_direction` stat of a copy whose SDK record said otherwise than its call.
const RECORDED_DIRECTION_STAT: &str = "recorded_direction";
/// The `copy_done_by` stat of a HIP copy call without a device record.
const COPY_DONE_BY_STAT: &str = "copy_done_by";

/// For a copy named by its HIP call's direction: the type of its SDK record.
fn recorded_as(event: &RocmTracerEvent) -> Option<EventType> {
    if event.source == EventSource::Activity && event.event_type.is_memcpy() {
        recorded_direction(event)
    } else {
        None
    }
}

/// Builds lines into a sink, with one stats buffer for all of their events.
pub(super) struct LineBuilder<'a, S> {
    pub(super) sink: &'a mut S,
    timeline: &'a Timeline,
    pub(super) events: Events<'a>,
    stats: Vec<XStat>,
}

impl<'a, S: XSpaceSink> LineBuilder<'a, S> {
    pub(super) fn new(sink: &'a mut S, timeline: &'a Timeline, events: Events<'a>) -> Self {
        LineBuilder {
            sink,
            timeline,
            events,
            stats: Vec::new(),
        }
    }

    pub(super) fn build_line(
        &mut self,
        plane: &mut PlaneBuilder,
        id: i64,
        name: &str,
        events: &[Placed],
        line_stats: &[(&str, String)],
    ) {
        self.sink.start_line(LineHeader {
            id,
            display_id: id,
            name,
            display_name: "",
            timestamp_ns: self.timeline.line_timestamp_ns,
            duration_ps: 0,
        });
        let stats = &mut self.stats;
        // The last event name and its metadata id: a line's events mostly share names, and
        // the names live in the trace for the whole call, so an equal address and length is
        // an equal name.
        let mut last_name: Option<(*const u8, usize, i64)> = None;
        for &placed in events {
            let event = self.events.event(placed);
            let Some(placement) = self
                .timeline
                .place((event.start_time_ns, event.end_time_ns))
            else {
                // Events outside the window were counted and left out before.
                continue;
            };
            let metadata_name = if event.name.is_empty() {
                event.event_type.name()
            } else {
                &event.name
            };
            let metadata_id = match last_name {
                Some((address, len, id))
                    if address == metadata_name.as_ptr() && len == metadata_name.len() =>
                {
                    id
                }
                _ => {
                    let id = plane.event_metadata_id(metadata_name);
                    last_name = Some((metadata_name.as_ptr(), metadata_name.len(), id));
                    id
                }
            };
            stats.clear();
            if let Some(flow) = self.events.flow_stat(placed) {
                // A wait flow's end (flows.rs) stands for a HIP call: no work of its own.
                stats.push(plane.uint64_stat(FLOW_STAT, flow));
            } else {
                event_stats(
                    plane,
                    &event,
                    self.events.device_ordinal(placed),
                    self.events.device(placed),
                    stats,
                );
            }
            if let Some(recorded_as) = recorded_as(&event) {
                stats.push(plane.ref_stat(RECORDED_DIRECTION_STAT, recorded_as.name()));
            }
            if let Some(copy_done_by) = self.events.copy_done_by(placed) {
                stats.push(plane.ref_stat(COPY_DONE_BY_STAT, copy_done_by));
            }
            for (stat, value) in line_stats {
                stats.push(plane.ref_stat(stat, value));
            }
            plane.tell_names(self.sink);
            self.sink.add_event(EventView {
                metadata_id,
                data: Some(x_event::Data::OffsetPs(placement.offset_ps)),
                duration_ps: placement.duration_ps,
                stats,
            });
        }
    }
}
