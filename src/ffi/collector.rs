//! The collector's cxx bridge: the Rust collector behind a C++ collector object, the session
//! that delivers straight into it, its export (as the columns of `flat_xspace`), and the
//! plane helpers `PerDeviceCollector` uses.
use std::sync::Arc;

use parking_lot::Mutex;
use prost::Message;
use rocprofiler_sdk_sys as sys;

use super::event::{Utf8, XrtEvent};
use super::flat_xspace::{FlatXSpace, FlatXSpaceSink};
use super::status::{agent_size_matches, guarded, ok, status, BridgeStatus, StatusCode};
use super::tracer::{enable, Delivery};
use crate::collector::{CaptureStart, Collector, CollectorOptions};
use crate::export::{device_capabilities_plane, export_into, merge_plane, plane_names, XPlane};
use crate::gpu_agent::GpuAgentInfo;

#[cxx::bridge(namespace = "xla::profiler::rust_bridge")]
mod bridge {
    struct ScopeRangeEdge {
        child: i64,
        parent: i64,
    }

    /// `RocmTraceCollectorOptions` and the capture start of one collector.
    struct CollectorConfig {
        max_callback_api_events: u64,
        max_activity_api_events: u64,
        max_annotation_strings: u64,
        num_gpus: u32,
        start_walltime_ns: u64,
        start_gputime_ns: u64,
    }

    struct DropCount {
        reason: String,
        count: u64,
    }

    struct ExportResult {
        status: BridgeStatus,
        xspace: FlatXSpace,
        /// What the collector dropped, for a C++ collector's `OnEventsDropped`.
        drops: Vec<DropCount>,
    }

    /// One device's export, as `PerDeviceCollector::Export` writes it: its device plane and
    /// its host plane, each a space of that one plane (of none when there is nothing for it).
    struct DevicePlanes {
        status: BridgeStatus,
        device_plane: FlatXSpace,
        host_plane: FlatXSpace,
    }

    struct Bytes {
        status: BridgeStatus,
        bytes: Vec<u8>,
    }

    extern "C++" {
        include!("xla-rocm-tracer/src/ffi/status.rs.h");
        include!("xla-rocm-tracer/src/ffi/flat_xspace.rs.h");
        include!("xla_rocm_tracer.h");
        type BridgeStatus = crate::ffi::status::BridgeStatus;
        type FlatXSpace = crate::ffi::flat_xspace::FlatXSpace;
        #[namespace = ""]
        type XrtEvent = crate::ffi::event::XrtEvent;
    }

    extern "Rust" {
        /// The Rust collector behind `CreateRocmCollector`'s collector (and behind a
        /// `RocmTraceCollectorImpl` that C++ code builds itself).
        type SessionCollector;

        fn new_session_collector(config: &CollectorConfig) -> Box<SessionCollector>;
        /// Starts a tracer session that delivers straight into `collector`.
        fn tracer_enable_into(
            max_annotation_strings: u64,
            collector: &SessionCollector,
        ) -> BridgeStatus;
        /// `count` `rocprofiler_agent_v0_t` of `agent_size` bytes each, in device order.
        unsafe fn set_gpu_agents(
            self: &SessionCollector,
            agents: *const u8,
            count: usize,
            agent_size: usize,
        );
        /// `event`'s strings are null or NUL-terminated (read lossily if not UTF-8).
        unsafe fn add_event(self: &SessionCollector, event: &XrtEvent, is_auxiliary: bool);
        fn add_drop(self: &SessionCollector, reason: &str, count: u64);
        fn add_scope_range_edges(self: &SessionCollector, edges: &[ScopeRangeEdge]);
        /// Exports and forgets what was collected; `end_gputime_ns` 0 bounds nothing.
        fn export_xspace(self: &SessionCollector, end_gputime_ns: u64) -> ExportResult;
        /// As `export_xspace`, for a one-GPU collector: its device plane and host plane.
        fn export_device_planes(self: &SessionCollector, end_gputime_ns: u64) -> DevicePlanes;

        /// A serialized XPlane holding only the capability stats of `agent` (a
        /// `const rocprofiler_agent_v0_t*` of `agent_size` bytes).
        unsafe fn device_capability_stats(agent: *const u8, agent_size: usize) -> Bytes;
        /// Merges serialized XPlane `from` into serialized XPlane `into`.
        fn merge_xplanes(into: &[u8], from: &[u8]) -> Bytes;
    }
}

use bridge::{Bytes, CollectorConfig, DevicePlanes, DropCount, ExportResult, ScopeRangeEdge};

/// The Rust collector of one C++ collector object. Export forgets what was exported (XLA's
/// collectors empty themselves on export), so the collector is replaced by a fresh one with
/// the same options, start and agents.
pub(super) struct SessionCollector {
    current: Mutex<Arc<Collector>>,
}

impl SessionCollector {
    fn current(&self) -> Arc<Collector> {
        self.current.lock().clone()
    }

    /// Takes the collector out, leaving an empty one configured alike.
    fn take(&self) -> Arc<Collector> {
        let mut current = self.current.lock();
        let fresh = Arc::new(Collector::new(current.options(), current.start()));
        fresh.set_gpu_agents(current.with_collected(|trace| trace.gpu_agents.clone()));
        std::mem::replace(&mut *current, fresh)
    }

    /// # Safety
    /// `agents` is null or points to `count` SDK agent structs of `agent_size` bytes, whose
    /// string and bank pointers are valid for the call.
    unsafe fn set_gpu_agents(&self, agents: *const u8, count: usize, agent_size: usize) {
        guarded(
            "SessionCollector::set_gpu_agents",
            || (),
            || {
                // SAFETY: per this function's contract.
                let list = unsafe { gpu_agent_infos(agents, count, agent_size) };
                self.current().set_gpu_agents(list);
            },
        )
    }

    /// # Safety
    /// `event`'s strings are null or NUL-terminated, valid for the call.
    unsafe fn add_event(&self, event: &XrtEvent, is_auxiliary: bool) {
        guarded(
            "SessionCollector::add_event",
            || (),
            || {
                // SAFETY: per this function's contract.
                if let Some(event) = unsafe { event.rust_event(Utf8::Lossy) } {
                    self.current().add_event(event, is_auxiliary);
                }
            },
        )
    }

    fn add_drop(&self, reason: &str, count: u64) {
        guarded(
            "SessionCollector::add_drop",
            || (),
            || self.current().add_reported_drop(reason, count),
        )
    }

    fn add_scope_range_edges(&self, edges: &[ScopeRangeEdge]) {
        guarded(
            "SessionCollector::add_scope_range_edges",
            || (),
            || {
                self.current()
                    .set_scope_range_id_tree(edges.iter().map(|edge| (edge.child, edge.parent)))
            },
        )
    }

    fn export_xspace(&self, end_gputime_ns: u64) -> ExportResult {
        guarded(
            "SessionCollector::export_xspace",
            || ExportResult {
                status: status(StatusCode::Internal, "panic while exporting the ROCm trace"),
                xspace: FlatXSpace::default(),
                drops: Vec::new(),
            },
            || {
                let collector = self.take();
                let (xspace, drops) = collector.with_collected(|trace| {
                    let mut columns = FlatXSpaceSink::default();
                    let options = crate::ffi::export_options();
                    export_into(trace, end_gputime_ns, &options, &mut columns);
                    (columns.finish(), drop_counts(&trace.drops))
                });
                ExportResult {
                    status: ok(),
                    xspace,
                    drops,
                }
            },
        )
    }

    fn export_device_planes(&self, end_gputime_ns: u64) -> DevicePlanes {
        guarded(
            "SessionCollector::export_device_planes",
            || DevicePlanes {
                status: status(StatusCode::Internal, "panic while exporting a ROCm device"),
                device_plane: FlatXSpace::default(),
                host_plane: FlatXSpace::default(),
            },
            || {
                let collector = self.take();
                let space = collector.export(end_gputime_ns, &crate::ffi::export_options());
                let only = |name: &str| {
                    let planes = space.planes.iter().filter(|plane| plane.name == name);
                    FlatXSpace::of_planes(planes)
                };
                DevicePlanes {
                    status: ok(),
                    device_plane: only(&plane_names::gpu_plane_name(0)),
                    host_plane: only(plane_names::HOST_PLANE_NAME),
                }
            },
        )
    }
}

fn tracer_enable_into(max_annotation_strings: u64, collector: &SessionCollector) -> BridgeStatus {
    guarded(
        "tracer_enable_into",
        || status(StatusCode::Internal, "panic while enabling the ROCm tracer"),
        || {
            enable(
                max_annotation_strings,
                Delivery::Direct(collector.current()),
            )
        },
    )
}

fn new_session_collector(config: &CollectorConfig) -> Box<SessionCollector> {
    let collector = Collector::new(
        CollectorOptions {
            max_callback_api_events: config.max_callback_api_events,
            max_activity_api_events: config.max_activity_api_events,
            max_annotation_strings: config.max_annotation_strings,
            num_gpus: config.num_gpus,
        },
        CaptureStart {
            walltime_ns: config.start_walltime_ns,
            gputime_ns: config.start_gputime_ns,
        },
    );
    Box::new(SessionCollector {
        current: Mutex::new(Arc::new(collector)),
    })
}

/// Every drop of a trace under the text its warning gives.
fn drop_counts(drops: &crate::collector::DropCounters) -> Vec<DropCount> {
    let by_reason = drops.by_reason().iter().map(|(reason, &count)| DropCount {
        reason: reason.describe().to_owned(),
        count,
    });
    let by_tracer = drops
        .by_reported_reason()
        .iter()
        .map(|(reason, &count)| DropCount {
            reason: reason.clone(),
            count,
        });
    by_reason.chain(by_tracer).collect()
}

/// The capability values of C++ `rocprofiler_agent_v0_t`s; none if the struct size differs
/// from this library's.
///
/// # Safety
/// As [`SessionCollector::set_gpu_agents`].
unsafe fn gpu_agent_infos(agents: *const u8, count: usize, agent_size: usize) -> Vec<GpuAgentInfo> {
    if agents.is_null() || count == 0 {
        return Vec::new();
    }
    if !agent_size_matches(agent_size) {
        return Vec::new();
    }
    (0..count)
        .map(|index| {
            // SAFETY: per this function's contract; unaligned in case the caller's buffer is
            // only byte-aligned.
            let agent = unsafe {
                (agents as *const sys::rocprofiler_agent_v0_t)
                    .add(index)
                    .read_unaligned()
            };
            // SAFETY: the agent's pointers are valid per this function's contract.
            unsafe { GpuAgentInfo::from_sdk(&agent) }
        })
        .collect()
}

/// # Safety
/// `agent` is null or points to an SDK agent struct of `agent_size` bytes whose string and
/// bank pointers are valid for the call.
unsafe fn device_capability_stats(agent: *const u8, agent_size: usize) -> Bytes {
    guarded(
        "device_capability_stats",
        || Bytes::failed("panic while reading device capabilities"),
        || {
            // SAFETY: per this function's contract.
            match unsafe { gpu_agent_infos(agent, 1, agent_size) }.first() {
                Some(info) => Bytes::of(device_capabilities_plane(info).encode_to_vec()),
                None => Bytes::failed("no readable agent"),
            }
        },
    )
}

fn merge_xplanes(into: &[u8], from: &[u8]) -> Bytes {
    guarded(
        "merge_xplanes",
        || Bytes::failed("panic while merging planes"),
        || match (XPlane::decode(into), XPlane::decode(from)) {
            (Ok(mut into), Ok(from)) => {
                merge_plane(from, &mut into);
                Bytes::of(into.encode_to_vec())
            }
            _ => Bytes::failed("an XPlane to merge is unreadable"),
        },
    )
}

impl Bytes {
    fn of(bytes: Vec<u8>) -> Bytes {
        Bytes {
            status: ok(),
            bytes,
        }
    }

    fn failed(message: &str) -> Bytes {
        Bytes {
            status: status(StatusCode::Internal, message),
            bytes: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{
        EventDetails, EventDomain, EventSource, EventType, KernelDetails, RocmTracerEvent,
    };
    use crate::export::ExportOptions;
    use crate::sink::EventSink;

    fn config() -> CollectorConfig {
        CollectorConfig {
            max_callback_api_events: 100,
            max_activity_api_events: 100,
            max_annotation_strings: 100,
            num_gpus: 1,
            start_walltime_ns: 1000,
            start_gputime_ns: 5,
        }
    }

    fn launch_and_kernel() -> Vec<RocmTracerEvent> {
        let base = RocmTracerEvent {
            event_type: EventType::Kernel,
            name: Arc::from("k"),
            correlation_id: 7,
            start_time_ns: 10,
            end_time_ns: 20,
            ..RocmTracerEvent::default()
        };
        vec![
            RocmTracerEvent {
                source: EventSource::ApiCallback,
                domain: EventDomain::HipApi,
                name: Arc::from("hipLaunchKernel"),
                thread_id: 42,
                ..base.clone()
            },
            RocmTracerEvent {
                source: EventSource::Activity,
                domain: EventDomain::HipOps,
                stream_id: 3,
                queue_id: 99,
                device_id: 0,
                annotation: Some(Arc::from("step")),
                scope_range_id: 5,
                details: EventDetails::Kernel(KernelDetails::from_array([
                    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                ])),
                ..base
            },
        ]
    }

    #[test]
    fn a_session_collector_exports_what_the_rust_collector_exports_then_forgets_it() {
        let events = launch_and_kernel();
        let session = new_session_collector(&config());
        for event in &crate::ffi::event::XrtEvents::of(&events).events {
            // SAFETY: the strings are the batch's own, alive here.
            unsafe { session.add_event(event, false) };
        }
        session.add_scope_range_edges(&[ScopeRangeEdge {
            child: 5,
            parent: 4,
        }]);
        let configured = session.current();
        assert_eq!(
            (
                configured.start().gputime_ns,
                configured.options().max_annotation_strings
            ),
            (5, 100)
        );
        let collector = Collector::new(configured.options(), configured.start());
        collector.add_events(&mut events.clone());
        collector.set_scope_range_id_tree([(5, 4)]);
        let columns = |space: &crate::export::XSpace| format!("{:?}", FlatXSpace::of(space));
        let expected = columns(&collector.export(1_000_000, &ExportOptions::default()));

        let exported = session.export_xspace(1_000_000);
        assert_eq!(exported.status.code, StatusCode::Ok);
        assert_eq!(format!("{:?}", exported.xspace), expected);
        let again = session.export_xspace(1_000_000);
        let empty = Collector::new(collector.options(), collector.start());
        assert_eq!(
            format!("{:?}", again.xspace),
            columns(&empty.export(1_000_000, &ExportOptions::default()))
        );
    }

    #[test]
    fn drops_reported_to_a_session_collector_come_back_with_the_export() {
        let session = new_session_collector(&config());
        session.add_drop("lost in a test", 4);
        let exported = session.export_xspace(0);
        assert!(exported
            .drops
            .iter()
            .any(|drop| drop.reason == "lost in a test" && drop.count == 4));
    }

    #[test]
    fn merging_planes_matches_metadata_by_name() {
        let plane = |event_name: &str| {
            let mut builder = crate::export::XPlane {
                id: 1,
                name: "/device:GPU:0".to_owned(),
                ..Default::default()
            };
            builder.event_metadata.insert(
                1,
                crate::export::XEventMetadata {
                    id: 1,
                    name: event_name.to_owned(),
                    ..Default::default()
                },
            );
            builder.encode_to_vec()
        };
        let merged = merge_xplanes(&plane("a"), &plane("b"));
        assert_eq!(merged.status.code, StatusCode::Ok);
        let merged = XPlane::decode(merged.bytes.as_slice()).unwrap();
        let mut names: Vec<_> = merged
            .event_metadata
            .values()
            .map(|m| m.name.clone())
            .collect();
        names.sort();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(
            merge_xplanes(b"\xff", &plane("a")).status.code,
            StatusCode::Internal
        );
    }
}
