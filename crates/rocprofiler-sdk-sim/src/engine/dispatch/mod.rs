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
use crate::engine::external_correlation as ext;
use crate::engine::registry::{self, CallbackService, Selector, Targets};
use crate::hip::streams::StreamInfo;
use crate::time::clock::{gettid, now_ns};
use rocprofiler_sdk_sys as sys;
use smallvec::SmallVec;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

mod device_work;
mod graph;

pub(crate) use device_work::{enqueue_copy, enqueue_kernel, CopyWork, KernelWork};
pub(crate) use graph::GraphLaunch;

static NEXT_CORRELATION_ID: AtomicU64 = AtomicU64::new(1);

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
    /// SET ENTER for `s` on the calling thread. A stream the SDK's map lacks aborts the
    /// process (SDK 1.0.0) or is added to the map (1.1.0 to 1.3.0) while a HIP_STREAM
    /// callback context is active.
    pub(crate) fn enter(s: &StreamInfo, tid: u64) -> SetWindow {
        let targets = hip_stream_targets(sys::ROCPROFILER_HIP_STREAM_SET);
        // The SDK looks the stream up only when a HIP_STREAM callback context is active.
        let id = if !targets.is_empty() && !s.mapped {
            crate::hip::streams::unmapped_id(s.value, "SET")
        } else {
            s.id
        };
        let mut payload = stream_payload(id, s.value);
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

// HIP_EVENT barrier records (10.1).
pub(crate) mod hip_event;
