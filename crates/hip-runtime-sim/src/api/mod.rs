//! The exported HIP entry points (`extern "C"`, HIP's ABI), grouped by HIP concept.
//!
//! Every entry point runs through [`hip_call`]: the body validates and does the work, and the
//! HIP call is reported to the simulated SDK exactly once, as the real runtime's dispatch-table
//! interception would: either by the driver call that performs the work (kernel, copy, fill,
//! stream and synchronisation calls, which also bring their SET/request/record sequence), or,
//! for calls with no device work and for failed calls, by a plain traced API call (with a SET
//! when the HIP function has one stream argument, docs/sdk-facts.md#wrapped-calls).
//!
//! A call on a destroyed or never-created stream is still traced (HIP_RUNTIME_API ENTER/EXIT
//! and the API record), as the real runtime's interception traces every call, failed or not.
//! Its SET follows the simulated SDK's stream map (`stream_map`): under the SDK 1.0.0
//! map of ROCm 7.0 to 7.13, a destroyed stream's SET carries the id its map entry kept, and a value
//! the map never had aborts the process, as the real SDK's `std::out_of_range` does; under the
//! newer map the call gets no SET.

pub mod device;
pub mod device_query;
pub mod error;
pub mod event;
pub mod graph;
pub mod launch;
pub mod memcpy_variants;
pub mod memory;
pub mod module;
pub mod pointer_attributes;
pub mod registration;
pub mod stream;
pub mod unsupported;

use crate::driver;
use crate::error::{self as hip_error, hipError_t, HipError, HIP_ERROR_UNKNOWN, HIP_SUCCESS};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How a successful body reported its call to the SDK.
pub enum Traced {
    /// A driver call that does device work already produced the API records.
    ByDriver,
    /// Nothing was reported yet: [`hip_call`] reports a plain API call.
    No,
    /// The call failed with this error, and the driver already reported it.
    FailedByDriver(HipError),
    /// Nothing was reported yet: [`hip_call`] reports a plain API call with these payload
    /// arguments (the allocation functions: where the memory is, for a tool's memory kinds).
    WithArgs(rocprofiler_sdk_sys::rocprofiler_hip_api_args_t),
}

/// Runs an entry point's body: no panic crosses the ABI (a panic becomes `hipErrorUnknown`),
/// the call is traced once, and a failure becomes the thread's sticky last error.
pub fn hip_call(
    op: i32,
    stream: Option<u64>,
    body: impl FnOnce() -> Result<Traced, HipError>,
) -> hipError_t {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let code = match body() {
            Ok(Traced::ByDriver) => return HIP_SUCCESS,
            Ok(Traced::No) => HIP_SUCCESS,
            Ok(Traced::FailedByDriver(HipError(code))) => return code,
            Ok(Traced::WithArgs(args)) => {
                let _ = driver::api_call_with_args(op, &args);
                return HIP_SUCCESS;
            }
            Err(HipError(code)) => code,
        };
        // Only fails when the SDK cannot take HIP calls (from the tool's initialize); the
        // program still gets HIP's answer.
        let _ = driver::api_call_failed(op, stream);
        code
    }))
    .unwrap_or(HIP_ERROR_UNKNOWN);
    hip_error::record(result);
    result
}

/// Writes through an out-parameter the program passed; null is `hipErrorInvalidValue`.
///
/// # Safety
/// `out` must be null or valid for a write of `T` (the HIP API contract for out-parameters).
pub unsafe fn write_out<T>(out: *mut T, value: T) -> Result<(), HipError> {
    if out.is_null() {
        return Err(HipError(crate::error::HIP_ERROR_INVALID_VALUE));
    }
    // SAFETY: non-null, and valid per this function's contract.
    unsafe { out.write(value) };
    Ok(())
}
