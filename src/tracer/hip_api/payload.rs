//! The SDK's HIP API callback payload, read only as far as the SDK says it is large
//! (`size`, its first field): the copy calls' arguments at ENTER (`copy_calls.rs`), the
//! allocation functions' arguments and return value at EXIT (`memory_kinds.rs`).
use rocprofiler_sdk_sys as sys;

/// Reads the HIP API callback payload if it covers the arguments and the return value.
///
/// # Safety
/// As [`hip_api_args`].
pub(crate) unsafe fn hip_api_payload(
    payload: *const std::ffi::c_void,
) -> Option<sys::rocprofiler_callback_tracing_hip_api_data_t> {
    if payload.is_null() {
        return None;
    }
    // SAFETY: per this function's contract, the payload starts with its u64 size.
    let size = unsafe { (payload as *const u64).read_unaligned() };
    let needed = std::mem::offset_of!(sys::rocprofiler_callback_tracing_hip_api_data_t, retval)
        + std::mem::size_of::<sys::hipError_t>();
    if size < needed as u64 {
        return None;
    }
    // SAFETY: passed on; the payload is large enough for `hip_api_args`' check too.
    unsafe { hip_api_args(payload) }
}

/// Reads the HIP API callback payload if it covers the copy arguments.
///
/// # Safety
/// `payload` is null or points to the SDK's HIP API callback payload, whose first field is its
/// size in bytes, valid for the duration of the callback.
pub(crate) unsafe fn hip_api_args(
    payload: *const std::ffi::c_void,
) -> Option<sys::rocprofiler_callback_tracing_hip_api_data_t> {
    if payload.is_null() {
        return None;
    }
    // SAFETY: per this function's contract, the payload starts with its u64 size.
    let size = unsafe { (payload as *const u64).read_unaligned() };
    let needed = std::mem::offset_of!(sys::rocprofiler_callback_tracing_hip_api_data_t, args)
        + std::mem::offset_of!(sys::rocprofiler_hip_api_args_hipMemcpy_t, kind)
        + std::mem::size_of::<i32>();
    if size < needed as u64 {
        return None;
    }
    let mut data =
        std::mem::MaybeUninit::<sys::rocprofiler_callback_tracing_hip_api_data_t>::zeroed();
    let copy_len = (size as usize).min(std::mem::size_of_val(&data));
    // SAFETY: the payload has `size` readable bytes; `data` is a distinct local of at least
    // `copy_len` bytes, all-zero before (a valid value of this plain C struct).
    unsafe {
        std::ptr::copy_nonoverlapping(payload as *const u8, data.as_mut_ptr() as *mut u8, copy_len);
        Some(data.assume_init())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_too_small_for_what_is_read_are_not_read() {
        let small: [u64; 2] = [16, 0];
        // SAFETY: a payload of 16 readable bytes that says so.
        let args = unsafe { hip_api_args(small.as_ptr().cast()) };
        assert!(args.is_none());
        // SAFETY: null is allowed.
        let null = unsafe { hip_api_args(std::ptr::null()) };
        assert!(null.is_none());
        // Arguments but no return value: not enough for an allocation's EXIT.
        let mut args_only = [0u64; 16];
        args_only[0] = 8 + 88;
        // SAFETY: a payload of 128 readable bytes that says it has 96.
        let payload = unsafe { hip_api_payload(args_only.as_ptr().cast()) };
        assert!(payload.is_none());
        let mut whole = [0u64; 16];
        whole[0] = 8 + 88 + 8;
        // SAFETY: a payload of 128 readable bytes that says it has 104.
        let payload = unsafe { hip_api_payload(whole.as_ptr().cast()) };
        assert!(payload.is_some());
    }
}
