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
use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

use crate::engine::dispatch::{invoke, next_correlation_id};
use crate::engine::external_correlation as ext;
use crate::engine::registry::{self, Selector};
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
        || 0,
    )
}

thread_local! {
    /// ROCTx's own per-thread range depth (what push and pop return).
    static RANGE_DEPTH: Cell<i32> = const { Cell::new(0) };
}

/// `roctxRangePushA`: fires MARKER_CORE_API operation 1; returns the new range's level.
pub(crate) fn range_push(message: Option<&CStr>) -> i32 {
    let args = sys::rocprofiler_marker_api_args_t {
        roctxRangePushA: sys::rocprofiler_marker_api_args_message_t {
            message: message.map_or(std::ptr::null(), CStr::as_ptr),
        },
    };
    fire(
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA,
        args,
        || {
            RANGE_DEPTH
                .try_with(|depth| {
                    let level = depth.get();
                    depth.set(level.saturating_add(1));
                    level
                })
                .unwrap_or(-1)
        },
    )
}

/// `roctxRangePop`: fires MARKER_CORE_API operation 2; returns the closed range's level, or
/// -1 when the thread had no open range.
pub(crate) fn range_pop() -> i32 {
    // The placeholder byte and the rest of the union zeroed, as a C caller's zeroed payload.
    let args = sys::rocprofiler_marker_api_args_t {
        roctxMarkA: sys::rocprofiler_marker_api_args_message_t {
            message: std::ptr::null(),
        },
    };
    fire(
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop,
        args,
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
    )
}

/// `roctxMarkA`: fires MARKER_CORE_API operation 0.
pub(crate) fn mark(message: Option<&CStr>) {
    let args = sys::rocprofiler_marker_api_args_t {
        roctxMarkA: sys::rocprofiler_marker_api_args_message_t {
            message: message.map_or(std::ptr::null(), CStr::as_ptr),
        },
    };
    fire(
        sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
        sys::ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA,
        args,
        || 0,
    );
}

/// One traced ROCTx call: ENTER to every target, `call` (ROCTx's own work), EXIT with its
/// return value. Returns what `call` returned.
fn fire(
    kind: sys::rocprofiler_callback_tracing_kind_t,
    op: i32,
    args: sys::rocprofiler_marker_api_args_t,
    call: impl FnOnce() -> i32,
) -> i32 {
    let targets = registry::targets(
        Selector {
            callback_kind: Some(kind),
            buffer_kind: None,
            request_kind: None,
        },
        &[op],
        op,
    );
    let targets: Vec<_> = targets
        .into_iter()
        .filter_map(|target| target.callback.map(|service| (target.context, service)))
        .collect();
    if targets.is_empty() {
        return call();
    }
    let tid = gettid();
    let internal = next_correlation_id();
    let mut data = payload(args);
    let mut user_data = vec![0u64; targets.len()];
    let mut call = Some(call);
    let mut retval = 0;
    for phase in [
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
    ] {
        if phase == sys::ROCPROFILER_CALLBACK_PHASE_EXIT {
            retval = call.take().map_or(0, |call| call());
            data.retval = sys::rocprofiler_marker_api_retval_t {
                int32_t_retval: retval,
            };
        }
        for ((context, service), slot) in targets.iter().zip(user_data.iter_mut()) {
            invoke(
                service,
                *context,
                tid,
                sys::rocprofiler_correlation_id_t {
                    internal,
                    external: sys::rocprofiler_user_data_t {
                        value: ext::top(*context, tid),
                    },
                    ancestor: sys::ROCPROFILER_CORRELATION_ID_ANCESTOR_NONE,
                },
                kind,
                op,
                phase,
                (&mut data as *mut sys::rocprofiler_callback_tracing_marker_api_data_t).cast(),
                slot,
            );
        }
    }
    retval
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
