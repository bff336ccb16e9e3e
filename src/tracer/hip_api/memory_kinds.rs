//! Which memory a copy's pointers are in: device, pinned, managed or pageable, as HIP's own
//! allocation calls made them (docs/xla-interface.md#copy-details).
//!
//! The tracer never calls HIP (it would re-enter the runtime it traces, and XLA's tracer does
//! not either), so the kinds come from what the SDK tells the tool: the HIP API callbacks of the
//! allocation functions, at their EXIT, give the pointer and the size. They are traced by the
//! always-running utility context, for those operations only (`sdk/setup.rs`), so that memory
//! allocated before a session is known in it and no other HIP call pays for this. The SDK's
//! MEMORY_ALLOCATION buffer records were the other source: they arrive in the buffer, after the
//! copies that used the memory were noted, and the simulator has no such records
//! (docs/simulator-fidelity.md).
//!
//! A host pointer in no known range is pageable (malloc'd or stack memory, which HIP never
//! sees); a device-side pointer in no known range is device memory.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use parking_lot::RwLock;
use rocprofiler_sdk_sys as sys;

use crate::event::MemoryKind;

/// The allocations HIP reported, by start address: their end (exclusive) and kind. HIP's
/// allocations do not overlap, so the range holding an address is the one that starts last at
/// or below it. A plain ordered map, not an interval crate: a free names its allocation by its
/// start, which a map of merged ranges (`rangemap`) would have lost.
#[derive(Default)]
pub(crate) struct MemoryRanges {
    ranges: BTreeMap<usize, (usize, MemoryKind)>,
}

/// No cap on the number of ranges: each is a live allocation of the program, freed with it.
impl MemoryRanges {
    pub(crate) fn insert(&mut self, start: usize, size: usize, kind: MemoryKind) {
        if start == 0 || size == 0 {
            return;
        }
        self.ranges
            .insert(start, (start.saturating_add(size), kind));
    }

    pub(crate) fn remove(&mut self, start: usize) {
        self.ranges.remove(&start);
    }

    /// The kind of the allocation holding `address`, if HIP reported one.
    pub(crate) fn kind_of(&self, address: usize) -> Option<MemoryKind> {
        let (_, &(end, kind)) = self.ranges.range(..=address).next_back()?;
        (address < end).then_some(kind)
    }
}

/// The process's allocations: written at an allocation call's EXIT, read at a copy call's
/// ENTER (a shared read; copy calls are off the launch path, docs/ARCHITECTURE.md#the-hot-path).
static RANGES: RwLock<MemoryRanges> = RwLock::new(MemoryRanges {
    ranges: BTreeMap::new(),
});

/// The kind of one side of a copy: what HIP's allocation calls say, else pageable for a host
/// side and device for a device side.
pub(crate) fn side_kind(address: usize, device_side: bool) -> MemoryKind {
    known_kind(address).unwrap_or(if device_side {
        MemoryKind::Device
    } else {
        MemoryKind::Pageable
    })
}

/// The kind of the allocation HIP reported holding `address`, if any.
pub(crate) fn known_kind(address: usize) -> Option<MemoryKind> {
    if address == 0 {
        None
    } else {
        RANGES.read().kind_of(address)
    }
}

/// The HIP functions whose EXIT says where memory was allocated, registered or freed.
pub(crate) const ALLOCATION_OPERATIONS: [i32; 10] = [
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipExtMallocWithFlags,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocManaged,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostAlloc,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipExtHostAlloc,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostRegister,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostUnregister,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipFree,
    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostFree,
];

/// What one allocation function's EXIT did to the map.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum MemoryChange {
    Added {
        start: usize,
        size: usize,
        kind: MemoryKind,
    },
    Removed {
        start: usize,
    },
}

/// The change a successful call of `operation` with `args` made. `written` reads the pointer
/// an allocation function wrote through its `void**` out-parameter.
pub(crate) fn memory_change(
    operation: i32,
    args: &sys::rocprofiler_hip_api_args_t,
    written: impl FnOnce(*mut *mut c_void) -> usize,
) -> Option<MemoryChange> {
    let allocated = |kind, ptr: *mut *mut c_void, size| {
        let start = if ptr.is_null() { 0 } else { written(ptr) };
        Some(MemoryChange::Added { start, size, kind })
    };
    // SAFETY: (each union read) the SDK fills the member of `operation`; all members are plain
    // integers and pointers, valid for any bit pattern.
    unsafe {
        match operation {
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc => {
                allocated(MemoryKind::Device, args.hipMalloc.ptr, args.hipMalloc.size)
            }
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipExtMallocWithFlags => allocated(
                MemoryKind::Device,
                args.hipMallocFlags.ptr,
                args.hipMallocFlags.size,
            ),
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocManaged => allocated(
                MemoryKind::Managed,
                args.hipMallocFlags.ptr,
                args.hipMallocFlags.size,
            ),
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc
            | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostAlloc
            | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipExtHostAlloc => allocated(
                MemoryKind::Pinned,
                args.hipMallocFlags.ptr,
                args.hipMallocFlags.size,
            ),
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostRegister => Some(MemoryChange::Added {
                start: args.hipHostRegister.hostPtr as usize,
                size: args.hipHostRegister.sizeBytes,
                kind: MemoryKind::Pinned,
            }),
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostUnregister
            | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipFree
            | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostFree => Some(MemoryChange::Removed {
                start: args.hipFree.ptr as usize,
            }),
            _ => None,
        }
    }
}

fn apply(change: MemoryChange) {
    let mut ranges = RANGES.write();
    match change {
        MemoryChange::Added { start, size, kind } => ranges.insert(start, size, kind),
        MemoryChange::Removed { start } => ranges.remove(start),
    }
}

/// The utility context's callback for [`ALLOCATION_OPERATIONS`]: at EXIT of a call that
/// succeeded, notes what memory it allocated, registered or freed.
pub(crate) unsafe extern "C" fn allocation_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut c_void,
) {
    if record.phase != sys::ROCPROFILER_CALLBACK_PHASE_EXIT
        || record.kind != sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API
    {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a HIP API record's payload is the SDK's HIP API payload, valid during the
        // callback.
        let Some(data) = (unsafe { super::payload::hip_api_payload(record.payload) }) else {
            return;
        };
        // SAFETY: every HIP function traced here returns a `hipError_t`.
        if unsafe { data.retval.hipError_t_retval } != 0 {
            return;
        }
        let change = memory_change(record.operation, &data.args, |out| {
            // SAFETY: the call succeeded, so HIP wrote the allocation through the program's
            // out-parameter, which it passed valid for a `void*`.
            unsafe { out.read_unaligned() as usize }
        });
        if let Some(change) = change {
            apply(change);
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_take_the_kind_of_the_range_holding_them() {
        let mut ranges = MemoryRanges::default();
        ranges.insert(0x1000, 0x100, MemoryKind::Device);
        ranges.insert(0x1100, 0x100, MemoryKind::Pinned);
        ranges.insert(0x4000, 0x10, MemoryKind::Managed);
        assert_eq!(ranges.kind_of(0x0fff), None);
        assert_eq!(ranges.kind_of(0x1000), Some(MemoryKind::Device));
        assert_eq!(ranges.kind_of(0x10ff), Some(MemoryKind::Device));
        assert_eq!(ranges.kind_of(0x1100), Some(MemoryKind::Pinned));
        assert_eq!(ranges.kind_of(0x1200), None);
        assert_eq!(ranges.kind_of(0x400f), Some(MemoryKind::Managed));
        ranges.remove(0x1000);
        assert_eq!(ranges.kind_of(0x1010), None);
        assert_eq!(ranges.kind_of(0x1110), Some(MemoryKind::Pinned));
    }

    #[test]
    fn allocation_calls_say_what_they_made_and_frees_what_they_gave_back() {
        // SAFETY: plain data, zero is valid.
        let mut args: sys::rocprofiler_hip_api_args_t = unsafe { std::mem::zeroed() };
        let mut out: *mut c_void = std::ptr::null_mut();
        args.hipMallocFlags = sys::rocprofiler_hip_api_args_hipMallocFlags_t {
            ptr: &mut out,
            size: 4096,
            flags: 0,
        };
        let written = |_| 0x7000usize;
        assert_eq!(
            memory_change(
                sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc,
                &args,
                written
            ),
            Some(MemoryChange::Added {
                start: 0x7000,
                size: 4096,
                kind: MemoryKind::Pinned
            })
        );
        assert_eq!(
            memory_change(
                sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocManaged,
                &args,
                written
            ),
            Some(MemoryChange::Added {
                start: 0x7000,
                size: 4096,
                kind: MemoryKind::Managed
            })
        );
        args.hipFree = sys::rocprofiler_hip_api_args_hipFree_t {
            ptr: 0x7000 as *mut c_void,
        };
        assert_eq!(
            memory_change(
                sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipHostFree,
                &args,
                written
            ),
            Some(MemoryChange::Removed { start: 0x7000 })
        );
        assert_eq!(
            memory_change(
                sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel,
                &args,
                written
            ),
            None
        );
    }
}
