//! Allocations: "device" memory is host memory here, so HIP programs compute real results.
//! The registry knows which addresses are device or pinned-host allocations, to validate
//! frees and copy ranges and to tell copy directions and devices apart.
//!
//! Each allocation is an anonymous private mapping reserved without swap (`MAP_NORESERVE`):
//! it costs address space only, and a page takes memory when first touched. So a program may
//! reserve most of a 192 GiB GPU, as XLA's BFC allocator does at start (75% by default), and
//! pay only for what it writes (docs/simulator-fidelity.md#memory).

use crate::error::{
    HipError, HIP_ERROR_HOST_MEMORY_ALREADY_REGISTERED, HIP_ERROR_HOST_MEMORY_NOT_REGISTERED,
    HIP_ERROR_INVALID_VALUE, HIP_ERROR_OUT_OF_MEMORY,
};
use parking_lot::Mutex;
use std::collections::BTreeMap;

/// HIP aligns device allocations to at least 256 bytes (mappings are page-aligned).
const ALIGNMENT: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Device(u32),
    PinnedHost,
}

#[derive(Clone, Copy, Debug)]
struct Allocation {
    size: usize,
    placement: Placement,
    /// Mapped by this runtime (freed by it); false for program memory pinned by
    /// `hipHostRegister`.
    owned: bool,
}

/// Keyed by start address.
static ALLOCATIONS: Mutex<BTreeMap<usize, Allocation>> = Mutex::new(BTreeMap::new());

/// Allocates `size` bytes (zeroed). `size == 0` yields a null pointer, as HIP does.
pub fn allocate(size: usize, placement: Placement) -> Result<*mut u8, HipError> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    // SAFETY: a fresh anonymous mapping; no existing memory is affected.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return Err(HipError(HIP_ERROR_OUT_OF_MEMORY));
    }
    let ptr = ptr.cast::<u8>();
    debug_assert_eq!(ptr as usize % ALIGNMENT, 0);
    ALLOCATIONS.lock().insert(
        ptr as usize,
        Allocation {
            size,
            placement,
            owned: true,
        },
    );
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
        .is_some_and(|a| a.owned && (a.placement == Placement::PinnedHost) == pinned);
    if !matches {
        return Err(HipError(HIP_ERROR_INVALID_VALUE));
    }
    let allocation = allocations
        .remove(&(ptr as usize))
        .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
    drop(allocations);
    // SAFETY: `ptr` is a mapping of this size made by `allocate` and is removed from the
    // registry, so it is unmapped exactly once.
    unsafe { libc::munmap(ptr.cast(), allocation.size) };
    Ok(())
}

/// `hipHostRegister`: the program's `[ptr, ptr+size)` counts as pinned host memory from now on.
pub fn register_host(ptr: *mut u8, size: usize) -> Result<(), HipError> {
    if ptr.is_null() || size == 0 {
        return Err(HipError(HIP_ERROR_INVALID_VALUE));
    }
    let start = ptr as usize;
    let end = start
        .checked_add(size)
        .ok_or(HipError(HIP_ERROR_INVALID_VALUE))?;
    let mut allocations = ALLOCATIONS.lock();
    let overlaps = allocations
        .range(..end)
        .next_back()
        .is_some_and(|(&s, a)| s + a.size > start);
    if overlaps {
        return Err(HipError(HIP_ERROR_HOST_MEMORY_ALREADY_REGISTERED));
    }
    allocations.insert(
        start,
        Allocation {
            size,
            placement: Placement::PinnedHost,
            owned: false,
        },
    );
    Ok(())
}

/// `hipHostUnregister`: forgets a range `register_host` pinned.
pub fn unregister_host(ptr: *mut u8) -> Result<(), HipError> {
    let mut allocations = ALLOCATIONS.lock();
    match allocations.get(&(ptr as usize)) {
        Some(a) if !a.owned => {
            allocations.remove(&(ptr as usize));
            Ok(())
        }
        _ => Err(HipError(HIP_ERROR_HOST_MEMORY_NOT_REGISTERED)),
    }
}

/// Where `[ptr, ptr+len)` lives: `Ok(Some(placement))` inside one allocation, `Ok(None)` for
/// memory this runtime did not allocate (pageable host memory), `Err` when the range starts
/// inside an allocation but runs past its end.
pub fn locate(ptr: usize, len: usize) -> Result<Option<Placement>, HipError> {
    let allocations = ALLOCATIONS.lock();
    let Some((&start, allocation)) = allocations.range(..=ptr).next_back() else {
        return Ok(None);
    };
    let end = start + allocation.size;
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
        .filter(|a| a.owned && a.placement == Placement::Device(device))
        .map(|a| a.size)
        .sum()
}

/// The allocation holding `ptr`: its start, size and placement (`None`: not a runtime
/// allocation), for pointer attribute queries.
pub fn containing(ptr: usize) -> Option<(usize, usize, Placement)> {
    let allocations = ALLOCATIONS.lock();
    let (&start, allocation) = allocations.range(..=ptr).next_back()?;
    (ptr < start + allocation.size).then_some((start, allocation.size, allocation.placement))
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
        // Past the allocation's end, inside its own mapping: no other test's allocation can
        // be there (the next page can be, as tests run in parallel).
        assert_eq!(locate(a + 1000, 1), Ok(None));
        assert!(device_bytes_in_use(1) >= 1000);
        // A device allocation is not freed by hipHostFree, nor an interior pointer.
        assert_eq!(free(p, true), Err(HipError(HIP_ERROR_INVALID_VALUE)));
        assert_eq!(
            free(p.wrapping_add(8), false),
            Err(HipError(HIP_ERROR_INVALID_VALUE))
        );
        assert_eq!(free(p, false), Ok(()));
        assert_eq!(free(std::ptr::null_mut(), false), Ok(()));
        // Registered program memory is pinned host memory, never freed by the runtime.
        let mut program = vec![0u8; 4096];
        let p = program.as_mut_ptr();
        // Never allocated by the runtime (a freed device pointer is not used here: a test
        // running beside this one may be handed the same address at once).
        assert_eq!(free(p, false), Err(HipError(HIP_ERROR_INVALID_VALUE)));
        assert_eq!(register_host(p, 4096), Ok(()));
        assert_eq!(locate(p as usize, 4096), Ok(Some(Placement::PinnedHost)));
        assert_eq!(
            register_host(p.wrapping_add(100), 10),
            Err(HipError(HIP_ERROR_HOST_MEMORY_ALREADY_REGISTERED))
        );
        assert_eq!(free(p, true), Err(HipError(HIP_ERROR_INVALID_VALUE)));
        assert_eq!(unregister_host(p), Ok(()));
        assert_eq!(locate(p as usize, 4096), Ok(None));
        assert_eq!(
            unregister_host(p),
            Err(HipError(HIP_ERROR_HOST_MEMORY_NOT_REGISTERED))
        );
        assert_eq!(allocate(0, Placement::PinnedHost), Ok(std::ptr::null_mut()));
    }

    /// What XLA's allocator reserves at start on a 192 GiB GPU (75%): address space only, the
    /// pages touched are the only memory taken.
    #[test]
    fn reserving_most_of_the_device_costs_nothing_until_touched() {
        let size = 144usize << 30;
        let p = allocate(size, Placement::Device(0)).unwrap();
        let rss_kib = || {
            let status = std::fs::read_to_string("/proc/self/status").unwrap();
            let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
            line.split_whitespace()
                .nth(1)
                .unwrap()
                .parse::<u64>()
                .unwrap()
        };
        let before = rss_kib();
        // Touch one byte every 1 GiB: 144 pages.
        for gib in 0..144usize {
            // SAFETY: inside the allocation.
            unsafe { p.add(gib << 30).write(1) };
        }
        let grown = rss_kib().saturating_sub(before);
        assert!(grown < 64 * 1024, "RSS grew by {grown} KiB");
        assert_eq!(
            containing(p as usize + (1 << 30)),
            Some((p as usize, size, Placement::Device(0)))
        );
        assert_eq!(free(p, false), Ok(()));
        assert_eq!(containing(p as usize), None);
    }
}
