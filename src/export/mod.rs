//! From collected events to an XSpace, and XSpace files (docs/xla-interface.md#export).
//! The path of an export: placement.rs decides each event's line, xspace_builder.rs builds
//! the planes in order, line_builder.rs writes a line's events (event_stats.rs: their stats),
//! device_lanes.rs a device's lanes (stream_lanes.rs: their numbers and names), all into a
//! sink (xspace_sink.rs; xspace_encoder.rs for a file's bytes).
mod annotation;
pub mod capture_folder;
mod details_input;
mod device_capabilities;
mod device_lanes;
mod event_stats;
mod flows;
mod host_plane_merge;
mod line_builder;
pub mod log_folder;
mod occupancy;
mod options;
mod placement;
mod plane_builder;
pub mod plane_names;
mod stream_lanes;
mod timeline;
mod trace_file;
mod xla_trace_merge;
pub mod xplane_proto;
mod xplane_wire;
mod xspace_builder;
mod xspace_encoder;
mod xspace_sink;

pub use annotation::{parse_annotation, parse_annotation_stack, Annotation};
pub use device_capabilities::device_capabilities_plane;
pub use device_lanes::Lane;
pub use event_stats::{
    kernel_details_string, memalloc_details_string, memcpy_details_string, memset_details_string,
    KernelDevice,
};
pub use host_plane_merge::{merge_host_api_plane, merge_plane};
pub use options::{ExportOptions, GroupBy};
pub use stream_lanes::LANE_LINE_ID_BASE;
pub use trace_file::{
    create_file_with, encode_xspace, encode_xspace_to, read_xspace, read_xspace_file,
    replace_file_with, write_xspace, TraceError,
};
pub use xplane_proto::{XEvent, XEventMetadata, XLine, XPlane, XSpace, XStat, XStatMetadata};
pub use xspace_builder::export_into;
pub use xspace_encoder::XSpaceEncoder;
pub use xspace_sink::{
    replay_planes, replay_xspace, shown_event_name, EventView, LineHeader, XSpaceAssembler,
    XSpaceSink,
};
