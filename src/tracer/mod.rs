//! The process-wide tracer: XLA's `RocmTracer` (docs/xla-interface.md#tracer-header, #how-xlas-tracer-drives-the-sdk).
//!
//! Initialization runs once, inside the SDK's tool `initialize` (see `registration`), and
//! creates three contexts in XLA's order: the utility context (kernel names, always on), the
//! main context (buffered HIP API / kernel / copy records, the HIP API ENTER callback for
//! annotations and the external-correlation request for stream ids; started by `enable()`,
//! stopped by `disable()`), and the process-lifetime HIP_STREAM context that keeps every
//! thread's stream stack right even before the first `enable()` (and, through HIP_STREAM
//! CREATE/DESTROY and MARKER_NAME_API, knows the streams' kinds and ROCTx names:
//! `streams/names.rs`). Any failure leaves the tracer unavailable with the error kept for
//! `enable()`; only the stream names are optional.
//!
//! Deliberate differences from XLA: `max_annotation_strings` is honoured (docs/xla-interface.md#xla-edge-1); `disable()`
//! without `enable()` is a no-op (docs/xla-interface.md#xla-edge-4); the annotation map is cleared *before* the main
//! context starts, so annotations of the first calls of a session are not wiped by a late
//! clear; events go to the sink in one batch per buffer callback; kernel and copy records are
//! assigned to sessions by correlation id (`session/ledger.rs`), and `disable()` waits, bounded,
//! for the ones its session still expects; other records that started before the session are
//! dropped and counted; finalize flushes the buffer first; a failed initialization makes
//! `is_available()` false.
pub mod annotation;
pub(crate) mod decode;
pub(crate) mod hip_api;
pub mod roctx;
pub(crate) mod sdk;
mod session;
pub(crate) mod streams;
pub mod thread_state;
mod word_ring;

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{LazyLock, OnceLock};

use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;

use crate::drop_reason::DropReason;
use crate::event::RocmTracerEvent;
use annotation::{
    AnnotationMap, AnnotationSource, ThreadAnnotationStack, DEFAULT_MAX_ANNOTATION_STRINGS,
};
use decode::kernel_names::KernelNames;
use decode::record_decoder::RecordDecoder;
use hip_api::copy_calls::CopyCalls;
use hip_api::enter_callback::{self, EnterTarget};
use hip_api::names::HipApiNames;
use sdk::agents::{AgentInfo, Agents};
use sdk::calls::SdkError;
pub use sdk::hip_runtime_reach;
pub use sdk::registration::{register_as_tool_library, ToolLibraryHooks, SDK_HELD_ELSEWHERE};
pub use sdk::setup::INITIALIZATION_FAILED;
pub use sdk::setup::{BUFFER_SIZE_BYTES, BUFFER_WATERMARK_BYTES};
use sdk::version::SdkVersion;
use session::ledger::SessionLedger;
use session::SessionSlot;
pub use session::{
    disable_wait_from_env, set_wait_sleeper, TracerOptions, DEFAULT_DISABLE_WAIT, DISABLE_WAIT_ENV,
};

/// Errors of the tracer's lifecycle, one variant per absl status code the C++ shim returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TracerError {
    /// A session is already running (`absl::AlreadyExistsError`).
    AlreadyExists,
    /// The tracer could not initialize or the SDK was finalized (`absl::UnavailableError`).
    Unavailable(String),
    /// An SDK call failed while starting a session (`absl::InternalError`).
    Internal(SdkError),
}

impl fmt::Display for TracerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TracerError::AlreadyExists => f.write_str("ROCM tracer is already running"),
            TracerError::Unavailable(reason) => write!(f, "ROCM tracer is unavailable: {reason}"),
            TracerError::Internal(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for TracerError {}

/// What a successful initialization created (`sdk/setup.rs`); read by the callbacks and the
/// session for the life of the process.
pub(crate) struct SdkSetup {
    pub version: SdkVersion,
    pub utility_context: sys::rocprofiler_context_id_t,
    pub main_context: sys::rocprofiler_context_id_t,
    pub stream_context: sys::rocprofiler_context_id_t,
    pub buffer: sys::rocprofiler_buffer_id_t,
    pub agents: Agents,
    pub hip_names: HipApiNames,
}

pub struct Tracer {
    setup: OnceLock<Result<SdkSetup, TracerError>>,
    /// The agents as first queried, kept even when a later initialization step fails: XLA's
    /// agent queries (`GpuAgents`, `NumGpus`, device capabilities) keep working after a failed
    /// start-up (docs/xla-interface.md#initialization-order).
    queried_agents: OnceLock<Agents>,
    kernel_names: KernelNames,
    annotations: AnnotationMap,
    /// What each copy call of the session asked for, noted at its HIP API ENTER.
    copy_calls: CopyCalls,
    annotation_source: OnceLock<Box<dyn AnnotationSource>>,
    /// Serializes `enable()` / `disable()`.
    control: Mutex<()>,
    /// True while a session runs; read without the lock so that a sink may ask.
    running: AtomicBool,
    /// The sink lock: held for a whole buffer callback, and by `disable()` around `flush()`.
    session: SessionSlot,
    finalized: AtomicBool,
    records_without_session: AtomicU64,
    /// Kernel and copy records that arrived after the session that requested them ended.
    late_records_of_ended_sessions: AtomicU64,
    /// The SDK's cumulative drop count as last passed to the buffer callback.
    sdk_drops_seen: AtomicU64,
    /// Drop counts a panicking `on_events_dropped` could not take.
    drops_lost_to_sink_panics: AtomicU64,
    /// Requests and records of each session, by correlation id.
    ledger: SessionLedger,
}

static TRACER: LazyLock<Tracer> = LazyLock::new(|| Tracer {
    setup: OnceLock::new(),
    queried_agents: OnceLock::new(),
    kernel_names: KernelNames::default(),
    annotations: AnnotationMap::new(DEFAULT_MAX_ANNOTATION_STRINGS),
    copy_calls: CopyCalls::default(),
    annotation_source: OnceLock::new(),
    control: Mutex::new(()),
    running: AtomicBool::new(false),
    session: SessionSlot::new(),
    finalized: AtomicBool::new(false),
    records_without_session: AtomicU64::new(0),
    late_records_of_ended_sessions: AtomicU64::new(0),
    sdk_drops_seen: AtomicU64::new(0),
    drops_lost_to_sink_panics: AtomicU64::new(0),
    ledger: SessionLedger::default(),
});

thread_local! {
    /// Set while this thread runs the buffer callback, so a sink that calls `disable()` gets
    /// an error log instead of a self-deadlock on the sink lock.
    static IN_BUFFER_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// The singleton without the registration check: for the SDK's callbacks, which only run
/// once the tool is registered.
pub(crate) fn instance() -> &'static Tracer {
    &TRACER
}

impl Tracer {
    // `Tracer::get()` lives in `registration`, which depends on this module and not the other
    // way round.

    /// Exactly when a session could be started now: initialized, not finalized, not running.
    pub fn is_available(&self) -> bool {
        matches!(self.setup.get(), Some(Ok(_)))
            && !self.finalized.load(Ordering::Acquire)
            && !self.running.load(Ordering::Acquire)
    }

    /// Why the tracer is unavailable, if initialization failed.
    pub fn init_error(&self) -> Option<TracerError> {
        match self.setup.get() {
            Some(Err(error)) => Some(error.clone()),
            Some(Ok(_)) => None,
            None => Some(TracerError::Unavailable(
                "the tracer is not registered with rocprofiler-sdk".to_owned(),
            )),
        }
    }

    fn ready_setup(&self) -> Result<&SdkSetup, TracerError> {
        match self.setup.get() {
            Some(Ok(setup)) => Ok(setup),
            _ => Err(self.init_error().unwrap_or_else(|| {
                TracerError::Unavailable("the tracer is not initialized".to_owned())
            })),
        }
    }

    /// XLA's `GetTimestamp()`: the SDK clock (CLOCK_BOOTTIME ns) of the record timestamps;
    /// 0 on error.
    pub fn timestamp() -> u64 {
        sdk::calls::timestamp().unwrap_or(0)
    }

    /// The GPUs HIP sees, in the SDK's query order: position `i` is HIP device `i` and XLA's
    /// device ordinal `i`; GPUs hidden by `HIP_VISIBLE_DEVICES` and the like are left out
    /// (empty if unavailable).
    pub fn gpu_agents(&self) -> &[AgentInfo] {
        self.agents().map_or(&[], Agents::gpus)
    }

    pub fn num_gpus(&self) -> u32 {
        self.gpu_agents().len() as u32
    }

    /// Every agent, CPUs included; `None` only if the SDK could not list them. Like XLA's,
    /// the list survives a start-up that failed after the agent query.
    pub fn agents(&self) -> Option<&Agents> {
        self.queried_agents.get()
    }

    pub fn sdk_version(&self) -> Option<SdkVersion> {
        self.ready_setup().ok().map(|setup| setup.version)
    }

    pub fn annotation_map(&self) -> &AnnotationMap {
        &self.annotations
    }

    pub fn kernel_names(&self) -> &KernelNames {
        &self.kernel_names
    }

    /// Installs where annotations come from (the C++ shim installs tsl's AnnotationStack).
    /// Only the first call wins; later ones get their source back.
    pub fn set_annotation_source(
        &self,
        source: Box<dyn AnnotationSource>,
    ) -> Result<(), Box<dyn AnnotationSource>> {
        self.annotation_source.set(source)?;
        let tracer = instance();
        if std::ptr::eq(self, tracer) {
            tracer.serve_enter();
        }
        Ok(())
    }

    /// Gives the HIP API ENTER what it records into, with the annotation source as it is now.
    /// The set-up and the installation of a source may race: whoever serves last checks that
    /// the source did not change meanwhile (it changes once), so the source installed wins.
    fn serve_enter(&'static self) {
        loop {
            let source = self.annotation_source();
            enter_callback::serve(EnterTarget {
                source,
                annotations: &self.annotations,
                copy_calls: &self.copy_calls,
            });
            if std::ptr::addr_eq(source, self.annotation_source()) {
                return;
            }
        }
    }

    /// The source the HIP API ENTER records through: the installed one, else the standalone
    /// [`ThreadAnnotationStack`].
    #[inline]
    pub(crate) fn annotation_source(&self) -> &dyn AnnotationSource {
        match self.annotation_source.get() {
            Some(source) => source.as_ref(),
            None => &ThreadAnnotationStack,
        }
    }

    /// The main context (what XLA's tests read as `context_`).
    pub fn main_context(&self) -> Option<sys::rocprofiler_context_id_t> {
        self.ready_setup().ok().map(|setup| setup.main_context)
    }

    pub fn stream_context(&self) -> Option<sys::rocprofiler_context_id_t> {
        self.ready_setup().ok().map(|setup| setup.stream_context)
    }

    pub fn utility_context(&self) -> Option<sys::rocprofiler_context_id_t> {
        self.ready_setup().ok().map(|setup| setup.utility_context)
    }

    /// The main context's buffer (XLA's `buffer_`).
    pub fn buffer(&self) -> Option<sys::rocprofiler_buffer_id_t> {
        self.ready_setup().ok().map(|setup| setup.buffer)
    }

    /// Decodes one record outside any buffer callback (XLA's `HipApiEvent`, `KernelEvent`,
    /// `MemcpyEvent`) with the decoder the buffer callback uses.
    ///
    /// # Safety
    /// As [`RecordDecoder::decode`].
    pub unsafe fn decode_record(
        &self,
        header: *const sys::rocprofiler_record_header_t,
    ) -> Result<RocmTracerEvent, &'static str> {
        let setup = self
            .ready_setup()
            .map_err(|_| "the tracer is not initialized")?;
        // One record outside any buffer callback: no session to be older than.
        let decoder = self.decoder(setup, 0);
        // SAFETY: per this function's contract.
        unsafe { decoder.decode(header) }.map_err(DropReason::describe)
    }

    /// The decoder of this tracer's records, for a session started at `session_start_ns`.
    fn decoder<'a>(&'a self, setup: &'a SdkSetup, session_start_ns: u64) -> RecordDecoder<'a> {
        RecordDecoder {
            agents: &setup.agents,
            hip_names: &setup.hip_names,
            kernel_names: &self.kernel_names,
            annotations: &self.annotations,
            copy_calls: Some(&self.copy_calls),
            session_start_ns,
        }
    }

    /// Records that arrived while no session was enabled.
    pub fn records_without_session(&self) -> u64 {
        self.records_without_session.load(Ordering::Relaxed)
    }

    /// Kernel and copy records that arrived after the session that requested them had ended
    /// (more than its `disable_wait` late); they were counted as in flight in that session.
    pub fn late_records_of_ended_sessions(&self) -> u64 {
        self.late_records_of_ended_sessions.load(Ordering::Relaxed)
    }

    /// Records the running (or last ended) session requested (kernel dispatches and copies)
    /// and did not get (before its `disable()` gave up waiting, for an ended one).
    pub fn records_in_flight(&self) -> u64 {
        self.ledger.missing()
    }

    pub(crate) fn ledger(&self) -> &SessionLedger {
        &self.ledger
    }

    /// Dropped events whose count could not be reported because the sink's
    /// `on_events_dropped` panicked.
    pub fn drops_lost_to_sink_panics(&self) -> u64 {
        self.drops_lost_to_sink_panics.load(Ordering::Relaxed)
    }
}
