//! Devices: the count comes from the simulated machine; the current device is per thread, as
//! in HIP (`hipSetDevice` affects only the calling thread).

use crate::driver;
use crate::error::{HipError, HIP_ERROR_INVALID_DEVICE};
use std::cell::Cell;

thread_local! {
    static CURRENT: Cell<u32> = const { Cell::new(0) };
}

pub fn count() -> u32 {
    driver::gpu_count()
}

pub fn validate(device: i32) -> Result<u32, HipError> {
    u32::try_from(device)
        .ok()
        .filter(|d| *d < count())
        .ok_or(HipError(HIP_ERROR_INVALID_DEVICE))
}

pub fn current() -> u32 {
    CURRENT.try_with(Cell::get).unwrap_or(0)
}

pub fn set_current(device: i32) -> Result<(), HipError> {
    let device = validate(device)?;
    driver::set_device(device)?;
    let _ = CURRENT.try_with(|c| c.set(device));
    Ok(())
}
