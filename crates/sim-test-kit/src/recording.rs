//! A tiny recording tool, XLA-shaped: a utility context (HIP_STREAM + CODE_OBJECT callbacks)
//! keeps a thread-local stream stack; the main context callback-traces HIP_RUNTIME_API,
//! KERNEL_DISPATCH and MEMORY_COPY, buffer-traces the same three into one buffer on its own
//! callback thread, and answers external-correlation requests for KERNEL_DISPATCH and
//! MEMORY_COPY with the top of the stream stack (or defers to the pushed value, per thread).
//!
//! Tests use it through `use sim_test_kit::recording::*`, which
//! also brings the kit's `sim`, `sys`, `check`, `tid` and `kernel`.

pub use crate::{check, kernel, sim, sys, tid};
/// A buffer record the tool kept (read the one way the probe reads it too).
pub use sdk_recorder::Record;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CStr};
use std::sync::{LazyLock, Mutex, OnceLock};

#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Callback {
        /// The thread the callback ran on.
        tid: u64,
        /// The record's `thread_id`.
        record_tid: u64,
        context: u64,
        kind: u32,
        op: i32,
        phase: u32,
        internal: u64,
        external: u64,
        /// HIP_STREAM payload (stream_id, stream_value).
        stream: Option<(u64, u64)>,
        /// KERNEL_DISPATCH payload: (kernel_id, dispatch_id, start, end).
        dispatch: Option<(u64, u64, u64, u64)>,
        /// User data seen at this callback (ENTER writes, EXIT/COMPLETE read).
        user_data: u64,
    },
    Request {
        tid: u64,
        context: u64,
        kind: u32,
        op: i32,
        internal: u64,
        /// What the SDK had put in `*external` before calling (must be 0).
        preset: u64,
    },
}

impl Event {
    pub fn tid(&self) -> u64 {
        match self {
            Event::Callback { tid, .. } | Event::Request { tid, .. } => *tid,
        }
    }
    /// (kind, op, phase) for callbacks; requests are (1000 + kind, op, 0).
    pub fn shape(&self) -> (u32, i32, u32) {
        match self {
            Event::Callback {
                kind, op, phase, ..
            } => (*kind, *op, *phase),
            Event::Request { kind, op, .. } => (1000 + *kind, *op, 0),
        }
    }
}

#[derive(Clone, Debug)]
pub struct BufferCall {
    pub tid: u64,
    pub records: usize,
    pub drops: u64,
}

#[derive(Default)]
pub struct Recorder {
    pub events: Mutex<Vec<Event>>,
    pub records: Mutex<Vec<Record>>,
    pub buffer_calls: Mutex<Vec<BufferCall>>,
    pub kernel_names: Mutex<HashMap<u64, String>>,
    pub ids: OnceLock<Ids>,
    pub agents: Mutex<Vec<(u64, u32, String)>>,
}

#[derive(Debug, Clone, Copy)]
pub struct Ids {
    pub utility: u64,
    pub main: u64,
    pub buffer: u64,
    pub thread: u64,
}

pub static REC: LazyLock<Recorder> = LazyLock::new(Recorder::default);

thread_local! {
    static STREAM_STACK: RefCell<Vec<u64>> = RefCell::new(vec![0]);
    /// 0: answer requests with the stream stack top; non-zero: return that (defer to push).
    pub static REQUEST_RETURN: Cell<c_int> = const { Cell::new(0) };
}

unsafe extern "C" fn on_callback(
    record: sys::rocprofiler_callback_tracing_record_t,
    user_data: *mut sys::rocprofiler_user_data_t,
    _data: *mut c_void,
) {
    let mut stream = None;
    let mut dispatch = None;
    let mut seen_user_data = 0;
    match record.kind {
        sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM => {
            // SAFETY: a HIP_STREAM record's payload is the SDK's hip_stream_data struct, live
            // for the duration of the callback.
            let size = unsafe {
                (*record
                    .payload
                    .cast::<sys::rocprofiler_callback_tracing_hip_stream_data_t>())
                .size
            };
            assert_eq!(size, 24);
            // SAFETY: the record the SDK passed, read during the callback.
            stream = unsafe { sdk_recorder::stream_payload(&record) };
            if let Some((stream_id, _)) = stream {
                if record.operation == sys::ROCPROFILER_HIP_STREAM_SET {
                    STREAM_STACK.with_borrow_mut(|s| {
                        if record.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER {
                            s.push(stream_id);
                        } else if s.len() > 1 {
                            s.pop();
                        }
                    });
                }
            }
        }
        sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT
            if record.operation == sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER
                && record.phase == sys::ROCPROFILER_CALLBACK_PHASE_LOAD =>
        {
            // SAFETY: a kernel-symbol-register record's payload is the SDK's
            // kernel_symbol_register_data struct, live for the duration of the callback.
            let p = unsafe {
                &*(record.payload
                    as *const sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t)
            };
            // SAFETY: the SDK hands over the kernel name as a NUL-terminated string that lives
            // as long as the code object.
            let name = unsafe { CStr::from_ptr(p.kernel_name) }
                .to_string_lossy()
                .into_owned();
            REC.kernel_names.lock().unwrap().insert(p.kernel_id, name);
        }
        sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH => {
            // SAFETY: a KERNEL_DISPATCH record's payload is the SDK's kernel_dispatch_data
            // struct, live for the duration of the callback.
            let p = unsafe {
                &*(record.payload
                    as *const sys::rocprofiler_callback_tracing_kernel_dispatch_data_t)
            };
            assert_eq!(p.dispatch_info.size, 72);
            dispatch = Some((
                p.dispatch_info.kernel_id,
                p.dispatch_info.dispatch_id,
                p.start_timestamp,
                p.end_timestamp,
            ));
        }
        _ => {}
    }
    // ENTER writes a marker derived from the correlation id; later phases read it back.
    // SAFETY: the SDK passes a valid per-operation user-data slot for every phase of a callback
    // (the same slot for ENTER and EXIT), and its union members are plain 64-bit values.
    let user_data = unsafe { &mut *user_data };
    if record.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER {
        user_data.value = 0xABC0_0000 + record.correlation_id.internal;
    }
    // SAFETY: as above: the union's members are all plain 64-bit values.
    seen_user_data = seen_user_data.max(unsafe { user_data.value });
    REC.events.lock().unwrap().push(Event::Callback {
        tid: tid(),
        record_tid: record.thread_id,
        context: record.context_id.handle,
        kind: record.kind,
        op: record.operation,
        phase: record.phase,
        internal: record.correlation_id.internal,
        // SAFETY: the external correlation id is a user-data union of plain 64-bit values.
        external: unsafe { record.correlation_id.external.value },
        stream,
        dispatch,
        user_data: seen_user_data,
    });
}

unsafe extern "C" fn on_request(
    thread_id: sys::rocprofiler_thread_id_t,
    context_id: sys::rocprofiler_context_id_t,
    kind: sys::rocprofiler_external_correlation_id_request_kind_t,
    operation: sys::rocprofiler_tracing_operation_t,
    internal: u64,
    external: *mut sys::rocprofiler_user_data_t,
    _data: *mut c_void,
) -> c_int {
    // SAFETY: the SDK passes a valid out-slot for the external correlation id, preset to the
    // thread's pushed id; its union members are plain 64-bit values.
    let external = unsafe { &mut *external };
    REC.events.lock().unwrap().push(Event::Request {
        tid: thread_id,
        context: context_id.handle,
        kind,
        op: operation,
        internal,
        // SAFETY: as above.
        preset: unsafe { external.value },
    });
    let answer = REQUEST_RETURN.get();
    if answer == 0 {
        external.value = STREAM_STACK.with_borrow(|s| *s.last().unwrap());
    }
    answer
}

unsafe extern "C" fn on_buffer(
    _context: sys::rocprofiler_context_id_t,
    _buffer: sys::rocprofiler_buffer_id_t,
    headers: *mut *mut sys::rocprofiler_record_header_t,
    num_headers: usize,
    _data: *mut c_void,
    drop_count: u64,
) {
    // SAFETY: what the SDK passed this buffer callback, read during it.
    let out = unsafe { sdk_recorder::records(headers, num_headers) };
    assert_eq!(out.len(), num_headers, "a record of an unexpected kind");
    // Unchecked: a test may inject faults into the SDK's calls while records are delivered.
    let tid = crate::SDK.thread_id().unwrap_or(0);
    REC.buffer_calls.lock().unwrap().push(BufferCall {
        tid,
        records: num_headers,
        drops: drop_count,
    });
    REC.records.lock().unwrap().extend(out);
}

unsafe extern "C" fn tool_init(
    _fini: sys::rocprofiler_client_finalize_t,
    _data: *mut c_void,
) -> c_int {
    let utility = crate::context();
    let main = crate::context();
    let utility_kinds = [
        sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
        sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
    ];
    crate::trace_callbacks(utility, &utility_kinds, Some(on_callback));
    let main_kinds = [
        sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
        sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
        sys::ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
    ];
    crate::trace_callbacks(main, &main_kinds, Some(on_callback));
    let buffer = crate::lossless_buffer(main, 64 * 4096, 32 * 4096, Some(on_buffer));
    let buffer_kinds = [
        sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
        sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
        sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
    ];
    crate::trace_buffer(main, &buffer_kinds, buffer);
    let kinds = [
        sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
        sys::ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
    ];
    check(crate::SDK.request_external_correlation(main, &kinds, Some(on_request)));
    let mut thread = sys::rocprofiler_callback_thread_t { handle: 0 };
    // SAFETY: `thread` is a live local for the SDK to write.
    check(unsafe { sys::rocprofiler_create_callback_thread(&mut thread) });
    // SAFETY: plain handles the SDK just created; it validates them.
    check(unsafe { sys::rocprofiler_assign_callback_thread(buffer, thread) });
    REC.agents
        .lock()
        .unwrap()
        .extend(crate::agents().iter().map(|agent| {
            // SAFETY: the SDK's agent names are NUL-terminated strings it keeps for the
            // process's lifetime.
            let name = unsafe { CStr::from_ptr(agent.name) }
                .to_string_lossy()
                .into_owned();
            (agent.id.handle, agent.type_, name)
        }));
    crate::start(utility);
    crate::start(main);
    REC.ids
        .set(Ids {
            utility: utility.handle,
            main: main.handle,
            buffer: buffer.handle,
            thread: thread.handle,
        })
        .unwrap();
    0
}

/// Registers the recording tool once per process (every test calls this first).
pub fn setup() -> Ids {
    crate::register_tool(c"recording-test-tool", tool_init, None);
    *REC.ids.get().expect("tool initialized")
}

/// Waits for all device work and delivers the buffer. Concurrent tests flush too, and the SDK
/// answers a flush during another flush with BUFFER_BUSY, so retry.
pub fn drain() {
    crate::flush(setup().buffer);
}

pub fn event_count() -> usize {
    REC.events.lock().unwrap().len()
}

/// Events of thread `tid` recorded since index `from`.
pub fn events_since(from: usize, tid: u64) -> Vec<Event> {
    REC.events.lock().unwrap()[from..]
        .iter()
        .filter(|e| e.tid() == tid)
        .cloned()
        .collect()
}

pub fn records_for(internal: u64) -> Vec<Record> {
    REC.records
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.internal() == internal)
        .copied()
        .collect()
}

pub const SET_ENTER: (u32, i32, u32) = (
    sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
    sys::ROCPROFILER_HIP_STREAM_SET,
    sys::ROCPROFILER_CALLBACK_PHASE_ENTER,
);
pub const SET_EXIT: (u32, i32, u32) = (
    sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
    sys::ROCPROFILER_HIP_STREAM_SET,
    sys::ROCPROFILER_CALLBACK_PHASE_EXIT,
);

pub fn api(op: i32, phase: u32) -> (u32, i32, u32) {
    (sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, op, phase)
}
pub fn request(kind: u32, op: i32) -> (u32, i32, u32) {
    (1000 + kind, op, 0)
}
pub const ENTER: u32 = sys::ROCPROFILER_CALLBACK_PHASE_ENTER;
pub const EXIT: u32 = sys::ROCPROFILER_CALLBACK_PHASE_EXIT;
pub const KD_ENQUEUE_ENTER: (u32, i32, u32) = (
    sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
    sys::ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
    ENTER,
);
pub const KD_ENQUEUE_EXIT: (u32, i32, u32) = (
    sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
    sys::ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
    EXIT,
);
