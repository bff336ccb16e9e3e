//! Allocations: "device" memory is host memory here, so HIP programs compute real results.
//! The registry knows which addresses are device or pinned-host allocations, to validate
//! frees and copy ranges and to tell copy directions and devices apart.

use crate::error::{HipError, HIP_ERROR_INVALID_VALUE, HIP_ERROR_OUT_OF_MEMORY};
use parking_lot::Mutex;
use std::alloc::Layout;
use std::collections::BTreeMap;

/// HIP aligns device allocations to at least 256 bytes.
const ALIGNMENT: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Device(u32),
    PinnedHost,
}

#[derive(Clone, Copy, Debug)]
struct Allocation {
    layout: Layout,
    placement: Placement,
}

/// Keyed by start address.
static ALLOCATIONS: Mutex<BTreeMap<usize, Allocation>> = Mutex::new(BTreeMap::new());

/// Allocates `size` bytes (zeroed). `size == 0` yields a null pointer, as HIP does.
pub fn allocate(size: usize, placement: Placement) -> Result<*mut u8, HipError> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let layout =
        Layout::from_size_align(size, ALIGNMENT).map_err(|_| HipError(HIP_ERROR_OUT_OF_MEMORY))?;
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(HipError(HIP_ERROR_OUT_OF_MEMORY));
    }
    ALLOCATIONS
        .lock()
        .insert(ptr as usize, Allocation { layout, placement });
    Ok(ptr)
}

/// Frees an allocation made with the same kind of placement (`hipFree` for device memory,
/// `hipHostFree` for pinned memory). Null is a no-op; anything else unknown is invalid.
pub fn free(ptr: *mut u8, pinned: bool) -> Result<(), HipError> {
    if ptr.is_null() {
        return Ok(());
    }
    let mut allocations = ALLOCATIONS.lock();
    let matches = allocations
        .get(&(ptr as usize))
        .is_some_and(|a| (a.placement == Placement::PinnedHost) == pinned);
    if !matches {
        return Err(HipError(HIP_ERROR_INVALID_VALUE));
    }
    let allocation = allocations
        .remove(&(ptr as usize))
        .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
    drop(allocations);
    // SAFETY: `ptr` was returned by `alloc_zeroed` with this layout and is removed from the
    // registry, so it is freed exactly once.
    unsafe { std::alloc::dealloc(ptr, allocation.layout) };
    Ok(())
}

/// Where `[ptr, ptr+len)` lives: `Ok(Some(placement))` inside one allocation, `Ok(None)` for
/// memory this runtime did not allocate (pageable host memory), `Err` when the range starts
/// inside an allocation but runs past its end.
pub fn locate(ptr: usize, len: usize) -> Result<Option<Placement>, HipError> {
    let allocations = ALLOCATIONS.lock();
    let Some((&start, allocation)) = allocations.range(..=ptr).next_back() else {
        return Ok(None);
    };
    let end = start + allocation.layout.size();
    if ptr >= end {
        return Ok(None);
    }
    match ptr.checked_add(len) {
        Some(range_end) if range_end <= end => Ok(Some(allocation.placement)),
        _ => Err(HipError(HIP_ERROR_INVALID_VALUE)),
    }
}

/// Total bytes of live device allocations on `device` (for `hipMemGetInfo`).
pub fn device_bytes_in_use(device: u32) -> usize {
    ALLOCATIONS
        .lock()
        .values()
        .filter(|a| a.placement == Placement::Device(device))
        .map(|a| a.layout.size())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_validates_ranges_and_frees() {
        let p = allocate(1000, Placement::Device(1)).unwrap();
        let a = p as usize;
        assert_eq!(a % ALIGNMENT, 0);
        assert_eq!(locate(a, 1000), Ok(Some(Placement::Device(1))));
        assert_eq!(locate(a + 10, 990), Ok(Some(Placement::Device(1))));
        assert_eq!(locate(a + 10, 991), Err(HipError(HIP_ERROR_INVALID_VALUE)));
        assert_eq!(locate(a + 4096, 1), Ok(None));
        assert!(device_bytes_in_use(1) >= 1000);
        // A device allocation is not freed by hipHostFree, nor an interior pointer.
        assert_eq!(free(p, true), Err(HipError(HIP_ERROR_INVALID_VALUE)));
        assert_eq!(
            free(p.wrapping_add(8), false),
            Err(HipError(HIP_ERROR_INVALID_VALUE))
        );
        assert_eq!(free(p, false), Ok(()));
        assert_eq!(free(p, false), Err(HipError(HIP_ERROR_INVALID_VALUE)));
        assert_eq!(free(std::ptr::null_mut(), false), Ok(()));
        assert_eq!(allocate(0, Placement::PinnedHost), Ok(std::ptr::null_mut()));
    }
}
