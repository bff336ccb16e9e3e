//! The boundary every exported SDK function goes through: fault injection, then the body under
//! `catch_unwind`, so nothing unwinds into C; a panic becomes `ROCPROFILER_STATUS_ERROR`.
use rocprofiler_sdk_sys::{rocprofiler_status_t, ROCPROFILER_STATUS_ERROR};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub(crate) fn guard(
    name: &'static str,
    body: impl FnOnce() -> rocprofiler_status_t,
) -> rocprofiler_status_t {
    if let Some(status) = crate::sdk::faults::take(name) {
        return status;
    }
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(ROCPROFILER_STATUS_ERROR)
}

/// For exports that return something other than a status (pointers): panics give `fallback`.
pub(crate) fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}
