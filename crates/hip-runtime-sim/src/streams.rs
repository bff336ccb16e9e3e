//! Live streams. `hipStream_t` values come from the simulated driver (distinct fake
//! addresses); the null stream, `hipStreamLegacy` (1) and `hipStreamPerThread` (2) are always
//! valid and run on the calling thread's current device.

use crate::device;
use crate::error::{HipError, HIP_ERROR_CONTEXT_IS_DESTROYED, HIP_ERROR_INVALID_HANDLE};
use parking_lot::Mutex;
use std::collections::HashMap;

pub const NULL_STREAM: u64 = 0;
pub const STREAM_LEGACY: u64 = 1;
pub const STREAM_PER_THREAD: u64 = 2;

/// What the program created a stream with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamInfo {
    pub device: u32,
    /// `hipStreamDefault` (0) or `hipStreamNonBlocking` (1).
    pub flags: u32,
    /// 0 (the default, lowest) or -1 (greatest).
    pub priority: i32,
}

static LIVE: Mutex<Option<HashMap<u64, StreamInfo>>> = Mutex::new(None);

pub fn is_special(stream: u64) -> bool {
    matches!(stream, NULL_STREAM | STREAM_LEGACY | STREAM_PER_THREAD)
}

pub fn insert(stream: u64, info: StreamInfo) {
    LIVE.lock()
        .get_or_insert_with(HashMap::new)
        .insert(stream, info);
}

/// A live stream's creation parameters; the special streams are default streams of the
/// current device. HIP answers `hipErrorContextIsDestroyed` for a stream it does not know.
pub fn info(stream: u64) -> Result<StreamInfo, HipError> {
    if is_special(stream) {
        return Ok(StreamInfo {
            device: device::current(),
            ..StreamInfo::default()
        });
    }
    LIVE.lock()
        .as_ref()
        .and_then(|live| live.get(&stream))
        .copied()
        .ok_or(HipError(HIP_ERROR_CONTEXT_IS_DESTROYED))
}

/// The device whose queue `stream` feeds. HIP answers `hipErrorContextIsDestroyed` for a
/// stream it does not know (destroyed or never created).
pub fn device_of(stream: u64) -> Result<u32, HipError> {
    info(stream).map(|info| info.device)
}

/// Forgets a created stream. The null/special streams cannot be destroyed.
pub fn remove(stream: u64) -> Result<(), HipError> {
    if is_special(stream) {
        return Err(HipError(HIP_ERROR_INVALID_HANDLE));
    }
    LIVE.lock()
        .as_mut()
        .and_then(|live| live.remove(&stream))
        .map(|_| ())
        .ok_or(HipError(HIP_ERROR_CONTEXT_IS_DESTROYED))
}
