//! `hipError_t` values, names and strings, and the per-thread sticky last error.

use std::cell::Cell;
use std::ffi::CStr;

/// `hipError_t` (ROCm >= 6.3 `hip_runtime_api.h`), the subset this runtime returns or names.
#[allow(non_camel_case_types)]
pub type hipError_t = i32;

/// A failed HIP call: the `hipError_t` it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HipError(pub hipError_t);

macro_rules! hip_errors {
    ($(($const:ident, $value:expr, $name:literal, $text:literal)),* $(,)?) => {
        $(pub const $const: hipError_t = $value;)*

        /// `hipGetErrorName`; unknown values name `hipErrorUnknown`, as HIP does.
        pub fn error_name(error: hipError_t) -> &'static CStr {
            match error {
                $($value => $name,)*
                _ => c"hipErrorUnknown",
            }
        }

        /// `hipGetErrorString`; unknown values read "unknown error", as HIP does.
        pub fn error_string(error: hipError_t) -> &'static CStr {
            match error {
                $($value => $text,)*
                _ => c"unknown error",
            }
        }
    };
}

hip_errors! {
    (HIP_SUCCESS, 0, c"hipSuccess", c"no error"),
    (HIP_ERROR_INVALID_VALUE, 1, c"hipErrorInvalidValue", c"invalid argument"),
    (HIP_ERROR_OUT_OF_MEMORY, 2, c"hipErrorOutOfMemory", c"out of memory"),
    (HIP_ERROR_NOT_INITIALIZED, 3, c"hipErrorNotInitialized", c"initialization error"),
    (HIP_ERROR_INVALID_CONFIGURATION, 9, c"hipErrorInvalidConfiguration", c"invalid configuration argument"),
    (HIP_ERROR_INVALID_DEVICE_POINTER, 17, c"hipErrorInvalidDevicePointer", c"invalid device pointer"),
    (HIP_ERROR_INVALID_MEMCPY_DIRECTION, 21, c"hipErrorInvalidMemcpyDirection", c"invalid copy direction for memcpy"),
    (HIP_ERROR_INVALID_DEVICE_FUNCTION, 98, c"hipErrorInvalidDeviceFunction", c"invalid device function"),
    (HIP_ERROR_NO_DEVICE, 100, c"hipErrorNoDevice", c"no ROCm-capable device is detected"),
    (HIP_ERROR_INVALID_DEVICE, 101, c"hipErrorInvalidDevice", c"invalid device ordinal"),
    (HIP_ERROR_INVALID_IMAGE, 200, c"hipErrorInvalidImage", c"device kernel image is invalid"),
    (HIP_ERROR_NO_BINARY_FOR_GPU, 209, c"hipErrorNoBinaryForGpu", c"no kernel image is available for execution on the device"),
    (HIP_ERROR_INVALID_CONTEXT, 201, c"hipErrorInvalidContext", c"invalid device context"),
    (HIP_ERROR_FILE_NOT_FOUND, 301, c"hipErrorFileNotFound", c"file not found"),
    (HIP_ERROR_INVALID_HANDLE, 400, c"hipErrorInvalidHandle", c"invalid resource handle"),
    (HIP_ERROR_ILLEGAL_STATE, 401, c"hipErrorIllegalState", c"the operation cannot be performed in the present state"),
    (HIP_ERROR_NOT_FOUND, 500, c"hipErrorNotFound", c"named symbol not found"),
    (HIP_ERROR_NOT_READY, 600, c"hipErrorNotReady", c"device not ready"),
    (HIP_ERROR_LAUNCH_OUT_OF_RESOURCES, 701, c"hipErrorLaunchOutOfResources", c"too many resources requested for launch"),
    (HIP_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704, c"hipErrorPeerAccessAlreadyEnabled", c"peer access is already enabled"),
    (HIP_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712, c"hipErrorHostMemoryAlreadyRegistered", c"part or all of the requested memory range is already mapped"),
    (HIP_ERROR_HOST_MEMORY_NOT_REGISTERED, 713, c"hipErrorHostMemoryNotRegistered", c"pointer does not correspond to a registered memory region"),
    (HIP_ERROR_CONTEXT_IS_DESTROYED, 709, c"hipErrorContextIsDestroyed", c"context is destroyed"),
    (HIP_ERROR_LAUNCH_FAILURE, 719, c"hipErrorLaunchFailure", c"unspecified launch failure"),
    (HIP_ERROR_NOT_SUPPORTED, 801, c"hipErrorNotSupported", c"operation not supported"),
    (HIP_ERROR_UNKNOWN, 999, c"hipErrorUnknown", c"unknown error"),
}

thread_local! {
    static LAST_ERROR: Cell<hipError_t> = const { Cell::new(HIP_SUCCESS) };
}

/// Records a call's result. Since ROCm 7 the last error is sticky: a later successful call
/// does not clear it, only `hipGetLastError` does (docs/xla-interface.md#public-issues, ROCm/xla#795).
/// `hipErrorNotReady` is a query answer, not an error, and is not recorded.
pub fn record(result: hipError_t) {
    if result != HIP_SUCCESS && result != HIP_ERROR_NOT_READY {
        // A thread being torn down has no last error to keep.
        let _ = LAST_ERROR.try_with(|last| last.set(result));
    }
}

/// `hipGetLastError`: returns and clears.
pub fn take_last() -> hipError_t {
    LAST_ERROR
        .try_with(|last| last.replace(HIP_SUCCESS))
        .unwrap_or(HIP_SUCCESS)
}

/// `hipPeekAtLastError`: returns and keeps.
pub fn peek_last() -> hipError_t {
    LAST_ERROR.try_with(Cell::get).unwrap_or(HIP_SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_strings_follow_hip() {
        assert_eq!(
            error_name(HIP_ERROR_INVALID_DEVICE),
            c"hipErrorInvalidDevice"
        );
        assert_eq!(
            error_string(HIP_ERROR_INVALID_DEVICE),
            c"invalid device ordinal"
        );
        assert_eq!(error_string(HIP_SUCCESS), c"no error");
        assert_eq!(error_name(12345), c"hipErrorUnknown");
        assert_eq!(error_string(-1), c"unknown error");
    }

    #[test]
    fn last_error_is_sticky_until_taken() {
        record(HIP_ERROR_INVALID_VALUE);
        record(HIP_SUCCESS);
        record(HIP_ERROR_NOT_READY);
        assert_eq!(peek_last(), HIP_ERROR_INVALID_VALUE);
        assert_eq!(take_last(), HIP_ERROR_INVALID_VALUE);
        assert_eq!(take_last(), HIP_SUCCESS);
    }
}
