//! The recording tool: a rocprofiler-sdk client of its own (not the tracer) that writes down
//! everything the SDK does during the battery, raw, with a process-wide sequence number so that
//! arrivals can be ordered against the battery's own marks ("the synchronize returned").
//!
//! Two contexts, so that the probe never depends on whether one context may hold a callback and
//! a buffer service for the same kind: `callbacks` traces HIP API, HIP_STREAM, KERNEL_DISPATCH
//! and MEMORY_COPY callbacks; `buffered` traces the same kinds into one buffer and requests
//! external correlation ids, answering each request with the battery's current step.
//!
//! Callbacks only copy data into the recorder; names are looked up after the battery.

use crate::libs::Sdk;
use rocprofiler_sdk_sys::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// One callback from the `callbacks` context.
#[derive(Clone, Debug)]
pub struct Callback {
    pub seq: u64,
    pub step: usize,
    pub thread: String,
    pub internal: u64,
    pub kind: u32,
    pub op: i32,
    pub phase: u32,
    /// HIP_STREAM: (stream id, `hipStream_t` value).
    pub stream: Option<(u64, u64)>,
    /// The external correlation id the record carries.
    pub external: u64,
}

/// One external-correlation request of the `buffered` context.
#[derive(Clone, Debug)]
pub struct Request {
    pub seq: u64,
    pub step: usize,
    pub thread: String,
    pub kind: u32,
    pub op: i32,
    pub internal: u64,
}

/// One buffer record, as delivered.
#[derive(Clone, Debug)]
pub struct Record {
    pub seq: u64,
    pub thread: String,
    pub record: sdk_recorder::Record,
}

/// A point in the battery: `what` is e.g. "sync" (the step's synchronizing call returned) or
/// "flushed" (the flush that followed it returned).
#[derive(Clone, Debug)]
pub struct Mark {
    pub seq: u64,
    pub step: usize,
    pub what: &'static str,
}

#[derive(Default)]
pub struct Recording {
    pub callbacks: Vec<Callback>,
    pub requests: Vec<Request>,
    pub records: Vec<Record>,
    pub marks: Vec<Mark>,
    /// Every SDK call the tool and the battery made, with its status.
    pub statuses: Vec<(String, rocprofiler_status_t)>,
    /// The threads buffer deliveries ran on.
    pub buffer_threads: Vec<String>,
    /// `rocprofiler_configure`'s version argument and runtime version string.
    pub configure: Option<(u32, String)>,
    /// Agents: (handle, type, node id, logical node id, logical node type id, visibility, name).
    pub agents: Vec<(u64, u32, u32, i32, i32, u32, String)>,
}

static SDK: OnceLock<Sdk> = OnceLock::new();
static RECORDING: Mutex<Option<Recording>> = Mutex::new(None);
static SEQ: AtomicU64 = AtomicU64::new(1);
static STEP: AtomicUsize = AtomicUsize::new(0);
static CONTEXTS: Mutex<Option<(rocprofiler_context_id_t, rocprofiler_context_id_t)>> =
    Mutex::new(None);
/// A context created with the others and never started, for the status of stopping it.
static IDLE_CONTEXT: Mutex<Option<rocprofiler_context_id_t>> = Mutex::new(None);
static BUFFER: Mutex<Option<rocprofiler_buffer_id_t>> = Mutex::new(None);
static ROLE_COUNTS: Mutex<Option<HashMap<&'static str, usize>>> = Mutex::new(None);

thread_local! {
    static LABEL: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn next_seq() -> u64 {
    SEQ.fetch_add(1, Ordering::SeqCst)
}

fn with_recording<R>(f: impl FnOnce(&mut Recording) -> R) -> R {
    let mut guard = RECORDING.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(Recording::default))
}

/// Names the calling thread in the report ("main", "worker-1", ...).
pub fn set_thread_label(label: &str) {
    LABEL.with(|l| *l.borrow_mut() = Some(label.to_string()));
}

/// The calling thread's label; a thread the battery did not name is an SDK (or runtime) thread,
/// named after the first thing it was seen doing and numbered per role.
fn thread_label(role: &'static str) -> String {
    LABEL.with(|l| {
        let mut l = l.borrow_mut();
        if let Some(label) = l.as_ref() {
            return label.clone();
        }
        let mut counts = ROLE_COUNTS.lock().unwrap_or_else(|e| e.into_inner());
        let n = counts
            .get_or_insert_with(HashMap::new)
            .entry(role)
            .or_insert(0);
        *n += 1;
        let label = format!("{role}-{n}");
        *l = Some(label.clone());
        label
    })
}

pub fn set_step(step: usize) {
    STEP.store(step, Ordering::SeqCst);
}

pub fn mark(what: &'static str) {
    let seq = next_seq();
    let step = STEP.load(Ordering::SeqCst);
    with_recording(|r| r.marks.push(Mark { seq, step, what }));
}

pub fn note_status(call: &str, status: rocprofiler_status_t) {
    with_recording(|r| r.statuses.push((call.to_string(), status)));
}

pub fn take_recording() -> Recording {
    let mut guard = RECORDING.lock().unwrap_or_else(|e| e.into_inner());
    let mut recording = guard.take().unwrap_or_default();
    recording.configure =
        sdk_recorder::configured().map(|c| (c.version, c.runtime_version.clone()));
    recording
}

pub fn sdk() -> &'static Sdk {
    SDK.get()
        .expect("the SDK is loaded before the tool registers")
}

/// Registers the tool with `rocprofiler_force_configure`; must run before the first HIP call.
pub fn register(sdk: Sdk) -> rocprofiler_status_t {
    let _ = SDK.set(sdk);
    let status = sdk_recorder::register(&sdk, c"xla-rocm-tracer-probe", initialize, None);
    note_status("rocprofiler_force_configure", status);
    status
}

pub fn contexts() -> Option<(rocprofiler_context_id_t, rocprofiler_context_id_t)> {
    *CONTEXTS.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn start() {
    if let Some((cb, buf)) = contexts() {
        note_status("rocprofiler_start_context(callbacks)", sdk().start(cb));
        note_status("rocprofiler_start_context(buffered)", sdk().start(buf));
    }
}

pub fn stop() {
    if let Some((cb, buf)) = contexts() {
        note_status("rocprofiler_stop_context(callbacks)", sdk().stop(cb));
        note_status("rocprofiler_stop_context(buffered)", sdk().stop(buf));
    }
}

/// Status edges the SDK and the simulator's earlier status model disagreed on: stopping a
/// context that was never started, and stopping the stopped contexts again.
pub fn stop_edges() {
    let idle = *IDLE_CONTEXT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(idle) = idle {
        note_status("rocprofiler_stop_context(never started)", sdk().stop(idle));
    }
    if let Some((cb, _)) = contexts() {
        note_status("rocprofiler_stop_context(callbacks, again)", sdk().stop(cb));
    }
}

/// Writes down the status of `call` and returns its value (the default if it failed).
fn noted<T: Default>(call: &str, result: Result<T, rocprofiler_status_t>) -> T {
    match result {
        Ok(value) => {
            note_status(call, ROCPROFILER_STATUS_SUCCESS);
            value
        }
        Err(status) => {
            note_status(call, status);
            T::default()
        }
    }
}

/// Pushes `value` as the calling thread's external correlation id in the callback context.
pub fn push_external(value: u64) {
    let Some((cb, _)) = contexts() else { return };
    let tid = noted("rocprofiler_get_thread_id", sdk().thread_id());
    let status = sdk().push_external(cb, tid, value);
    note_status("rocprofiler_push_external_correlation_id", status);
}

pub fn pop_external() {
    let Some((cb, _)) = contexts() else { return };
    let tid = noted("rocprofiler_get_thread_id", sdk().thread_id());
    let status = sdk().pop_external(cb, tid);
    note_status("rocprofiler_pop_external_correlation_id", status);
}

pub fn flush(label: &str) {
    let buffer = *BUFFER.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(buffer) = buffer {
        note_status(
            &format!("rocprofiler_flush_buffer({label})"),
            sdk().flush(buffer),
        );
    }
}

const CALLBACK_KINDS: [(rocprofiler_callback_tracing_kind_t, &str); 4] = [
    (
        ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
        "HIP_RUNTIME_API",
    ),
    (ROCPROFILER_CALLBACK_TRACING_HIP_STREAM, "HIP_STREAM"),
    (
        ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
        "KERNEL_DISPATCH",
    ),
    (ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, "MEMORY_COPY"),
];
const BUFFER_KINDS: [(rocprofiler_buffer_tracing_kind_t, &str); 3] = [
    (
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
        "HIP_RUNTIME_API",
    ),
    (
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
        "KERNEL_DISPATCH",
    ),
    (ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, "MEMORY_COPY"),
];
const REQUEST_KINDS: [rocprofiler_external_correlation_id_request_kind_t; 3] = [
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
    ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
];

/// A buffer far larger than the battery's records, with the watermark at its size, so that
/// only the battery's flushes deliver.
const BUFFER_BYTES: usize = 8 << 20;

unsafe extern "C" fn initialize(
    _finalize: rocprofiler_client_finalize_t,
    _tool_data: *mut c_void,
) -> c_int {
    let sdk = sdk();
    let cb = noted(
        "rocprofiler_create_context(callbacks)",
        sdk.create_context(),
    );
    let buf = noted("rocprofiler_create_context(buffered)", sdk.create_context());
    let idle = noted(
        "rocprofiler_create_context(never started)",
        sdk.create_context(),
    );
    *IDLE_CONTEXT.lock().unwrap_or_else(|e| e.into_inner()) = Some(idle);
    for (kind, name) in CALLBACK_KINDS {
        note_status(
            &format!("rocprofiler_configure_callback_tracing_service({name})"),
            sdk.trace_callbacks(cb, kind, Some(on_callback)),
        );
    }
    let buffer = noted(
        "rocprofiler_create_buffer",
        sdk.lossless_buffer(buf, BUFFER_BYTES, BUFFER_BYTES, Some(on_buffer)),
    );
    for (kind, name) in BUFFER_KINDS {
        note_status(
            &format!("rocprofiler_configure_buffer_tracing_service({name})"),
            sdk.trace_buffer(buf, kind, buffer),
        );
    }
    note_status(
        "rocprofiler_configure_external_correlation_id_request_service",
        sdk.request_external_correlation(buf, &REQUEST_KINDS, Some(on_request)),
    );
    // The fields up to `uuid` keep their offsets in every layout since ROCm 6, and the SDK
    // refuses a size larger than its own struct (docs/sdk-facts.md#agents): only those are read.
    let agents = noted(
        "rocprofiler_query_available_agents",
        sdk.agents(std::mem::offset_of!(rocprofiler_agent_v0_t, uuid)),
    );
    let agents = agents.iter().map(|agent| {
        let name = if agent.name.is_null() {
            String::new()
        } else {
            // SAFETY: a C string owned by the SDK for the process's lifetime.
            unsafe { std::ffi::CStr::from_ptr(agent.name) }
                .to_string_lossy()
                .into_owned()
        };
        (
            agent.id.handle,
            agent.type_,
            agent.node_id,
            agent.logical_node_id,
            agent.logical_node_type_id,
            agent.runtime_visibility,
            name,
        )
    });
    let agents = agents.collect();
    with_recording(|r| r.agents = agents);
    *BUFFER.lock().unwrap_or_else(|e| e.into_inner()) = Some(buffer);
    *CONTEXTS.lock().unwrap_or_else(|e| e.into_inner()) = Some((cb, buf));
    0
}

unsafe extern "C" fn on_callback(
    record: rocprofiler_callback_tracing_record_t,
    _user_data: *mut rocprofiler_user_data_t,
    _data: *mut c_void,
) {
    let seq = next_seq();
    let role = match record.kind {
        ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH | ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY => {
            "sdk-completion"
        }
        _ => "sdk-other",
    };
    // SAFETY: the record the SDK passed, read during the callback.
    let stream = unsafe { sdk_recorder::stream_payload(&record) };
    let event = Callback {
        seq,
        step: STEP.load(Ordering::SeqCst),
        thread: thread_label(role),
        internal: record.correlation_id.internal,
        kind: record.kind,
        op: record.operation,
        phase: record.phase,
        stream,
        // SAFETY: the probe only ever pushes integers.
        external: unsafe { record.correlation_id.external.value },
    };
    with_recording(|r| r.callbacks.push(event));
}

unsafe extern "C" fn on_request(
    _thread_id: rocprofiler_thread_id_t,
    _context_id: rocprofiler_context_id_t,
    kind: rocprofiler_external_correlation_id_request_kind_t,
    operation: rocprofiler_tracing_operation_t,
    internal_corr_id_value: u64,
    external_corr_id_value: *mut rocprofiler_user_data_t,
    _data: *mut c_void,
) -> c_int {
    let seq = next_seq();
    let step = STEP.load(Ordering::SeqCst);
    if !external_corr_id_value.is_null() {
        // SAFETY: the SDK passes a writable user-data slot.
        unsafe { (*external_corr_id_value).value = step as u64 + 1 };
    }
    let event = Request {
        seq,
        step,
        thread: thread_label("sdk-other"),
        kind,
        op: operation,
        internal: internal_corr_id_value,
    };
    with_recording(|r| r.requests.push(event));
    0
}

unsafe extern "C" fn on_buffer(
    _context: rocprofiler_context_id_t,
    _buffer_id: rocprofiler_buffer_id_t,
    headers: *mut *mut rocprofiler_record_header_t,
    num_headers: usize,
    _data: *mut c_void,
    _drop_count: u64,
) {
    let seq = next_seq();
    let thread = thread_label("sdk-buffer");
    // SAFETY: what the SDK passed this buffer callback, read during it.
    let records: Vec<Record> = unsafe { sdk_recorder::records(headers, num_headers) }
        .into_iter()
        .map(|record| Record {
            seq,
            thread: thread.clone(),
            record,
        })
        .collect();
    with_recording(|r| {
        if !r.buffer_threads.contains(&thread) {
            r.buffer_threads.push(thread.clone());
        }
        r.records.extend(records);
    });
}
