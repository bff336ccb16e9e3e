//! ROCTx ranges and marks (docs/xla-interface.md#roctx-ranges-and-marks): the program's
//! `roctxRangePushA` / `roctxRangePop` pairs become ranges and `roctxMarkA` zero-length marks on
//! the host timeline, and the range open on a thread at a HIP call travels onto that call's API
//! event and the kernels and copies it enqueued, as `roctx_range` (XLA's `nvtx_range` stat).
//!
//! Process ranges (`roctxRangeStartA` / `roctxRangeStop`, which any thread may stop) are
//! `process_ranges.rs`'s: they label nothing and go on a process-wide line.
//!
//! The SDK tells of ROCTx in two callback domains (docs/xla-interface.md#roctx-ranges-and-marks;
//! which release feeds which is unpinned): MARKER_CORE_API, one ENTER/EXIT per call, and
//! MARKER_CORE_RANGE_API, one per range (ENTER at its push, EXIT at its pop) and per mark. Both
//! are traced; where both deliver, the range's push and the core push have one correlation id,
//! so a range is opened once, and a frame opened by the range domain is closed by its EXIT
//! only (the core pop is then ignored): one range is never counted twice.
//!
//! The marker callbacks run on the process-lifetime stream context, on the calling thread: unlike XLA (whose main context sees no push before `Enable`), every
//! thread's stack stays right across sessions, so a pop always closes the range it belongs to.
//! The rules XLA applies are kept: each frame remembers the session generation it was pushed in,
//! and only a range pushed and popped within one session is emitted; a label is put on HIP
//! calls only while the thread's innermost range belongs to the running session. The stack is a
//! thread-local, so the HIP path reads it without a lock; the label travels with the call's
//! annotation in the thread's lock-free annotation log (`annotation/record.rs`), interned once per
//! session, so an unchanged label costs the HIP path one read of the top frame.
use std::cell::RefCell;
use std::ffi::{c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rocprofiler_sdk_sys as sys;

use crate::event::{EventDomain, EventSource, EventType, RocmTracerEvent};
use crate::tracer::thread_state::{self, InnermostRange};
use crate::tracer::{instance, Tracer, IN_BUFFER_CALLBACK};

mod process_ranges;
pub use process_ranges::unmatched_stops;

/// Bumped when a session starts and when it ends, so that a frame pushed outside a session, or
/// in another one, never matches the running session's generation.
static GENERATION: AtomicU64 = AtomicU64::new(0);
/// `roctxRangePop` calls that found no open range on their thread.
static UNMATCHED_POPS: AtomicU64 = AtomicU64::new(0);
/// Ranges popped in another session than the one they were pushed in (or outside any): dropped.
static CROSSED_SESSIONS: AtomicU64 = AtomicU64::new(0);
/// Process-unique, increasing ids of pushes: a frame's id tells the annotation map's per-thread
/// cache whether the thread's innermost range changed, without reading its label.
static NEXT_FRAME_ID: AtomicU64 = AtomicU64::new(1);

/// Which of the SDK's callback domains told of a ROCTx call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MarkerDomain {
    /// MARKER_CORE_API: one ENTER/EXIT pair per ROCTx call.
    Core,
    /// MARKER_CORE_RANGE_API: one pair per range (push to pop, start to stop) or mark.
    Range,
}

/// Which domain opened a range and under which correlation id (0: unknown, matches nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Opening {
    pub(crate) domain: MarkerDomain,
    pub(crate) correlation: u64,
}

impl Opening {
    /// A call XLA's C++ side (or a test) reports: the core domain, no correlation id.
    pub(crate) const UNCORRELATED_CORE: Opening = Opening {
        domain: MarkerDomain::Core,
        correlation: 0,
    };

    /// Whether `other` tells of the same range from the other domain.
    pub(crate) fn same_range_as(self, other: Opening) -> bool {
        self.correlation != 0
            && self.correlation == other.correlation
            && self.domain != other.domain
    }
}

/// One open range on a thread.
struct Frame {
    id: u64,
    /// Who opened it: a frame the range domain opened is closed by that domain's EXIT.
    opening: Opening,
    /// `None` for a null or empty message: the frame keeps the stack balanced, no range shows.
    label: Option<Arc<str>>,
    start_ns: u64,
    generation: u64,
}

/// A thread's open ranges, innermost last.
struct RangeStack(RefCell<Vec<Frame>>);

impl Drop for RangeStack {
    /// The thread is exiting: its ranges go, and so must their copy in the thread's state (which
    /// has no destructor and outlives this), or a HIP call made later in the thread's teardown
    /// would still see the last top as its innermost range.
    fn drop(&mut self) {
        mirror_top(&[]);
    }
}

thread_local! {
    static STACK: RangeStack = const { RangeStack(RefCell::new(Vec::new())) };
    /// The correlation id of the thread's last mark (0: none): the other domain's report of
    /// the same mark comes under the same id.
    static LAST_MARK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// What the HIP path needs of the thread's innermost range (layout in `thread_state`, so that a
/// HIP call reads no second thread-local): the id of the push that opened it (0 when the stack
/// is empty or the range has no label) and the generation it was pushed in. Written by
/// [`push`] and [`pop`] after every change of [`STACK`].
impl InnermostRange {
    /// The push id of the thread's innermost range if it has a label and was pushed in the
    /// running session, else 0: the range [`with_current_label`] would give.
    #[inline]
    pub(crate) fn labelled_frame(&self) -> u64 {
        let frame = self.frame.get();
        if frame != 0 && self.generation.get() == GENERATION.load(Ordering::Acquire) {
            frame
        } else {
            0
        }
    }
}

/// Copies the thread's new top frame into its [`InnermostRange`].
fn mirror_top(stack: &[Frame]) {
    let (frame, generation) = stack.last().map_or((0, 0), |top| {
        (if top.label.is_some() { top.id } else { 0 }, top.generation)
    });
    thread_state::with(|thread| {
        thread.roctx.frame.set(frame);
        thread.roctx.generation.set(generation);
    });
}

/// The session generation: it changes when a session starts and when it ends.
#[inline]
pub(crate) fn session_generation() -> u64 {
    GENERATION.load(Ordering::Acquire)
}

/// A session starts: ranges pushed before it label nothing in it.
pub(crate) fn start_session() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}

/// The session ended: ranges still open belong to no session any more.
pub(crate) fn end_session() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}

/// The label of the calling thread's innermost open range, if it was pushed in the running
/// session (XLA's `GetCurrentRoctxLabel`).
pub fn current_label() -> Option<Arc<str>> {
    label_in(GENERATION.load(Ordering::Acquire))
}

/// The innermost label of this thread if its range was pushed in `generation`. Only the top
/// frame is looked at: frames below it are older still.
fn label_in(generation: u64) -> Option<Arc<str>> {
    STACK
        .try_with(|stack| {
            let stack = stack.0.borrow();
            let top = stack.last()?;
            (top.generation == generation)
                .then(|| top.label.clone())
                .flatten()
        })
        .ok()
        .flatten()
}

/// At a HIP call's ENTER on its thread: calls `f` with the thread's innermost label of the
/// running session and the id of the push that opened it, if any, without cloning the label.
pub(crate) fn with_current_label<R>(mut f: impl FnMut(Option<(u64, &Arc<str>)>) -> R) -> R {
    let generation = GENERATION.load(Ordering::Acquire);
    let read = STACK.try_with(|stack| {
        let stack = stack.0.try_borrow().ok();
        let top = stack.as_ref().and_then(|stack| stack.last());
        f(top
            .filter(|top| top.generation == generation)
            .and_then(|top| Some((top.id, top.label.as_ref()?))))
    });
    // The thread is exiting and its stack is gone: no label.
    read.unwrap_or_else(|_| f(None))
}

/// `roctxRangePop` calls that had no open range on their thread, since the process started.
pub fn unmatched_pops() -> u64 {
    UNMATCHED_POPS.load(Ordering::Relaxed)
}

/// Ranges dropped because they were not pushed and popped within one session.
pub fn ranges_crossing_sessions() -> u64 {
    CROSSED_SESSIONS.load(Ordering::Relaxed)
}

/// `roctxRangePushA(label)` on this thread at `now_ns`, in session generation `generation`, as
/// `opening` tells of it. The other domain's report of the thread's innermost range opens
/// nothing; a range-domain report of a frame the core domain opened takes it over, so that its
/// EXIT closes it.
fn push(label: Option<Arc<str>>, now_ns: u64, generation: u64, opening: Opening) {
    let _ = STACK.try_with(|stack| {
        let mut stack = stack.0.borrow_mut();
        if let Some(top) = stack.last_mut() {
            if top.opening.same_range_as(opening) {
                if opening.domain == MarkerDomain::Range {
                    top.opening = opening;
                }
                return;
            }
        }
        stack.push(Frame {
            id: NEXT_FRAME_ID.fetch_add(1, Ordering::Relaxed),
            opening,
            label: label.filter(|label| !label.is_empty()),
            start_ns: now_ns,
            generation,
        });
        mirror_top(&stack);
    });
}

/// A pop on this thread at `now_ns`, in session generation `generation`, told by `domain`
/// (`correlation`: the range's, for the range domain's EXIT): the range it closes, if it is
/// to be shown. A core pop leaves a frame the range domain opened (its EXIT follows), and a
/// range EXIT closes only the frame it opened.
fn pop(
    thread_id: u64,
    now_ns: u64,
    generation: u64,
    domain: MarkerDomain,
    correlation: u64,
) -> Option<RocmTracerEvent> {
    let frame = STACK
        .try_with(|stack| {
            let mut stack = stack.0.borrow_mut();
            let closes = stack.last().map(|top| match domain {
                MarkerDomain::Core => top.opening.domain == MarkerDomain::Core,
                MarkerDomain::Range => {
                    top.opening.domain == MarkerDomain::Range
                        && top.opening.correlation == correlation
                }
            });
            match closes {
                Some(false) => Err(()),
                Some(true) => {
                    let frame = stack.pop();
                    mirror_top(&stack);
                    Ok(frame)
                }
                None => Ok(None),
            }
        })
        .ok()?
        .ok()?;
    let Some(frame) = frame else {
        UNMATCHED_POPS.fetch_add(1, Ordering::Relaxed);
        return None;
    };
    if frame.generation != generation {
        if frame.label.is_some() {
            CROSSED_SESSIONS.fetch_add(1, Ordering::Relaxed);
        }
        return None;
    }
    let label = frame.label?;
    (frame.start_ns != 0 && now_ns != 0)
        .then(|| marker_event(label, frame.start_ns, now_ns, thread_id))
}

/// `roctxMarkA(label)` at `now_ns`: a zero-length event, unless it is the other domain's
/// report of the thread's last mark (same correlation id).
fn mark(
    label: Option<Arc<str>>,
    thread_id: u64,
    now_ns: u64,
    correlation: u64,
) -> Option<RocmTracerEvent> {
    let seen = LAST_MARK
        .try_with(|last| correlation != 0 && last.replace(correlation) == correlation)
        .unwrap_or(false);
    if seen {
        return None;
    }
    let label = label.filter(|label| !label.is_empty())?;
    (now_ns != 0).then(|| marker_event(label, now_ns, now_ns, thread_id))
}

/// XLA's `EmitMarkerEvent`: a `Generic` host event named by the label, with no device,
/// correlation id, stream or `roctx_range` (the export writes its name as `nvtx_range`).
pub fn marker_event(
    label: Arc<str>,
    start_ns: u64,
    end_ns: u64,
    thread_id: u64,
) -> RocmTracerEvent {
    RocmTracerEvent {
        event_type: EventType::Generic,
        source: EventSource::ApiCallback,
        domain: EventDomain::InvalidDomain,
        name: label,
        start_time_ns: start_ns,
        end_time_ns: end_ns,
        thread_id,
        ..RocmTracerEvent::default()
    }
}

impl Tracer {
    /// Hands a range or mark to the running session's sink, if it started before the event.
    fn deliver_marker(&self, event: RocmTracerEvent) {
        // A sink that calls ROCTx from its own `add_events` would wait for itself.
        if IN_BUFFER_CALLBACK
            .try_with(|flag| flag.get())
            .unwrap_or(true)
        {
            return;
        }
        let guard = self.session.lock();
        let Some(session) = guard.as_ref() else {
            return;
        };
        if event.start_time_ns < session.start_ns {
            return;
        }
        let mut batch = vec![event];
        let sink = &session.sink;
        if catch_unwind(AssertUnwindSafe(|| sink.add_events(&mut batch))).is_err() {
            log::error!("the EventSink panicked in add_events; a ROCTx event is lost");
        }
    }
}

/// The message argument of a push or mark record, if any.
///
/// # Safety
/// `payload` is null or the SDK's marker API payload, valid for the call.
unsafe fn message_of(payload: *const c_void) -> Option<Arc<str>> {
    type Data = sys::rocprofiler_callback_tracing_marker_api_data_t;
    if payload.is_null() {
        return None;
    }
    let payload = payload as *const Data;
    // SAFETY: a non-null marker payload starts with its size.
    let size = unsafe { std::ptr::addr_of!((*payload).size).read_unaligned() };
    let needed = std::mem::offset_of!(Data, args) + std::mem::size_of::<usize>();
    if size < needed as u64 {
        return None;
    }
    // SAFETY: the payload covers the message pointer, at offset 0 of the argument union.
    let message =
        unsafe { std::ptr::addr_of!((*payload).args.roctxMarkA.message).read_unaligned() };
    if message.is_null() {
        return None;
    }
    // SAFETY: ROCTx messages are NUL-terminated and valid during the call.
    let message = unsafe { CStr::from_ptr(message) };
    Some(Arc::from(message.to_string_lossy()))
}

/// The retval of a marker payload that covers it (a start's range id), else `None`.
///
/// # Safety
/// `payload` is null or the SDK's marker API payload, valid for the call.
unsafe fn range_id_of(payload: *const c_void) -> Option<u64> {
    type Data = sys::rocprofiler_callback_tracing_marker_api_data_t;
    if payload.is_null() {
        return None;
    }
    let payload = payload as *const Data;
    // SAFETY: a non-null marker payload starts with its size.
    let size = unsafe { std::ptr::addr_of!((*payload).size).read_unaligned() };
    if size < std::mem::size_of::<Data>() as u64 {
        return None;
    }
    // SAFETY: the payload covers its retval.
    Some(unsafe { std::ptr::addr_of!((*payload).retval.roctx_range_id_t_retval).read_unaligned() })
}

/// The stop's range id argument, if the payload covers it.
///
/// # Safety
/// `payload` is null or the SDK's marker API payload of a `roctxRangeStop`, valid for the call.
unsafe fn stop_id_of(payload: *const c_void) -> Option<u64> {
    type Data = sys::rocprofiler_callback_tracing_marker_api_data_t;
    if payload.is_null() {
        return None;
    }
    let payload = payload as *const Data;
    // SAFETY: a non-null marker payload starts with its size.
    let size = unsafe { std::ptr::addr_of!((*payload).size).read_unaligned() };
    let needed = std::mem::offset_of!(Data, args) + std::mem::size_of::<u64>();
    if size < needed as u64 {
        return None;
    }
    // SAFETY: the payload covers the id, at offset 0 of the argument union.
    Some(unsafe { std::ptr::addr_of!((*payload).args.roctxRangeStop.id).read_unaligned() })
}

/// The process-lifetime context's MARKER_CORE_API callback, on the calling thread: every call
/// at ENTER, and a `roctxRangeStartA`'s EXIT for the id it returned.
pub(super) unsafe extern "C" fn marker_core_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut c_void,
) {
    if record.kind != sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API {
        return;
    }
    let correlation = record.correlation_id.internal;
    let _ = catch_unwind(|| {
        if record.phase == sys::ROCPROFILER_CALLBACK_PHASE_EXIT {
            if record.operation == sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA {
                // SAFETY: the SDK's payload of this start, valid during the callback.
                if let Some(id) = unsafe { range_id_of(record.payload) } {
                    process_ranges::started(correlation, id);
                }
            }
            return;
        }
        if record.phase != sys::ROCPROFILER_CALLBACK_PHASE_ENTER {
            return;
        }
        let opening = Opening {
            domain: MarkerDomain::Core,
            correlation,
        };
        match record.operation {
            sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA => {
                // SAFETY: the SDK's payload of this start, valid during the callback.
                let message = unsafe { message_of(record.payload) };
                process_ranges::start(message, Tracer::timestamp(), session_generation(), opening);
            }
            sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop => {
                // SAFETY: the SDK's payload of this stop, valid during the callback.
                if let Some(id) = unsafe { stop_id_of(record.payload) } {
                    let event =
                        process_ranges::stop_by_id(id, Tracer::timestamp(), session_generation());
                    if let Some(event) = event {
                        instance().deliver_marker(event);
                    }
                }
            }
            operation => {
                // Only a push or a mark has a message: a pop's argument is a one-byte
                // placeholder.
                let message = match operation {
                    sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA
                    | sys::ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA => {
                        // SAFETY: the SDK's payload of this push or mark, valid during the
                        // callback.
                        unsafe { message_of(record.payload) }
                    }
                    _ => None,
                };
                on_thread_marker(operation, message, record.thread_id, opening);
            }
        }
    });
}

/// The process-lifetime context's MARKER_CORE_RANGE_API callback: a thread range's ENTER (its
/// push) and EXIT (its pop) on its thread, a process range's ENTER (its start) and EXIT (its
/// stop, on the stopping thread), a mark's ENTER.
pub(super) unsafe extern "C" fn marker_range_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut c_void,
) {
    if record.kind != sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API {
        return;
    }
    let enter = record.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER;
    if !enter && record.phase != sys::ROCPROFILER_CALLBACK_PHASE_EXIT {
        return;
    }
    let opening = Opening {
        domain: MarkerDomain::Range,
        correlation: record.correlation_id.internal,
    };
    let _ = catch_unwind(|| {
        // SAFETY: the SDK's payload of this range or mark, valid during the callback; every
        // operation's argument starts with its message.
        let message = || unsafe { message_of(record.payload) };
        let now_ns = Tracer::timestamp();
        let generation = session_generation();
        let event = match (record.operation, enter) {
            (sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA, true) => {
                push(message(), now_ns, generation, opening);
                None
            }
            (sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA, false) => pop(
                record.thread_id,
                now_ns,
                generation,
                MarkerDomain::Range,
                opening.correlation,
            ),
            (sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA, true) => {
                process_ranges::start(message(), now_ns, generation, opening);
                None
            }
            (sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA, false) => {
                process_ranges::stop_by_correlation(opening.correlation, now_ns, generation)
            }
            (sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA, true) => {
                mark(message(), record.thread_id, now_ns, opening.correlation)
            }
            _ => None,
        };
        if let Some(event) = event {
            instance().deliver_marker(event);
        }
    });
}

/// One ROCTx call on the calling thread (`operation` of MARKER_CORE_API; the message of a
/// push or mark), as XLA's C++ side reports it: updates the thread's stack and hands a
/// finished range or a mark to the running session. Other operations are ignored.
pub fn on_marker_call(operation: i32, message: Option<Arc<str>>, thread_id: u64) {
    on_thread_marker(operation, message, thread_id, Opening::UNCORRELATED_CORE);
}

/// A core push, pop or mark on the calling thread, as `opening` tells of it.
fn on_thread_marker(operation: i32, message: Option<Arc<str>>, thread_id: u64, opening: Opening) {
    let now_ns = Tracer::timestamp();
    let generation = GENERATION.load(Ordering::Acquire);
    let event = match operation {
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA => {
            push(message, now_ns, generation, opening);
            None
        }
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop => {
            pop(thread_id, now_ns, generation, MarkerDomain::Core, 0)
        }
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA => {
            mark(message, thread_id, now_ns, opening.correlation)
        }
        _ => None,
    };
    if let Some(event) = event {
        instance().deliver_marker(event);
    }
}

/// XLA's `EmitMarkerEvent`: hands a range or mark built by the caller to the running session.
pub fn emit_marker(label: Arc<str>, start_ns: u64, end_ns: u64, thread_id: u64) {
    instance().deliver_marker(marker_event(label, start_ns, end_ns, thread_id));
}

#[cfg(test)]
mod tests {
    use super::*;

    // Generations are passed explicitly: other tests may start sessions meanwhile. Each test
    // runs on a thread of its own, so the stack is its own.
    fn on_thread(body: impl FnOnce() + Send + 'static) {
        std::thread::spawn(body).join().unwrap();
    }

    #[test]
    fn a_range_pushed_and_popped_in_one_session_is_emitted_with_its_times() {
        on_thread(|| {
            push(Some(Arc::from("outer")), 10, 3, Opening::UNCORRELATED_CORE);
            push(Some(Arc::from("inner")), 20, 3, Opening::UNCORRELATED_CORE);
            assert_eq!(label_in(3).as_deref(), Some("inner"));
            let inner = pop(7, 30, 3, MarkerDomain::Core, 0).unwrap();
            assert_eq!(label_in(3).as_deref(), Some("outer"));
            let outer = pop(7, 40, 3, MarkerDomain::Core, 0).unwrap();
            assert_eq!(label_in(3), None);
            assert_eq!(
                (
                    &*inner.name,
                    inner.start_time_ns,
                    inner.end_time_ns,
                    inner.thread_id
                ),
                ("inner", 20, 30, 7)
            );
            assert_eq!(inner.event_type, EventType::Generic);
            assert_eq!(inner.roctx_range, None, "the label is the name");
            assert_eq!(
                (&*outer.name, outer.start_time_ns, outer.end_time_ns),
                ("outer", 10, 40)
            );
        });
    }

    #[test]
    fn a_pop_without_a_push_is_counted_and_ignored() {
        on_thread(|| {
            let before = unmatched_pops();
            assert!(pop(1, 5, 3, MarkerDomain::Core, 0).is_none());
            assert!(unmatched_pops() > before);
        });
    }

    #[test]
    fn a_range_crossing_a_session_boundary_is_dropped_and_hides_its_label() {
        on_thread(|| {
            push(
                Some(Arc::from("spanning")),
                10,
                3,
                Opening::UNCORRELATED_CORE,
            );
            assert_eq!(label_in(5), None, "a stale top frame labels nothing");
            let before = ranges_crossing_sessions();
            assert!(pop(1, 50, 5, MarkerDomain::Core, 0).is_none());
            assert!(ranges_crossing_sessions() > before);
            // The stack stayed balanced: a new range works.
            push(Some(Arc::from("fresh")), 60, 5, Opening::UNCORRELATED_CORE);
            assert_eq!(
                pop(1, 70, 5, MarkerDomain::Core, 0).unwrap().name.as_ref(),
                "fresh"
            );
        });
    }

    #[test]
    fn the_thread_states_copy_of_the_top_goes_with_the_stack_at_thread_exit() {
        use std::sync::atomic::AtomicBool;
        use std::sync::Arc as SharedArc;

        /// Dropped after the range stack (registered before it; a thread's destructors run in
        /// reverse order): what a HIP call made then would see.
        struct LateInTeardown {
            seen_frame: SharedArc<AtomicU64>,
            stack_was_gone: SharedArc<AtomicBool>,
        }
        impl Drop for LateInTeardown {
            fn drop(&mut self) {
                let frame = thread_state::with(|thread| thread.roctx.frame.get()).unwrap();
                self.seen_frame.store(frame, Ordering::SeqCst);
                self.stack_was_gone
                    .store(STACK.try_with(|_| ()).is_err(), Ordering::SeqCst);
            }
        }
        thread_local! {
            static LATE: RefCell<Option<LateInTeardown>> = const { RefCell::new(None) };
        }
        let seen_frame = SharedArc::new(AtomicU64::new(u64::MAX));
        let stack_was_gone = SharedArc::new(AtomicBool::new(false));
        let (seen, gone) = (seen_frame.clone(), stack_was_gone.clone());
        on_thread(move || {
            LATE.with(|late| {
                *late.borrow_mut() = Some(LateInTeardown {
                    seen_frame: seen,
                    stack_was_gone: gone,
                })
            });
            // The range stays open when the thread exits.
            push(
                Some(Arc::from("open at exit")),
                10,
                3,
                Opening::UNCORRELATED_CORE,
            );
            assert_ne!(
                thread_state::with(|thread| thread.roctx.frame.get()).unwrap(),
                0
            );
        });
        assert!(
            stack_was_gone.load(Ordering::SeqCst),
            "the range stack was torn down first"
        );
        assert_eq!(
            seen_frame.load(Ordering::SeqCst),
            0,
            "no range is innermost once the stack is gone"
        );
    }

    fn told(domain: MarkerDomain, correlation: u64) -> Opening {
        Opening {
            domain,
            correlation,
        }
    }

    /// Both domains (the SDK's order: range ENTER, core push under the range's correlation
    /// id, core pop, range EXIT): one range, closed by the range domain.
    #[test]
    fn a_thread_range_told_by_both_domains_is_one_range() {
        on_thread(|| {
            push(
                Some(Arc::from("step")),
                10,
                3,
                told(MarkerDomain::Range, 41),
            );
            push(Some(Arc::from("step")), 11, 3, told(MarkerDomain::Core, 41));
            assert_eq!(label_in(3).as_deref(), Some("step"));
            assert!(
                pop(1, 20, 3, MarkerDomain::Core, 0).is_none(),
                "the core pop waits"
            );
            assert_eq!(label_in(3).as_deref(), Some("step"), "still open");
            let range = pop(1, 21, 3, MarkerDomain::Range, 41).unwrap();
            assert_eq!((range.start_time_ns, range.end_time_ns), (10, 21));
            assert_eq!(label_in(3), None, "closed once");
        });
    }

    /// Both domains with the core report first: the range domain takes the frame over.
    #[test]
    fn a_core_frame_the_range_domain_reports_again_is_taken_over() {
        on_thread(|| {
            push(Some(Arc::from("step")), 10, 3, told(MarkerDomain::Core, 42));
            push(
                Some(Arc::from("step")),
                11,
                3,
                told(MarkerDomain::Range, 42),
            );
            assert!(pop(1, 20, 3, MarkerDomain::Core, 0).is_none());
            assert_eq!(
                pop(1, 21, 3, MarkerDomain::Range, 42)
                    .unwrap()
                    .start_time_ns,
                10
            );
        });
    }

    /// The range domain alone: nested ranges close by their own correlation ids.
    #[test]
    fn thread_ranges_told_by_the_range_domain_alone_nest() {
        on_thread(|| {
            push(
                Some(Arc::from("outer")),
                10,
                3,
                told(MarkerDomain::Range, 43),
            );
            push(
                Some(Arc::from("inner")),
                20,
                3,
                told(MarkerDomain::Range, 44),
            );
            assert_eq!(label_in(3).as_deref(), Some("inner"));
            assert!(
                pop(1, 25, 3, MarkerDomain::Range, 43).is_none(),
                "an EXIT closes only its own range"
            );
            assert_eq!(
                pop(1, 30, 3, MarkerDomain::Range, 44)
                    .unwrap()
                    .name
                    .as_ref(),
                "inner"
            );
            assert_eq!(
                pop(1, 40, 3, MarkerDomain::Range, 43)
                    .unwrap()
                    .name
                    .as_ref(),
                "outer"
            );
        });
    }

    #[test]
    fn a_mark_told_by_both_domains_is_one_mark() {
        on_thread(|| {
            assert!(mark(Some(Arc::from("m")), 1, 5, 45).is_some());
            assert!(mark(Some(Arc::from("m")), 1, 5, 45).is_none());
            assert!(mark(Some(Arc::from("m")), 1, 6, 46).is_some());
        });
    }

    #[test]
    fn empty_labels_keep_the_stack_balanced_and_show_nothing() {
        on_thread(|| {
            push(Some(Arc::from("outer")), 1, 3, Opening::UNCORRELATED_CORE);
            push(None, 2, 3, Opening::UNCORRELATED_CORE);
            assert_eq!(label_in(3), None);
            assert!(pop(1, 3, 3, MarkerDomain::Core, 0).is_none());
            assert_eq!(
                pop(1, 4, 3, MarkerDomain::Core, 0).unwrap().name.as_ref(),
                "outer"
            );
            assert!(mark(Some(Arc::from("")), 1, 5, 0).is_none());
            let m = mark(Some(Arc::from("m")), 1, 5, 0).unwrap();
            assert_eq!((m.start_time_ns, m.end_time_ns), (5, 5));
        });
    }
}
