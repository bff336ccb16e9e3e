//! A profiling session: `enable()` starts one delivering to a sink, `disable()` drains it,
//! waits (bounded) for the records it still expects and ends it with one [`SessionEnd`].
//!
//! Thread: whoever calls `enable()` / `disable()`; the ledger (`ledger`) is written by the
//! application threads' requests and the buffer thread's records, and read by `disable()`.
pub(crate) mod ledger;

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;

use crate::event::RocmTracerEvent;
use crate::sink::{EventSink, SessionEnd};
use crate::tracer::annotation::DEFAULT_MAX_ANNOTATION_STRINGS;
use crate::tracer::sdk::calls as sdk;
use crate::tracer::streams::names as stream_names;
use crate::tracer::{roctx, Tracer, TracerError, IN_BUFFER_CALLBACK};

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

/// The sink of the running session and what its buffer callbacks need.
pub(super) struct Session {
    pub sink: Arc<dyn EventSink>,
    pub start_ns: u64,
    pub disable_wait: Duration,
    /// Reused between callbacks; `add_events` drains it.
    pub batch: Vec<RocmTracerEvent>,
    /// Records the SDK reported dropped while this session ran, as told to its sink.
    pub sdk_dropped: u64,
}

/// The running session, if any, under the lock every buffer callback holds from its first
/// record to its last (and `disable()` around the final flush).
///
/// A futex mutex (std's), not parking_lot's: a waiter here waits out a whole callback, tens of
/// microseconds. parking_lot's waiter yields its CPU up to seven times before it sleeps, and
/// with more buffer threads than CPUs those yields hand the CPU from waiter to waiter instead
/// of to the holder (eight threads on two CPUs: 155-192 ns of CPU per record with parking_lot,
/// 125-142 with std; one thread: about 125 either way). std's waiter
/// spins briefly and sleeps until the holder wakes it (docs/ARCHITECTURE.md#the-buffer-callbacks-lock).
pub(super) struct SessionSlot(std::sync::Mutex<Option<Session>>);

impl SessionSlot {
    pub(super) const fn new() -> SessionSlot {
        SessionSlot(std::sync::Mutex::new(None))
    }

    /// A panic while the lock was held left the slot as it was: it is used as is.
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Option<Session>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Tracer {
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
        self.annotation_source().session_starts(&self.annotations);
        self.annotations
            .set_max_strings(options.max_annotation_strings);
        self.copy_calls.clear();
        crate::tracer::hip_api::event_calls::clear();
        roctx::start_session();
        let start_ns = sdk::timestamp().unwrap_or(0);
        *self.session.lock() = Some(Session {
            sink,
            start_ns,
            disable_wait: options.disable_wait,
            batch: Vec::new(),
            sdk_dropped: 0,
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
        // Every record of the session was delivered: what decoding them needed goes before
        // the sink's end, whose flush is the collector's largest moment (tens of MB for a
        // long capture with many distinct annotations or copies).
        self.annotations.end_session();
        self.copy_calls.release();
        let mut session = self.session.lock();
        if let Some(session) = session.as_ref() {
            // The SDK's count does not say which records it dropped: a kernel or copy record
            // among them is also missing here. Counting in flight only what the SDK's drops
            // cannot explain counts no record twice (issue 26).
            let in_flight = in_flight.saturating_sub(session.sdk_dropped);
            let end = session_end(in_flight, self.ledger.saw_device_work());
            // A panicking sink must not leave the tracer "running" forever.
            if catch_unwind(AssertUnwindSafe(|| session.sink.end_session(end))).is_err() {
                log::error!("the EventSink panicked in end_session(); the session ends anyway");
                self.drops_lost_to_sink_panics
                    .fetch_add(in_flight, Ordering::Relaxed);
            }
        }
        *session = None;
        roctx::end_session();
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
}

/// What the end of a session carries besides its events: the streams' labels and the
/// session's warnings. Work submitted outside any HIP call (HIP's worker thread under indirect
/// dispatch) is warned about by the export, which counts the events it places on
/// "Unattributed" lanes; a call without a stream argument (`hipMemcpy`) is rightly on the
/// null stream and needs no warning.
fn session_end(in_flight: u64, saw_device_work: bool) -> SessionEnd {
    let stream_labels = stream_names::snapshot();
    // A trace with device work needs no "no GPU events" diagnosis, whatever the SDK said.
    let hip_not_reached = if saw_device_work {
        None
    } else {
        crate::tracer::sdk::hip_runtime_reach::hip_not_reached_warning()
    };
    let warnings = stream_names::cut_names_warning(&stream_labels)
        .into_iter()
        .chain(hip_not_reached)
        .collect();
    SessionEnd {
        in_flight,
        stream_labels,
        warnings,
        event_calls: crate::tracer::hip_api::event_calls::take_session(),
    }
}
