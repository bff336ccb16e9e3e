//! Copies and fills done for real on host memory, and how they look to the simulated SDK:
//! direction and the devices on each side.

use crate::driver::{CopyCall, CopyKind, CopyWork};
use crate::error::{HipError, HIP_ERROR_INVALID_MEMCPY_DIRECTION, HIP_ERROR_INVALID_VALUE};
use crate::memory::{self, Placement};
use crate::timing_model;

/// `hipMemcpyKind` values.
const HOST_TO_HOST: i32 = 0;
const HOST_TO_DEVICE: i32 = 1;
const DEVICE_TO_HOST: i32 = 2;
const DEVICE_TO_DEVICE: i32 = 3;
const DEFAULT: i32 = 4;
const DEVICE_TO_DEVICE_NO_CU: i32 = 1024;

/// A validated copy: what to move, and what the SDK should see.
#[derive(Clone, Copy, Debug)]
pub struct PlannedCopy {
    dst: *mut u8,
    src: *const u8,
    pub work: CopyWork,
    /// What the program passed: pointers, `hipMemcpyKind`, and whether the host side is
    /// pinned (`hipHostMalloc`) or pageable (any other host memory).
    pub call: CopyCall,
}

fn device_of(placement: Option<Placement>) -> Option<u32> {
    match placement {
        Some(Placement::Device(d)) => Some(d),
        _ => None,
    }
}

/// Validates a `hipMemcpy*` request. `Ok(None)` for a zero-byte copy (nothing to do).
/// Memory the runtime did not allocate counts as pageable host memory, except that the device
/// side of a declared direction is attributed to `stream_device` (HIP accepts such pointers
/// on large-BAR systems too).
pub fn plan(
    dst: *mut u8,
    src: *const u8,
    bytes: usize,
    kind: i32,
    stream_device: u32,
) -> Result<Option<PlannedCopy>, HipError> {
    if !matches!(
        kind,
        HOST_TO_HOST
            | HOST_TO_DEVICE
            | DEVICE_TO_HOST
            | DEVICE_TO_DEVICE
            | DEFAULT
            | DEVICE_TO_DEVICE_NO_CU
    ) {
        return Err(HipError(HIP_ERROR_INVALID_MEMCPY_DIRECTION));
    }
    if dst.is_null() || src.is_null() {
        return Err(HipError(HIP_ERROR_INVALID_VALUE));
    }
    if bytes == 0 {
        return Ok(None);
    }
    let dst_placement = memory::locate(dst as usize, bytes)?;
    let src_placement = memory::locate(src as usize, bytes)?;
    let dst_device = device_of(dst_placement);
    let src_device = device_of(src_placement);
    let hip_kind = kind;
    let (kind, src_device, dst_device) = match kind {
        HOST_TO_HOST => (CopyKind::HostToHost, None, None),
        HOST_TO_DEVICE => (
            CopyKind::HostToDevice,
            None,
            dst_device.or(Some(stream_device)),
        ),
        DEVICE_TO_HOST => (
            CopyKind::DeviceToHost,
            src_device.or(Some(stream_device)),
            None,
        ),
        DEVICE_TO_DEVICE | DEVICE_TO_DEVICE_NO_CU => (
            CopyKind::DeviceToDevice,
            src_device.or(Some(stream_device)),
            dst_device.or(Some(stream_device)),
        ),
        _ => match (src_device, dst_device) {
            (None, None) => (CopyKind::HostToHost, None, None),
            (None, Some(_)) => (CopyKind::HostToDevice, None, dst_device),
            (Some(_), None) => (CopyKind::DeviceToHost, src_device, None),
            (Some(_), Some(_)) => (CopyKind::DeviceToDevice, src_device, dst_device),
        },
    };
    let bytes64 = bytes as u64;
    // The host side of the copy; pinned only if it is a `hipHostMalloc` allocation.
    let host_side = match kind {
        CopyKind::HostToDevice => Some(src_placement),
        CopyKind::DeviceToHost => Some(dst_placement),
        CopyKind::HostToHost => Some(src_placement.or(dst_placement)),
        CopyKind::DeviceToDevice => None,
    };
    let pageable = host_side.is_some_and(|p| p != Some(Placement::PinnedHost));
    Ok(Some(PlannedCopy {
        dst,
        src,
        call: CopyCall {
            pageable,
            dst: dst as u64,
            src: src as u64,
            hip_kind,
        },
        work: CopyWork {
            kind,
            bytes: bytes64,
            src_device,
            dst_device,
            duration_ns: timing_model::copy_duration_ns(kind, bytes64),
        },
    }))
}

impl PlannedCopy {
    /// Moves the bytes (overlap-safe).
    ///
    /// # Safety
    /// `src` must be readable and `dst` writable for `work.bytes` bytes: guaranteed by
    /// [`plan`] for runtime allocations, and by the HIP contract for program memory.
    pub unsafe fn perform(&self) {
        // SAFETY: per this function's contract.
        unsafe { std::ptr::copy(self.src, self.dst, self.work.bytes as usize) };
    }
}

/// Validates a `hipMemset*` request and fills for real. Returns false for a zero-byte fill.
///
/// # Safety
/// `dst` must be writable for `bytes` bytes when it is not a runtime allocation.
pub unsafe fn fill(dst: *mut u8, value: i32, bytes: usize) -> Result<bool, HipError> {
    if dst.is_null() {
        return Err(HipError(HIP_ERROR_INVALID_VALUE));
    }
    if bytes == 0 {
        return Ok(false);
    }
    memory::locate(dst as usize, bytes)?;
    // SAFETY: range checked against the allocation, or the caller's contract.
    unsafe { std::ptr::write_bytes(dst, value as u8, bytes) };
    Ok(true)
}
