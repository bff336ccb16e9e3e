//! The C++ boundary: the one cxx bridge between the Rust core and the XLA-facing C++ shims
//! (`cpp/rocm_tracer.cc`, `cpp/rocm_collector.cc`).
//!
//! Rust -> C++: the shims drive the [`Tracer`] singleton (registration, enable/disable, clock,
//! agents and context handles to mirror into XLA's public members) and hand a collector's
//! stored events to [`export_xspace`], which runs them through the Rust collector and export
//! model and returns the encoded XSpace.
//! C++ -> Rust (the `extern "C++"` functions, defined by `cpp/rocm_tracer.cc`): event batches,
//! drops and flushes for whatever `RocmTraceCollector` the C++ tracer holds, the annotation of
//! the launching thread (tsl's `AnnotationStack`), and log lines for absl LOG.
//!
//! Only cxx types cross: no absl, no C++ exceptions (fallible calls return [`ffi::BridgeStatus`]),
//! and no panic escapes: every function here catches unwinding and reports it as an error.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Once, OnceLock};

use rocprofiler_sdk_sys as sys;

use crate::collector::{
    CaptureStart, Collector, CollectorOptions, DropReason, GpuAgentInfo, MemoryBank,
};
use crate::event::{
    EventDetails, EventDomain, EventSource, EventType, KernelDetails, MemAllocDetails,
    MemcpyDetails, MemsetDetails, RocmTracerEvent,
};
use crate::export::{build_xspace, encode_xspace, ExportOptions};
use crate::sink::EventSink;
use crate::tracer::agents::{AgentInfo, Agents};
use crate::tracer::annotation::AnnotationSource;
use crate::tracer::hip_api::HipApiNames;
use crate::tracer::record_decoder::RecordDecoder;
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

    /// Which member of `RocmTracerEvent`'s detail union is meaningful.
    #[derive(Debug)]
    enum DetailKind {
        None,
        Kernel,
        Memcpy,
        Memset,
        MemAlloc,
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
        /// Kernel: private/group segment sizes, workgroup x/y/z, grid x/y/z.
        kernel: [u32; 8],
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

    struct BridgeMemoryBank {
        heap_type: u32,
        size_in_bytes: u64,
        mem_clk_max_mhz: u32,
        width_bits: u32,
    }

    /// One `rocprofiler_agent_v0_t` given to `SetGpuAgents`, read out by the shim.
    struct BridgeAgent {
        handle: u64,
        name: String,
        cu_count: u32,
        max_engine_clock_mhz: u32,
        gfx_target_version: u32,
        memory_banks: Vec<BridgeMemoryBank>,
    }

    struct ScopeRangeEdge {
        child: i64,
        parent: i64,
    }

    struct DropCount {
        reason: String,
        count: u64,
    }

    /// Everything a C++ `RocmTraceCollectorImpl` stored, for one export.
    struct ExportRequest {
        max_callback_api_events: u64,
        max_activity_api_events: u64,
        max_annotation_strings: u64,
        num_gpus: u32,
        start_walltime_ns: u64,
        start_gputime_ns: u64,
        end_gputime_ns: u64,
        gpu_agents: Vec<BridgeAgent>,
        api_events: Vec<BridgeEvent>,
        auxiliary_api_events: Vec<BridgeEvent>,
        activity_events: Vec<BridgeEvent>,
        scope_range_tree: Vec<ScopeRangeEdge>,
        /// Events the shim refused at its caps (it stores at most the caps).
        callback_events_over_cap: u64,
        activity_events_over_cap: u64,
        duplicate_correlation_ids: u64,
        /// Reported through `OnEventsDropped`.
        tracer_drops: Vec<DropCount>,
    }

    /// One rocprofiler-sdk record decoded by the tracer (XLA's `HipApiEvent`, `KernelEvent`,
    /// `MemcpyEvent`).
    struct DecodedRecord {
        /// `Ok`, or `Internal` with why the record gives no event.
        status: BridgeStatus,
        event: BridgeEvent,
    }

    struct ExportResult {
        status: BridgeStatus,
        /// A serialized `tensorflow.profiler.XSpace`.
        xspace: Vec<u8>,
    }

    extern "Rust" {
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
        fn tracer_enable(max_annotation_strings: u64) -> BridgeStatus;
        fn tracer_disable();
        fn tracer_timestamp() -> u64;
        fn export_xspace(request: ExportRequest) -> ExportResult;
        /// Decodes the record behind `header` (a `const rocprofiler_record_header_t*`) with
        /// the tracer's agent, HIP API and kernel name tables.
        unsafe fn tracer_decode_record(header: *const u8) -> DecodedRecord;
    }

    unsafe extern "C++" {
        include!("xla-rocm-tracer/cpp/bridge_callbacks.h");

        /// Records tsl's `AnnotationStack` of the calling thread under `correlation_id`
        /// (HIP API ENTER, on the launching thread).
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
    BridgeAgent, BridgeEvent, BridgeMemoryBank, BridgeStatus, DecodedRecord, DetailKind, DropCount,
    ExportRequest, ExportResult, ScopeRangeEdge, StatusCode, TracerState,
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
                let tracer = Tracer::get();
                if tracer
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

fn tracer_enable(max_annotation_strings: u64) -> BridgeStatus {
    guarded(
        "tracer_enable",
        || status(StatusCode::Internal, "panic while enabling the ROCm tracer"),
        || {
            let options = TracerOptions {
                max_annotation_strings,
                ..TracerOptions::default()
            };
            match Tracer::get().enable(options, Arc::new(CppCollectorSink)) {
                Ok(()) => status(StatusCode::Ok, ""),
                Err(error @ TracerError::AlreadyExists) => {
                    status(StatusCode::AlreadyExists, error.to_string())
                }
                // XLA's Enable only ever returns AlreadyExists or Internal.
                Err(error @ (TracerError::Unavailable(_) | TracerError::Internal(_))) => {
                    status(StatusCode::Internal, error.to_string())
                }
            }
        },
    )
}

fn tracer_disable() {
    guarded("tracer_disable", || (), || Tracer::get().disable())
}

fn tracer_timestamp() -> u64 {
    guarded("tracer_timestamp", || 0, Tracer::timestamp)
}

/// The HIP API names for single-record decoding, queried from the SDK once.
fn hip_api_names() -> &'static HipApiNames {
    static NAMES: OnceLock<HipApiNames> = OnceLock::new();
    NAMES.get_or_init(|| {
        HipApiNames::query().unwrap_or_else(|error| {
            log::warn!("xla-rocm-tracer: HIP API names unavailable for decoding: {error}");
            HipApiNames::from_pairs(std::iter::empty())
        })
    })
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
            let tracer = Tracer::get();
            let no_agents = Agents::default();
            let decoder = RecordDecoder {
                agents: tracer.agents().unwrap_or(&no_agents),
                hip_names: hip_api_names(),
                kernel_names: tracer.kernel_names(),
                annotations: tracer.annotation_map(),
                // One record outside any buffer callback: no session to be older than.
                session_start_ns: 0,
            };
            // SAFETY: per this function's contract.
            match unsafe { decoder.decode(header as *const sys::rocprofiler_record_header_t) } {
                Ok(event) => DecodedRecord {
                    status: status(StatusCode::Ok, ""),
                    event: bridge_event(&event),
                },
                Err(reason) => failed(reason),
            }
        },
    )
}

// ---------------------------------------------------------------------------------------
// C++ -> Rust: export
// ---------------------------------------------------------------------------------------

fn export_xspace(request: ExportRequest) -> ExportResult {
    guarded(
        "export_xspace",
        || ExportResult {
            status: status(StatusCode::Internal, "panic while exporting the ROCm trace"),
            xspace: Vec::new(),
        },
        || ExportResult {
            status: status(StatusCode::Ok, ""),
            xspace: encode_xspace(&export_request_to_xspace(request)),
        },
    )
}

/// The C++ collector's events through the same collector and export model as the Rust path,
/// so that both produce the same XSpace for the same events.
fn export_request_to_xspace(request: ExportRequest) -> crate::export::XSpace {
    let collector = Collector::new(
        CollectorOptions {
            max_callback_api_events: request.max_callback_api_events,
            max_activity_api_events: request.max_activity_api_events,
            max_annotation_strings: request.max_annotation_strings,
            num_gpus: request.num_gpus,
        },
        CaptureStart {
            walltime_ns: request.start_walltime_ns,
            gputime_ns: request.start_gputime_ns,
        },
    );
    collector.set_gpu_agents(request.gpu_agents.iter().map(gpu_agent_info).collect());
    for event in &request.api_events {
        collector.add_event(rust_event(event), false);
    }
    for event in &request.auxiliary_api_events {
        collector.add_event(rust_event(event), true);
    }
    for event in &request.activity_events {
        collector.add_event(rust_event(event), false);
    }
    collector.set_scope_range_id_tree(
        request
            .scope_range_tree
            .iter()
            .map(|edge| (edge.child, edge.parent)),
    );
    for drop in &request.tracer_drops {
        collector.on_events_dropped(&drop.reason, drop.count);
    }
    collector.with_collected(|trace| {
        // The shim's own drops join the collector's, so warnings read as on the Rust path.
        let mut trace = trace.clone();
        trace.drops.add(
            DropReason::CallbackCapReached,
            request.callback_events_over_cap,
        );
        trace.drops.add(
            DropReason::ActivityCapReached,
            request.activity_events_over_cap,
        );
        trace.drops.add(
            DropReason::DuplicateCorrelationId,
            request.duplicate_correlation_ids,
        );
        build_xspace(&trace, request.end_gputime_ns, &ExportOptions::default())
    })
}

fn gpu_agent_info(agent: &BridgeAgent) -> GpuAgentInfo {
    let banks: Vec<MemoryBank> = agent
        .memory_banks
        .iter()
        .map(|bank| MemoryBank {
            heap_type: bank.heap_type,
            size_in_bytes: bank.size_in_bytes,
            mem_clk_max_mhz: bank.mem_clk_max_mhz,
            width_bits: bank.width_bits,
        })
        .collect();
    GpuAgentInfo {
        handle: agent.handle,
        name: agent.name.clone(),
        cu_count: agent.cu_count,
        max_engine_clock_mhz: agent.max_engine_clock_mhz,
        gfx_target_version: agent.gfx_target_version,
        memory_size_bytes: GpuAgentInfo::memory_size_from_banks(&banks),
        memory_bandwidth_bytes_per_second: GpuAgentInfo::memory_bandwidth(&banks),
    }
}

// ---------------------------------------------------------------------------------------
// Event conversion
// ---------------------------------------------------------------------------------------

/// A C++ event as the Rust core's. Values outside XLA's enums become `Unsupported` /
/// `Invalid` / `InvalidDomain`, which the collector drops and counts.
pub fn rust_event(event: &BridgeEvent) -> RocmTracerEvent {
    let [private_segment_size, group_segment_size, workgroup_x, workgroup_y, workgroup_z, grid_x, grid_y, grid_z] =
        event.kernel;
    let details = match event.detail_kind {
        DetailKind::Kernel => EventDetails::Kernel(KernelDetails {
            private_segment_size,
            group_segment_size,
            workgroup_x,
            workgroup_y,
            workgroup_z,
            grid_x,
            grid_y,
            grid_z,
        }),
        DetailKind::Memcpy => EventDetails::Memcpy(MemcpyDetails {
            num_bytes: event.num_bytes,
            destination: event.destination,
            is_async: event.is_async,
        }),
        DetailKind::Memset => EventDetails::Memset(MemsetDetails {
            num_bytes: event.num_bytes,
            is_async: event.is_async,
        }),
        DetailKind::MemAlloc => EventDetails::MemAlloc(MemAllocDetails {
            num_bytes: event.num_bytes,
        }),
        _ => EventDetails::None,
    };
    RocmTracerEvent {
        event_type: EventType::from_u32(event.event_type).unwrap_or(EventType::Unsupported),
        source: match event.source {
            1 => EventSource::ApiCallback,
            2 => EventSource::Activity,
            _ => EventSource::Invalid,
        },
        domain: match event.domain {
            1 => EventDomain::HipApi,
            2 => EventDomain::HipOps,
            _ => EventDomain::InvalidDomain,
        },
        name: Arc::from(event.name.as_str()),
        annotation: (!event.annotation.is_empty()).then(|| Arc::from(event.annotation.as_str())),
        roctx_range: None,
        start_time_ns: event.start_time_ns,
        end_time_ns: event.end_time_ns,
        device_id: event.device_id,
        correlation_id: event.correlation_id,
        thread_id: event.thread_id,
        stream_id: event.stream_id,
        queue_id: event.queue_id,
        scope_range_id: event.scope_range_id,
        details,
    }
}

/// The Rust core's event for C++.
pub fn bridge_event(event: &RocmTracerEvent) -> BridgeEvent {
    let mut bridged = BridgeEvent {
        event_type: event.event_type as u32,
        source: event.source as u32,
        domain: event.domain as u32,
        name: event.name.to_string(),
        annotation: event.annotation.as_deref().unwrap_or("").to_owned(),
        start_time_ns: event.start_time_ns,
        end_time_ns: event.end_time_ns,
        device_id: event.device_id,
        correlation_id: event.correlation_id,
        thread_id: event.thread_id,
        stream_id: event.stream_id,
        queue_id: event.queue_id,
        scope_range_id: event.scope_range_id,
        detail_kind: DetailKind::None,
        kernel: [0; 8],
        num_bytes: 0,
        destination: 0,
        is_async: false,
    };
    match event.details {
        EventDetails::None => {}
        EventDetails::Kernel(k) => {
            bridged.detail_kind = DetailKind::Kernel;
            bridged.kernel = [
                k.private_segment_size,
                k.group_segment_size,
                k.workgroup_x,
                k.workgroup_y,
                k.workgroup_z,
                k.grid_x,
                k.grid_y,
                k.grid_z,
            ];
        }
        EventDetails::Memcpy(m) => {
            bridged.detail_kind = DetailKind::Memcpy;
            bridged.num_bytes = m.num_bytes;
            bridged.destination = m.destination;
            bridged.is_async = m.is_async;
        }
        EventDetails::Memset(m) => {
            bridged.detail_kind = DetailKind::Memset;
            bridged.num_bytes = m.num_bytes;
            bridged.is_async = m.is_async;
        }
        EventDetails::MemAlloc(m) => {
            bridged.detail_kind = DetailKind::MemAlloc;
            bridged.num_bytes = m.num_bytes;
        }
    }
    bridged
}

// ---------------------------------------------------------------------------------------
// Rust -> C++: the C++ tracer's collector, annotations, logging
// ---------------------------------------------------------------------------------------

/// The sink of a session enabled through the bridge: whatever `RocmTraceCollector` the C++
/// `RocmTracer` holds (XLA's, a test's, hlo_op_profiler's).
struct CppCollectorSink;

impl EventSink for CppCollectorSink {
    fn add_events(&self, batch: &mut Vec<RocmTracerEvent>) {
        let bridged: Vec<BridgeEvent> = batch.drain(..).map(|e| bridge_event(&e)).collect();
        ffi::deliver_events(&bridged);
    }

    fn on_events_dropped(&self, reason: &str, count: u64) {
        ffi::deliver_dropped(reason, count);
    }

    // RocmTracer::Disable flushes the C++ collector itself once the buffer is drained.
    fn flush(&self) {}
}

/// tsl's `AnnotationStack`, read by the C++ side into the C++ tracer's `annotation_map_`.
struct CppAnnotationSource;

impl AnnotationSource for CppAnnotationSource {
    fn with_current(&self, _f: &mut dyn FnMut(&str, &[i64])) {
        // Recording happens in `record` below, into the C++ map the XLA callers read.
    }

    fn record(&self, correlation_id: u64, _map: &crate::tracer::annotation::AnnotationMap) {
        ffi::record_hip_api_annotation(correlation_id);
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

    fn sample_events() -> Vec<RocmTracerEvent> {
        let base = RocmTracerEvent {
            name: Arc::from("k"),
            correlation_id: 7,
            start_time_ns: 10,
            end_time_ns: 20,
            ..RocmTracerEvent::default()
        };
        vec![
            RocmTracerEvent {
                event_type: EventType::Kernel,
                source: EventSource::Activity,
                domain: EventDomain::HipOps,
                stream_id: 3,
                queue_id: 99,
                device_id: 300,
                annotation: Some(Arc::from("step")),
                scope_range_id: 5,
                details: EventDetails::Kernel(KernelDetails {
                    private_segment_size: 1,
                    group_segment_size: 2,
                    workgroup_x: 3,
                    workgroup_y: 4,
                    workgroup_z: 5,
                    grid_x: 6,
                    grid_y: 7,
                    grid_z: 8,
                }),
                ..base.clone()
            },
            RocmTracerEvent {
                event_type: EventType::MemcpyD2H,
                source: EventSource::ApiCallback,
                domain: EventDomain::HipApi,
                thread_id: 42,
                details: EventDetails::Memcpy(MemcpyDetails {
                    num_bytes: 4096,
                    destination: 17,
                    is_async: true,
                }),
                ..base.clone()
            },
            RocmTracerEvent {
                event_type: EventType::Memset,
                details: EventDetails::Memset(MemsetDetails {
                    num_bytes: 9,
                    is_async: false,
                }),
                ..base.clone()
            },
            RocmTracerEvent {
                event_type: EventType::MemoryAlloc,
                details: EventDetails::MemAlloc(MemAllocDetails { num_bytes: 11 }),
                ..base
            },
        ]
    }

    #[test]
    fn events_survive_the_round_trip_through_the_bridge_struct() {
        for event in sample_events() {
            assert_eq!(rust_event(&bridge_event(&event)), event);
        }
    }

    #[test]
    fn out_of_range_enum_values_become_invalid_not_ub() {
        let mut bridged = bridge_event(&sample_events()[0]);
        bridged.event_type = 1000;
        bridged.source = 77;
        bridged.domain = 9;
        let event = rust_event(&bridged);
        assert_eq!(event.event_type, EventType::Unsupported);
        assert_eq!(event.source, EventSource::Invalid);
        assert_eq!(event.domain, EventDomain::InvalidDomain);
    }

    fn request_with(events: Vec<RocmTracerEvent>) -> ExportRequest {
        let (api, activities): (Vec<_>, Vec<_>) = events
            .iter()
            .partition(|e| e.source == EventSource::ApiCallback);
        ExportRequest {
            max_callback_api_events: 100,
            max_activity_api_events: 100,
            max_annotation_strings: 100,
            num_gpus: 1,
            start_walltime_ns: 1000,
            start_gputime_ns: 5,
            end_gputime_ns: 1_000_000,
            gpu_agents: Vec::new(),
            api_events: api.into_iter().map(bridge_event).collect(),
            auxiliary_api_events: Vec::new(),
            activity_events: activities.into_iter().map(bridge_event).collect(),
            scope_range_tree: vec![ScopeRangeEdge {
                child: 5,
                parent: 4,
            }],
            callback_events_over_cap: 0,
            activity_events_over_cap: 0,
            duplicate_correlation_ids: 0,
            tracer_drops: Vec::new(),
        }
    }

    #[test]
    fn export_request_equals_the_rust_collector_path() {
        let events = vec![
            RocmTracerEvent {
                event_type: EventType::Kernel,
                source: EventSource::ApiCallback,
                domain: EventDomain::HipApi,
                name: Arc::from("hipLaunchKernel"),
                thread_id: 42,
                ..sample_events()[0].clone()
            },
            sample_events()[0].clone(),
        ];
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
        let rust_path = collector.export(1_000_000, &ExportOptions::default());
        let bridge_path = export_request_to_xspace(request_with(events));
        assert_eq!(encode_xspace(&bridge_path), encode_xspace(&rust_path));
        assert!(!bridge_path.planes.is_empty());
    }

    #[test]
    fn shim_drops_become_warnings() {
        let mut request = request_with(Vec::new());
        request.callback_events_over_cap = 3;
        request.duplicate_correlation_ids = 2;
        request.tracer_drops.push(DropCount {
            reason: "record too small".to_owned(),
            count: 4,
        });
        let space = export_request_to_xspace(request);
        let warnings = space.warnings.join("\n");
        assert!(warnings.contains("Dropped 3 events"), "{warnings}");
        assert!(
            warnings.contains("--xla_gpu_rocm_max_trace_events"),
            "{warnings}"
        );
        assert!(warnings.contains("Dropped 2 events"), "{warnings}");
        assert!(warnings.contains("record too small"), "{warnings}");
    }
}
