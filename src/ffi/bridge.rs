//! The C++ boundary: the one cxx bridge between the Rust core and the XLA-facing C++ shims
//! (`cpp/rocm_tracer.cc`, `cpp/rocm_collector.cc`). docs/ARCHITECTURE.md draws the flow.
//!
//! The path XLA runs crosses it per session, not per event: `CreateRocmCollector` returns a
//! collector backed by a [`SessionCollector`] (the Rust collector), `RocmTracer::Enable` with it
//! makes the tracer deliver straight into that collector ([`tracer_enable_into`]), and `Export`
//! crosses once for the encoded XSpace. Any other `RocmTraceCollector` (a test's subclass,
//! `hlo_op_profiler`'s) is served by a narrow adapter: each buffer callback's events are handed
//! to C++ once ([`ffi::deliver_events`]), which calls that collector's `AddEvent`.
//!
//! Only cxx types cross: no absl, no C++ exceptions (fallible calls return
//! [`ffi::BridgeStatus`]), and no panic escapes: every function here catches unwinding and
//! reports it as an error.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};

use parking_lot::Mutex;
use prost::Message;
use rocprofiler_sdk_sys as sys;

use crate::collector::{CaptureStart, Collector, CollectorOptions};
use crate::drop_reason::DropReason;
use crate::event::{EventDetails, EventSource, KernelDetails, RocmTracerEvent};
use crate::export::{
    build_xspace, device_capabilities_plane, encode_xspace, merge_plane, plane_names, XPlane,
};
use crate::ffi::flat_event::{DetailCode, FlatDetails, FlatEvent};
use crate::gpu_agent::GpuAgentInfo;
use crate::sink::{EventSink, SessionEnd};
use crate::tracer::agents::AgentInfo;
use crate::tracer::annotation::{AnnotationMap, AnnotationSource};
use crate::tracer::{Tracer, TracerError, TracerOptions};

#[cxx::bridge(namespace = "xla::profiler::rust_bridge")]
mod ffi {
    /// The absl status code a shim returns.
    #[derive(Debug)]
    enum StatusCode {
        Ok,
        AlreadyExists,
        Internal,
    }

    #[derive(Debug)]
    struct BridgeStatus {
        code: StatusCode,
        message: String,
    }

    /// `log::Level`, for the shim's absl LOG.
    enum LogLevel {
        Error,
        Warn,
        Info,
        Debug,
        Trace,
    }

    /// Which member of `RocmTracerEvent`'s detail union is meaningful (the flat form's
    /// `DetailCode`, in the same order).
    #[derive(Debug)]
    enum DetailKind {
        None,
        Kernel,
        Memcpy,
        Memset,
        MemAlloc,
    }

    /// XLA's `KernelDetails` without `func_ptr` (which no record carries).
    #[derive(Debug, Default)]
    struct BridgeKernel {
        private_segment_size: u32,
        group_segment_size: u32,
        workgroup_x: u32,
        workgroup_y: u32,
        workgroup_z: u32,
        grid_x: u32,
        grid_y: u32,
        grid_z: u32,
    }

    /// `xla::profiler::RocmTracerEvent`, flattened (enums as their XLA integer values).
    #[derive(Debug)]
    struct BridgeEvent {
        event_type: u32,
        source: u32,
        domain: u32,
        name: String,
        annotation: String,
        start_time_ns: u64,
        end_time_ns: u64,
        device_id: u32,
        correlation_id: u64,
        thread_id: u64,
        stream_id: u64,
        queue_id: u64,
        scope_range_id: i64,
        detail_kind: DetailKind,
        kernel: BridgeKernel,
        /// Memcpy, memset, memory allocation.
        num_bytes: u64,
        /// Memcpy: destination agent handle truncated to 32 bits.
        destination: u32,
        is_async: bool,
    }

    /// What the C++ `RocmTracer` mirrors into XLA's public members.
    struct TracerState {
        available: bool,
        /// Why the tracer cannot trace (empty if it can).
        init_error: String,
        num_gpus: u32,
        utility_context: u64,
        context: u64,
        buffer: u64,
        hip_stream_context: u64,
    }

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
        /// A serialized `tensorflow.profiler.XSpace`.
        xspace: Vec<u8>,
        /// What the collector dropped, for a C++ collector's `OnEventsDropped`.
        drops: Vec<DropCount>,
    }

    /// One device's export, as `PerDeviceCollector::Export` writes it: serialized XPlanes
    /// (empty when there is nothing for that plane).
    struct DevicePlanes {
        status: BridgeStatus,
        device_plane: Vec<u8>,
        host_plane: Vec<u8>,
    }

    struct Bytes {
        status: BridgeStatus,
        bytes: Vec<u8>,
    }

    /// One rocprofiler-sdk record decoded by the tracer (XLA's `HipApiEvent`, `KernelEvent`,
    /// `MemcpyEvent`).
    struct DecodedRecord {
        /// `Ok`, or `Internal` with why the record gives no event.
        status: BridgeStatus,
        event: BridgeEvent,
    }

    /// tsl's `AnnotationStack` of the calling thread, borrowed: valid until that thread
    /// changes its annotation stack. `text` is null when there is no annotation.
    struct AnnotationView {
        text: *const u8,
        text_len: usize,
        scope_range_ids: *const i64,
        num_scope_range_ids: usize,
    }

    extern "Rust" {
        /// The Rust collector behind `CreateRocmCollector`'s collector (and behind a
        /// `RocmTraceCollectorImpl` that C++ code builds itself).
        type SessionCollector;

        /// Registers the tool with rocprofiler-sdk if the load-time constructor did not, and
        /// routes Rust log lines and annotations through the C++ side. Idempotent.
        fn ensure_registered();
        fn tracer_state() -> TracerState;
        /// Copies up to `capacity` GPU agents (`rocprofiler_agent_v0_t`, query order) to
        /// `out`; returns how many GPU agents there are, or 0 if `agent_size` is not the
        /// size this library was built with.
        unsafe fn tracer_copy_gpu_agents(out: *mut u8, capacity: usize, agent_size: usize)
            -> usize;
        /// As `tracer_copy_gpu_agents`, for every agent (CPUs too), in no particular order.
        unsafe fn tracer_copy_all_agents(out: *mut u8, capacity: usize, agent_size: usize)
            -> usize;
        /// Starts a session that delivers straight into `collector`.
        fn tracer_enable_into(
            max_annotation_strings: u64,
            collector: &SessionCollector,
        ) -> BridgeStatus;
        /// Starts a session that delivers through `deliver_events` to the C++ tracer's
        /// collector.
        fn tracer_enable_for_cpp_collector(max_annotation_strings: u64) -> BridgeStatus;
        /// Ends the session: every record it made has been delivered when this returns.
        fn tracer_disable();
        fn tracer_timestamp() -> u64;
        /// Decodes the record behind `header` (a `const rocprofiler_record_header_t*`) with
        /// the tracer's own decoder.
        unsafe fn tracer_decode_record(header: *const u8) -> DecodedRecord;

        fn new_session_collector(config: &CollectorConfig) -> Box<SessionCollector>;
        /// `count` `rocprofiler_agent_v0_t` of `agent_size` bytes each, in device order.
        unsafe fn set_gpu_agents(
            self: &SessionCollector,
            agents: *const u8,
            count: usize,
            agent_size: usize,
        );
        fn add_event(self: &SessionCollector, event: &BridgeEvent, is_auxiliary: bool);
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

    unsafe extern "C++" {
        include!("xla-rocm-tracer/cpp/bridge_callbacks.h");

        /// tsl's `AnnotationStack` of the calling thread (HIP API ENTER, launching thread).
        fn read_annotation_stack() -> AnnotationView;
        /// Records tsl's `AnnotationStack` of the calling thread under `correlation_id` into
        /// the C++ tracer's `annotation_map_` (sessions with a C++ collector).
        fn record_hip_api_annotation(correlation_id: u64);
        /// One buffer callback's events, for the C++ tracer's collector.
        fn deliver_events(events: &[BridgeEvent]);
        fn deliver_dropped(reason: &str, count: u64);
        /// The absl VLOG verbosity of the shim (0 if none), read once for Rust's log level.
        fn shim_vlog_level() -> i32;
        fn log_from_rust(level: LogLevel, message: &str);
    }
}

pub use ffi::{
    AnnotationView, BridgeEvent, BridgeKernel, BridgeStatus, Bytes, CollectorConfig, DecodedRecord,
    DetailKind, DevicePlanes, DropCount, ExportResult, ScopeRangeEdge, StatusCode, TracerState,
};

/// Runs `body`, turning a panic into `fallback` so that it never unwinds into C++.
fn guarded<T>(what: &str, fallback: impl FnOnce() -> T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(_) => {
            log::error!("xla-rocm-tracer: panic in {what}; returned an error instead");
            fallback()
        }
    }
}

fn status(code: StatusCode, message: impl Into<String>) -> BridgeStatus {
    BridgeStatus {
        code,
        message: message.into(),
    }
}

fn ok() -> BridgeStatus {
    status(StatusCode::Ok, "")
}

// ---------------------------------------------------------------------------------------
// C++ -> Rust: the tracer
// ---------------------------------------------------------------------------------------

static CPP_SIDE: Once = Once::new();

fn ensure_registered() {
    guarded(
        "ensure_registered",
        || (),
        || {
            CPP_SIDE.call_once(|| {
                // Another logger (the host program's) keeps priority.
                if log::set_logger(&CPP_LOGGER).is_ok() {
                    log::set_max_level(match ffi::shim_vlog_level() {
                        level if level >= 2 => log::LevelFilter::Trace,
                        1 => log::LevelFilter::Debug,
                        _ => log::LevelFilter::Info,
                    });
                }
                if Tracer::get()
                    .set_annotation_source(Box::new(CppAnnotationSource))
                    .is_err()
                {
                    log::warn!(
                        "xla-rocm-tracer: an annotation source was already installed; tsl's \
                         AnnotationStack will not be recorded"
                    );
                }
            });
            crate::tracer::registration::ensure_registered();
        },
    )
}

fn tracer_state() -> TracerState {
    guarded(
        "tracer_state",
        || TracerState {
            available: false,
            init_error: "panic while reading the tracer state".to_owned(),
            num_gpus: 0,
            utility_context: 0,
            context: 0,
            buffer: 0,
            hip_stream_context: 0,
        },
        || {
            let tracer = Tracer::get();
            let handle = |context: Option<sys::rocprofiler_context_id_t>| {
                context.map_or(0, |context| context.handle)
            };
            TracerState {
                available: tracer.is_available(),
                init_error: tracer.init_error().map_or(String::new(), |e| e.to_string()),
                num_gpus: tracer.num_gpus(),
                utility_context: handle(tracer.utility_context()),
                context: handle(tracer.main_context()),
                buffer: tracer.buffer().map_or(0, |buffer| buffer.handle),
                hip_stream_context: handle(tracer.stream_context()),
            }
        },
    )
}

/// # Safety
/// `out` is valid for writes of `capacity * agent_size` bytes (or `capacity` is 0).
unsafe fn tracer_copy_gpu_agents(out: *mut u8, capacity: usize, agent_size: usize) -> usize {
    guarded(
        "tracer_copy_gpu_agents",
        || 0,
        || {
            let gpus = Tracer::get().gpu_agents();
            // SAFETY: this function's contract.
            unsafe { copy_agents(gpus.iter(), gpus.len(), out, capacity, agent_size) }
        },
    )
}

/// # Safety
/// `out` is valid for writes of `capacity * agent_size` bytes (or `capacity` is 0).
unsafe fn tracer_copy_all_agents(out: *mut u8, capacity: usize, agent_size: usize) -> usize {
    guarded(
        "tracer_copy_all_agents",
        || 0,
        || {
            let Some(agents) = Tracer::get().agents() else {
                return 0;
            };
            // SAFETY: this function's contract.
            unsafe { copy_agents(agents.iter(), agents.len(), out, capacity, agent_size) }
        },
    )
}

/// Writes the SDK structs of up to `capacity` of `agents` (`count` of them) to `out` and
/// returns `count`, or 0 if the C++ struct size differs from this library's.
///
/// # Safety
/// `out` is null or valid for writes of `capacity * agent_size` bytes.
unsafe fn copy_agents<'a>(
    agents: impl Iterator<Item = &'a AgentInfo>,
    count: usize,
    out: *mut u8,
    capacity: usize,
    agent_size: usize,
) -> usize {
    if agent_size != std::mem::size_of::<sys::rocprofiler_agent_v0_t>() {
        log::error!(
            "xla-rocm-tracer: rocprofiler_agent_v0_t is {agent_size} bytes in C++ but {} in \
             Rust; agents not copied",
            std::mem::size_of::<sys::rocprofiler_agent_v0_t>()
        );
        return 0;
    }
    if !out.is_null() {
        let out = out as *mut sys::rocprofiler_agent_v0_t;
        for (index, agent) in agents.take(capacity).enumerate() {
            // SAFETY: per this function's contract; unaligned in case the caller's buffer is
            // only byte-aligned.
            unsafe { out.add(index).write_unaligned(agent.raw.0) };
        }
    }
    count
}

/// Where the running session's events go, as far as the bridge is concerned.
enum Delivery {
    /// No session started through the bridge.
    Idle,
    /// Straight into this collector (`CreateRocmCollector`'s).
    Direct(Arc<Collector>),
    /// To the C++ tracer's collector, through `deliver_events`.
    Cpp,
}

static DELIVERY: Mutex<Delivery> = Mutex::new(Delivery::Idle);

/// Read on every HIP API ENTER: whether annotations go to the Rust annotation map (direct
/// sessions) or to the C++ tracer's `annotation_map_` (sessions with a C++ collector).
static ANNOTATIONS_IN_RUST: AtomicBool = AtomicBool::new(false);

fn enable_status(result: Result<(), TracerError>) -> BridgeStatus {
    match result {
        Ok(()) => ok(),
        Err(error @ TracerError::AlreadyExists) => {
            status(StatusCode::AlreadyExists, error.to_string())
        }
        // XLA's Enable only ever returns AlreadyExists or Internal.
        Err(error @ (TracerError::Unavailable(_) | TracerError::Internal(_))) => {
            status(StatusCode::Internal, error.to_string())
        }
    }
}

fn enable(max_annotation_strings: u64, delivery: Delivery) -> BridgeStatus {
    let sink: Arc<dyn EventSink> = match &delivery {
        Delivery::Direct(collector) => collector.clone(),
        _ => Arc::new(CppCollectorSink),
    };
    let mut current = DELIVERY.lock();
    ANNOTATIONS_IN_RUST.store(matches!(delivery, Delivery::Direct(_)), Ordering::Release);
    let result = Tracer::get().enable(
        TracerOptions {
            max_annotation_strings,
            ..TracerOptions::default()
        },
        sink,
    );
    if result.is_ok() {
        *current = delivery;
    }
    enable_status(result)
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

fn tracer_enable_for_cpp_collector(max_annotation_strings: u64) -> BridgeStatus {
    guarded(
        "tracer_enable_for_cpp_collector",
        || status(StatusCode::Internal, "panic while enabling the ROCm tracer"),
        || enable(max_annotation_strings, Delivery::Cpp),
    )
}

fn tracer_disable() {
    guarded(
        "tracer_disable",
        || (),
        || {
            let mut delivery = DELIVERY.lock();
            match &*delivery {
                // XLA hands the collector the tree of the C++ annotation map, which direct
                // sessions leave empty: the tree recorded in Rust goes in here instead.
                Delivery::Direct(collector) => super::disable_into(collector),
                Delivery::Idle | Delivery::Cpp => Tracer::get().disable(),
            }
            *delivery = Delivery::Idle;
        },
    )
}

fn tracer_timestamp() -> u64 {
    guarded("tracer_timestamp", || 0, Tracer::timestamp)
}

/// # Safety
/// `header` is null or points to a `rocprofiler_record_header_t` whose payload is a record of
/// the header's (category, kind), valid for the duration of the call.
unsafe fn tracer_decode_record(header: *const u8) -> DecodedRecord {
    let failed = |message: &str| DecodedRecord {
        status: status(StatusCode::Internal, message),
        event: bridge_event(&RocmTracerEvent::default()),
    };
    guarded(
        "tracer_decode_record",
        || failed("panic while decoding a rocprofiler record"),
        || {
            // SAFETY: per this function's contract.
            let decoded = unsafe {
                Tracer::get().decode_record(header as *const sys::rocprofiler_record_header_t)
            };
            match decoded {
                Ok(event) => DecodedRecord {
                    status: ok(),
                    event: bridge_event(&event),
                },
                Err(reason) => failed(reason),
            }
        },
    )
}

// ---------------------------------------------------------------------------------------
// C++ -> Rust: the collector
// ---------------------------------------------------------------------------------------

/// The Rust collector of one C++ collector object. Export forgets what was exported (XLA's
/// collectors empty themselves on export), so the collector is replaced by a fresh one with
/// the same options, start and agents.
pub struct SessionCollector {
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

    fn add_event(&self, event: &BridgeEvent, is_auxiliary: bool) {
        guarded(
            "SessionCollector::add_event",
            || (),
            || self.current().add_event(rust_event(event), is_auxiliary),
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
                xspace: Vec::new(),
                drops: Vec::new(),
            },
            || {
                let collector = self.take();
                let (space, drops) = collector.with_collected(|trace| {
                    let space = build_xspace(trace, end_gputime_ns, &super::export_options());
                    let drops = drop_counts(&trace.drops);
                    (space, drops)
                });
                ExportResult {
                    status: ok(),
                    xspace: encode_xspace(&space),
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
                device_plane: Vec::new(),
                host_plane: Vec::new(),
            },
            || {
                let collector = self.take();
                let space = collector.export(end_gputime_ns, &super::export_options());
                let encoded = |name: &str| {
                    space
                        .planes
                        .iter()
                        .find(|plane| plane.name == name)
                        .map_or_else(Vec::new, Message::encode_to_vec)
                };
                DevicePlanes {
                    status: ok(),
                    device_plane: encoded(&plane_names::gpu_plane_name(0)),
                    host_plane: encoded(plane_names::HOST_PLANE_NAME),
                }
            },
        )
    }
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
    if agent_size != std::mem::size_of::<sys::rocprofiler_agent_v0_t>() {
        log::error!(
            "xla-rocm-tracer: rocprofiler_agent_v0_t is {agent_size} bytes in C++ but {} in \
             Rust; agents ignored",
            std::mem::size_of::<sys::rocprofiler_agent_v0_t>()
        );
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
        || Bytes {
            status: status(
                StatusCode::Internal,
                "panic while reading device capabilities",
            ),
            bytes: Vec::new(),
        },
        || {
            // SAFETY: per this function's contract.
            match unsafe { gpu_agent_infos(agent, 1, agent_size) }.first() {
                Some(info) => Bytes {
                    status: ok(),
                    bytes: device_capabilities_plane(info).encode_to_vec(),
                },
                None => Bytes {
                    status: status(StatusCode::Internal, "no readable agent"),
                    bytes: Vec::new(),
                },
            }
        },
    )
}

fn merge_xplanes(into: &[u8], from: &[u8]) -> Bytes {
    guarded(
        "merge_xplanes",
        || Bytes {
            status: status(StatusCode::Internal, "panic while merging planes"),
            bytes: Vec::new(),
        },
        || match (XPlane::decode(into), XPlane::decode(from)) {
            (Ok(mut into), Ok(from)) => {
                merge_plane(from, &mut into);
                Bytes {
                    status: ok(),
                    bytes: into.encode_to_vec(),
                }
            }
            _ => Bytes {
                status: status(StatusCode::Internal, "an XPlane to merge is unreadable"),
                bytes: Vec::new(),
            },
        },
    )
}

// ---------------------------------------------------------------------------------------
// Event conversion
// ---------------------------------------------------------------------------------------

impl From<KernelDetails> for BridgeKernel {
    fn from(k: KernelDetails) -> BridgeKernel {
        BridgeKernel {
            private_segment_size: k.private_segment_size,
            group_segment_size: k.group_segment_size,
            workgroup_x: k.workgroup_x,
            workgroup_y: k.workgroup_y,
            workgroup_z: k.workgroup_z,
            grid_x: k.grid_x,
            grid_y: k.grid_y,
            grid_z: k.grid_z,
        }
    }
}

impl From<&BridgeKernel> for KernelDetails {
    fn from(k: &BridgeKernel) -> KernelDetails {
        KernelDetails {
            private_segment_size: k.private_segment_size,
            group_segment_size: k.group_segment_size,
            workgroup_x: k.workgroup_x,
            workgroup_y: k.workgroup_y,
            workgroup_z: k.workgroup_z,
            grid_x: k.grid_x,
            grid_y: k.grid_y,
            grid_z: k.grid_z,
        }
    }
}

fn detail_code(kind: DetailKind) -> DetailCode {
    match kind {
        DetailKind::Kernel => DetailCode::Kernel,
        DetailKind::Memcpy => DetailCode::Memcpy,
        DetailKind::Memset => DetailCode::Memset,
        DetailKind::MemAlloc => DetailCode::MemAlloc,
        _ => DetailCode::None,
    }
}

fn detail_kind(code: DetailCode) -> DetailKind {
    match code {
        DetailCode::None => DetailKind::None,
        DetailCode::Kernel => DetailKind::Kernel,
        DetailCode::Memcpy => DetailKind::Memcpy,
        DetailCode::Memset => DetailKind::Memset,
        DetailCode::MemAlloc => DetailKind::MemAlloc,
    }
}

/// A C++ event as the Rust core's (see [`FlatEvent::to_event`]).
pub fn rust_event(event: &BridgeEvent) -> RocmTracerEvent {
    FlatEvent {
        event_type: event.event_type,
        source: event.source,
        domain: event.domain,
        name: &event.name,
        annotation: &event.annotation,
        start_time_ns: event.start_time_ns,
        end_time_ns: event.end_time_ns,
        device_id: event.device_id,
        correlation_id: event.correlation_id,
        thread_id: event.thread_id,
        stream_id: event.stream_id,
        queue_id: event.queue_id,
        scope_range_id: event.scope_range_id,
        details: FlatDetails {
            kind: detail_code(event.detail_kind),
            kernel: KernelDetails::from(&event.kernel),
            num_bytes: event.num_bytes,
            destination: event.destination,
            is_async: event.is_async,
        },
    }
    .to_event()
}

/// The Rust core's event for C++.
pub fn bridge_event(event: &RocmTracerEvent) -> BridgeEvent {
    let flat = FlatEvent::of(event);
    BridgeEvent {
        event_type: flat.event_type,
        source: flat.source,
        domain: flat.domain,
        name: flat.name.to_owned(),
        annotation: flat.annotation.to_owned(),
        start_time_ns: flat.start_time_ns,
        end_time_ns: flat.end_time_ns,
        device_id: flat.device_id,
        correlation_id: flat.correlation_id,
        thread_id: flat.thread_id,
        stream_id: flat.stream_id,
        queue_id: flat.queue_id,
        scope_range_id: flat.scope_range_id,
        detail_kind: detail_kind(flat.details.kind),
        kernel: flat.details.kernel.into(),
        num_bytes: flat.details.num_bytes,
        destination: flat.details.destination,
        is_async: flat.details.is_async,
    }
}

// ---------------------------------------------------------------------------------------
// Rust -> C++: a C++ collector, annotations, logging
// ---------------------------------------------------------------------------------------

/// The sink of a session whose collector is C++ code (a test's `RocmTraceCollectorImpl`
/// subclass, `hlo_op_profiler`'s collector): one crossing per buffer callback.
struct CppCollectorSink;

impl EventSink for CppCollectorSink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        let named = |mut event: RocmTracerEvent| {
            if let (EventSource::Activity, EventDetails::Memcpy(details)) =
                (event.source, event.details)
            {
                let Some(asked) = details.call_direction else {
                    return bridge_event(&event);
                };
                crate::collector::name_by_call(&mut event, asked);
            }
            bridge_event(&event)
        };
        let bridged: Vec<BridgeEvent> = batch.drain(..).map(named).collect();
        ffi::deliver_events(&bridged);
    }

    fn on_events_dropped(&self, reason: DropReason, count: u64) {
        ffi::deliver_dropped(reason.describe(), count);
    }

    /// What XLA's `RocmTraceCollector` interface can take of the end: the in-flight count
    /// (through `OnEventsDropped`) and the flush (`RocmTracer::Disable` calls `Flush()` itself
    /// once this returns). It has no hook for stream labels or trace warnings: the labels are
    /// dropped (C++ collectors name lanes by stream id, as XLA's do) and the warnings logged.
    fn end_session(&self, end: SessionEnd) {
        if end.in_flight > 0 {
            ffi::deliver_dropped(DropReason::InFlightAtDisable.describe(), end.in_flight);
        }
        for warning in &end.warnings {
            log::warn!("{warning}");
        }
    }
}

/// tsl's `AnnotationStack`, read through the C++ side.
struct CppAnnotationSource;

impl AnnotationSource for CppAnnotationSource {
    fn with_current(&self, f: &mut dyn FnMut(&str, &[i64])) {
        let view = ffi::read_annotation_stack();
        if view.text.is_null() || view.text_len == 0 {
            f("", &[]);
            return;
        }
        // SAFETY: the C++ side returns views of the calling thread's annotation stack, valid
        // until this thread changes it, which it cannot do while inside this call.
        let text = unsafe { std::slice::from_raw_parts(view.text, view.text_len) };
        let ids = if view.scope_range_ids.is_null() {
            &[][..]
        } else {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts(view.scope_range_ids, view.num_scope_range_ids) }
        };
        // tsl's annotations are UTF-8; the lossy copy is only for one that is not.
        match std::str::from_utf8(text) {
            Ok(text) => f(text, ids),
            Err(_) => f(&String::from_utf8_lossy(text), ids),
        }
    }

    fn record(&self, correlation_id: u64, map: &AnnotationMap) {
        if ANNOTATIONS_IN_RUST.load(Ordering::Acquire) {
            self.with_current(&mut |annotation, ids| map.add(correlation_id, annotation, ids));
        } else {
            ffi::record_hip_api_annotation(correlation_id);
        }
    }
}

struct CppLogger;
static CPP_LOGGER: CppLogger = CppLogger;

impl log::Log for CppLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let level = match record.level() {
            log::Level::Error => ffi::LogLevel::Error,
            log::Level::Warn => ffi::LogLevel::Warn,
            log::Level::Info => ffi::LogLevel::Info,
            log::Level::Debug => ffi::LogLevel::Debug,
            log::Level::Trace => ffi::LogLevel::Trace,
        };
        ffi::log_from_rust(level, &record.args().to_string());
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{EventDomain, EventType};
    use crate::export::ExportOptions;

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
                details: EventDetails::Kernel(KernelDetails::from_array([1, 2, 3, 4, 5, 6, 7, 8])),
                ..base
            },
        ]
    }

    #[test]
    fn events_survive_the_round_trip_through_the_bridge_struct() {
        for event in launch_and_kernel() {
            assert_eq!(rust_event(&bridge_event(&event)), event);
        }
    }

    #[test]
    fn a_session_collector_exports_what_the_rust_collector_exports_then_forgets_it() {
        let events = launch_and_kernel();
        let session = new_session_collector(&config());
        for event in &events {
            session.add_event(&bridge_event(event), false);
        }
        session.add_scope_range_edges(&[ScopeRangeEdge {
            child: 5,
            parent: 4,
        }]);
        let collector = Collector::new(
            CollectorOptions {
                max_callback_api_events: 100,
                max_activity_api_events: 100,
                max_annotation_strings: 100,
                num_gpus: 1,
            },
            CaptureStart {
                walltime_ns: 1000,
                gputime_ns: 5,
            },
        );
        collector.add_events(&mut events.clone());
        collector.set_scope_range_id_tree([(5, 4)]);
        let expected = encode_xspace(&collector.export(1_000_000, &ExportOptions::default()));

        let exported = session.export_xspace(1_000_000);
        assert_eq!(exported.status.code, StatusCode::Ok);
        assert_eq!(exported.xspace, expected);
        let again = session.export_xspace(1_000_000);
        let empty = Collector::new(collector.options(), collector.start());
        assert_eq!(
            again.xspace,
            encode_xspace(&empty.export(1_000_000, &ExportOptions::default()))
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
