//! The tracer's cxx bridge: registration, the state XLA's `RocmTracer` mirrors, the sessions
//! the C++ tracer starts to a C++ collector (a session into a Rust collector starts from the
//! collector's bridge, which owns that type), the SDK record decoder and ROCTx.
use std::sync::{Arc, Once};

use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;

use super::event::XrtEvents;
use super::host;
use super::status::{guarded, ok, status, BridgeStatus, StatusCode};
use crate::collector::Collector;
use crate::event::RocmTracerEvent;
use crate::sink::EventSink;
use crate::tracer::sdk::agents::AgentInfo;
use crate::tracer::{roctx, Tracer, TracerError, TracerOptions};

#[cxx::bridge(namespace = "xla::profiler::rust_bridge")]
mod bridge {
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

    /// One rocprofiler-sdk record decoded by the tracer (XLA's `HipApiEvent`, `KernelEvent`,
    /// `MemcpyEvent`).
    struct DecodedRecord {
        /// `Ok`, or `Internal` with why the record gives no event.
        status: BridgeStatus,
        /// Its strings point into `text`: valid while this record lives.
        event: XrtEvent,
        text: Vec<u8>,
    }

    extern "C++" {
        include!("xla-rocm-tracer/src/ffi/status.rs.h");
        include!("xla_rocm_tracer.h");
        type BridgeStatus = crate::ffi::status::BridgeStatus;
        #[namespace = ""]
        type XrtEvent = crate::ffi::event::XrtEvent;
    }

    extern "Rust" {
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
    }
}

use bridge::{DecodedRecord, TracerState};

static CPP_SIDE: Once = Once::new();

fn ensure_registered() {
    guarded(
        "ensure_registered",
        || (),
        || {
            CPP_SIDE.call_once(|| {
                // Another logger (the host program's) keeps priority.
                if log::set_logger(&host::CPP_LOGGER).is_ok() {
                    log::set_max_level(match host::shim_vlog_level() {
                        level if level >= 2 => log::LevelFilter::Trace,
                        1 => log::LevelFilter::Debug,
                        _ => log::LevelFilter::Info,
                    });
                }
                if Tracer::get()
                    .set_annotation_source(Box::new(host::CppAnnotationSource))
                    .is_err()
                {
                    log::warn!(
                        "xla-rocm-tracer: an annotation source was already installed; tsl's \
                         AnnotationStack will not be recorded"
                    );
                }
            });
            crate::tracer::sdk::registration::ensure_registered();
        },
    )
}

fn tracer_state() -> TracerState {
    guarded(
        "tracer_state",
        || TracerState {
            init_error: "panic while reading the tracer state".to_owned(),
            ..TracerState::default()
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
/// `out` is null or valid for writes of `capacity * agent_size` bytes.
unsafe fn tracer_copy_agents(
    gpus_only: bool,
    out: *mut u8,
    capacity: usize,
    agent_size: usize,
) -> usize {
    guarded(
        "tracer_copy_agents",
        || 0,
        || {
            let tracer = Tracer::get();
            let agents: Vec<&AgentInfo> = match tracer.agents() {
                _ if gpus_only => tracer.gpu_agents().iter().collect(),
                Some(agents) => agents.iter().collect(),
                None => Vec::new(),
            };
            if !super::status::agent_size_matches(agent_size) {
                return 0;
            }
            if !out.is_null() {
                let out = out as *mut sys::rocprofiler_agent_v0_t;
                for (index, agent) in agents.iter().take(capacity).enumerate() {
                    // SAFETY: per this function's contract; unaligned in case the caller's
                    // buffer is only byte-aligned.
                    unsafe { out.add(index).write_unaligned(agent.raw.0) };
                }
            }
            agents.len()
        },
    )
}

/// Where the running session's events go, as far as the bridge is concerned.
pub(super) enum Delivery {
    /// No session started through the bridge.
    Idle,
    /// Straight into this collector (`CreateRocmCollector`'s).
    Direct(Arc<Collector>),
    /// To this C++ `RocmTraceCollector*`, through `deliver_events`.
    Cpp(usize),
}

static DELIVERY: Mutex<Delivery> = Mutex::new(Delivery::Idle);

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

/// Starts a session delivering to `delivery`. Whether one may start is the tracer's decision
/// alone ([`Tracer::enable`]), for the C++ tracer as for the C ABI.
pub(super) fn enable(max_annotation_strings: u64, delivery: Delivery) -> BridgeStatus {
    let sink: Arc<dyn EventSink> = match &delivery {
        Delivery::Direct(collector) => collector.clone(),
        Delivery::Cpp(collector) => Arc::new(host::CppCollectorSink(*collector)),
        Delivery::Idle => return status(StatusCode::Internal, "a session needs a collector"),
    };
    let mut current = DELIVERY.lock();
    host::STARTING_FOR_CPP.with(|cpp| cpp.set(Some(matches!(delivery, Delivery::Cpp(_)))));
    let result = Tracer::get().enable(
        TracerOptions {
            max_annotation_strings,
            ..TracerOptions::default()
        },
        sink,
    );
    host::STARTING_FOR_CPP.with(|cpp| cpp.set(None));
    if result.is_ok() {
        *current = delivery;
    }
    enable_status(result)
}

fn tracer_enable_for_cpp_collector(max_annotation_strings: u64, collector: usize) -> BridgeStatus {
    guarded(
        "tracer_enable_for_cpp_collector",
        || status(StatusCode::Internal, "panic while enabling the ROCm tracer"),
        || enable(max_annotation_strings, Delivery::Cpp(collector)),
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
                Delivery::Direct(collector) => crate::ffi::disable_into(collector),
                Delivery::Cpp(_) => Tracer::get().disable(),
                // A session started through the C ABI is not the C++ tracer's to end.
                Delivery::Idle => {}
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
    let record = |status: BridgeStatus, event: &RocmTracerEvent| {
        let (event, text) = XrtEvents::one(event);
        DecodedRecord {
            status,
            event,
            text,
        }
    };
    let failed = |message: &str| record(status(StatusCode::Internal, message), &Default::default());
    guarded(
        "tracer_decode_record",
        || failed("panic while decoding a rocprofiler record"),
        || {
            // SAFETY: per this function's contract.
            let decoded = unsafe {
                Tracer::get().decode_record(header as *const sys::rocprofiler_record_header_t)
            };
            match decoded {
                Ok(event) => record(ok(), &event),
                Err(reason) => failed(reason),
            }
        },
    )
}

fn tracer_roctx_call(operation: i32, has_message: bool, message: &[u8], thread_id: u64) {
    guarded(
        "tracer_roctx_call",
        || (),
        || {
            let message = has_message.then(|| Arc::from(String::from_utf8_lossy(message)));
            roctx::on_marker_call(operation, message, thread_id)
        },
    )
}

fn tracer_roctx_current_label() -> String {
    guarded("tracer_roctx_current_label", String::new, || {
        roctx::current_label().map_or_else(String::new, |label| label.to_string())
    })
}

fn tracer_roctx_emit(label: &[u8], start_ns: u64, end_ns: u64, thread_id: u64) {
    guarded(
        "tracer_roctx_emit",
        || (),
        || {
            let label = Arc::from(String::from_utf8_lossy(label));
            roctx::emit_marker(label, start_ns, end_ns, thread_id)
        },
    )
}
