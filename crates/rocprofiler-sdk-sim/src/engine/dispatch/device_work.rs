//! Device work at submission and completion (docs/sdk-facts.md#firing-order,
//! docs/simulator-fidelity.md#asynchronous-completion, #record-contents): a kernel packet
//! through the SDK's queue interceptor, an SDMA copy through its async-copy wrapper. Each
//! fires its request and ENQUEUE / ENTER callbacks on the submitting thread, is scheduled on
//! its queue or copy engine, and completes on the signal thread, which fires COMPLETE / EXIT
//! and pushes the record.
use super::{async_correlation, next_correlation_id, Participant, Participants, Plain};
use crate::engine::agents::agents;
use crate::engine::external_correlation as ext;
use crate::engine::registry::{self, Selector, Targets};
use crate::hip::streams::StreamInfo;
use crate::time::clock::{gettid, now_ns};
use crate::time::device::Engine;
use rocprofiler_sdk_sys as sys;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_DISPATCH_ID: AtomicU64 = AtomicU64::new(1);

/// The correlation id a packet or copy gets on the thread that submits it. The SDK's queue
/// write interceptor and async-copy wrapper take the top of the submitting thread's
/// correlation stack and, when that stack is empty, construct a fresh id on that thread
/// (rocprofiler-sdk `hsa/queue.cpp` `WriteInterceptor`, `hsa/async_copy.cpp`
/// `async_copy_impl`, `context/correlation_id.cpp`). On the calling thread the stack holds the
/// HIP call's id (`Some`); HIP's worker thread under indirect dispatch has none (`0` here).
fn submitting_thread_correlation_id(api_correlation_id: u64) -> u64 {
    if api_correlation_id == 0 {
        next_correlation_id()
    } else {
        api_correlation_id
    }
}

/// A kernel dispatch packet to submit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KernelWork {
    pub correlation_id: u64,
    pub kernel_id: u64,
    pub stream: StreamInfo,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub duration_ns: u64,
}

fn dim3(v: [u32; 3]) -> sys::rocprofiler_dim3_t {
    sys::rocprofiler_dim3_t {
        x: v[0],
        y: v[1],
        z: v[2],
    }
}

/// The queue interceptor: request, ENQUEUE ENTER/EXIT, packet write; completion later on the
/// signal thread. Runs on the submitting thread (the API thread under direct dispatch).
/// The caller has registered the work with `signal::begin`.
pub(crate) fn enqueue_kernel(mut work: KernelWork) {
    // A full queue makes the launch wait, before its packet is written (and intercepted).
    while let Some(room_at) = crate::time::device::queue_full_until(work.stream.queue, now_ns()) {
        crate::engine::signal::wait_until_time(room_at);
    }
    let tid = gettid();
    work.correlation_id = submitting_thread_correlation_id(work.correlation_id);
    let targets = registry::targets(
        Selector {
            callback_kind: Some(sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH),
            buffer_kind: Some(sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH),
            request_kind: Some(sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH),
        },
        &[
            sys::ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
            sys::ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
        ],
        sys::ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
    );
    let info = sys::rocprofiler_kernel_dispatch_info_t {
        size: sys::ROCPROFILER_KERNEL_DISPATCH_INFO_SIZE,
        agent_id: agents().gpu(work.stream.device),
        queue_id: sys::rocprofiler_queue_id_t {
            handle: work.stream.queue,
        },
        kernel_id: work.kernel_id,
        dispatch_id: NEXT_DISPATCH_ID.fetch_add(1, Ordering::Relaxed),
        private_segment_size: work.private_segment_size,
        group_segment_size: work.group_segment_size,
        workgroup_size: dim3(work.block),
        grid_size: dim3(work.grid),
        reserved_padding: [0; 56],
    };
    // The SDK's queue write interceptor requests once per dispatch packet with operation
    // ROCPROFILER_KERNEL_DISPATCH_ENQUEUE (rocprofiler-sdk `source/lib/rocprofiler-sdk/
    // hsa/queue.cpp`, `WriteInterceptor`: `populate_external_correlation_ids(...,
    // REQUEST_KERNEL_DISPATCH, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, internal)`).
    let mut participants = participants(
        targets,
        sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
        sys::ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
        work.correlation_id,
        tid,
    );
    let mut payload = Box::new(sys::rocprofiler_callback_tracing_kernel_dispatch_data_t {
        size: std::mem::size_of::<sys::rocprofiler_callback_tracing_kernel_dispatch_data_t>()
            as u64,
        start_timestamp: 0,
        end_timestamp: 0,
        dispatch_info: info,
    });
    let enqueue_phase =
        |participants: &mut Participants,
         phase: u32,
         payload: &mut sys::rocprofiler_callback_tracing_kernel_dispatch_data_t| {
            for p in participants.iter_mut() {
                p.notify(
                    tid,
                    work.correlation_id,
                    sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                    sys::ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                    phase,
                    (payload as *mut sys::rocprofiler_callback_tracing_kernel_dispatch_data_t)
                        .cast(),
                );
            }
        };
    enqueue_phase(
        &mut participants,
        sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
        &mut payload,
    );
    // Contexts that do not request KERNEL_DISPATCH ids read the stack again after ENQUEUE
    // ENTER (`hsa/queue.cpp` `WriteInterceptor`), so a push made in ENTER reaches EXIT,
    // COMPLETE and the record.
    for p in participants.iter_mut() {
        if p.target.request.is_none() {
            p.external = ext::top(p.target.context, tid);
        }
    }
    let (start, end) = crate::time::device::schedule(
        Engine::Queue(work.stream.queue),
        work.stream.key(),
        now_ns(),
        work.duration_ns,
    );
    enqueue_phase(
        &mut participants,
        sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
        &mut payload,
    );

    crate::engine::signal::complete_kernel_at(
        end,
        work.stream.device,
        work.stream.key(),
        move || {
            kernel_completed(
                &mut participants,
                &payload,
                work.correlation_id,
                tid,
                (start, end),
            )
        },
    );
}

/// The completion of a kernel on the signal thread: COMPLETE to each participant, then its
/// record.
fn kernel_completed(
    participants: &mut Participants,
    payload: &sys::rocprofiler_callback_tracing_kernel_dispatch_data_t,
    correlation_id: u64,
    tid: u64,
    (start, end): (u64, u64),
) {
    let mut payload = sys::rocprofiler_callback_tracing_kernel_dispatch_data_t {
        start_timestamp: start,
        end_timestamp: end,
        ..*payload
    };
    for p in participants.iter_mut() {
        // COMPLETE gets a copy of the ENTER user data (docs/sdk-facts.md#callback-tracing).
        p.notify(
            tid,
            correlation_id,
            sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
            sys::ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
            sys::ROCPROFILER_CALLBACK_PHASE_NONE,
            (&mut payload as *mut sys::rocprofiler_callback_tracing_kernel_dispatch_data_t).cast(),
        );
        if let Some(buffer) = p.target.buffer {
            let record = sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t {
                size: std::mem::size_of::<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t>(
                ) as u64,
                kind: sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                operation: sys::ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
                correlation_id: async_correlation(correlation_id, p.external),
                thread_id: tid,
                start_timestamp: start,
                end_timestamp: end,
                dispatch_info: payload.dispatch_info,
            };
            crate::engine::buffer::push(
                buffer,
                sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                &record,
            );
        }
    }
}

/// An SDMA copy (`hsa_amd_memory_async_copy`) to submit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CopyWork {
    pub correlation_id: u64,
    pub direction: i32,
    pub bytes: u64,
    pub src_device: Option<u32>,
    pub dst_device: Option<u32>,
    /// The stream it is ordered on, and whose device's engine runs it.
    pub stream: StreamInfo,
    pub duration_ns: u64,
    /// Addresses passed to the copy (0: made up from the device and correlation id).
    pub dst_address: u64,
    pub src_address: u64,
}

fn copy_address(device: Option<u32>, correlation_id: u64) -> u64 {
    match device {
        Some(d) => 0x7fd0_0000_0000 + ((d as u64) << 36) + (correlation_id << 12),
        None => 0x7f40_0000_0000 + (correlation_id << 12),
    }
}

/// MEMORY_COPY: request, ENTER on the submitting thread; EXIT and the record on the signal
/// thread. The caller has registered the work with `signal::begin`.
pub(crate) fn enqueue_copy(mut work: CopyWork) {
    let tid = gettid();
    work.correlation_id = submitting_thread_correlation_id(work.correlation_id);
    let targets = registry::targets(
        Selector {
            callback_kind: Some(sys::ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY),
            buffer_kind: Some(sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY),
            request_kind: Some(sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY),
        },
        &[work.direction],
        work.direction,
    );
    let agent = |device: Option<u32>| match device {
        Some(d) => agents().gpu(d),
        None => agents().cpu(),
    };
    let mut payload = sys::rocprofiler_callback_tracing_memory_copy_data_t {
        size: std::mem::size_of::<sys::rocprofiler_callback_tracing_memory_copy_data_t>() as u64,
        start_timestamp: 0,
        end_timestamp: 0,
        dst_agent_id: agent(work.dst_device),
        src_agent_id: agent(work.src_device),
        bytes: work.bytes,
        dst_address: sys::rocprofiler_address_t {
            value: match work.dst_address {
                0 => copy_address(work.dst_device, work.correlation_id),
                a => a,
            },
        },
        src_address: sys::rocprofiler_address_t {
            value: match work.src_address {
                0 => copy_address(work.src_device, work.correlation_id),
                a => a,
            },
        },
    };
    // The operation is the copy direction (`rocprofiler_memory_copy_operation_t`), as in
    // rocprofiler-sdk `source/lib/rocprofiler-sdk/hsa/async_copy.cpp`
    // (`populate_external_correlation_ids(..., REQUEST_MEMORY_COPY, _direction, ...)`).
    let mut participants = participants(
        targets,
        sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
        work.direction,
        work.correlation_id,
        tid,
    );
    for p in &mut participants {
        p.notify(
            tid,
            work.correlation_id,
            sys::ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
            work.direction,
            sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
            (&mut payload as *mut sys::rocprofiler_callback_tracing_memory_copy_data_t).cast(),
        );
    }
    let (start, end) = crate::time::device::schedule(
        Engine::Sdma(work.stream.device, work.direction),
        work.stream.key(),
        now_ns(),
        work.duration_ns,
    );
    let payload = Plain(payload);
    crate::engine::signal::complete_at(end, work.stream.device, work.stream.key(), move || {
        copy_completed(
            &mut participants,
            payload.into_inner(),
            &work,
            tid,
            (start, end),
        )
    });
}

/// The completion of a copy on the signal thread: EXIT to each participant, then its record.
fn copy_completed(
    participants: &mut Participants,
    mut payload: sys::rocprofiler_callback_tracing_memory_copy_data_t,
    work: &CopyWork,
    tid: u64,
    (start, end): (u64, u64),
) {
    payload.start_timestamp = start;
    payload.end_timestamp = end;
    for p in participants.iter_mut() {
        p.notify(
            tid,
            work.correlation_id,
            sys::ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
            work.direction,
            sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
            (&mut payload as *mut sys::rocprofiler_callback_tracing_memory_copy_data_t).cast(),
        );
        if let Some(buffer) = p.target.buffer {
            let record = sys::rocprofiler_buffer_tracing_memory_copy_record_t {
                size: std::mem::size_of::<sys::rocprofiler_buffer_tracing_memory_copy_record_t>()
                    as u64,
                kind: sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
                operation: work.direction,
                correlation_id: async_correlation(work.correlation_id, p.external),
                thread_id: tid,
                start_timestamp: start,
                end_timestamp: end,
                dst_agent_id: payload.dst_agent_id,
                src_agent_id: payload.src_agent_id,
                bytes: payload.bytes,
                dst_address: payload.dst_address,
                src_address: payload.src_address,
            };
            crate::engine::buffer::push(
                buffer,
                sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
                &record,
            );
        }
    }
}

/// The contexts that trace a piece of work, each with its external correlation id from the
/// request made at submission (`kind`, `operation`).
fn participants(
    targets: Targets,
    kind: sys::rocprofiler_external_correlation_id_request_kind_t,
    operation: i32,
    correlation_id: u64,
    tid: u64,
) -> Participants {
    targets
        .into_iter()
        .map(|target| {
            let external = ext::resolve(&target, kind, operation, correlation_id, tid);
            Participant {
                target,
                external,
                user_data: 0,
            }
        })
        .collect()
}
