//! From collected events to an XSpace, and XSpace files (docs/xla-interface.md#export).
mod annotation;
pub mod capture_folder;
mod details_input;
mod device_capabilities;
mod event_stats;
mod host_plane_merge;
pub mod log_folder;
mod occupancy;
mod plane_builder;
pub mod plane_names;
mod stream_lanes;
mod timeline;
mod trace_file;
mod xla_trace_merge;
pub mod xplane_proto;
mod xspace_builder;
mod xspace_encoder;
mod xspace_sink;

pub use annotation::{parse_annotation, parse_annotation_stack, Annotation};
pub use device_capabilities::device_capabilities_plane;
pub use event_stats::{
    kernel_details_string, memalloc_details_string, memcpy_details_string, memset_details_string,
    KernelDevice,
};
pub use host_plane_merge::{merge_host_api_plane, merge_plane, merge_xspace};
pub use stream_lanes::LANE_LINE_ID_BASE;
pub use trace_file::{
    create_file_with, encode_xspace, encode_xspace_to, read_xspace, read_xspace_file,
    replace_file_with, write_xspace, TraceError,
};
pub use xplane_proto::{XEvent, XEventMetadata, XLine, XPlane, XSpace, XStat, XStatMetadata};
pub use xspace_builder::{
    build_xspace, build_xspace_with_lanes, export_into, ExportOptions, GroupBy, Lane,
};
pub use xspace_encoder::XSpaceEncoder;
pub use xspace_sink::{
    replay_planes, replay_xspace, shown_event_name, EventView, LineHeader, XSpaceAssembler,
    XSpaceSink,
};
