//! HIP runtime API operations: their names, read from the SDK's names API at initialization
//! (docs/sdk-facts.md#names-api), and XLA's `isCopyApi` list (docs/xla-interface.md#copy-apis).
use std::ffi::{c_int, c_void, CStr};
use std::sync::Arc;

use rocprofiler_sdk_sys as sys;

use crate::tracer::sdk::calls::{self as sdk, SdkError};

/// XLA's name for an operation the SDK did not name.
pub(crate) const UNKNOWN_OP_NAME: &str = "HIP_UNKNOWN_OP";

/// Operation id -> name, for `ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API` (whose value, 5,
/// is also the buffer kind of HIP API records).
#[derive(Clone, Debug, Default)]
pub struct HipApiNames {
    by_operation: Vec<Option<Arc<str>>>,
}

impl HipApiNames {
    pub(crate) fn from_pairs(pairs: impl IntoIterator<Item = (i32, String)>) -> HipApiNames {
        let mut by_operation: Vec<Option<Arc<str>>> = Vec::new();
        for (operation, name) in pairs {
            let Ok(index) = usize::try_from(operation) else {
                continue;
            };
            if by_operation.len() <= index {
                by_operation.resize(index + 1, None);
            }
            by_operation[index] = Some(Arc::from(name));
        }
        HipApiNames { by_operation }
    }

    /// The names the bindings were generated with, what an SDK of that version reports. For
    /// decoders run without an SDK (tests, fuzzing).
    #[cfg(any(test, feature = "testing"))]
    pub fn from_bindings() -> HipApiNames {
        HipApiNames::from_pairs(
            sys::HIP_RUNTIME_API_NAMES
                .iter()
                .enumerate()
                .map(|(operation, name)| (operation as i32, name.to_string())),
        )
    }

    /// Asks the SDK for every HIP runtime API operation and its name.
    pub fn query() -> Result<HipApiNames, SdkError> {
        let mut operations: Vec<i32> = Vec::new();
        // SAFETY: the callback runs synchronously during this call with `&mut operations`.
        let status = unsafe {
            sys::rocprofiler_iterate_callback_tracing_kind_operations(
                sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                Some(collect_operation),
                &mut operations as *mut Vec<i32> as *mut c_void,
            )
        };
        sdk::check(
            "rocprofiler_iterate_callback_tracing_kind_operations",
            status,
        )?;

        let mut pairs = Vec::with_capacity(operations.len());
        for operation in operations {
            let mut name: *const std::ffi::c_char = std::ptr::null();
            // SAFETY: valid out-pointer; a null length pointer is allowed.
            let status = unsafe {
                sys::rocprofiler_query_callback_tracing_kind_operation_name(
                    sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                    operation,
                    &mut name,
                    std::ptr::null_mut(),
                )
            };
            // Like the SDK's C++ name utility: keep only names that came back successfully.
            if status == sys::ROCPROFILER_STATUS_SUCCESS && !name.is_null() {
                // SAFETY: a NUL-terminated string literal owned by the SDK.
                let text = unsafe { CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned();
                pairs.push((operation, text));
            }
        }
        Ok(HipApiNames::from_pairs(pairs))
    }

    pub fn name(&self, operation: i32) -> Option<&Arc<str>> {
        let index = usize::try_from(operation).ok()?;
        self.by_operation.get(index)?.as_ref()
    }

    #[cfg(any(test, feature = "testing"))]
    pub fn len(&self) -> usize {
        self.by_operation.iter().filter(|n| n.is_some()).count()
    }

    #[cfg(any(test, feature = "testing"))]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// # Safety
/// `data` is the `&mut Vec<i32>` passed by [`HipApiNames::query`].
unsafe extern "C" fn collect_operation(
    _kind: sys::rocprofiler_callback_tracing_kind_t,
    operation: sys::rocprofiler_tracing_operation_t,
    data: *mut c_void,
) -> c_int {
    if data.is_null() {
        return 1;
    }
    let pushed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: per this function's contract.
        unsafe { &mut *(data as *mut Vec<i32>) }.push(operation);
    }));
    if pushed.is_ok() {
        0
    } else {
        1
    }
}

/// XLA's `isCopyApi`: the 29 HIP runtime operations whose API records are typed `MemcpyOther`.
pub(crate) fn is_copy_api(operation: i32) -> bool {
    COPY_APIS.contains(&operation)
}

pub(crate) const COPY_APIS: [i32; 29] = [
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2D,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DFromArray,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DFromArrayAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DToArray,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy2DToArrayAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy3D,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy3DAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAtoH,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoD,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoDAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoH,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoHAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyFromArray,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyFromSymbol,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyFromSymbolAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoA,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoD,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyParam2D,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyParam2DAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeer,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyPeerAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyToArray,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyToSymbol,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyToSymbolAsync,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyWithStream,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_api_list_matches_xla() {
        let copies: Vec<&str> = sys::HIP_RUNTIME_API_NAMES
            .iter()
            .enumerate()
            .filter(|(op, _)| is_copy_api(*op as i32))
            .map(|(_, name)| *name)
            .collect();
        assert_eq!(copies.len(), 29);
        assert!(copies.iter().all(|name| name.starts_with("hipMemcpy")));
        assert!(is_copy_api(
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync
        ));
        assert!(!is_copy_api(
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel
        ));
        // Not in XLA's list although it copies: the list is XLA's, unchanged.
        assert!(!is_copy_api(
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync_spt
        ));
        assert!(!is_copy_api(-1));
    }

    #[test]
    fn names_by_operation_with_gaps() {
        let names =
            HipApiNames::from_pairs([(214, "hipLaunchKernel".to_owned()), (-1, "x".into())]);
        assert_eq!(names.name(214).map(|n| &**n), Some("hipLaunchKernel"));
        assert!(names.name(213).is_none());
        assert!(names.name(10_000).is_none());
        assert!(names.name(-1).is_none());
        assert_eq!(names.len(), 1);
    }
}
