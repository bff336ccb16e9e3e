//! hipGetLastError, hipPeekAtLastError, hipGetErrorName, hipGetErrorString.

use crate::driver;
use crate::error::{self, hipError_t};
use rocprofiler_sdk_sys::*;
use std::ffi::c_char;
use std::panic::catch_unwind;

/// Returns and clears the calling thread's last error (it is not itself recorded).
#[no_mangle]
pub extern "C" fn hipGetLastError() -> hipError_t {
    let last = error::take_last();
    let _ = catch_unwind(|| {
        driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGetLastError, None).ok()
    });
    last
}

#[no_mangle]
pub extern "C" fn hipPeekAtLastError() -> hipError_t {
    let last = error::peek_last();
    let _ = catch_unwind(|| {
        driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipPeekAtLastError, None).ok()
    });
    last
}

#[no_mangle]
pub extern "C" fn hipGetErrorName(hip_error: hipError_t) -> *const c_char {
    let _ = catch_unwind(|| {
        driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGetErrorName, None).ok()
    });
    error::error_name(hip_error).as_ptr()
}

#[no_mangle]
pub extern "C" fn hipGetErrorString(hip_error: hipError_t) -> *const c_char {
    let _ = catch_unwind(|| {
        driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGetErrorString, None).ok()
    });
    error::error_string(hip_error).as_ptr()
}
