//! The thin `Result` layer over the raw SDK calls the tracer makes: every status that is not
//! SUCCESS becomes an [`SdkError`] that names the call and carries the SDK's own status name
//! and message (`rocprofiler_get_status_name` / `rocprofiler_get_status_string`).
//!
//! Every function here passes only valid pointers to locals or `'static` callbacks (with the
//! callback data the caller registers them with, which the SDK only hands back to them), so the
//! `unsafe` FFI calls are sound as long as the linked library honours the SDK's C ABI.
use std::ffi::{c_int, c_void, CStr};
use std::fmt;

use rocprofiler_sdk_sys as sys;

/// A failed SDK call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdkError {
    pub call: &'static str,
    pub status: sys::rocprofiler_status_t,
    /// e.g. "ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID"; empty if the SDK knows no name.
    pub status_name: String,
    /// The SDK's `rocprofiler_get_status_string`, the text XLA puts into its errors.
    pub message: String,
}

impl fmt::Display for SdkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.call, self.message)?;
        if !self.status_name.is_empty() {
            write!(f, " ({}, status {})", self.status_name, self.status)
        } else {
            write!(f, " (status {})", self.status)
        }
    }
}

impl std::error::Error for SdkError {}

fn borrowed_c_string(ptr: *const std::ffi::c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the SDK returns NUL-terminated string literals that are never freed.
    Some(
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// The SDK's message for `status`, or a fallback naming the number if it has none.
pub fn status_string(status: sys::rocprofiler_status_t) -> String {
    // SAFETY: plain value argument; returns a static string or null.
    borrowed_c_string(unsafe { sys::rocprofiler_get_status_string(status) })
        .unwrap_or_else(|| format!("unknown rocprofiler status {status}"))
}

pub fn status_name(status: sys::rocprofiler_status_t) -> String {
    // SAFETY: as above.
    borrowed_c_string(unsafe { sys::rocprofiler_get_status_name(status) }).unwrap_or_default()
}

/// Turns the status of `call` into a `Result`.
pub(crate) fn check(call: &'static str, status: sys::rocprofiler_status_t) -> Result<(), SdkError> {
    if status == sys::ROCPROFILER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(SdkError {
            call,
            status,
            status_name: status_name(status),
            message: status_string(status),
        })
    }
}

pub(crate) fn get_version() -> Result<(u32, u32, u32), SdkError> {
    let (mut major, mut minor, mut patch) = (0u32, 0u32, 0u32);
    // SAFETY: three valid out-pointers.
    let status = unsafe { sys::rocprofiler_get_version(&mut major, &mut minor, &mut patch) };
    check("rocprofiler_get_version", status)?;
    Ok((major, minor, patch))
}

/// `rocprofiler_get_timestamp`: nanoseconds of the SDK clock (CLOCK_BOOTTIME).
pub fn timestamp() -> Result<u64, SdkError> {
    let mut ts = 0u64;
    // SAFETY: valid out-pointer.
    let status = unsafe { sys::rocprofiler_get_timestamp(&mut ts) };
    check("rocprofiler_get_timestamp", status)?;
    Ok(ts)
}

pub fn is_initialized() -> Result<c_int, SdkError> {
    let mut state: c_int = 0;
    // SAFETY: valid out-pointer.
    let status = unsafe { sys::rocprofiler_is_initialized(&mut state) };
    check("rocprofiler_is_initialized", status)?;
    Ok(state)
}

pub(crate) fn force_configure(
    configure: sys::rocprofiler_configure_func_t,
) -> Result<(), SdkError> {
    // SAFETY: `configure` is a `'static` function with the SDK's signature.
    let status = unsafe { sys::rocprofiler_force_configure(configure) };
    check("rocprofiler_force_configure", status)
}

pub(crate) fn create_context() -> Result<sys::rocprofiler_context_id_t, SdkError> {
    // The SDK requires a zero handle on input (ERROR_CONTEXT_ID_NOT_ZERO otherwise).
    let mut context = sys::rocprofiler_context_id_t { handle: 0 };
    // SAFETY: valid out-pointer.
    let status = unsafe { sys::rocprofiler_create_context(&mut context) };
    check("rocprofiler_create_context", status)?;
    Ok(context)
}

pub(crate) fn start_context(context: sys::rocprofiler_context_id_t) -> Result<(), SdkError> {
    // SAFETY: value argument.
    check("rocprofiler_start_context", unsafe {
        sys::rocprofiler_start_context(context)
    })
}

pub(crate) fn stop_context(context: sys::rocprofiler_context_id_t) -> Result<(), SdkError> {
    // SAFETY: value argument.
    check("rocprofiler_stop_context", unsafe {
        sys::rocprofiler_stop_context(context)
    })
}

pub(crate) fn context_is_valid(context: sys::rocprofiler_context_id_t) -> Result<bool, SdkError> {
    let mut valid: c_int = 0;
    // SAFETY: valid out-pointer.
    let status = unsafe { sys::rocprofiler_context_is_valid(context, &mut valid) };
    check("rocprofiler_context_is_valid", status)?;
    // 1 means valid, despite the header comment (docs/sdk-facts.md#contexts).
    Ok(valid != 0)
}

#[cfg(any(test, feature = "testing"))]
pub fn context_is_active(context: sys::rocprofiler_context_id_t) -> Result<bool, SdkError> {
    let mut active: c_int = 0;
    // SAFETY: valid out-pointer.
    let status = unsafe { sys::rocprofiler_context_is_active(context, &mut active) };
    check("rocprofiler_context_is_active", status)?;
    Ok(active != 0)
}

pub(crate) fn create_buffer(
    context: sys::rocprofiler_context_id_t,
    size: usize,
    watermark: usize,
    policy: sys::rocprofiler_buffer_policy_t,
    callback: sys::rocprofiler_buffer_tracing_cb_t,
    data: *mut c_void,
) -> Result<sys::rocprofiler_buffer_id_t, SdkError> {
    let mut buffer = sys::rocprofiler_buffer_id_t { handle: 0 };
    // SAFETY: valid out-pointer; `callback` is 'static and `data` what it expects (the
    // caller's).
    let status = unsafe {
        sys::rocprofiler_create_buffer(
            context,
            size,
            watermark,
            policy,
            callback,
            data,
            &mut buffer,
        )
    };
    check("rocprofiler_create_buffer", status)?;
    Ok(buffer)
}

pub fn flush_buffer(buffer: sys::rocprofiler_buffer_id_t) -> Result<(), SdkError> {
    // SAFETY: value argument.
    check("rocprofiler_flush_buffer", unsafe {
        sys::rocprofiler_flush_buffer(buffer)
    })
}

pub(crate) fn configure_buffer_tracing(
    context: sys::rocprofiler_context_id_t,
    kind: sys::rocprofiler_buffer_tracing_kind_t,
    buffer: sys::rocprofiler_buffer_id_t,
) -> Result<(), SdkError> {
    // SAFETY: a null operation list with count 0 means "all operations".
    let status = unsafe {
        sys::rocprofiler_configure_buffer_tracing_service(
            context,
            kind,
            std::ptr::null(),
            0,
            buffer,
        )
    };
    check("rocprofiler_configure_buffer_tracing_service", status)
}

/// The SDK's name of buffer tracing kind `kind`; `None` when the SDK has no such kind.
pub(crate) fn buffer_kind_name(kind: sys::rocprofiler_buffer_tracing_kind_t) -> Option<String> {
    // SAFETY: the SDK's function, with the signature `KindNameQuery` names.
    unsafe { kind_name(sys::rocprofiler_query_buffer_tracing_kind_name, kind) }
}

/// `rocprofiler_query_{buffer,callback}_tracing_kind_name`: both kind types are `u32`.
type KindNameQuery =
    unsafe extern "C" fn(u32, *mut *const std::ffi::c_char, *mut u64) -> sys::rocprofiler_status_t;

/// # Safety
/// `query` is one of the SDK's kind-name queries.
unsafe fn kind_name(query: KindNameQuery, kind: u32) -> Option<String> {
    let mut name: *const std::ffi::c_char = std::ptr::null();
    let mut len = 0u64;
    // SAFETY: both out-pointers are valid for the call.
    let status = unsafe { query(kind, &mut name, &mut len) };
    if status != sys::ROCPROFILER_STATUS_SUCCESS || name.is_null() {
        return None;
    }
    // SAFETY: the SDK's NUL-terminated, static name.
    let name = unsafe { std::ffi::CStr::from_ptr(name) };
    Some(name.to_string_lossy().into_owned())
}

pub(crate) fn configure_callback_tracing(
    context: sys::rocprofiler_context_id_t,
    kind: sys::rocprofiler_callback_tracing_kind_t,
    operations: &[sys::rocprofiler_tracing_operation_t],
    callback: sys::rocprofiler_callback_tracing_cb_t,
    data: *mut c_void,
) -> Result<(), SdkError> {
    let operations_ptr = if operations.is_empty() {
        std::ptr::null()
    } else {
        operations.as_ptr()
    };
    // SAFETY: the slice outlives the call (the SDK copies it); the callback is 'static and
    // `data` what it expects (the caller's).
    let status = unsafe {
        sys::rocprofiler_configure_callback_tracing_service(
            context,
            kind,
            operations_ptr,
            operations.len(),
            callback,
            data,
        )
    };
    check("rocprofiler_configure_callback_tracing_service", status)
}

/// The SDK's name of callback tracing kind `kind`; `None` when the SDK has no such kind.
pub(crate) fn callback_kind_name(kind: sys::rocprofiler_callback_tracing_kind_t) -> Option<String> {
    // SAFETY: the SDK's function, with the signature `KindNameQuery` names.
    unsafe { kind_name(sys::rocprofiler_query_callback_tracing_kind_name, kind) }
}

pub(crate) fn configure_external_correlation_request(
    context: sys::rocprofiler_context_id_t,
    kinds: &[sys::rocprofiler_external_correlation_id_request_kind_t],
    callback: sys::rocprofiler_external_correlation_id_request_cb_t,
    data: *mut c_void,
) -> Result<(), SdkError> {
    // SAFETY: the slice outlives the call; the callback is 'static and `data` what it
    // expects (the caller's).
    let status = unsafe {
        sys::rocprofiler_configure_external_correlation_id_request_service(
            context,
            kinds.as_ptr(),
            kinds.len(),
            callback,
            data,
        )
    };
    check(
        "rocprofiler_configure_external_correlation_id_request_service",
        status,
    )
}

pub(crate) fn create_callback_thread() -> Result<sys::rocprofiler_callback_thread_t, SdkError> {
    let mut thread = sys::rocprofiler_callback_thread_t { handle: 0 };
    // SAFETY: valid out-pointer.
    let status = unsafe { sys::rocprofiler_create_callback_thread(&mut thread) };
    check("rocprofiler_create_callback_thread", status)?;
    Ok(thread)
}

pub(crate) fn assign_callback_thread(
    buffer: sys::rocprofiler_buffer_id_t,
    thread: sys::rocprofiler_callback_thread_t,
) -> Result<(), SdkError> {
    // SAFETY: value arguments.
    check("rocprofiler_assign_callback_thread", unsafe {
        sys::rocprofiler_assign_callback_thread(buffer, thread)
    })
}
