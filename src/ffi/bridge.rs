//! The C++ boundary: the one cxx bridge between the Rust core and the XLA-facing C++ shims
//! (`cpp/rocm_tracer.cc`, `cpp/rocm_collector.cc`), declared here and served by concern:
//! [`tracer`] (sessions), [`collector`] (the Rust collector of a C++ collector object) and
//! [`host`] (what the Rust core calls in C++). docs/ARCHITECTURE.md draws the flow.
//!
//! The path XLA runs crosses it per session, not per event: `CreateRocmCollector` returns a
//! collector backed by a [`SessionCollector`] (the Rust collector), `RocmTracer::Enable` with it
//! makes the tracer deliver straight into that collector (`tracer_enable_into`), and `Export`
//! crosses once for the XSpace, as columns C++ builds it from. Any other `RocmTraceCollector` (a test's subclass,
//! `hlo_op_profiler`'s) is served by a narrow adapter: each buffer callback's events are handed
//! to C++ once ([`ffi::deliver_events`]), which calls that collector's `AddEvent`.
//!
//! Only cxx types cross: no absl, no C++ exceptions (fallible calls return
//! [`ffi::BridgeStatus`]), and no panic escapes: every function here catches unwinding and
//! reports it as an error.
use std::panic::{catch_unwind, AssertUnwindSafe};

mod collector;
mod host;
mod tracer;

pub(crate) use collector::SessionCollector;
use collector::{device_capability_stats, merge_xplanes, new_session_collector};
use tracer::{
    ensure_registered, tracer_copy_agents, tracer_decode_record, tracer_disable,
    tracer_enable_for_cpp_collector, tracer_enable_into, tracer_roctx_call,
    tracer_roctx_current_label, tracer_roctx_emit, tracer_state, tracer_timestamp,
};

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

    /// Which member of `RocmTracerEvent`'s detail union is meaningful; the values are the C
    /// ABI's `XrtEvent::detail_kind`.
    #[derive(Debug)]
    enum DetailKind {
        None = 0,
        Kernel = 1,
        Memcpy = 2,
        Memset = 3,
        MemAlloc = 4,
    }

    /// `xla::profiler::RocmTracerEvent`, flattened (src/ffi/flat_event.rs).
    #[derive(Debug)]
    struct FlatEvent {
        event_type: u32,
        source: u32,
        domain: u32,
        name: String,
        annotation: String,
        /// The innermost ROCTx range label ("" for none); a ROCTx event's own label.
        roctx_range: String,
        start_time_ns: u64,
        end_time_ns: u64,
        device_id: u32,
        correlation_id: u64,
        thread_id: u64,
        stream_id: u64,
        queue_id: u64,
        scope_range_id: i64,
        detail_kind: DetailKind,
        /// `KernelDetails` as `KernelDetails::to_array` orders it (XLA's without `func_ptr`,
        /// which no record carries).
        kernel: [u32; 12],
        /// Memcpy, memset, memory allocation.
        num_bytes: u64,
        /// Memcpy: destination agent handle truncated to 32 bits.
        destination: u32,
        is_async: bool,
    }

    /// What the C++ `RocmTracer` mirrors into XLA's public members.
    #[derive(Default)]
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

    /// A stretch of one of [`FlatXSpace`]'s columns (or of its `text`): `len` items from
    /// `start`.
    #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
    struct Span {
        start: usize,
        len: usize,
    }

    /// Which member of `XStat`'s value oneof is set.
    #[derive(Debug)]
    enum XStatValueKind {
        None,
        Double,
        Uint64,
        Int64,
        Str,
        Bytes,
        Ref,
    }

    /// An `XStat`: `number` holds a double's bits, a uint64, an int64's bits or a ref;
    /// `text` a string or bytes.
    #[derive(Debug)]
    struct FlatXStat {
        metadata_id: i64,
        kind: XStatValueKind,
        number: u64,
        text: Span,
    }

    /// An `XEvent`; `data` is the oneof's member: 0 none, 1 `offset_ps`, 2 `num_occurrences`.
    #[derive(Debug)]
    struct FlatXEvent {
        metadata_id: i64,
        data: u8,
        data_value: i64,
        duration_ps: i64,
        stats: Span,
    }

    #[derive(Debug)]
    struct FlatXLine {
        id: i64,
        display_id: i64,
        name: Span,
        display_name: Span,
        timestamp_ns: i64,
        duration_ps: i64,
        events: Span,
    }

    #[derive(Debug)]
    struct FlatXEventMetadata {
        id: i64,
        name: Span,
        display_name: Span,
        metadata: Span,
        stats: Span,
        child_ids: Span,
    }

    #[derive(Debug)]
    struct FlatXStatMetadata {
        id: i64,
        name: Span,
        description: Span,
    }

    #[derive(Debug)]
    struct FlatXPlane {
        id: i64,
        name: Span,
        lines: Span,
        event_metadata: Span,
        stat_metadata: Span,
        stats: Span,
    }

    /// A `tensorflow.profiler.XSpace` as columns (src/ffi/flat_xspace.rs): the export hands
    /// it to C++, which builds the caller's XSpace from it without a parse. Every string and
    /// byte string is a [`Span`] of `text`; every repeated field a [`Span`] of its column.
    #[derive(Debug, Default)]
    struct FlatXSpace {
        planes: Vec<FlatXPlane>,
        lines: Vec<FlatXLine>,
        events: Vec<FlatXEvent>,
        stats: Vec<FlatXStat>,
        event_metadata: Vec<FlatXEventMetadata>,
        stat_metadata: Vec<FlatXStatMetadata>,
        child_ids: Vec<i64>,
        text: Vec<u8>,
        errors: Vec<Span>,
        warnings: Vec<Span>,
        hostnames: Vec<Span>,
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

    /// One rocprofiler-sdk record decoded by the tracer (XLA's `HipApiEvent`, `KernelEvent`,
    /// `MemcpyEvent`).
    struct DecodedRecord {
        /// `Ok`, or `Internal` with why the record gives no event.
        status: BridgeStatus,
        event: FlatEvent,
    }

    extern "Rust" {
        /// The Rust collector behind `CreateRocmCollector`'s collector (and behind a
        /// `RocmTraceCollectorImpl` that C++ code builds itself).
        type SessionCollector;

        /// Registers the tool with rocprofiler-sdk if the load-time constructor did not, and
        /// routes Rust log lines and annotations through the C++ side. Idempotent.
        fn ensure_registered();
        fn tracer_state() -> TracerState;
        /// Copies up to `capacity` agents (`rocprofiler_agent_v0_t`) to `out`: the GPUs in
        /// query order, or every agent (CPUs too) in no particular order. Returns how many
        /// there are, or 0 if `agent_size` is not the size this library was built with.
        unsafe fn tracer_copy_agents(
            gpus_only: bool,
            out: *mut u8,
            capacity: usize,
            agent_size: usize,
        ) -> usize;
        /// Starts a session that delivers straight into `collector`.
        fn tracer_enable_into(
            max_annotation_strings: u64,
            collector: &SessionCollector,
        ) -> BridgeStatus;
        /// Starts a session that delivers through `deliver_events` to `collector` (a
        /// `RocmTraceCollector*`, valid until `tracer_disable` returns).
        fn tracer_enable_for_cpp_collector(
            max_annotation_strings: u64,
            collector: usize,
        ) -> BridgeStatus;
        /// Ends the session started through the bridge (no other): every record it made has
        /// been delivered when this returns.
        fn tracer_disable();
        fn tracer_timestamp() -> u64;
        /// Decodes the record behind `header` (a `const rocprofiler_record_header_t*`) with
        /// the tracer's own decoder.
        unsafe fn tracer_decode_record(header: *const u8) -> DecodedRecord;
        /// XLA's `MarkerCallback` after its phase check: one ROCTx call (`operation` of
        /// MARKER_CORE_API) on the calling thread, with the message of a push or mark.
        /// A message that is not UTF-8 is read lossily.
        fn tracer_roctx_call(operation: i32, has_message: bool, message: &[u8], thread_id: u64);
        /// XLA's `GetCurrentRoctxLabel` for the calling thread ("" for none).
        fn tracer_roctx_current_label() -> String;
        /// XLA's `EmitMarkerEvent`.
        fn tracer_roctx_emit(label: &[u8], start_ns: u64, end_ns: u64, thread_id: u64);

        fn new_session_collector(config: &CollectorConfig) -> Box<SessionCollector>;
        /// `count` `rocprofiler_agent_v0_t` of `agent_size` bytes each, in device order.
        unsafe fn set_gpu_agents(
            self: &SessionCollector,
            agents: *const u8,
            count: usize,
            agent_size: usize,
        );
        fn add_event(self: &SessionCollector, event: &FlatEvent, is_auxiliary: bool);
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

        /// Records tsl's `AnnotationStack` of the calling thread under `correlation_id` into
        /// the C++ tracer's `annotation_map_` (sessions with a C++ collector).
        fn record_hip_api_annotation(correlation_id: u64);
        /// Clears the C++ tracer's `annotation_map_`: a session is starting.
        fn clear_hip_api_annotations();
        /// One buffer callback's events, for `collector` (a `RocmTraceCollector*`).
        fn deliver_events(collector: usize, events: &[FlatEvent]);
        fn deliver_dropped(collector: usize, reason: &str, count: u64);
        /// The absl VLOG verbosity of the shim (0 if none), read once for Rust's log level.
        fn shim_vlog_level() -> i32;
        fn log_from_rust(level: LogLevel, message: &str);
    }
}

pub(crate) use ffi::{
    BridgeStatus, Bytes, CollectorConfig, DecodedRecord, DetailKind, DevicePlanes, DropCount,
    ExportResult, FlatEvent, FlatXEvent, FlatXEventMetadata, FlatXLine, FlatXPlane, FlatXSpace,
    FlatXStat, FlatXStatMetadata, ScopeRangeEdge, Span, StatusCode, TracerState, XStatValueKind,
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

/// Whether C++'s `rocprofiler_agent_v0_t` (of `agent_size` bytes) is this library's; logs
/// why agents are not read if not.
fn agent_size_matches(agent_size: usize) -> bool {
    let rust_size = std::mem::size_of::<rocprofiler_sdk_sys::rocprofiler_agent_v0_t>();
    if agent_size != rust_size {
        log::error!(
            "xla-rocm-tracer: rocprofiler_agent_v0_t is {agent_size} bytes in C++ but \
             {rust_size} in Rust; agents not read"
        );
    }
    agent_size == rust_size
}
