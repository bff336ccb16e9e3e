//! `hipEvent_t`: a recorded event remembers the modelled time its stream reached it.

use crate::error::{HipError, HIP_ERROR_INVALID_HANDLE, HIP_ERROR_NOT_READY};
use crate::handles::HandleSpace;
use parking_lot::Mutex;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, Default)]
struct Event {
    recorded_at_ns: Option<u64>,
}

static EVENTS: Mutex<Option<HashMap<u64, Event>>> = Mutex::new(None);
static HANDLES: HandleSpace = HandleSpace::new(0x5c00_0000_0000);

fn with_event<T>(event: u64, f: impl FnOnce(&mut Event) -> T) -> Result<T, HipError> {
    EVENTS
        .lock()
        .as_mut()
        .and_then(|events| events.get_mut(&event))
        .map(f)
        .ok_or(HipError(HIP_ERROR_INVALID_HANDLE))
}

pub fn create() -> u64 {
    let handle = HANDLES.next();
    EVENTS
        .lock()
        .get_or_insert_with(HashMap::new)
        .insert(handle, Event::default());
    handle
}

pub fn destroy(event: u64) -> Result<(), HipError> {
    EVENTS
        .lock()
        .as_mut()
        .and_then(|events| events.remove(&event))
        .map(|_| ())
        .ok_or(HipError(HIP_ERROR_INVALID_HANDLE))
}

pub fn validate(event: u64) -> Result<(), HipError> {
    with_event(event, |_| ())
}

pub fn record(event: u64, at_ns: u64) -> Result<(), HipError> {
    with_event(event, |e| e.recorded_at_ns = Some(at_ns))
}

/// Milliseconds between two recorded events; `hipErrorNotReady` if one was never recorded.
pub fn elapsed_ms(start: u64, stop: u64) -> Result<f32, HipError> {
    let start = with_event(start, |e| e.recorded_at_ns)?;
    let stop = with_event(stop, |e| e.recorded_at_ns)?;
    match (start, stop) {
        (Some(a), Some(b)) => Ok((b as f64 - a as f64) as f32 / 1.0e6),
        _ => Err(HipError(HIP_ERROR_NOT_READY)),
    }
}

/// Blocks until the event's recorded time has passed (an unrecorded event is complete).
pub fn wait(event: u64) {
    if let Ok(Some(at)) = with_event(event, |e| e.recorded_at_ns) {
        let now = crate::driver::timestamp_ns();
        if at > now {
            std::thread::sleep(std::time::Duration::from_nanos(at - now));
        }
    }
}

/// `Ok` when complete, `hipErrorNotReady` while the recorded time is still ahead.
pub fn query(event: u64) -> Result<(), HipError> {
    match with_event(event, |e| e.recorded_at_ns)? {
        Some(at) if at > crate::driver::timestamp_ns() => Err(HipError(HIP_ERROR_NOT_READY)),
        _ => Ok(()),
    }
}
