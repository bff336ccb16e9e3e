//! ROCTx's `roctxNameHipStream` as the SDK traces it (`marker.cpp` `roctx_api_impl::functor`):
//! MARKER_NAME_API operation `roctxNameHipStream` ENTER then EXIT, on the calling thread, with
//! one correlation id, to every active context that traces the operation and to no other; the
//! payload's arguments are the name and the stream, EXIT's return value is 0. Without such a
//! context nothing fires and the call still returns 0.
//!
//! Own tool: `names_ctx` traces MARKER_NAME_API (all operations), `stream_only_ctx` traces
//! HIP_STREAM only, `other_op_ctx` traces MARKER_NAME_API `roctxNameOsThread` only.
use rocprofiler_sdk_sys::*;
use sim_test_kit::{check, sim, trace_callbacks};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::{Mutex, OnceLock};

extern "C" {
    /// The simulator's entry point behind ROCTx's `roctxNameHipStream` (the simulated
    /// `librocprofiler-sdk-roctx.so` calls it).
    fn rocsim_roctx_name_hip_stream(name: *const c_char, stream: *const c_void) -> c_int;
}

#[derive(Clone, Copy, Debug)]
struct Ids {
    names_ctx: u64,
    stream_only_ctx: u64,
    other_op_ctx: u64,
}
static IDS: OnceLock<Ids> = OnceLock::new();
static SERIAL: Mutex<()> = Mutex::new(());

#[derive(Clone, Debug, PartialEq)]
struct Seen {
    context: u64,
    thread: u64,
    kind: u32,
    operation: i32,
    phase: u32,
    correlation: u64,
    size: u64,
    name: String,
    stream: u64,
    retval: i32,
}
static SEEN: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

unsafe extern "C" fn on_marker(
    record: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
    let payload = record.payload as *const rocprofiler_callback_tracing_marker_api_data_t;
    // SAFETY: a MARKER_NAME_API payload, valid for the callback; the name is a C string.
    let (size, args, retval) = unsafe {
        (
            (*payload).size,
            (*payload).args.roctxNameHipStream,
            (*payload).retval.int32_t_retval,
        )
    };
    // SAFETY: as above.
    let name = unsafe { CStr::from_ptr(args.name) }
        .to_string_lossy()
        .into_owned();
    SEEN.lock().unwrap().push(Seen {
        context: record.context_id.handle,
        thread: record.thread_id,
        kind: record.kind,
        operation: record.operation,
        phase: record.phase,
        correlation: record.correlation_id.internal,
        size,
        name,
        stream: args.stream as u64,
        retval: if record.phase == ROCPROFILER_CALLBACK_PHASE_EXIT {
            retval
        } else {
            -99
        },
    });
}

unsafe extern "C" fn on_stream(
    _: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
}

unsafe extern "C" fn tool_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    let [names_ctx, stream_only_ctx, other_op_ctx] = [(); 3].map(|()| sim_test_kit::context());
    trace_callbacks(
        names_ctx,
        &[ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API],
        Some(on_marker),
    );
    trace_callbacks(
        stream_only_ctx,
        &[ROCPROFILER_CALLBACK_TRACING_HIP_STREAM],
        Some(on_stream),
    );
    let os_thread = [ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread];
    // SAFETY: the list outlives the call (the SDK copies it); the callback needs no data.
    check(unsafe {
        rocprofiler_configure_callback_tracing_service(
            other_op_ctx,
            ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
            os_thread.as_ptr(),
            1,
            Some(on_marker),
            std::ptr::null_mut(),
        )
    });
    [names_ctx, stream_only_ctx, other_op_ctx]
        .into_iter()
        .for_each(sim_test_kit::start);
    IDS.set(Ids {
        names_ctx: names_ctx.handle,
        stream_only_ctx: stream_only_ctx.handle,
        other_op_ctx: other_op_ctx.handle,
    })
    .unwrap();
    0
}

fn setup() -> std::sync::MutexGuard<'static, ()> {
    sim_test_kit::register_tool(c"roctx-names-test-tool", tool_init, None);
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    SEEN.lock().unwrap().clear();
    guard
}

fn check_enter_exit(seen: &[Seen], name: &str, stream: u64) {
    let ids = IDS.get().unwrap();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let tid = sim_test_kit::tid();
    for (record, phase) in seen.iter().zip([
        ROCPROFILER_CALLBACK_PHASE_ENTER,
        ROCPROFILER_CALLBACK_PHASE_EXIT,
    ]) {
        assert_eq!(record.context, ids.names_ctx);
        assert_ne!(record.context, ids.stream_only_ctx);
        assert_ne!(record.context, ids.other_op_ctx);
        assert_eq!(record.thread, tid, "on the calling thread");
        assert_eq!(record.kind, ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API);
        assert_eq!(
            record.operation,
            ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream
        );
        assert_eq!(record.phase, phase);
        assert_eq!(record.size, 32);
        assert_eq!(record.name, name);
        assert_eq!(record.stream, stream);
    }
    assert_eq!(seen[1].retval, 0);
    assert_ne!(seen[0].correlation, 0);
    assert_eq!(seen[0].correlation, seen[1].correlation);
}

#[test]
fn driver_call_fires_enter_and_exit_to_the_contexts_that_trace_it() {
    let _g = setup();
    let stream = sim::driver::stream_create().unwrap();
    assert_eq!(
        sim::driver::roctx_name_hip_stream(stream, "h2d").unwrap(),
        0
    );
    check_enter_exit(&SEEN.lock().unwrap(), "h2d", stream);
}

#[test]
fn the_c_function_fires_the_same_callbacks() {
    let _g = setup();
    sim::driver::set_device(0).unwrap();
    // SAFETY: a NUL-terminated name; the stream value is passed on, never dereferenced.
    let status =
        unsafe { rocsim_roctx_name_hip_stream(c"compute".as_ptr(), 0x1234 as *const c_void) };
    assert_eq!(status, 0);
    check_enter_exit(&SEEN.lock().unwrap(), "compute", 0x1234);
    // SAFETY: a null name is allowed here: it is refused without a callback.
    let refused = unsafe { rocsim_roctx_name_hip_stream(std::ptr::null(), std::ptr::null()) };
    assert_eq!(refused, -1);
    assert_eq!(SEEN.lock().unwrap().len(), 2);
}

#[test]
fn without_an_active_context_nothing_fires() {
    let _g = setup();
    let ids = *IDS.get().unwrap();
    let names = rocprofiler_context_id_t {
        handle: ids.names_ctx,
    };
    // SAFETY: a registered context.
    check(unsafe { rocprofiler_stop_context(names) });
    let result = sim::driver::roctx_name_hip_stream(0, "unseen");
    // SAFETY: as above.
    check(unsafe { rocprofiler_start_context(names) });
    assert_eq!(result.unwrap(), 0);
    assert!(SEEN.lock().unwrap().is_empty());
    assert!(sim::driver::roctx_name_hip_stream(0, "bad\0name").is_err());
}
