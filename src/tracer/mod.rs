//! The process-wide tracer: XLA's `RocmTracer` (docs/xla-interface.md#tracer-header, #how-xlas-tracer-drives-the-sdk).
//!
//! Initialization runs once, inside the SDK's tool `initialize` (see `registration`), and
//! creates three contexts in XLA's order: the utility context (kernel names, always on), the
//! main context (buffered HIP API / kernel / copy records, the HIP API ENTER callback for
//! annotations and the external-correlation request for stream ids; started by `enable()`,
//! stopped by `disable()`), and the process-lifetime HIP_STREAM context that keeps every
//! thread's stream stack right even before the first `enable()` (and, through HIP_STREAM
//! CREATE/DESTROY and MARKER_NAME_API, knows the streams' kinds and ROCTx names:
//! `stream_names`). Any failure leaves the tracer unavailable with the error kept for
//! `enable()`; only the stream names are optional.
//!
//! Deliberate differences from XLA: `max_annotation_strings` is honoured (docs/xla-interface.md#xla-edge-1); `disable()`
//! without `enable()` is a no-op (docs/xla-interface.md#xla-edge-4); the annotation map is cleared *before* the main
//! context starts, so annotations of the first calls of a session are not wiped by a late
//! clear; events go to the sink in one batch per buffer callback; kernel and copy records are
//! assigned to sessions by correlation id (`session_ledger`), and `disable()` waits, bounded,
//! for the ones its session still expects; other records that started before the session are
//! dropped and counted; finalize flushes the buffer first; a failed initialization makes
//! `is_available()` false.
pub mod agents;
pub mod annotation;
pub mod copy_calls;
pub mod correlation;
pub mod hip_api;
pub mod kernel_names;
pub mod record_decoder;
pub mod registration;
pub mod sdk;
pub mod session_ledger;
pub mod stream_names;
pub mod stream_stack;
pub mod version;

use std::cell::Cell;
use std::ffi::c_void;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;

use crate::drop_reason::DropReason;
use crate::event::{EventSource, EventType, RocmTracerEvent};
use crate::sink::EventSink;
use crate::tracer::agents::{AgentInfo, Agents};
use crate::tracer::annotation::{
    AnnotationMap, AnnotationSource, ThreadAnnotationStack, DEFAULT_MAX_ANNOTATION_STRINGS,
};
use crate::tracer::copy_calls::{CopyCalls, CopyPieces};
use crate::tracer::correlation::stream_external_correlation_callback;
use crate::tracer::hip_api::HipApiNames;
use crate::tracer::kernel_names::KernelNames;
use crate::tracer::record_decoder::{DropCounts, RecordDecoder};
use crate::tracer::sdk::SdkError;
use crate::tracer::session_ledger::{Attribution, SessionLedger};
use crate::tracer::stream_stack::hip_stream_callback;
use crate::tracer::version::SdkVersion;

// The unit tests of this crate link the simulated SDK for the symbols the `sys` layer leaves
// open; the library itself never contains it.
#[cfg(test)]
extern crate rocprofiler_sdk_sim;

/// XLA's buffer geometry (docs/xla-interface.md#initialization-order): 100 pages, flushed at 40.
pub const BUFFER_SIZE_BYTES: usize = 100 * 4096;
pub const BUFFER_WATERMARK_BYTES: usize = 40 * 4096;

/// The environment variable that sets [`TracerOptions::disable_wait`]'s default, in
/// milliseconds (0 = don't wait): XLA's `RocmTracerOptions` has no field for it.
pub const DISABLE_WAIT_ENV: &str = "XLA_ROCM_TRACER_DISABLE_WAIT_MS";

/// How long `disable()` waits by default for the records of work its session requested.
pub const DEFAULT_DISABLE_WAIT: Duration = Duration::from_secs(1);

/// [`DEFAULT_DISABLE_WAIT`], or what [`DISABLE_WAIT_ENV`] says (read at every call, so a
/// process can change it between sessions). A value that is not a number is ignored, logged.
pub fn disable_wait_from_env() -> Duration {
    let Ok(text) = std::env::var(DISABLE_WAIT_ENV) else {
        return DEFAULT_DISABLE_WAIT;
    };
    match text.trim().parse::<u64>() {
        Ok(ms) => Duration::from_millis(ms),
        Err(_) => {
            log::warn!(
                "{DISABLE_WAIT_ENV}={text:?} is not a number of milliseconds; using {} ms",
                DEFAULT_DISABLE_WAIT.as_millis()
            );
            DEFAULT_DISABLE_WAIT
        }
    }
}

/// XLA's `RocmTracerOptions`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TracerOptions {
    /// Distinct annotation strings kept per session (XLA's map ignores this; we do not).
    pub max_annotation_strings: u64,
    /// How long `disable()` flushes and waits for the records of the kernel dispatches and
    /// copies the session requested (kernel records land a lag after the GPU finished, even
    /// after a synchronize). What is still missing then is reported to the sink as
    /// [`DropReason::InFlightAtDisable`]. Zero: flush once, don't wait. Defaults to
    /// [`disable_wait_from_env`].
    pub disable_wait: Duration,
}

impl Default for TracerOptions {
    fn default() -> Self {
        TracerOptions {
            max_annotation_strings: DEFAULT_MAX_ANNOTATION_STRINGS,
            disable_wait: disable_wait_from_env(),
        }
    }
}

/// How `disable()` lets time pass while it waits; see [`set_wait_sleeper`].
static WAIT_SLEEPER: Mutex<fn(Duration)> = Mutex::new(std::thread::sleep);

/// Replaces how `disable()` sleeps between flushes while it waits (default
/// `std::thread::sleep`). The wait's bound counts the durations passed to it, so a sleeper
/// that moves a simulated clock instead of the host's keeps the wait deterministic there
/// (the simulator's virtual clock only moves with HIP calls and its own sleeps).
pub fn set_wait_sleeper(sleeper: fn(Duration)) {
    *WAIT_SLEEPER.lock() = sleeper;
}

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

/// What a successful initialization created.
struct SdkSetup {
    version: SdkVersion,
    utility_context: sys::rocprofiler_context_id_t,
    main_context: sys::rocprofiler_context_id_t,
    stream_context: sys::rocprofiler_context_id_t,
    buffer: sys::rocprofiler_buffer_id_t,
    agents: Agents,
    hip_names: HipApiNames,
}

/// The sink of the running session and what its buffer callbacks need.
struct Session {
    sink: Arc<dyn EventSink>,
    start_ns: u64,
    disable_wait: Duration,
    /// Reused between callbacks; `add_events` drains it.
    batch: Vec<RocmTracerEvent>,
    /// Pieces of chunked copies waiting for the rest of their call.
    copy_pieces: CopyPieces,
    /// Renamed copies of one callback, reported after the batch; reused.
    recorded_as: Vec<(u64, EventType)>,
    /// `correlation::requests_outside_set_window()` at enable.
    outside_set_window_at_start: u64,
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
    session: Mutex<Option<Session>>,
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
    session: Mutex::new(None),
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

fn unavailable(error: SdkError) -> TracerError {
    TracerError::Unavailable(format!("rocprofiler-sdk initialization failed: {error}"))
}

/// Contexts started during initialization, stopped again if a later step fails.
#[derive(Default)]
struct StartedContexts(Vec<sys::rocprofiler_context_id_t>);

impl Drop for StartedContexts {
    fn drop(&mut self) {
        for context in self.0.drain(..) {
            let _ = sdk::stop_context(context);
        }
    }
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

    /// Starts a session delivering to `sink`.
    pub fn enable(
        &self,
        options: TracerOptions,
        sink: Arc<dyn EventSink>,
    ) -> Result<(), TracerError> {
        let setup = self.ready_setup()?;
        if IN_BUFFER_CALLBACK.try_with(Cell::get).unwrap_or(false) {
            // Only a running session delivers to a sink.
            return Err(TracerError::AlreadyExists);
        }
        let _control = self.control.lock();
        if self.finalized.load(Ordering::Acquire) {
            return Err(TracerError::Unavailable(
                "rocprofiler-sdk has been finalized".to_owned(),
            ));
        }
        if self.running.load(Ordering::Acquire) {
            return Err(TracerError::AlreadyExists);
        }
        self.annotations.clear();
        self.annotations
            .set_max_strings(options.max_annotation_strings);
        self.copy_calls.clear();
        correlation::start_session_generation();
        let start_ns = sdk::timestamp().unwrap_or(0);
        *self.session.lock() = Some(Session {
            sink,
            start_ns,
            disable_wait: options.disable_wait,
            batch: Vec::new(),
            copy_pieces: CopyPieces::default(),
            recorded_as: Vec::new(),
            outside_set_window_at_start: correlation::requests_outside_set_window(),
        });
        self.ledger.begin();
        if let Err(error) = sdk::start_context(setup.main_context) {
            self.ledger.end();
            *self.session.lock() = None;
            return Err(TracerError::Internal(error));
        }
        self.running.store(true, Ordering::Release);
        Ok(())
    }

    /// Ends the session: stops the main context, drains the buffer into the sink, waits (up to
    /// the session's `disable_wait`, flushing again and again) until every kernel dispatch and
    /// copy the session requested has its record, reports what is still missing as
    /// [`DropReason::InFlightAtDisable`], flushes the sink and forgets it. Records that
    /// arrive later are recognized by correlation id and never reach another session. Without
    /// a running session it does nothing.
    pub fn disable(&self) {
        if IN_BUFFER_CALLBACK.try_with(Cell::get).unwrap_or(false) {
            log::error!(
                "RocmTracer::disable() called from inside an EventSink callback; ignored \
                 (flushing the buffer from its own callback would deadlock)"
            );
            return;
        }
        let _control = self.control.lock();
        if !self.running.load(Ordering::Acquire) {
            return;
        }
        let disable_wait = self
            .session
            .lock()
            .as_ref()
            .map_or(Duration::ZERO, |session| session.disable_wait);
        if let Ok(setup) = self.ready_setup() {
            if let Err(error) = sdk::stop_context(setup.main_context) {
                log::warn!("{error}");
            }
            self.flush_until_complete(setup.buffer, disable_wait);
        }
        // From here on, records of this session count as late, never as the next one's.
        let in_flight = self.ledger.end();
        let mut session = self.session.lock();
        if let Some(session) = session.as_mut() {
            deliver_session_tail(session);
            if in_flight > 0 {
                let sink = &session.sink;
                let reported = catch_unwind(AssertUnwindSafe(|| {
                    sink.on_events_dropped(DropReason::InFlightAtDisable, in_flight)
                }));
                if reported.is_err() {
                    self.drops_lost_to_sink_panics
                        .fetch_add(in_flight, Ordering::Relaxed);
                }
            }
            // A panicking sink must not leave the tracer "running" forever.
            if catch_unwind(AssertUnwindSafe(|| session.sink.flush())).is_err() {
                log::error!("the EventSink panicked in flush(); the session ends anyway");
            }
        }
        *session = None;
        self.running.store(false, Ordering::Release);
    }

    /// Flushes `buffer` until the running session's requested records all arrived or `bound`
    /// (counted in the sleeper's durations) is used up. Always flushes at least once.
    fn flush_until_complete(&self, buffer: sys::rocprofiler_buffer_id_t, bound: Duration) {
        let sleeper = *WAIT_SLEEPER.lock();
        let mut waited = Duration::ZERO;
        // Short first naps: a record's lag is usually tens of microseconds.
        let mut nap = Duration::from_micros(50);
        loop {
            if let Err(error) = sdk::flush_buffer(buffer) {
                log::warn!("{error}");
                return;
            }
            if self.ledger.missing() == 0 || waited >= bound {
                return;
            }
            let step = nap.min(bound - waited);
            sleeper(step);
            waited += step;
            nap = (nap * 2).min(Duration::from_millis(10));
        }
    }

    /// XLA's `GetTimestamp()`: the SDK clock (CLOCK_BOOTTIME ns) of the record timestamps;
    /// 0 on error.
    pub fn timestamp() -> u64 {
        sdk::timestamp().unwrap_or(0)
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
        self.annotation_source.set(source)
    }

    fn annotation_source(&self) -> &dyn AnnotationSource {
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
        let decoder = RecordDecoder {
            agents: &setup.agents,
            hip_names: &setup.hip_names,
            kernel_names: &self.kernel_names,
            annotations: &self.annotations,
            // One record outside any buffer callback: no session to be older than.
            session_start_ns: 0,
        };
        // SAFETY: per this function's contract.
        unsafe { decoder.decode(header) }.map_err(DropReason::describe)
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

    /// Keeps `error` as the reason the tracer is unavailable, unless initialization already
    /// produced a result.
    pub(crate) fn set_unavailable(&self, error: TracerError) {
        let _ = self.setup.set(Err(error));
    }

    pub(crate) fn is_initialized(&self) -> bool {
        self.setup.get().is_some()
    }

    /// The tool's `initialize`: returns XLA's 0 / -1.
    pub(crate) fn initialize_from_tool(&self) -> i32 {
        if self.setup.get().is_some() {
            return -1;
        }
        let result = self.initialize_sdk();
        let code = match &result {
            Ok(_) => 0,
            Err(error) => {
                log::error!("{error}");
                -1
            }
        };
        if self.setup.set(result).is_err() {
            return -1;
        }
        code
    }

    fn initialize_sdk(&self) -> Result<SdkSetup, TracerError> {
        let (major, minor, patch) = sdk::get_version().map_err(unavailable)?;
        let version = SdkVersion {
            major,
            minor,
            patch,
        };
        version
            .require_supported()
            .map_err(TracerError::Unavailable)?;
        // Agents first, as XLA's `InitProfiling` does, so that they stay known if a later
        // step fails.
        let agents = Agents::query().map_err(unavailable)?;
        let _ = self.queried_agents.set(agents.clone());
        let hip_names = HipApiNames::query().map_err(unavailable)?;
        let mut started = StartedContexts::default();

        let utility_context = sdk::create_context().map_err(unavailable)?;
        sdk::configure_callback_tracing(
            utility_context,
            sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
            &[sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER],
            Some(code_object_callback),
        )
        .map_err(unavailable)?;
        sdk::start_context(utility_context).map_err(unavailable)?;
        started.0.push(utility_context);

        let main_context = sdk::create_context().map_err(unavailable)?;
        let buffer = sdk::create_buffer(
            main_context,
            BUFFER_SIZE_BYTES,
            BUFFER_WATERMARK_BYTES,
            sys::ROCPROFILER_BUFFER_POLICY_LOSSLESS,
            Some(buffer_callback),
        )
        .map_err(unavailable)?;
        for kind in [
            sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
            sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
            sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
        ] {
            sdk::configure_buffer_tracing(main_context, kind, buffer).map_err(unavailable)?;
        }
        sdk::configure_external_correlation_request(
            main_context,
            &[
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
            ],
            Some(stream_external_correlation_callback),
        )
        .map_err(unavailable)?;

        let stream_context = sdk::create_context().map_err(unavailable)?;
        sdk::configure_callback_tracing(
            stream_context,
            sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
            &[],
            Some(hip_stream_callback),
        )
        .map_err(unavailable)?;
        // Stream names are a nicety: an SDK that cannot trace ROCTx's name API still traces.
        if let Err(error) = sdk::configure_callback_tracing(
            stream_context,
            sys::ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
            &[sys::ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream],
            Some(stream_names::marker_name_callback),
        ) {
            log::warn!("stream names (roctxNameHipStream) will not be shown: {error}");
        }
        sdk::start_context(stream_context).map_err(unavailable)?;
        started.0.push(stream_context);

        sdk::configure_callback_tracing(
            main_context,
            sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
            &[],
            Some(hip_api_callback),
        )
        .map_err(unavailable)?;
        let callback_thread = sdk::create_callback_thread().map_err(unavailable)?;
        sdk::assign_callback_thread(buffer, callback_thread).map_err(unavailable)?;
        if !sdk::context_is_valid(main_context).map_err(unavailable)? {
            return Err(TracerError::Unavailable(
                "rocprofiler-sdk reports the tracer's main context as invalid".to_owned(),
            ));
        }
        started.0.clear();
        Ok(SdkSetup {
            version,
            utility_context,
            main_context,
            stream_context,
            buffer,
            agents,
            hip_names,
        })
    }

    /// The tool's `finalize`: delivers what the buffer still holds, then stops all three
    /// contexts (the SDK is shutting down).
    ///
    /// The SDK flushes no buffer at finalization: records below the watermark would be lost,
    /// so a session still running at process exit delivers its tail to its sink here. By the
    /// time this runs the SDK has already stopped the contexts itself, so `stop_context`
    /// answering CONTEXT_NOT_FOUND is expected and not logged as a problem.
    pub(crate) fn finalize(&self) {
        self.finalized.store(true, Ordering::Release);
        if let Some(Ok(setup)) = self.setup.get() {
            if let Err(error) = sdk::flush_buffer(setup.buffer) {
                log::warn!("at finalization: {error}");
            }
            for context in [
                setup.utility_context,
                setup.stream_context,
                setup.main_context,
            ] {
                match sdk::stop_context(context) {
                    Ok(()) => {}
                    Err(error)
                        if error.status == sys::ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND =>
                    {
                        log::debug!("at finalization: {error}")
                    }
                    Err(error) => log::warn!("at finalization: {error}"),
                }
            }
        }
    }

    /// # Safety
    /// The arguments of a buffer callback (see [`RecordDecoder::decode_buffer`]).
    unsafe fn on_buffer(
        &self,
        headers: *const *const sys::rocprofiler_record_header_t,
        num_headers: usize,
        drop_count: u64,
    ) {
        let Some(Ok(setup)) = self.setup.get() else {
            return;
        };
        // The SDK passes its cumulative drop count with every callback (a DISCARD buffer's;
        // LOSSLESS never drops): only the increase since the last callback is new.
        let new_sdk_drops = new_drops_since_last(&self.sdk_drops_seen, drop_count);
        let mut guard = self.session.lock();
        let Some(session) = guard.as_mut() else {
            // SAFETY: this function's arguments, forwarded.
            unsafe { self.count_records_without_session(setup, headers, num_headers) };
            return;
        };
        let decoder = RecordDecoder {
            agents: &setup.agents,
            hip_names: &setup.hip_names,
            kernel_names: &self.kernel_names,
            annotations: &self.annotations,
            session_start_ns: session.start_ns,
        };
        let mut drops = DropCounts::default();
        drops.add(DropReason::SdkDropped, new_sdk_drops);
        let mut late = 0u64;
        let batch = &mut session.batch;
        batch.reserve(num_headers);
        // SAFETY: forwarded from the buffer callback.
        unsafe {
            decoder.for_each_record(headers, num_headers, |decoded| match decoded {
                Err(reason) => drops.add(reason, 1),
                Ok(event) => {
                    let attribution = if event.source == EventSource::Activity {
                        self.ledger.on_record(event.correlation_id)
                    } else {
                        Attribution::Unrequested
                    };
                    match attribution {
                        Attribution::Current => batch.push(event),
                        Attribution::EndedSession => late += 1,
                        // HIP API records (and any activity no request announced) are
                        // checked against the session start.
                        Attribution::Unrequested if event.start_time_ns < session.start_ns => {
                            drops.add(DropReason::PreviousSession, 1)
                        }
                        Attribution::Unrequested => batch.push(event),
                    }
                }
            })
        };
        self.late_records_of_ended_sessions
            .fetch_add(late, Ordering::Relaxed);
        session.copy_pieces.apply(
            &self.copy_calls,
            &mut session.batch,
            &mut session.recorded_as,
        );
        if !session.batch.is_empty() {
            let batch_len = session.batch.len() as u64;
            let sink = &session.sink;
            let batch = &mut session.batch;
            // A panicking sink (a user collector) loses this batch, counted, and keeps the
            // session: the panic must not reach the SDK's callback thread.
            let delivered = catch_unwind(AssertUnwindSafe(|| sink.add_events(batch)));
            session.batch.clear();
            if delivered.is_err() {
                log::error!("the EventSink panicked in add_events; {batch_len} events lost");
                drops.add(DropReason::SinkPanicked, batch_len);
            }
        }
        report_recorded_directions(session);
        for (reason, count) in drops.iter() {
            let sink = &session.sink;
            if catch_unwind(AssertUnwindSafe(|| sink.on_events_dropped(reason, count))).is_err() {
                log::error!("the EventSink panicked in on_events_dropped({reason:?}, {count})");
                self.drops_lost_to_sink_panics
                    .fetch_add(count, Ordering::Relaxed);
            }
        }
    }
}

impl Tracer {
    /// A buffer callback without a session: kernel and copy records of an ended session are
    /// counted as late, everything else as without a session.
    ///
    /// # Safety
    /// The arguments of a buffer callback.
    unsafe fn count_records_without_session(
        &self,
        setup: &SdkSetup,
        headers: *const *const sys::rocprofiler_record_header_t,
        num_headers: usize,
    ) {
        let decoder = RecordDecoder {
            agents: &setup.agents,
            hip_names: &setup.hip_names,
            kernel_names: &self.kernel_names,
            annotations: &self.annotations,
            session_start_ns: 0,
        };
        let (mut late, mut without) = (0u64, 0u64);
        // SAFETY: forwarded from the buffer callback.
        unsafe {
            decoder.for_each_record(headers, num_headers, |decoded| match decoded {
                Ok(event)
                    if event.source == EventSource::Activity
                        && self.ledger.on_record(event.correlation_id)
                            == Attribution::EndedSession =>
                {
                    late += 1
                }
                _ => without += 1,
            })
        };
        self.late_records_of_ended_sessions
            .fetch_add(late, Ordering::Relaxed);
        self.records_without_session
            .fetch_add(without, Ordering::Relaxed);
    }
}

/// The part of the SDK's cumulative `drop_count` not seen before; `seen` keeps the largest
/// value passed so far (callbacks of one buffer run on one thread, but a reordered or repeated
/// value must never count twice).
fn new_drops_since_last(seen: &AtomicU64, cumulative: u64) -> u64 {
    cumulative.saturating_sub(seen.fetch_max(cumulative, Ordering::Relaxed))
}

/// The main buffer's callback, on its own SDK thread.
unsafe extern "C" fn buffer_callback(
    _context: sys::rocprofiler_context_id_t,
    _buffer: sys::rocprofiler_buffer_id_t,
    headers: *mut *mut sys::rocprofiler_record_header_t,
    num_headers: usize,
    _data: *mut c_void,
    drop_count: u64,
) {
    let _ = IN_BUFFER_CALLBACK.try_with(|flag| flag.set(true));
    let result = std::panic::catch_unwind(|| {
        // SAFETY: the SDK's buffer callback arguments, valid during this call.
        unsafe { instance().on_buffer(headers as *const *const _, num_headers, drop_count) }
    });
    let _ = IN_BUFFER_CALLBACK.try_with(|flag| flag.set(false));
    if result.is_err() {
        log::error!("panic while handling a rocprofiler buffer callback; its records are lost");
    }
}

/// The utility context's CODE_OBJECT callback (kernel names).
unsafe extern "C" fn code_object_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut c_void,
) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the SDK's record, whose payload is valid during this call.
        unsafe { instance().kernel_names.on_code_object_record(&record) }
    });
}

/// The main context's HIP API callback: at ENTER, on the launching thread, records the
/// thread's annotation and scope-range ids under the call's internal correlation id.
unsafe extern "C" fn hip_api_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut c_void,
) {
    if record.kind != sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API {
        return;
    }
    // Panic-free: a thread-local update. Work submitted while no call is open on the thread
    // came from HIP's worker thread (see `correlation`).
    if record.phase == sys::ROCPROFILER_CALLBACK_PHASE_EXIT {
        correlation::exit_hip_call();
        return;
    }
    if record.phase != sys::ROCPROFILER_CALLBACK_PHASE_ENTER {
        return;
    }
    correlation::enter_hip_call();
    let correlation_id = record.correlation_id.internal;
    let _ = std::panic::catch_unwind(|| {
        let tracer = instance();
        tracer
            .annotation_source()
            .record(correlation_id, &tracer.annotations);
        if hip_api::is_copy_api(record.operation) {
            // SAFETY: the SDK's HIP API payload, valid during this callback.
            let args = unsafe { copy_calls::hip_api_args(record.payload as *const c_void) };
            if let Some(call) = copy_calls::copy_call(record.operation, args.as_ref()) {
                tracer.copy_calls.note(correlation_id, call);
            }
        }
    });
}

/// What `disable()` hands the sink after the last buffer and before `flush()`: copies whose
/// pieces never added up to their call, and the session's warnings about stream attribution.
fn deliver_session_tail(session: &mut Session) {
    let mut partial = session.copy_pieces.take_partial();
    if !partial.is_empty() {
        let sink = &session.sink;
        if catch_unwind(AssertUnwindSafe(|| sink.add_events(&mut partial))).is_err() {
            log::error!("the EventSink panicked in add_events at disable()");
        }
    }
    let labels = stream_names::snapshot();
    let sink = &session.sink;
    if catch_unwind(AssertUnwindSafe(|| sink.on_stream_labels(&labels))).is_err() {
        log::error!("the EventSink panicked in on_stream_labels");
    }
    if let Some(warning) = stream_names::cut_names_warning(&labels) {
        if catch_unwind(AssertUnwindSafe(|| sink.on_trace_warning(&warning))).is_err() {
            log::error!("the EventSink panicked in on_trace_warning");
        }
    }
    let outside = correlation::requests_outside_set_window()
        .saturating_sub(session.outside_set_window_at_start);
    // The collector warns about the unattributed work itself, from the events it holds.
    if outside > 0 {
        let warning = format!(
            "{outside} kernel or copy submissions were made outside any HIP call with a stream \
             argument (HIP_STREAM SET window): those of calls without one (hipMemcpy, \
             hipMemset) are shown on the null stream, the others on \"Unattributed\" lanes"
        );
        let sink = &session.sink;
        if catch_unwind(AssertUnwindSafe(|| sink.on_trace_warning(&warning))).is_err() {
            log::error!("the EventSink panicked in on_trace_warning");
        }
    }
}

/// Tells the sink the record direction of each copy renamed by its call in this callback.
fn report_recorded_directions(session: &mut Session) {
    for (correlation_id, recorded_as) in session.recorded_as.drain(..) {
        let sink = &session.sink;
        if catch_unwind(AssertUnwindSafe(|| {
            sink.on_copy_recorded_as(correlation_id, recorded_as)
        }))
        .is_err()
        {
            log::error!("the EventSink panicked in on_copy_recorded_as");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_drop_counts_are_cumulative_and_count_once() {
        let seen = AtomicU64::new(0);
        // A DISCARD buffer passes its running total with every callback.
        assert_eq!(new_drops_since_last(&seen, 0), 0);
        assert_eq!(new_drops_since_last(&seen, 5), 5);
        assert_eq!(new_drops_since_last(&seen, 5), 0, "same total, nothing new");
        assert_eq!(new_drops_since_last(&seen, 12), 7);
        assert_eq!(new_drops_since_last(&seen, 3), 0, "never counts backwards");
        assert_eq!(new_drops_since_last(&seen, 13), 1);
    }
}
