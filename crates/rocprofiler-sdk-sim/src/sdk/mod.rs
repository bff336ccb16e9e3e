//! The SDK's face: the exported C API (`#[no_mangle] extern "C"`), one file per SDK header,
//! with the exact signatures of `rocprofiler_sdk_sys`, and what only this face needs: the
//! boundary every export goes through ([`ffi_guard`], with [`faults`] injection) and the
//! name and status tables (docs/simulator-fidelity.md#names). What the calls do is the
//! engine's (`crate::engine`).
//!
//! # Safety (all functions)
//! The contract is the SDK header's: out-pointers are either null (rejected with
//! `INVALID_ARGUMENT`) or valid for writes, in-arrays valid for the given count, callbacks
//! callable. Every body runs under [`crate::sdk::ffi_guard::guard`]: fault injection first, and a
//! panic becomes `ROCPROFILER_STATUS_ERROR` instead of unwinding into C.
#![allow(clippy::missing_safety_doc)]

mod agent;
mod buffer;
mod buffer_tracing;
mod callback_tracing;
mod context;
mod external_correlation;
pub mod faults;
pub(crate) mod ffi_guard;
mod internal_threading;
mod misc;
pub(crate) mod names;
mod registration;
pub(crate) mod status_names;

use rocprofiler_sdk_sys as sys;

/// Writes `value` through a caller-supplied out-pointer; null is INVALID_ARGUMENT.
///
/// # Safety
/// `ptr` is null or valid for a write of `T`.
unsafe fn write_out<T>(ptr: *mut T, value: T) -> sys::rocprofiler_status_t {
    if ptr.is_null() {
        return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: non-null, and valid for writes per the caller's contract.
    unsafe { ptr.write(value) };
    sys::ROCPROFILER_STATUS_SUCCESS
}

/// Reads an optional operations filter (`NULL` = all operations, docs/sdk-facts.md#callback-tracing) and validates each
/// operation against the kind's enum where the sim knows it.
///
/// # Safety
/// `ops` is null or valid for reads of `count` values.
unsafe fn read_operations(
    domain: crate::sdk::names::Domain,
    kind: u32,
    ops: *const sys::rocprofiler_tracing_operation_t,
    count: usize,
) -> Result<Option<Vec<i32>>, sys::rocprofiler_status_t> {
    if ops.is_null() {
        return if count == 0 {
            Ok(None)
        } else {
            Err(sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT)
        };
    }
    if count == 0 {
        return Ok(None);
    }
    // SAFETY: non-null and valid for `count` reads per the caller's contract.
    let ops = unsafe { std::slice::from_raw_parts(ops, count) }.to_vec();
    if let Some(known) = crate::sdk::names::operations(domain, kind) {
        if ops.iter().any(|op| !known.contains(*op)) {
            return Err(sys::ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
        }
    }
    Ok(Some(ops))
}
