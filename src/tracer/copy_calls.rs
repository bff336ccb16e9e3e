//! Copies named by what the program asked for.
//!
//! The HIP runtime does not always submit a copy the way the program wrote it: a small
//! host<->device copy is a blit on the GPU, which the SDK records as DEVICE_TO_DEVICE with the
//! GPU on both sides; a large copy from pageable memory is pinned piece by piece, one
//! MEMORY_COPY record per piece under the call's correlation id; and a copy the runtime does
//! with the CPU has no record at all.
//!
//! The HIP API ENTER callback therefore notes, per correlation id, the direction the call asked
//! for (from the function, `hipMemcpyHtoD*` / `DtoH*` / `DtoD*`, or from the `kind` argument of
//! `hipMemcpy`, `hipMemcpyAsync` and `hipMemcpyWithStream`) and its size. The buffer callback
//! then names each copy record by that direction (the record's own direction is reported to
//! the sink as a stat) and joins the pieces of one call into one event of the call's size.

use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;
use rustc_hash::FxHashMap;
use std::collections::HashMap;

use crate::event::{EventDetails, EventSource, EventType, RocmTracerEvent};

/// What one HIP copy call asked for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CopyCall {
    /// `MemcpyH2D`, `MemcpyD2H`, `MemcpyD2D`, or `MemcpyOther` for host-to-host.
    pub direction: EventType,
    /// The call's `sizeBytes`; 0 when the arguments were not available.
    pub bytes: u64,
}

/// `hipMemcpyKind` values (HIP's `hip_runtime_api.h`).
const HIP_MEMCPY_HOST_TO_HOST: i32 = 0;
const HIP_MEMCPY_HOST_TO_DEVICE: i32 = 1;
const HIP_MEMCPY_DEVICE_TO_HOST: i32 = 2;
const HIP_MEMCPY_DEVICE_TO_DEVICE: i32 = 3;
const HIP_MEMCPY_DEVICE_TO_DEVICE_NO_CU: i32 = 1024;

/// The direction a `hipMemcpyKind` names; `hipMemcpyDefault` (4, unified addressing decides)
/// and unknown values name none.
pub fn direction_of_kind(kind: i32) -> Option<EventType> {
    match kind {
        HIP_MEMCPY_HOST_TO_HOST => Some(EventType::MemcpyOther),
        HIP_MEMCPY_HOST_TO_DEVICE => Some(EventType::MemcpyH2D),
        HIP_MEMCPY_DEVICE_TO_HOST => Some(EventType::MemcpyD2H),
        HIP_MEMCPY_DEVICE_TO_DEVICE | HIP_MEMCPY_DEVICE_TO_DEVICE_NO_CU => {
            Some(EventType::MemcpyD2D)
        }
        _ => None,
    }
}

/// Whether the operation's arguments start `(dst, src, sizeBytes, kind, ...)`.
fn has_kind_argument(operation: i32) -> bool {
    matches!(
        operation,
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy
            | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync
            | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyWithStream
    )
}

/// The direction the function's name gives; its arguments start `(dst, src, sizeBytes)`.
fn direction_of_function(operation: i32) -> Option<EventType> {
    match operation {
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoD
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync => Some(EventType::MemcpyH2D),
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoH
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoHAsync => Some(EventType::MemcpyD2H),
        sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoD
        | sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyDtoDAsync => Some(EventType::MemcpyD2D),
        _ => None,
    }
}

/// What a HIP API ENTER of `operation` asked for, if it is a copy whose direction is known.
/// `args` is the callback payload when the SDK passed one at least as large as the
/// `(dst, src, sizeBytes, kind)` prefix of the argument union.
pub fn copy_call(
    operation: i32,
    args: Option<&sys::rocprofiler_callback_tracing_hip_api_data_t>,
) -> Option<CopyCall> {
    // hipMemcpy's member has the layout every function here starts with.
    // SAFETY: the argument union holds plain integers and pointers; any bit pattern is valid.
    let prefix = args.map(|data| unsafe { data.args.hipMemcpy });
    let bytes = prefix.map_or(0, |args| args.sizeBytes as u64);
    if let Some(direction) = direction_of_function(operation) {
        return Some(CopyCall { direction, bytes });
    }
    if has_kind_argument(operation) {
        let direction = direction_of_kind(prefix?.kind)?;
        return Some(CopyCall { direction, bytes });
    }
    None
}

/// Reads the HIP API callback payload if it covers the copy arguments.
///
/// # Safety
/// `payload` is null or points to the SDK's HIP API callback payload, whose first field is its
/// size in bytes, valid for the duration of the callback.
pub unsafe fn hip_api_args(
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

/// Copy calls of the running session by correlation id. Bounded: past the bound new calls are
/// not noted, and their records keep the record's own direction.
pub struct CopyCalls {
    calls: Mutex<FxHashMap<u64, CopyCall>>,
}

/// Copy calls noted per session at most; a noted call costs about 40 bytes.
const MAX_NOTED_CALLS: usize = 1 << 20;

impl Default for CopyCalls {
    fn default() -> Self {
        CopyCalls {
            calls: Mutex::new(FxHashMap::default()),
        }
    }
}

impl CopyCalls {
    pub fn note(&self, correlation_id: u64, call: CopyCall) {
        let mut calls = self.calls.lock();
        if calls.len() < MAX_NOTED_CALLS {
            calls.insert(correlation_id, call);
        }
    }

    pub fn get(&self, correlation_id: u64) -> Option<CopyCall> {
        self.calls.lock().get(&correlation_id).copied()
    }

    pub fn clear(&self) {
        self.calls.lock().clear();
    }

    pub fn len(&self) -> usize {
        self.calls.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The HIP API record of a copy has no arguments, so its size comes from the call noted at
/// ENTER. A copy with a device record takes the record's size in the collector's join anyway;
/// this matters for a same-GPU device-to-device copy, which HIP runs as a blit kernel: the
/// kernel takes the size from here (docs/xla-interface.md#copy-apis).
fn give_api_event_the_call_size(calls: &CopyCalls, event: &mut RocmTracerEvent) {
    if let EventDetails::Memcpy(details) = &mut event.details {
        if details.num_bytes == 0 {
            if let Some(call) = calls.get(event.correlation_id) {
                details.num_bytes = call.bytes;
            }
        }
    }
}

/// Pieces of chunked copies waiting for the rest of their call, per session.
#[derive(Default)]
pub struct CopyPieces {
    partial: HashMap<u64, RocmTracerEvent>,
}

fn copy_bytes(event: &RocmTracerEvent) -> u64 {
    match event.details {
        EventDetails::Memcpy(details) => details.num_bytes,
        _ => 0,
    }
}

impl CopyPieces {
    /// Names the copy activities of `batch` by their call's direction and joins the pieces of
    /// one call: a piece smaller than its call waits here until the pieces add up to the call's
    /// size, then one event spanning them all takes the place of the last. Each renamed copy
    /// adds `(correlation id, the record's own type)` to `recorded_as`.
    pub fn apply(
        &mut self,
        calls: &CopyCalls,
        batch: &mut Vec<RocmTracerEvent>,
        recorded_as: &mut Vec<(u64, EventType)>,
    ) {
        batch.retain_mut(|event| {
            if event.source == EventSource::ApiCallback && event.event_type.is_memcpy() {
                give_api_event_the_call_size(calls, event);
                return true;
            }
            if event.source != EventSource::Activity || !event.event_type.is_memcpy() {
                return true;
            }
            let Some(call) = calls.get(event.correlation_id) else {
                return true;
            };
            if event.event_type != call.direction {
                recorded_as.push((event.correlation_id, event.event_type));
                event.event_type = call.direction;
                event.name = call.direction.shared_name();
            }
            let bytes = copy_bytes(event);
            if call.bytes == 0 || bytes >= call.bytes {
                return true;
            }
            let merged = match self.partial.remove(&event.correlation_id) {
                None => event.clone(),
                Some(mut merged) => {
                    merged.start_time_ns = merged.start_time_ns.min(event.start_time_ns);
                    merged.end_time_ns = merged.end_time_ns.max(event.end_time_ns);
                    if let EventDetails::Memcpy(details) = &mut merged.details {
                        details.num_bytes = details.num_bytes.saturating_add(bytes);
                    }
                    merged
                }
            };
            if copy_bytes(&merged) >= call.bytes {
                *event = merged;
                true
            } else {
                self.partial.insert(event.correlation_id, merged);
                false
            }
        });
    }

    /// The pieces whose call never added up (the session ended first), in correlation order.
    pub fn take_partial(&mut self) -> Vec<RocmTracerEvent> {
        let mut partial: Vec<RocmTracerEvent> =
            std::mem::take(&mut self.partial).into_values().collect();
        partial.sort_by_key(|event| event.correlation_id);
        partial
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::MemcpyDetails;

    fn piece(
        correlation_id: u64,
        event_type: EventType,
        bytes: u64,
        start: u64,
    ) -> RocmTracerEvent {
        RocmTracerEvent {
            event_type,
            source: EventSource::Activity,
            name: event_type.shared_name(),
            correlation_id,
            start_time_ns: start,
            end_time_ns: start + 10,
            details: EventDetails::Memcpy(MemcpyDetails {
                num_bytes: bytes,
                destination: 1,
                is_async: false,
            }),
            ..RocmTracerEvent::default()
        }
    }

    #[test]
    fn directions_come_from_the_function_or_its_kind() {
        // SAFETY: plain data, zero is valid.
        let mut data: sys::rocprofiler_callback_tracing_hip_api_data_t =
            unsafe { std::mem::zeroed() };
        data.args.hipMemcpyAsync = sys::rocprofiler_hip_api_args_hipMemcpyAsync_t {
            dst: std::ptr::null_mut(),
            src: std::ptr::null(),
            sizeBytes: 4096,
            kind: HIP_MEMCPY_DEVICE_TO_HOST,
            stream: std::ptr::null_mut(),
        };
        let async_copy = sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync;
        assert_eq!(
            copy_call(async_copy, Some(&data)),
            Some(CopyCall {
                direction: EventType::MemcpyD2H,
                bytes: 4096
            })
        );
        assert_eq!(copy_call(async_copy, None), None);
        data.args.hipMemcpyAsync.kind = 4; // hipMemcpyDefault
        assert_eq!(copy_call(async_copy, Some(&data)), None);
        assert_eq!(
            copy_call(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoDAsync, None),
            Some(CopyCall {
                direction: EventType::MemcpyH2D,
                bytes: 0
            })
        );
        assert_eq!(
            copy_call(
                sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel,
                Some(&data)
            ),
            None
        );
        assert_eq!(direction_of_kind(0), Some(EventType::MemcpyOther));
        assert_eq!(direction_of_kind(1024), Some(EventType::MemcpyD2D));
    }

    #[test]
    fn payloads_too_small_for_the_arguments_are_not_read() {
        let small: [u64; 2] = [16, 0];
        // SAFETY: a payload of 16 readable bytes that says so.
        assert!(unsafe { hip_api_args(small.as_ptr().cast()) }.is_none());
        // SAFETY: null is allowed.
        assert!(unsafe { hip_api_args(std::ptr::null()) }.is_none());
    }

    #[test]
    fn records_take_the_call_direction_and_pieces_join_into_one_event() {
        let calls = CopyCalls::default();
        calls.note(
            1,
            CopyCall {
                direction: EventType::MemcpyH2D,
                bytes: 4096,
            },
        );
        calls.note(
            2,
            CopyCall {
                direction: EventType::MemcpyH2D,
                bytes: 3 << 20,
            },
        );
        let mut pieces = CopyPieces::default();
        let mut recorded = Vec::new();
        let mut first = vec![
            piece(1, EventType::MemcpyD2D, 4096, 100),
            piece(2, EventType::MemcpyH2D, 1 << 20, 200),
            piece(2, EventType::MemcpyH2D, 1 << 20, 300),
            piece(9, EventType::MemcpyD2H, 64, 50),
        ];
        pieces.apply(&calls, &mut first, &mut recorded);
        assert_eq!(recorded, [(1, EventType::MemcpyD2D)]);
        let kept: Vec<(u64, EventType)> = first
            .iter()
            .map(|e| (e.correlation_id, e.event_type))
            .collect();
        assert_eq!(kept, [(1, EventType::MemcpyH2D), (9, EventType::MemcpyD2H)]);
        assert_eq!(&*first[0].name, "MemcpyH2D");

        // The last piece arrives in a later buffer.
        let mut second = vec![piece(2, EventType::MemcpyH2D, 1 << 20, 400)];
        pieces.apply(&calls, &mut second, &mut recorded);
        assert_eq!(second.len(), 1);
        assert_eq!(copy_bytes(&second[0]), 3 << 20);
        assert_eq!((second[0].start_time_ns, second[0].end_time_ns), (200, 410));
        assert!(pieces.take_partial().is_empty());

        let mut lone = vec![piece(2, EventType::MemcpyH2D, 1 << 20, 500)];
        pieces.apply(&calls, &mut lone, &mut recorded);
        assert!(lone.is_empty());
        let partial = pieces.take_partial();
        assert_eq!(partial.len(), 1);
        assert_eq!(copy_bytes(&partial[0]), 1 << 20);
    }
}
