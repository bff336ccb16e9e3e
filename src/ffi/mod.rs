//! The two foreign boundaries: the cxx bridge the XLA-facing C++ shims (`cpp/`) call, and the
//! C ABI (`include/xla_rocm_tracer.h`) for C and other languages. Both carry events in the one
//! flat form of `flat_event`.
pub mod bridge;
pub mod capi;
mod flat_event;

use crate::collector::Collector;
use crate::tracer::Tracer;

/// Ends the tracer's session and gives `collector` the scope-range-id tree the session's
/// annotations recorded (XLA's `device_tracer_rocm.cc` does this through
/// `AnnotationMap::TakeScopeRangeIdTree`; sessions delivering into Rust record it in Rust).
fn disable_into(collector: &Collector) {
    let tracer = Tracer::get();
    tracer.disable();
    collector.set_scope_range_id_tree(tracer.annotation_map().take_scope_range_id_tree());
}
