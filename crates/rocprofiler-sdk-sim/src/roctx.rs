//! ROCTx's name API as the SDK traces it (docs/simulator-fidelity.md, SCENARIOS.md "ROCTx
//! stream names"): `roctxNameHipStream(name, stream)` on the calling thread fires
//! MARKER_NAME_API (callback kind 9) operation `roctxNameHipStream` (3) ENTER, then EXIT, to
//! every active context whose MARKER_NAME_API callback service allows the operation, as the
//! SDK's `marker.cpp` `roctx_api_impl::functor` does. The payload is
//! `rocprofiler_callback_tracing_marker_api_data_t` with `args.roctxNameHipStream` filled before
//! ENTER and `retval.int32_t_retval` (0, what the ROCTx library's own implementation returns)
//! set before EXIT; both phases get one fresh correlation id. Without such a context the call
//! just returns 0: nothing fires. The SDK does not look at the stream: any value is passed on.
use crate::clock::gettid;
use crate::dispatch::{invoke, next_correlation_id};
use crate::external_correlation as ext;
use crate::registry::{self, Selector};
use crate::SimError;
use rocprofiler_sdk_sys as sys;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

/// What the SDK hands the tool for one `roctxNameHipStream` call.
fn payload(name: &CStr, stream: u64) -> sys::rocprofiler_callback_tracing_marker_api_data_t {
    sys::rocprofiler_callback_tracing_marker_api_data_t {
        size: std::mem::size_of::<sys::rocprofiler_callback_tracing_marker_api_data_t>() as u64,
        args: sys::rocprofiler_marker_api_args_t {
            roctxNameHipStream: sys::rocprofiler_marker_api_args_roctxNameHipStream_t {
                name: name.as_ptr(),
                stream: stream as *const c_void,
            },
        },
        retval: sys::rocprofiler_marker_api_retval_t { int64_t_retval: 0 },
    }
}

/// Fires the traced call; returns the ROCTx return value (0).
pub(crate) fn name_hip_stream(name: &CStr, stream: u64) -> i32 {
    let op = sys::ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream;
    let targets = registry::targets(
        Selector {
            callback_kind: Some(sys::ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API),
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
        return 0;
    }
    let tid = gettid();
    let internal = next_correlation_id();
    let mut data = payload(name, stream);
    let mut user_data = vec![0u64; targets.len()];
    for phase in [
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
    ] {
        if phase == sys::ROCPROFILER_CALLBACK_PHASE_EXIT {
            data.retval = sys::rocprofiler_marker_api_retval_t { int32_t_retval: 0 };
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
                sys::ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
                op,
                phase,
                (&mut data as *mut sys::rocprofiler_callback_tracing_marker_api_data_t).cast(),
                slot,
            );
        }
    }
    0
}

/// `roctxNameHipStream` as a Rust call: `name` must not contain NUL.
pub(crate) fn name_hip_stream_str(name: &str, stream: u64) -> Result<i32, SimError> {
    let name = CString::new(name).map_err(|_| {
        SimError::InvalidArgument(format!("stream name {name:?} contains a NUL byte"))
    })?;
    Ok(name_hip_stream(&name, stream))
}

/// The ROCTx library's `int roctxNameHipStream(const char* name, const struct ihipStream_t*
/// stream)` (`rocprofiler-sdk-roctx/roctx.h`). The real one lives in
/// `librocprofiler-sdk-roctx.so`; the simulator exports it from `librocprofiler-sdk.so`. A null
/// name is refused with -1 (the real header declares it non-null).
///
/// # Safety
/// `name` is null or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn roctxNameHipStream(name: *const c_char, stream: *const c_void) -> c_int {
    crate::ffi_guard::guard_value(-1, || {
        if name.is_null() {
            return -1;
        }
        // SAFETY: the caller's contract.
        let name = unsafe { CStr::from_ptr(name) };
        name_hip_stream(name, stream as u64)
    })
}
