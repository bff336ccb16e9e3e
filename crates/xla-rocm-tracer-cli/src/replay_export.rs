//! The sink a replay session is exported into: the trace file's bytes and the report's
//! summary at once, as the export runs, so that no plane is ever built as a prost message
//! (at a million steps that plane was the largest thing the process held).
use std::io::Write;
use std::sync::Arc;

use xla_rocm_tracer::export::plane_names::{HOST_CPU_PLANE_NAME, HOST_PLANE_NAME};
use xla_rocm_tracer::export::{EventView, LineHeader, XPlane, XSpaceEncoder, XSpaceSink};

use crate::streaming_summary::StreamingSummary;

pub struct ReplayExport<W: Write> {
    pub file: XSpaceEncoder<W>,
    pub summary: StreamingSummary,
}

impl<W: Write> ReplayExport<W> {
    pub fn new(out: W) -> ReplayExport<W> {
        // A plane's encoded lines wait for its end in an unnamed temporary file, which the
        // system removes however the process ends; in memory (about 60 bytes per event) only
        // if no such file can be made.
        let file = match tempfile::tempfile() {
            Ok(spill) => XSpaceEncoder::with_spill(out, spill),
            Err(_) => XSpaceEncoder::new(out),
        };
        ReplayExport {
            file,
            summary: StreamingSummary::default(),
        }
    }
}

impl<W: Write> XSpaceSink for ReplayExport<W> {
    fn expect_events(&mut self, events: usize) {
        self.file.expect_events(events);
        self.summary.expect_events(events);
    }

    fn name_event_metadata(&mut self, metadata_id: i64, name: &str) {
        self.file.name_event_metadata(metadata_id, name);
        self.summary.name_event_metadata(metadata_id, name);
    }

    fn name_stat_metadata(&mut self, metadata_id: i64, name: &str) {
        self.file.name_stat_metadata(metadata_id, name);
        self.summary.name_stat_metadata(metadata_id, name);
    }

    fn start_line(&mut self, line: LineHeader<'_>) {
        self.file.start_line(line);
        self.summary.start_line(line);
    }

    fn add_event(&mut self, event: EventView<'_>) {
        self.file.add_event(event);
        self.summary.add_event(event);
    }

    fn finish_plane(&mut self, mut plane: XPlane) {
        rename_host_plane(&mut plane);
        // Without lines: its metadata and stats only, lent to the file (not copied).
        self.file.write_plane(&plane);
        self.summary.finish_plane(plane);
    }

    fn finish_plane_with_stat_names(&mut self, mut plane: XPlane, stat_names: Vec<Arc<str>>) {
        rename_host_plane(&mut plane);
        // The stat metadata are encoded from the names, never made a map of.
        self.file.write_plane_with_stat_names(&plane, &stat_names);
        self.summary.finish_plane_with_stat_names(plane, stat_names);
    }

    fn finish_space(&mut self, errors: &[String], warnings: &[String], hostnames: &[String]) {
        self.file.finish_space(errors, warnings, hostnames);
        self.summary.finish_space(errors, warnings, hostnames);
    }
}

/// As `merge_host_api_plane` does for a space without a `/host:CPU`.
fn rename_host_plane(plane: &mut XPlane) {
    if plane.name == HOST_PLANE_NAME {
        plane.name = HOST_CPU_PLANE_NAME.to_owned();
    }
}
