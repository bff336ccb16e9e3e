//! Emitting callbacks and records in the SDK's order (docs/sdk-facts.md#firing-order, docs/simulator-fidelity.md#per-call-order, #stream-ids, #external-correlation, #asynchronous-completion, #record-contents).
//!
//! [`ApiCall`] brackets one HIP call on the calling thread: HIP_STREAM SET ENTER, external
//! correlation request for HIP_RUNTIME_API (if configured), HIP_RUNTIME_API ENTER ... EXIT,
//! the HIP API buffer record (it carries the end timestamp), then SET EXIT: the SDK's stream
//! wrapper is the outer one (`hip/stream.cpp` `create_read_functor` around `hip/hip.cpp`
//! `hip_api_impl::functor`). Between enter and
//! exit, the call body submits device work with [`enqueue_kernel`] / [`enqueue_copy`]: request,
//! enqueue callbacks, timing, and a completion on the signal thread that fires COMPLETE / EXIT
//! callbacks and pushes the kernel and copy records.
use crate::engine::agents::agents;
use crate::engine::external_correlation as ext;
use crate::engine::registry::{self, CallbackService, Selector, Targets};
use crate::hip::streams::StreamInfo;
use crate::time::clock::{gettid, now_ns};
use crate::time::device::Engine;
use rocprofiler_sdk_sys as sys;
use smallvec::SmallVec;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_CORRELATION_ID: AtomicU64 = AtomicU64::new(1);
static NEXT_DISPATCH_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) fn next_correlation_id() -> u64 {
    NEXT_CORRELATION_ID.fetch_add(1, Ordering::Relaxed)
}

fn correlation(internal: u64, external: u64) -> sys::rocprofiler_correlation_id_t {
    sys::rocprofiler_correlation_id_t {
        internal,
        external: sys::rocprofiler_user_data_t { value: external },
        ancestor: sys::ROCPROFILER_CORRELATION_ID_ANCESTOR_NONE,
    }
}

fn async_correlation(internal: u64, external: u64) -> sys::rocprofiler_async_correlation_id_t {
    sys::rocprofiler_async_correlation_id_t {
        internal,
        external: sys::rocprofiler_user_data_t { value: external },
    }
}

/// One callback invocation. `payload` must stay valid for the duration of the call.
#[allow(clippy::too_many_arguments)]
pub(crate) fn invoke(
    service: &CallbackService,
    context: u64,
    tid: u64,
    correlation_id: sys::rocprofiler_correlation_id_t,
    kind: u32,
    operation: i32,
    phase: u32,
    payload: *mut c_void,
    user_data: &mut u64,
) {
    let record = sys::rocprofiler_callback_tracing_record_t {
        context_id: sys::rocprofiler_context_id_t { handle: context },
        thread_id: tid,
        correlation_id,
        kind,
        operation,
        phase,
        payload,
    };
    // `rocprofiler_user_data_t` is an 8-byte, 8-aligned union of u64 and a pointer, so a u64
    // slot is a valid place for it; keeping u64 lets the slot travel to the signal thread.
    let user_data = (user_data as *mut u64).cast::<sys::rocprofiler_user_data_t>();
    // SAFETY: the tool's callback, with a record by value, a valid user-data slot and a payload
    // that outlives the call (the caller's contract). No sim lock is held.
    unsafe { (service.callback)(record, user_data, service.data.0) };
}

/// `rocprofiler_callback_tracing_hip_api_data_t`: the size, the call's arguments (the union
/// member named after the function, see `hip_args`) and, at EXIT, the return value.
type HipApiData = sys::rocprofiler_callback_tracing_hip_api_data_t;

struct Participant {
    target: registry::Target,
    external: u64,
    user_data: u64,
}

impl Participant {
    /// Calls this participant's callback for `operation` at `phase`, if it has one that
    /// traces `operation`. `payload` must stay valid for the duration of the call.
    fn notify(
        &mut self,
        tid: u64,
        internal_correlation_id: u64,
        kind: u32,
        operation: i32,
        phase: u32,
        payload: *mut c_void,
    ) {
        if let Some(service) = self
            .target
            .callback
            .as_ref()
            .filter(|s| s.ops.allows(operation))
        {
            invoke(
                service,
                self.target.context,
                tid,
                correlation(internal_correlation_id, self.external),
                kind,
                operation,
                phase,
                payload,
                &mut self.user_data,
            );
        }
    }
}

/// Moves an SDK payload struct to the signal thread. Such structs are `!Send` only because of
/// `rocprofiler_address_t`'s pointer member; the sim stores fake addresses there and never
/// dereferences them.
struct Plain<T>(T);
// SAFETY: see above; T is only ever an SDK plain-data payload.
unsafe impl<T> Send for Plain<T> {}

impl<T> Plain<T> {
    /// A method call, so closures capture the whole wrapper, not its `!Send` field.
    fn into_inner(self) -> T {
        self.0
    }
}

type Participants = SmallVec<[Participant; 4]>;

/// One HIP runtime call in progress on this thread.
pub(crate) struct ApiCall {
    pub op: i32,
    pub correlation_id: u64,
    tid: u64,
    set: Option<SetWindow>,
    api: Participants,
    api_payload: Box<HipApiData>,
    start_ns: u64,
}

fn stream_payload(id: u64, value: u64) -> Box<sys::rocprofiler_callback_tracing_hip_stream_data_t> {
    Box::new(sys::rocprofiler_callback_tracing_hip_stream_data_t {
        size: std::mem::size_of::<sys::rocprofiler_callback_tracing_hip_stream_data_t>() as u64,
        stream_id: sys::rocprofiler_stream_id_t { handle: id },
        stream_value: sys::rocprofiler_address_t { value },
    })
}

/// Contexts with a HIP_STREAM callback for `op`; a target's `request` is set when its context
/// requests HIP_RUNTIME_API external correlation ids (which decides SET EXIT's `external`).
fn hip_stream_targets(op: i32) -> Targets {
    registry::targets(
        Selector {
            callback_kind: Some(sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM),
            buffer_kind: None,
            request_kind: Some(sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API),
        },
        &[op],
        op,
    )
}

/// Whether an active context has a HIP_STREAM callback for `op` (the SDK's stream wrappers
/// only touch the stream map then).
pub(crate) fn hip_stream_traced(op: i32) -> bool {
    hip_stream_targets(op)
        .iter()
        .any(|target| target.callback.is_some())
}

/// A HIP_STREAM CREATE or DESTROY notification: one callback, phase NONE, after the call,
/// correlation internal 0 (docs/sdk-facts.md#stream-operations, docs/simulator-fidelity.md#per-call-order).
pub(crate) fn stream_lifecycle(op: i32, id: u64, value: u64) {
    let tid = gettid();
    let mut payload = stream_payload(id, value);
    for target in hip_stream_targets(op) {
        if let Some(service) = &target.callback {
            let mut user_data = 0u64;
            invoke(
                service,
                target.context,
                tid,
                correlation(0, ext::top(target.context, tid)),
                sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                op,
                sys::ROCPROFILER_CALLBACK_PHASE_NONE,
                (&mut *payload as *mut sys::rocprofiler_callback_tracing_hip_stream_data_t).cast(),
                &mut user_data,
            );
        }
    }
}

/// One HIP_STREAM SET window on the calling thread: the ENTER callbacks fired and the
/// contexts they went to, which get the EXIT callbacks. The SDK's stream wrapper
/// (`hip/stream.cpp` `create_read_functor`) collects the active contexts once, before ENTER,
/// and sends EXIT to exactly those, whatever started or stopped in between; windows nest
/// like the wrapper's stack frames on one thread.
pub(crate) struct SetWindow {
    tid: u64,
    payload: Box<sys::rocprofiler_callback_tracing_hip_stream_data_t>,
    participants: Participants,
}

impl SetWindow {
    /// SET ENTER for `s` on the calling thread. Under the SDK 1.0.0 map, a stream the map
    /// lacks aborts the process while a HIP_STREAM callback context is active.
    pub(crate) fn enter(s: &StreamInfo, tid: u64) -> SetWindow {
        let targets = hip_stream_targets(sys::ROCPROFILER_HIP_STREAM_SET);
        // The SDK looks the stream up only when a HIP_STREAM callback context is active.
        if !targets.is_empty() && !s.mapped {
            crate::hip::streams::abort_unmapped(s.value, "SET");
        }
        let mut payload = stream_payload(s.id, s.value);
        let mut participants = Participants::new();
        for target in targets {
            // SET ENTER carries the SDK's `empty_user_data`: external 0.
            participants.push(Participant {
                external: 0,
                target,
                user_data: 0,
            });
        }
        for p in &mut participants {
            if let Some(service) = &p.target.callback {
                invoke(
                    service,
                    p.target.context,
                    tid,
                    correlation(0, p.external),
                    sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                    sys::ROCPROFILER_HIP_STREAM_SET,
                    sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
                    (&mut *payload as *mut sys::rocprofiler_callback_tracing_hip_stream_data_t)
                        .cast(),
                    &mut p.user_data,
                );
            }
        }
        SetWindow {
            tid,
            payload,
            participants,
        }
    }

    /// SET EXIT to the contexts that got this window's ENTER.
    pub(crate) fn exit(mut self) {
        let tid = self.tid;
        let payload: *mut c_void =
            (&mut *self.payload as *mut sys::rocprofiler_callback_tracing_hip_stream_data_t).cast();
        for p in &mut self.participants {
            // SET EXIT carries the updated value (`tracing.hpp`
            // `update_external_correlation_ids`): the thread's pushed value, or 0 for a
            // context that requests HIP_RUNTIME_API ids.
            p.external = if p.target.request.is_some() {
                0
            } else {
                ext::top(p.target.context, tid)
            };
            if let Some(service) = &p.target.callback {
                invoke(
                    service,
                    p.target.context,
                    tid,
                    correlation(0, p.external),
                    sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                    sys::ROCPROFILER_HIP_STREAM_SET,
                    sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
                    payload,
                    &mut p.user_data,
                );
            }
        }
    }
}

impl ApiCall {
    /// SET ENTER (only for calls with a stream argument), then HIP_RUNTIME_API ENTER, for a
    /// call whose arguments are not modelled (the payload's arguments read as zero).
    pub(crate) fn enter(op: i32, stream: Option<&StreamInfo>) -> ApiCall {
        let mut args = crate::hip::hip_args::zeroed();
        // A function whose one argument is its stream still shows that stream.
        if let (sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize, Some(info)) = (op, stream)
        {
            args.hipStreamSynchronize = sys::rocprofiler_hip_api_args_stream_t {
                stream: crate::hip::hip_args::stream_ptr(info.value),
            };
        }
        ApiCall::enter_with_args(op, stream, args)
    }

    /// [`ApiCall::enter`] with the call's arguments in the HIP API payload, as the SDK's
    /// wrapper stores them before ENTER.
    pub(crate) fn enter_with_args(
        op: i32,
        stream: Option<&StreamInfo>,
        args: sys::rocprofiler_hip_api_args_t,
    ) -> ApiCall {
        let tid = gettid();
        let correlation_id = next_correlation_id();
        let set = stream.map(|s| SetWindow::enter(s, tid));

        let mut api_payload = Box::new(HipApiData {
            size: std::mem::size_of::<HipApiData>() as u64,
            args,
            retval: sys::rocprofiler_hip_api_retval_t { uint64_t_retval: 0 },
        });
        let targets = registry::targets(
            Selector {
                callback_kind: Some(sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API),
                buffer_kind: Some(sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API),
                request_kind: Some(sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API),
            },
            &[op],
            op,
        );
        let mut api = Participants::new();
        for target in targets {
            let external = ext::resolve(
                &target,
                sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API,
                op,
                correlation_id,
                tid,
            );
            api.push(Participant {
                target,
                external,
                user_data: 0,
            });
        }
        for p in &mut api {
            p.notify(
                tid,
                correlation_id,
                sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                op,
                sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
                (&mut *api_payload as *mut HipApiData).cast(),
            );
            // Kinds without a request read the stack again after ENTER, so a push made in
            // ENTER reaches EXIT and the buffer record (docs/sdk-facts.md#which-value-a-record-carries).
            if p.target.request.is_none() {
                p.external = ext::top(p.target.context, tid);
            }
        }
        ApiCall {
            op,
            correlation_id,
            tid,
            set,
            api,
            api_payload,
            start_ns: now_ns(),
        }
    }

    /// HIP_RUNTIME_API EXIT, the HIP API buffer records, then SET EXIT.
    pub(crate) fn exit(mut self) {
        crate::engine::signal::api_call_elapsed();
        let end_ns = now_ns();
        let (op, tid, correlation_id) = (self.op, self.tid, self.correlation_id);
        // The call returned hipSuccess (failures are reported before the call is traced).
        self.api_payload.retval = sys::rocprofiler_hip_api_retval_t { uint64_t_retval: 0 };
        let payload: *mut c_void = (&mut *self.api_payload as *mut HipApiData).cast();
        for p in &mut self.api {
            p.notify(
                tid,
                correlation_id,
                sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                op,
                sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
                payload,
            );
        }
        self.push_api_records(end_ns);
        if let Some(window) = self.set.take() {
            window.exit();
        }
    }

    /// The HIP API buffer records of this call.
    fn push_api_records(&self, end_ns: u64) {
        let (op, tid, correlation_id) = (self.op, self.tid, self.correlation_id);
        for p in &self.api {
            if let Some(buffer) = p.target.buffer {
                let record = sys::rocprofiler_buffer_tracing_hip_api_record_t {
                    size: std::mem::size_of::<sys::rocprofiler_buffer_tracing_hip_api_record_t>()
                        as u64,
                    kind: sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
                    operation: op,
                    correlation_id: correlation(correlation_id, p.external),
                    start_timestamp: self.start_ns,
                    end_timestamp: end_ns,
                    thread_id: tid,
                };
                crate::engine::buffer::push(
                    buffer,
                    sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
                    &record,
                );
            }
        }
    }
}

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
    let mut participants = Participants::new();
    for target in targets {
        // The SDK's queue write interceptor requests once per dispatch packet with operation
        // ROCPROFILER_KERNEL_DISPATCH_ENQUEUE (rocprofiler-sdk `source/lib/rocprofiler-sdk/
        // hsa/queue.cpp`, `WriteInterceptor`: `populate_external_correlation_ids(...,
        // REQUEST_KERNEL_DISPATCH, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, internal)`).
        let external = ext::resolve(
            &target,
            sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
            sys::ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
            work.correlation_id,
            tid,
        );
        participants.push(Participant {
            target,
            external,
            user_data: 0,
        });
    }
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
            let mut payload = sys::rocprofiler_callback_tracing_kernel_dispatch_data_t {
                start_timestamp: start,
                end_timestamp: end,
                ..*payload
            };
            for p in &mut participants {
                // COMPLETE gets a copy of the ENTER user data (docs/sdk-facts.md#callback-tracing).
                p.notify(
                    tid,
                    work.correlation_id,
                    sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                    sys::ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
                    sys::ROCPROFILER_CALLBACK_PHASE_NONE,
                    (&mut payload as *mut sys::rocprofiler_callback_tracing_kernel_dispatch_data_t)
                        .cast(),
                );
                if let Some(buffer) = p.target.buffer {
                    let record = sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t {
                        size: std::mem::size_of::<
                            sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t,
                        >() as u64,
                        kind: sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                        operation: sys::ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
                        correlation_id: async_correlation(work.correlation_id, p.external),
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
        },
    );
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
    let mut participants = Participants::new();
    for target in targets {
        // The operation is the copy direction (`rocprofiler_memory_copy_operation_t`), as in
        // rocprofiler-sdk `source/lib/rocprofiler-sdk/hsa/async_copy.cpp`
        // (`populate_external_correlation_ids(..., REQUEST_MEMORY_COPY, _direction, ...)`).
        let external = ext::resolve(
            &target,
            sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
            work.direction,
            work.correlation_id,
            tid,
        );
        participants.push(Participant {
            target,
            external,
            user_data: 0,
        });
    }
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
        let mut payload = payload.into_inner();
        payload.start_timestamp = start;
        payload.end_timestamp = end;
        for p in &mut participants {
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
                    size: std::mem::size_of::<sys::rocprofiler_buffer_tracing_memory_copy_record_t>(
                    ) as u64,
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
    });
}
