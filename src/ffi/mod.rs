//! The two foreign boundaries, both carrying events as the one flat event of `event`
//! (`XrtEvent`):
//! - the C ABI (`capi`, `include/xla_rocm_tracer.h`) for C and other languages;
//! - the cxx bridges the XLA-facing C++ shims (`cpp/`) call, one per concern, around the
//!   shared status of `status`: `tracer` (registration, sessions to a C++ collector, the
//!   record decoder, ROCTx), `collector` (the Rust collector of a C++ collector object, its
//!   session and export), `flat_xspace` (the export's XSpace as columns) and `host` (what the
//!   Rust core calls in C++). docs/ARCHITECTURE.md draws the flow.
//!
//! The path XLA runs crosses per session, not per event: `CreateRocmCollector` returns a
//! collector backed by a Rust `SessionCollector`, `RocmTracer::Enable` with it makes the
//! tracer deliver straight into that collector (`tracer_enable_into`), and `Export` crosses
//! once for the XSpace, as columns C++ builds it from. Any other `RocmTraceCollector` (a
//! test's subclass, `hlo_op_profiler`'s) is served by a narrow adapter: each buffer
//! callback's events are handed to C++ once (`deliver_events`), which calls that collector's
//! `AddEvent`. Every bridge function runs on the calling C++ thread; the host functions run on
//! the SDK's threads (delivery) and the application's (HIP API ENTER).
pub mod capi;
mod collector;
mod event;
mod flat_xspace;
mod host;
mod status;
mod tracer;

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

/// The environment variable that chooses device lanes on the XLA path, where no flag can be
/// added: `stream` (the default) or `queue` (docs/xla-interface.md#stream-lanes).
pub const GROUP_BY_VARIABLE: &str = "XLA_ROCM_TRACER_GROUP_BY";

/// The export options of the XLA path and the C ABI: [`GROUP_BY_VARIABLE`] is read once per
/// process; a bad value is warned about once and the default kept.
pub fn export_options() -> crate::export::ExportOptions {
    static OPTIONS: std::sync::OnceLock<crate::export::ExportOptions> = std::sync::OnceLock::new();
    OPTIONS
        .get_or_init(|| {
            let value = std::env::var(GROUP_BY_VARIABLE).ok();
            let (options, warning) = export_options_from(value.as_deref());
            if let Some(warning) = warning {
                log::warn!("{warning}");
            }
            options
        })
        .clone()
}

/// [`export_options`] for a given value of [`GROUP_BY_VARIABLE`] (`None` = unset), with the
/// warning a bad value gets.
pub fn export_options_from(
    group_by: Option<&str>,
) -> (crate::export::ExportOptions, Option<String>) {
    use crate::export::{ExportOptions, GroupBy};
    let mut options = ExportOptions::default();
    let Some(value) = group_by.filter(|value| !value.trim().is_empty()) else {
        return (options, None);
    };
    match GroupBy::parse(value) {
        Some(group_by) => {
            options.group_by = group_by;
            (options, None)
        }
        None => (
            options,
            Some(format!(
                "{GROUP_BY_VARIABLE}={value:?} is not `stream` or `queue`; device lanes stay \
                 grouped by stream"
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::GroupBy;

    #[test]
    fn group_by_variable_values() {
        assert_eq!(export_options_from(None).0.group_by, GroupBy::Stream);
        assert_eq!(export_options_from(Some("")).1, None);
        assert_eq!(
            export_options_from(Some("queue")).0.group_by,
            GroupBy::Queue
        );
        assert_eq!(
            export_options_from(Some(" QUEUE ")).0.group_by,
            GroupBy::Queue
        );
        assert_eq!(
            export_options_from(Some("stream")).0.group_by,
            GroupBy::Stream
        );
        let (options, warning) = export_options_from(Some("queues"));
        assert_eq!(options.group_by, GroupBy::Stream);
        let warning = warning.expect("a bad value is warned about");
        assert!(warning.contains("XLA_ROCM_TRACER_GROUP_BY") && warning.contains("\"queues\""));
    }
}
