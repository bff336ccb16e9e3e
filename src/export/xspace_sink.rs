//! Where an export's XSpace goes while it is built: the line builder hands each plane over
//! line by line, event by event, to a sink, which makes of it a prost `XSpace` (tests, the C
//! ABI, the CLI), the bridge's columns (the XLA path, src/ffi/flat_xspace.rs) or a file's
//! bytes (trace_file.rs). One builder, so every form holds the same XSpace; no form needs
//! another as a step (a prost XSpace costs about 480 bytes and five allocations per event).
use std::collections::BTreeMap;
use std::sync::Arc;

use super::xplane_proto::{
    x_event, XEvent, XEventMetadata, XLine, XPlane, XSpace, XStat, XStatMetadata,
};

/// An `XLine` without its events.
#[derive(Copy, Clone, Debug)]
pub struct LineHeader<'a> {
    pub id: i64,
    pub display_id: i64,
    pub name: &'a str,
    pub display_name: &'a str,
    pub timestamp_ns: i64,
    pub duration_ps: i64,
}

impl LineHeader<'_> {
    /// The header of `line` (its events are not looked at).
    pub fn of(line: &XLine) -> LineHeader<'_> {
        LineHeader {
            id: line.id,
            display_id: line.display_id,
            name: &line.name,
            display_name: &line.display_name,
            timestamp_ns: line.timestamp_ns,
            duration_ps: line.duration_ps,
        }
    }

    pub(crate) fn to_line(self) -> XLine {
        XLine {
            id: self.id,
            display_id: self.display_id,
            name: self.name.to_owned(),
            display_name: self.display_name.to_owned(),
            timestamp_ns: self.timestamp_ns,
            duration_ps: self.duration_ps,
            events: Vec::new(),
        }
    }
}

impl<'a> LineHeader<'a> {
    /// The name the line shows: its display name when it has one.
    pub fn shown_name(&self) -> &'a str {
        if self.display_name.is_empty() {
            self.name
        } else {
            self.display_name
        }
    }
}

/// The name events of `metadata` show: its display name when it has one.
pub fn shown_event_name(metadata: &XEventMetadata) -> &str {
    if metadata.display_name.is_empty() {
        &metadata.name
    } else {
        &metadata.display_name
    }
}

/// An `XEvent` whose stats are borrowed.
#[derive(Copy, Clone, Debug)]
pub struct EventView<'a> {
    pub metadata_id: i64,
    pub data: Option<x_event::Data>,
    pub duration_ps: i64,
    pub stats: &'a [XStat],
}

impl EventView<'_> {
    pub fn of(event: &XEvent) -> EventView<'_> {
        EventView {
            metadata_id: event.metadata_id,
            data: event.data,
            duration_ps: event.duration_ps,
            stats: &event.stats,
        }
    }
}

/// Receives an XSpace in order: for each plane, its lines (each [`XSpaceSink::start_line`]
/// followed by that line's events), then [`XSpaceSink::finish_plane`] with the plane's id,
/// name, metadata and stats (its `lines` empty); after the last plane,
/// [`XSpaceSink::finish_space`] once.
pub trait XSpaceSink {
    /// How many events the whole space will have, before its first line (a sink may reserve).
    fn expect_events(&mut self, _events: usize) {}
    /// The name of event metadata `metadata_id` of the plane being built (its display name
    /// when it has one), told before the first event that uses it: a sink that looks at
    /// events by name need not wait for [`XSpaceSink::finish_plane`]'s metadata.
    fn name_event_metadata(&mut self, _metadata_id: i64, _name: &str) {}
    /// The name of stat metadata `metadata_id` of the plane being built, told before the first
    /// event whose stats use it (as a stat or as a ref value's string).
    fn name_stat_metadata(&mut self, _metadata_id: i64, _name: &str) {}
    fn start_line(&mut self, line: LineHeader<'_>);
    fn add_event(&mut self, event: EventView<'_>);
    fn finish_plane(&mut self, plane: XPlane);
    /// [`XSpaceSink::finish_plane`] of `plane` whose stat metadata are `stat_names`, id `i` at
    /// `i - 1` (its `stat_metadata` is empty): a sink that encodes them need not have them as
    /// a map first (tens of MB for a plane with a stat metadata per distinct annotation).
    fn finish_plane_with_stat_names(&mut self, mut plane: XPlane, stat_names: Vec<Arc<str>>) {
        plane.stat_metadata = stat_metadata_of(stat_names);
        self.finish_plane(plane);
    }
    fn finish_space(&mut self, errors: &[String], warnings: &[String], hostnames: &[String]);
}

/// The stat metadata map of `names`, id `i` named `names[i - 1]`.
pub fn stat_metadata_of(names: Vec<Arc<str>>) -> BTreeMap<i64, XStatMetadata> {
    names
        .into_iter()
        .zip(1..)
        .map(|(name, id)| {
            let metadata = XStatMetadata {
                id,
                name: name.to_string(),
                ..XStatMetadata::default()
            };
            (id, metadata)
        })
        .collect()
}

/// Hands `space` to `sink`, as if it were being built.
pub fn replay_xspace(space: &XSpace, sink: &mut impl XSpaceSink) {
    replay_planes(&space.planes, sink);
    sink.finish_space(&space.errors, &space.warnings, &space.hostnames);
}

/// Hands `planes` to `sink` (without finishing the space).
pub fn replay_planes<'a>(
    planes: impl IntoIterator<Item = &'a XPlane> + Clone,
    sink: &mut impl XSpaceSink,
) {
    let events = planes
        .clone()
        .into_iter()
        .flat_map(|plane| &plane.lines)
        .map(|line| line.events.len())
        .sum();
    sink.expect_events(events);
    for plane in planes {
        for (id, metadata) in &plane.event_metadata {
            sink.name_event_metadata(*id, shown_event_name(metadata));
        }
        for (id, metadata) in &plane.stat_metadata {
            sink.name_stat_metadata(*id, &metadata.name);
        }
        for line in &plane.lines {
            sink.start_line(LineHeader::of(line));
            for event in &line.events {
                sink.add_event(EventView::of(event));
            }
        }
        sink.finish_plane(XPlane {
            id: plane.id,
            name: plane.name.clone(),
            lines: Vec::new(),
            event_metadata: plane.event_metadata.clone(),
            stat_metadata: plane.stat_metadata.clone(),
            stats: plane.stats.clone(),
        });
    }
}

/// The sink that builds a prost [`XSpace`].
#[derive(Default)]
pub struct XSpaceAssembler {
    space: XSpace,
    lines: Vec<XLine>,
}

impl XSpaceAssembler {
    pub fn finish(self) -> XSpace {
        self.space
    }
}

impl XSpaceSink for XSpaceAssembler {
    fn start_line(&mut self, line: LineHeader<'_>) {
        self.lines.push(line.to_line());
    }

    fn add_event(&mut self, event: EventView<'_>) {
        // A sink is fed a line before its events; an event without one has nowhere to go.
        if let Some(line) = self.lines.last_mut() {
            line.events.push(XEvent {
                metadata_id: event.metadata_id,
                duration_ps: event.duration_ps,
                stats: event.stats.to_vec(),
                data: event.data,
            });
        }
    }

    fn finish_plane(&mut self, mut plane: XPlane) {
        plane.lines = std::mem::take(&mut self.lines);
        self.space.planes.push(plane);
    }

    fn finish_space(&mut self, errors: &[String], warnings: &[String], hostnames: &[String]) {
        self.space.errors = errors.to_vec();
        self.space.warnings = warnings.to_vec();
        self.space.hostnames = hostnames.to_vec();
    }
}
