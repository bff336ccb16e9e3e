//! ROCTx calls on the calling thread (`engine/roctx.rs` fires what the SDK traces of them).
//! Not HIP calls: no HIP API record and no HIP_STREAM SET.
use super::HipStream;
use crate::SimError;

/// ROCTx's `roctxNameHipStream(name, stream)` on the calling thread: MARKER_NAME_API
/// ENTER and EXIT to the contexts that trace it (see `roctx.rs`); returns ROCTx's 0. Not a HIP
/// call, so no HIP API record and no HIP_STREAM SET. `name` must not contain NUL.
pub fn roctx_name_hip_stream(stream: HipStream, name: &str) -> Result<i32, SimError> {
    crate::engine::roctx::name_hip_stream_str(name, stream)
}

/// ROCTx's `roctxRangePushA(message)` on the calling thread: MARKER_CORE_API ENTER and EXIT to
/// the contexts that trace it (see `roctx.rs`); returns the new range's 0-based level. Not a
/// HIP call. `message` must not contain NUL.
pub fn roctx_range_push(message: &str) -> Result<i32, SimError> {
    let message = roctx_message(message)?;
    Ok(crate::engine::roctx::range_push(Some(&message)))
}

/// ROCTx's `roctxRangePop()` on the calling thread; returns the closed range's level, or -1
/// when the thread had none open (the callbacks fire either way, as the SDK's do).
pub fn roctx_range_pop() -> i32 {
    crate::engine::roctx::range_pop()
}

/// ROCTx's `roctxRangeStartA(message)` on the calling thread: opens a process range, which
/// any thread may stop (MARKER_CORE_RANGE_API and MARKER_CORE_API as `roctx.rs` says); returns
/// its id. `message` must not contain NUL.
pub fn roctx_range_start(message: &str) -> Result<u64, SimError> {
    let message = roctx_message(message)?;
    Ok(crate::engine::roctx::range_start(Some(&message)))
}

/// ROCTx's `roctxRangeStop(id)` on the calling thread: closes the process range `id` (an
/// unknown id closes nothing; the core call is traced either way).
pub fn roctx_range_stop(id: u64) {
    crate::engine::roctx::range_stop(id)
}

/// ROCTx's `roctxMarkA(message)` on the calling thread. `message` must not contain NUL.
pub fn roctx_mark(message: &str) -> Result<(), SimError> {
    let message = roctx_message(message)?;
    crate::engine::roctx::mark(Some(&message));
    Ok(())
}

fn roctx_message(message: &str) -> Result<std::ffi::CString, SimError> {
    std::ffi::CString::new(message).map_err(|_| {
        SimError::InvalidArgument(format!("ROCTx message {message:?} contains a NUL byte"))
    })
}
