//! ROCTx as the SDK traces it (docs/simulator-fidelity.md, SCENARIOS.md "ROCTx stream names" and
//! "ROCTx ranges and marks"). Each call on the calling thread fires ENTER, then EXIT, to every
//! active context whose callback service of the call's kind allows the operation, as the SDK's
//! `marker.cpp` `roctx_api_impl::functor` does; the payload is
//! `rocprofiler_callback_tracing_marker_api_data_t` with the arguments filled before ENTER and
//! the return value set before EXIT; both phases get one fresh correlation id. Without such a
//! context the call just runs: nothing fires.
//!
//! - `roctxNameHipStream(name, stream)`: MARKER_NAME_API (9) operation 3, returns 0. The SDK
//!   does not look at the stream: any value is passed on.
//! - `roctxRangePushA(message)` / `roctxRangePop()` / `roctxMarkA(message)`: MARKER_CORE_API
//!   (7) operations 1, 2, 0. Push returns the 0-based nesting level of the new range on the
//!   thread, pop the level of the range it closed or -1 when the thread had none open (ROCTx's
//!   own thread-local stack, kept here); mark returns nothing (the EXIT retval is 0).
//! - `roctxRangeStartA(message)` / `roctxRangeStop(id)`: MARKER_CORE_API operations 3 and 4;
//!   start returns a process-unique range id, stop takes it on any thread.
//! - MARKER_CORE_RANGE_API (21), as the SDK's `marker/range_marker.cpp` wraps those calls: a
//!   push/pop pair is one `roctxThreadRangeA` (1), a start/stop pair one `roctxProcessRangeA`
//!   (2), ENTER at the push or start and EXIT at the pop or stop under one correlation id, and
//!   a mark is `roctxMarkA` (0) around the core mark. Which of the two domains fire is the
//!   machine's `roctx_domains` (SCENARIOS.md "ROCTx ranges and marks").
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use crate::engine::dispatch::{invoke, next_correlation_id};
use crate::engine::external_correlation as ext;
use crate::engine::registry::{self, CallbackService, Selector};
use crate::time::clock::gettid;
use crate::SimError;
use rocprofiler_sdk_sys as sys;

/// What the SDK hands the tool for one ROCTx call with these arguments.
fn payload(
    args: sys::rocprofiler_marker_api_args_t,
) -> sys::rocprofiler_callback_tracing_marker_api_data_t {
    sys::rocprofiler_callback_tracing_marker_api_data_t {
        size: std::mem::size_of::<sys::rocprofiler_callback_tracing_marker_api_data_t>() as u64,
        args,
        retval: sys::rocprofiler_marker_api_retval_t { int64_t_retval: 0 },
    }
}

/// Fires the traced call; returns the ROCTx return value (0).
pub(crate) fn name_hip_stream(name: &CStr, stream: u64) -> i32 {
    let args = sys::rocprofiler_marker_api_args_t {
        roctxNameHipStream: sys::rocprofiler_marker_api_args_roctxNameHipStream_t {
            name: name.as_ptr(),
            stream: stream as *const c_void,
        },
    };
    fire(
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
        sys::ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream,
        args,
        None,
        || 0,
        int_retval,
    )
}

thread_local! {
    /// ROCTx's own per-thread range depth (what push and pop return).
    static RANGE_DEPTH: Cell<i32> = const { Cell::new(0) };
    /// The thread's open thread ranges as MARKER_CORE_RANGE_API traces them, innermost last
    /// (`None`: pushed while no context traced them; kept so that pops stay matched).
    static THREAD_RANGES: RefCell<Vec<Option<OpenRange>>> = const { RefCell::new(Vec::new()) };
}

/// Open process ranges as MARKER_CORE_RANGE_API traces them, by ROCTx range id: any thread may
/// stop one.
static PROCESS_RANGES: Mutex<BTreeMap<u64, OpenRange>> = Mutex::new(BTreeMap::new());
/// ROCTx's process range ids, increasing from 1.
static NEXT_RANGE_ID: AtomicU64 = AtomicU64::new(1);

/// The contexts whose callback service of `kind` allows `op`, if the machine's ROCTx domains
/// (`Machine::roctx_domains`) deliver that kind.
fn callback_targets(
    kind: sys::rocprofiler_callback_tracing_kind_t,
    op: i32,
) -> Vec<(u64, CallbackService)> {
    let domains = crate::machine::machine().roctx_domains;
    let delivered = match kind {
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API => domains.core(),
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API => domains.range(),
        _ => true,
    };
    if !delivered {
        return Vec::new();
    }
    registry::targets(
        Selector {
            callback_kind: Some(kind),
            buffer_kind: None,
            request_kind: None,
        },
        &[op],
        op,
    )
    .into_iter()
    .filter_map(|target| target.callback.map(|service| (target.context, service)))
    .collect()
}

/// A traced call between its ENTER and its EXIT: for a MARKER_CORE_RANGE_API range the two are
/// its push (or start) and its pop (or stop).
struct OpenRange {
    kind: sys::rocprofiler_callback_tracing_kind_t,
    op: i32,
    targets: Vec<(u64, CallbackService)>,
    /// The thread that opened it: both phases carry it, as the SDK's range record does.
    tid: u64,
    internal: u64,
    /// Each target's external correlation value at ENTER.
    external: Vec<u64>,
    data: sys::rocprofiler_callback_tracing_marker_api_data_t,
    user_data: Vec<u64>,
    /// The message `data` points to while a range stays open: the program's string may be gone
    /// by its pop or stop.
    _message: Option<CString>,
}

// SAFETY: the payload's pointers are either the caller's, for a call that ENTERs and EXITs
// within one function on one thread, or `_message`, owned by the range and moved with it.
unsafe impl Send for OpenRange {}

impl OpenRange {
    /// Fires ENTER to `targets` under `internal` (a fresh id when `None`).
    fn enter(
        kind: sys::rocprofiler_callback_tracing_kind_t,
        op: i32,
        targets: Vec<(u64, CallbackService)>,
        args: sys::rocprofiler_marker_api_args_t,
        internal: Option<u64>,
    ) -> OpenRange {
        let tid = gettid();
        let external = targets
            .iter()
            .map(|(context, _)| ext::top(*context, tid))
            .collect();
        let mut range = OpenRange {
            kind,
            op,
            user_data: vec![0; targets.len()],
            targets,
            tid,
            internal: internal.unwrap_or_else(next_correlation_id),
            external,
            data: payload(args),
            _message: None,
        };
        range.fire(sys::ROCPROFILER_CALLBACK_PHASE_ENTER);
        range
    }

    /// Fires EXIT with `retval`.
    fn exit(mut self, retval: sys::rocprofiler_marker_api_retval_t) {
        self.data.retval = retval;
        self.fire(sys::ROCPROFILER_CALLBACK_PHASE_EXIT);
    }

    fn fire(&mut self, phase: u32) {
        let data = (&mut self.data as *mut sys::rocprofiler_callback_tracing_marker_api_data_t)
            .cast::<c_void>();
        for (((context, service), slot), external) in self
            .targets
            .iter()
            .zip(self.user_data.iter_mut())
            .zip(&self.external)
        {
            invoke(
                service,
                *context,
                self.tid,
                sys::rocprofiler_correlation_id_t {
                    internal: self.internal,
                    external: sys::rocprofiler_user_data_t { value: *external },
                    ancestor: sys::ROCPROFILER_CORRELATION_ID_ANCESTOR_NONE,
                },
                self.kind,
                self.op,
                phase,
                data,
                slot,
            );
        }
    }
}

/// Opens a MARKER_CORE_RANGE_API operation (ENTER), if any context traces it; the range keeps
/// its own copy of `message` until its EXIT.
fn open_range(op: i32, message: Option<&CStr>) -> Option<OpenRange> {
    let kind = sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API;
    let targets = callback_targets(kind, op);
    if targets.is_empty() {
        return None;
    }
    let message = message.map(CStr::to_owned);
    let args = message_args(message.as_deref());
    let mut range = OpenRange::enter(kind, op, targets, args, None);
    range._message = message;
    Some(range)
}

fn message_args(message: Option<&CStr>) -> sys::rocprofiler_marker_api_args_t {
    // Every message member is the union's first 8 bytes.
    sys::rocprofiler_marker_api_args_t {
        roctxMarkA: sys::rocprofiler_marker_api_args_message_t {
            message: message.map_or(std::ptr::null(), CStr::as_ptr),
        },
    }
}

fn int_retval(value: i32) -> sys::rocprofiler_marker_api_retval_t {
    sys::rocprofiler_marker_api_retval_t {
        int32_t_retval: value,
    }
}

/// `roctxRangePushA`: opens the thread range (MARKER_CORE_RANGE_API `roctxThreadRangeA`
/// ENTER), then fires MARKER_CORE_API operation 1 under the range's correlation id; returns the
/// new range's level.
pub(crate) fn range_push(message: Option<&CStr>) -> i32 {
    let range = open_range(
        sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA,
        message,
    );
    let level = fire(
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA,
        message_args(message),
        range.as_ref().map(|range| range.internal),
        || {
            RANGE_DEPTH
                .try_with(|depth| {
                    let level = depth.get();
                    depth.set(level.saturating_add(1));
                    level
                })
                .unwrap_or(-1)
        },
        int_retval,
    );
    let _ = THREAD_RANGES.try_with(|ranges| ranges.borrow_mut().push(range));
    level
}

/// `roctxRangePop`: fires MARKER_CORE_API operation 2, then closes the thread's innermost
/// range (MARKER_CORE_RANGE_API EXIT); returns the closed range's level, or -1 when the thread
/// had no open range.
pub(crate) fn range_pop() -> i32 {
    // The placeholder byte and the rest of the union zeroed, as a C caller's zeroed payload.
    let level = fire(
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop,
        message_args(None),
        None,
        || {
            RANGE_DEPTH
                .try_with(|depth| match depth.get() {
                    0 => -1,
                    open => {
                        depth.set(open - 1);
                        open - 1
                    }
                })
                .unwrap_or(-1)
        },
        int_retval,
    );
    let range = THREAD_RANGES
        .try_with(|ranges| ranges.borrow_mut().pop().flatten())
        .ok()
        .flatten();
    if let Some(range) = range {
        range.exit(int_retval(level));
    }
    level
}

/// `roctxRangeStartA`: opens a process range (MARKER_CORE_RANGE_API `roctxProcessRangeA`
/// ENTER), then fires MARKER_CORE_API operation 3 under its correlation id; returns the range's
/// id.
pub(crate) fn range_start(message: Option<&CStr>) -> u64 {
    let range = open_range(
        sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA,
        message,
    );
    let id = fire(
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA,
        message_args(message),
        range.as_ref().map(|range| range.internal),
        || NEXT_RANGE_ID.fetch_add(1, Ordering::Relaxed),
        |id| sys::rocprofiler_marker_api_retval_t {
            roctx_range_id_t_retval: id,
        },
    );
    if let Some(range) = range {
        PROCESS_RANGES.lock().insert(id, range);
    }
    id
}

/// `roctxRangeStop(id)`, on any thread: fires MARKER_CORE_API operation 4 (its own correlation
/// id), then closes the process range `id` (MARKER_CORE_RANGE_API EXIT, on this thread with the
/// starting thread's id and correlation). An unknown id closes nothing.
pub(crate) fn range_stop(id: u64) {
    let args = sys::rocprofiler_marker_api_args_t {
        roctxRangeStop: sys::rocprofiler_marker_api_args_roctxRangeStop_t { id },
    };
    fire(
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop,
        args,
        None,
        || (),
        |()| int_retval(0),
    );
    let range = PROCESS_RANGES.lock().remove(&id);
    if let Some(range) = range {
        range.exit(int_retval(0));
    }
}

/// `roctxMarkA`: MARKER_CORE_RANGE_API operation 0 around MARKER_CORE_API operation 0, under
/// one correlation id.
pub(crate) fn mark(message: Option<&CStr>) {
    let range = open_range(
        sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA,
        message,
    );
    fire(
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA,
        message_args(message),
        range.as_ref().map(|range| range.internal),
        || (),
        |()| int_retval(0),
    );
    if let Some(range) = range {
        range.exit(int_retval(0));
    }
}

/// One traced ROCTx call: ENTER to every target, `call` (ROCTx's own work), EXIT with its
/// return value, under `correlation` (a fresh id when `None`). Returns what `call` returned.
fn fire<R: Copy>(
    kind: sys::rocprofiler_callback_tracing_kind_t,
    op: i32,
    args: sys::rocprofiler_marker_api_args_t,
    correlation: Option<u64>,
    call: impl FnOnce() -> R,
    retval: impl FnOnce(R) -> sys::rocprofiler_marker_api_retval_t,
) -> R {
    let targets = callback_targets(kind, op);
    if targets.is_empty() {
        return call();
    }
    let open = OpenRange::enter(kind, op, targets, args, correlation);
    let value = call();
    open.exit(retval(value));
    value
}

/// `roctxNameHipStream` as a Rust call: `name` must not contain NUL.
pub(crate) fn name_hip_stream_str(name: &str, stream: u64) -> Result<i32, SimError> {
    let name = CString::new(name).map_err(|_| {
        SimError::InvalidArgument(format!("stream name {name:?} contains a NUL byte"))
    })?;
    Ok(name_hip_stream(&name, stream))
}

// The ROCTx C functions live in `librocprofiler-sdk-roctx.so` (the simulated one is
// `crates/rocprofiler-sdk-roctx-sim`), not in the SDK library: as the real ROCTx library reaches
// the SDK's marker tables, the simulated one reaches these `rocsim_roctx_*` entry points, which
// stand in for those tables (docs/simulator-fidelity.md). Their signatures are rocsim-abi's.

/// `roctxNameHipStream(name, stream)`. A null name is refused with -1 (the real header declares
/// it non-null).
///
/// # Safety
/// `name` is null or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn rocsim_roctx_name_hip_stream(
    name: *const c_char,
    stream: *const c_void,
) -> c_int {
    crate::sdk::ffi_guard::guard_value(-1, || {
        if name.is_null() {
            return -1;
        }
        // SAFETY: the caller's contract.
        let name = unsafe { CStr::from_ptr(name) };
        name_hip_stream(name, stream as u64)
    })
}

/// `roctxRangePushA(message)`. A null message is passed on as null (the SDK does not check
/// it); the range still counts.
///
/// # Safety
/// `message` is null or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn rocsim_roctx_range_push_a(message: *const c_char) -> c_int {
    crate::sdk::ffi_guard::guard_value(-1, || {
        // SAFETY: the caller's contract.
        let message = (!message.is_null()).then(|| unsafe { CStr::from_ptr(message) });
        range_push(message)
    })
}

/// `roctxRangePop()`.
#[no_mangle]
pub extern "C" fn rocsim_roctx_range_pop() -> c_int {
    crate::sdk::ffi_guard::guard_value(-1, range_pop)
}

/// `roctxRangeStartA(message)`: the new process range's id.
///
/// # Safety
/// `message` is null or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn rocsim_roctx_range_start_a(message: *const c_char) -> u64 {
    crate::sdk::ffi_guard::guard_value(0, || {
        // SAFETY: the caller's contract.
        let message = (!message.is_null()).then(|| unsafe { CStr::from_ptr(message) });
        range_start(message)
    })
}

/// `roctxRangeStop(id)`.
#[no_mangle]
pub extern "C" fn rocsim_roctx_range_stop(id: u64) {
    crate::sdk::ffi_guard::guard_value((), || range_stop(id))
}

/// `roctxMarkA(message)`.
///
/// # Safety
/// `message` is null or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn rocsim_roctx_mark_a(message: *const c_char) {
    crate::sdk::ffi_guard::guard_value((), || {
        // SAFETY: the caller's contract.
        let message = (!message.is_null()).then(|| unsafe { CStr::from_ptr(message) });
        mark(message);
    })
}

// The definitions have the signatures the ROCTx library looks them up with.
const _: rocsim_abi::rocsim_roctx_name_hip_stream_fn = rocsim_roctx_name_hip_stream;
const _: rocsim_abi::rocsim_roctx_range_push_a_fn = rocsim_roctx_range_push_a;
const _: rocsim_abi::rocsim_roctx_range_pop_fn = rocsim_roctx_range_pop;
const _: rocsim_abi::rocsim_roctx_mark_a_fn = rocsim_roctx_mark_a;
const _: rocsim_abi::rocsim_roctx_range_start_a_fn = rocsim_roctx_range_start_a;
const _: rocsim_abi::rocsim_roctx_range_stop_fn = rocsim_roctx_range_stop;
