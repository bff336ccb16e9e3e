//! HIP_EVENT buffer records (SDK 1.4, ROCm 10.1; ledger row "Tracing kinds"): one per barrier
//! packet a `hipEventRecord*` or `hipStreamWaitEvent*` enqueued, written when the barrier
//! completes with its GPU-side start and end (`hip/event.cpp` @ rocm-systems db83d540,
//! `barrier_complete`). The record carries the HIP call's internal correlation id and the
//! external id on top of the calling thread's stack for the context, as kinds without a
//! request do. Only a context with a HIP_EVENT buffer service sees a barrier: without one,
//! nothing is scheduled and the timing of every other record is unchanged.
use super::{async_correlation, Plain};
use crate::engine::agents::agents;
use crate::engine::external_correlation as ext;
use crate::engine::registry::{self, Selector};
use crate::hip::streams::StreamInfo;
use crate::time::clock::gettid;
use rocprofiler_sdk_sys as sys;

/// One barrier packet: its operation, the call it came from, its queue and GPU time.
pub(crate) struct Barrier<'a> {
    pub operation: sys::rocprofiler_hip_event_operation_t,
    pub correlation_id: u64,
    pub event: u64,
    /// The stream whose queue holds the barrier.
    pub stream: &'a StreamInfo,
    /// For a WAIT, the queue of the stream the event was recorded on.
    pub source_queue: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// Whether a context traces HIP_EVENT `operation` into a buffer (the release has the kind and
/// a tool configured it).
pub(crate) fn traced(operation: sys::rocprofiler_hip_event_operation_t) -> bool {
    !targets(operation).is_empty()
}

fn targets(operation: sys::rocprofiler_hip_event_operation_t) -> registry::Targets {
    registry::targets(
        Selector {
            callback_kind: None,
            buffer_kind: Some(sys::ROCPROFILER_BUFFER_TRACING_HIP_EVENT),
            request_kind: None,
        },
        &[],
        operation as i32,
    )
}

/// Schedules the barrier's record for each context that traces it: pushed on the signal
/// thread when the barrier completes, counted as the stream's outstanding work until then (a
/// synchronize returns after it). Called on the calling thread, inside the HIP call.
pub(crate) fn barrier(barrier: Barrier<'_>) {
    let tid = gettid();
    let records: Vec<(u64, sys::rocprofiler_buffer_tracing_hip_event_record_t)> =
        targets(barrier.operation)
            .into_iter()
            .filter_map(|target| {
                let buffer = target.buffer?;
                let external = ext::top(target.context, tid);
                let record = sys::rocprofiler_buffer_tracing_hip_event_record_t {
                    size: std::mem::size_of::<sys::rocprofiler_buffer_tracing_hip_event_record_t>()
                        as u64,
                    kind: sys::ROCPROFILER_BUFFER_TRACING_HIP_EVENT,
                    operation: barrier.operation,
                    correlation_id: async_correlation(barrier.correlation_id, external),
                    thread_id: tid,
                    start_timestamp: barrier.start_ns,
                    end_timestamp: barrier.end_ns,
                    agent_id: agents().gpu(barrier.stream.device),
                    queue_id: sys::rocprofiler_queue_id_t {
                        handle: barrier.stream.queue,
                    },
                    hip_event_handle: barrier.event,
                    source_queue_id: sys::rocprofiler_queue_id_t {
                        handle: barrier.source_queue,
                    },
                };
                Some((buffer, record))
            })
            .collect();
    if records.is_empty() {
        return;
    }
    let (device, key) = (barrier.stream.device, barrier.stream.key());
    crate::engine::signal::begin(device, key);
    // The records hold a user-data union with a pointer member: plain data all the same.
    let records = Plain(records);
    crate::engine::signal::complete_at(barrier.end_ns, device, key, move || {
        for (buffer, record) in &records.into_inner() {
            crate::engine::buffer::push(*buffer, sys::ROCPROFILER_BUFFER_TRACING_HIP_EVENT, record);
        }
    });
}
