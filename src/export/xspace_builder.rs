//! The one export model: a collected trace becomes an `XSpace` (docs/xla-interface.md#export,
//! docs/xla-interface.md#planes-and-lines), built line by line into a sink (xspace_sink.rs): a
//! prost `XSpace`, the bridge's columns for the C++ shim (src/ffi/flat_xspace.rs), or a file's
//! bytes (trace_file.rs). The driver is here; each event's line is decided in placement.rs, a
//! line is written by line_builder.rs, and a device plane with its lanes by device_lanes.rs.
use std::collections::{BTreeMap, BTreeSet};

use super::device_lanes::{add_device_plane, Lane};
use super::flows::wait_flow_ends;
use super::line_builder::LineBuilder;
use super::options::ExportOptions;
use super::placement::{place_events, warnings, Placed};
use super::plane_builder::PlaneBuilder;
use super::plane_names::{
    host_line_name, roctx_line, HOST_PLANE_NAME, SCOPE_RANGE_TREE_PLANE_NAME,
};
use super::timeline::Timeline;
use super::xplane_proto::{x_stat, XSpace, XStat};
use super::xspace_encoder::XSpaceEncoder;
use super::xspace_sink::{XSpaceAssembler, XSpaceSink};
use crate::collector::{CollectedTrace, Collector};

impl Collector {
    /// Flushes and exports everything collected so far. `end_gputime_ns` is the SDK clock now
    /// (XLA reads `rocprofiler_get_timestamp()` here); later events are dropped and counted.
    /// The collector keeps its events, so exporting twice gives the same XSpace.
    pub fn export(&self, end_gputime_ns: u64, options: &ExportOptions) -> XSpace {
        self.export_with_lanes(end_gputime_ns, options).0
    }

    /// The device lanes [`Collector::export`] with the same arguments writes.
    pub fn lanes(&self, end_gputime_ns: u64, options: &ExportOptions) -> Vec<Lane> {
        self.export_with_lanes(end_gputime_ns, options).1
    }

    /// Writes the encoding of [`Collector::export`]'s XSpace to `out` as it is built, without
    /// building the XSpace (xspace_encoder.rs); returns how many bytes were written.
    pub fn write_xspace_to(
        &self,
        end_gputime_ns: u64,
        options: &ExportOptions,
        out: impl std::io::Write,
    ) -> std::io::Result<u64> {
        self.with_collected(|trace| {
            let mut encoder = XSpaceEncoder::new(out);
            export_into(trace, end_gputime_ns, options, &mut encoder);
            encoder.finish()
        })
    }

    /// [`Collector::export`]'s XSpace handed to `sink` as it is built (xspace_sink.rs);
    /// returns which stream or queue each device line shows.
    pub fn export_into_sink(
        &self,
        end_gputime_ns: u64,
        options: &ExportOptions,
        sink: &mut impl XSpaceSink,
    ) -> Vec<Lane> {
        self.with_collected(|trace| export_into(trace, end_gputime_ns, options, sink))
    }

    /// [`Collector::export`] and [`Collector::lanes`] from one build of the XSpace.
    pub fn export_with_lanes(
        &self,
        end_gputime_ns: u64,
        options: &ExportOptions,
    ) -> (XSpace, Vec<Lane>) {
        self.with_collected(|trace| {
            let mut assembler = XSpaceAssembler::default();
            let lanes = export_into(trace, end_gputime_ns, options, &mut assembler);
            (assembler.finish(), lanes)
        })
    }
}

/// The export of `trace` into `sink` (planes in order: host, devices, scope-range tree; then
/// the warnings). Returns which stream or queue each device line shows.
pub fn export_into<S: XSpaceSink>(
    trace: &CollectedTrace,
    end_gputime_ns: u64,
    options: &ExportOptions,
    sink: &mut S,
) -> Vec<Lane> {
    let timeline = Timeline::new(trace.start, end_gputime_ns);
    let mut placed = place_events(trace, &timeline);
    // The stream waits' flows: two zero-length events each, on the lanes of the work they join.
    let flow_ends = wait_flow_ends(&placed.events, &trace.event_calls, &placed.devices);
    placed.add_flow_ends(flow_ends);
    sink.expect_events(placed.count());
    let mut lines = LineBuilder::new(sink, &timeline, placed.events);

    // The planes in XSpace order: host, devices, scope-range tree.
    add_host_plane(&mut lines, placed.host_threads, placed.roctx_threads);
    let mut all_lanes = Vec::new();
    for (ordinal, device_events) in (0..trace.options.num_gpus).zip(placed.devices) {
        let lanes = add_device_plane(&mut lines, trace, ordinal, device_events, options);
        all_lanes.extend(lanes);
    }
    // Id 0 like XLA's: it adds the plane by name and never sets an id
    // (docs/xla-interface.md#scope-range-tree).
    let sink = lines.sink;
    sink.finish_plane(scope_range_tree_plane(0, &trace.scope_range_tree));
    let warnings = warnings(trace, &placed.drops, placed.unattributed);
    sink.finish_space(&[], &warnings, &[]);
    all_lanes
}

/// The host plane: a line per thread with HIP API calls, each followed by its thread's ROCTx
/// line.
fn add_host_plane<S: XSpaceSink>(
    lines: &mut LineBuilder<'_, S>,
    mut host_threads: BTreeMap<u64, Vec<Placed>>,
    mut roctx_threads: BTreeMap<u64, Vec<Placed>>,
) {
    let threads: BTreeSet<u64> = host_threads
        .keys()
        .chain(roctx_threads.keys())
        .copied()
        .collect();
    let mut host_plane = PlaneBuilder::new(0, HOST_PLANE_NAME);
    for thread_id in threads {
        if let Some(mut events) = host_threads.remove(&thread_id) {
            lines.events.sort_by_time(&mut events);
            lines.build_line(
                &mut host_plane,
                thread_id as i64,
                &host_line_name(thread_id),
                &events,
                &[],
            );
        }
        if let Some(mut events) = roctx_threads.remove(&thread_id) {
            // Enclosing ranges first: ranges pushed at one instant nest outermost first.
            events.sort_by_key(|&placed| {
                let (start, end) = lines.events.times(placed);
                (start, std::cmp::Reverse(end))
            });
            let (line_id, line_name) = roctx_line(thread_id);
            lines.build_line(&mut host_plane, line_id, &line_name, &events, &[]);
        }
    }
    host_plane.finish_into(lines.sink);
}

/// `ExportScopeRangeIdTree` (docs/xla-interface.md#scope-range-tree): one plane stat per edge, metadata id = child, value = parent.
fn scope_range_tree_plane(id: i64, tree: &BTreeMap<i64, i64>) -> super::xplane_proto::XPlane {
    let mut plane = PlaneBuilder::new(id, SCOPE_RANGE_TREE_PLANE_NAME);
    for (&child, &parent) in tree {
        plane.add_plane_stat(XStat {
            metadata_id: child,
            value: Some(x_stat::Value::Int64Value(parent)),
        });
    }
    plane.finish()
}
