//! Payloads of callback-tracing records.

use rocprofiler_sdk_sys as sys;

/// (stream id, `hipStream_t` value) of a HIP_STREAM callback; `None` for other kinds.
///
/// # Safety
/// `record` is a callback record the SDK passed, read during the callback.
pub unsafe fn stream_payload(
    record: &sys::rocprofiler_callback_tracing_record_t,
) -> Option<(u64, u64)> {
    if record.kind != sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM || record.payload.is_null() {
        return None;
    }
    // SAFETY: caller contract: a HIP_STREAM record's payload is the SDK's hip_stream_data
    // struct, live for the callback.
    let data = unsafe {
        &*record
            .payload
            .cast::<sys::rocprofiler_callback_tracing_hip_stream_data_t>()
    };
    // SAFETY: every member of the address union is a plain 64-bit value.
    Some((data.stream_id.handle, unsafe { data.stream_value.value }))
}
