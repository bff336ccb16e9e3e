//! Call-order and external-correlation details of the SDK that a tracer can observe (L11, L12):
//! * SET ENTER carries external 0; SET EXIT carries the thread's pushed value, or 0 for a
//!   context that requests HIP_RUNTIME_API ids (`hip/stream.cpp` `create_read_functor`,
//!   `tracing.hpp` `update_external_correlation_ids`);
//! * the HIP API buffer record is in the buffer before SET EXIT (the stream wrapper is the
//!   outer one);
//! * the default external value (for threads with nothing pushed) is the last value pushed or
//!   popped for the default thread (tid == pid), in any context (`external_correlation.cpp`
//!   `get_default_data`);
//! * KERNEL_DISPATCH contexts that do not request ids read the stack again after ENQUEUE
//!   ENTER (`hsa/queue.cpp` `WriteInterceptor`), so a push made in ENTER reaches the record.
//!
//! Own tool: context `stream_ctx` has a HIP_STREAM callback; `requesting_ctx` has one too and
//! requests HIP_RUNTIME_API ids; `main_ctx` buffer-traces HIP_RUNTIME_API and
//! KERNEL_DISPATCH and callback-traces KERNEL_DISPATCH (its ENQUEUE ENTER pushes 99, EXIT pops).
use rocprofiler_sdk_sys::*;
use sim_test_kit::{check, lossless_buffer, sim, trace_buffer, trace_callbacks};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

#[derive(Clone, Copy, Debug)]
struct Ids {
    stream_ctx: u64,
    requesting_ctx: u64,
    main_ctx: u64,
    buffer: u64,
}
static IDS: OnceLock<Ids> = OnceLock::new();
static SERIAL: Mutex<()> = Mutex::new(());

/// (context, phase, external, HIP API records written into the buffer at that moment)
static SETS: Mutex<Vec<(u64, u32, u64, u64)>> = Mutex::new(Vec::new());
/// (kind, internal, external) of every delivered record.
static RECORDS: Mutex<Vec<(u32, u64, u64)>> = Mutex::new(Vec::new());
static PUSH_IN_ENQUEUE: AtomicBool = AtomicBool::new(false);

fn ids() -> Ids {
    *IDS.get().unwrap()
}

fn api_records_written() -> u64 {
    sim::record_counts(ids().buffer)
        .map(|c| c.written(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API))
        .unwrap_or(0)
}

unsafe extern "C" fn on_stream(
    record: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
    if record.operation == ROCPROFILER_HIP_STREAM_SET {
        SETS.lock().unwrap().push((
            record.context_id.handle,
            record.phase,
            // SAFETY: the external correlation id is a user-data union of plain 64-bit values.
            unsafe { record.correlation_id.external.value },
            api_records_written(),
        ));
    }
}

unsafe extern "C" fn on_dispatch(
    record: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
    if record.operation != ROCPROFILER_KERNEL_DISPATCH_ENQUEUE
        || !PUSH_IN_ENQUEUE.load(Ordering::SeqCst)
    {
        return;
    }
    let ctx = rocprofiler_context_id_t {
        handle: ids().main_ctx,
    };
    if record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER {
        // SAFETY: plain handles and values; the SDK validates the context.
        unsafe {
            rocprofiler_push_external_correlation_id(
                ctx,
                record.thread_id,
                rocprofiler_user_data_t { value: 99 },
            )
        };
    } else {
        // SAFETY: a null out-pointer is allowed (the popped value is not wanted).
        unsafe {
            rocprofiler_pop_external_correlation_id(ctx, record.thread_id, std::ptr::null_mut())
        };
    }
}

unsafe extern "C" fn on_request(
    _: rocprofiler_thread_id_t,
    _: rocprofiler_context_id_t,
    _: rocprofiler_external_correlation_id_request_kind_t,
    _: rocprofiler_tracing_operation_t,
    _: u64,
    external: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) -> c_int {
    // SAFETY: the SDK passes a valid out-slot for the external correlation id.
    unsafe { (*external).value = 5 };
    0
}

unsafe extern "C" fn on_buffer(
    _: rocprofiler_context_id_t,
    _: rocprofiler_buffer_id_t,
    headers: *mut *mut rocprofiler_record_header_t,
    n: usize,
    _: *mut c_void,
    _: u64,
) {
    // The buffer traces HIP API and kernel dispatch records only.
    // SAFETY: what the SDK passed this buffer callback, read during it.
    let records = unsafe { sim_test_kit::sdk_recorder::records(headers, n) };
    let seen = records
        .iter()
        .map(|r| (r.kind(), r.internal(), r.external()));
    RECORDS.lock().unwrap().extend(seen);
}

unsafe extern "C" fn tool_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    let ctxs = [(); 3].map(|()| sim_test_kit::context());
    let [stream_ctx, requesting_ctx, main_ctx] = ctxs;
    for ctx in [stream_ctx, requesting_ctx] {
        trace_callbacks(
            ctx,
            &[ROCPROFILER_CALLBACK_TRACING_HIP_STREAM],
            Some(on_stream),
        );
    }
    let hip = [ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API];
    check(
        // SAFETY: `hip` outlives the call (the SDK copies the list); on_request has the SDK's
        // request callback type and needs no data.
        unsafe {
            rocprofiler_configure_external_correlation_id_request_service(
                requesting_ctx,
                hip.as_ptr(),
                1,
                Some(on_request),
                std::ptr::null_mut(),
            )
        },
    );
    let dispatch = [ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH];
    trace_callbacks(main_ctx, &dispatch, Some(on_dispatch));
    let buffer = lossless_buffer(main_ctx, 1 << 16, 1 << 16, Some(on_buffer));
    let kinds = [
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
    ];
    trace_buffer(main_ctx, &kinds, buffer);
    ctxs.into_iter().for_each(sim_test_kit::start);
    IDS.set(Ids {
        stream_ctx: stream_ctx.handle,
        requesting_ctx: requesting_ctx.handle,
        main_ctx: main_ctx.handle,
        buffer: buffer.handle,
    })
    .unwrap();
    0
}

fn setup() -> std::sync::MutexGuard<'static, ()> {
    sim_test_kit::register_tool(c"sdk-order-test-tool", tool_init, None);
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    SETS.lock().unwrap().clear();
    RECORDS.lock().unwrap().clear();
    guard
}

fn flush() {
    sim_test_kit::flush(ids().buffer);
}

fn launch() -> u64 {
    let launch = sim_test_kit::tiny_kernel("_Z5orderv", 1_000);
    sim::driver::launch_kernel(sim::driver::NULL_STREAM, &launch).unwrap()
}

/// L11.
#[test]
fn set_enter_has_no_external_and_the_api_record_precedes_set_exit() {
    let _g = setup();
    let ids = ids();
    let tid = sim_test_kit::tid();
    for ctx in [ids.stream_ctx, ids.requesting_ctx] {
        sim_test_kit::push_external(ctx, tid, 55);
    }
    let before = api_records_written();
    launch();
    let sets = SETS.lock().unwrap().clone();
    let of = |ctx: u64, phase: u32| {
        *sets
            .iter()
            .find(|s| s.0 == ctx && s.1 == phase)
            .expect("a SET callback")
    };
    let enter = of(ids.stream_ctx, ROCPROFILER_CALLBACK_PHASE_ENTER);
    let exit = of(ids.stream_ctx, ROCPROFILER_CALLBACK_PHASE_EXIT);
    assert_eq!(enter.2, 0, "SET ENTER carries external 0");
    assert_eq!(exit.2, 55, "SET EXIT carries the pushed value");
    assert_eq!(enter.3, before, "no API record yet at SET ENTER");
    assert_eq!(
        exit.3,
        before + 1,
        "the HIP API record is pushed before SET EXIT"
    );
    let requesting_exit = of(ids.requesting_ctx, ROCPROFILER_CALLBACK_PHASE_EXIT);
    assert_eq!(
        requesting_exit.2, 0,
        "a context requesting HIP_RUNTIME_API ids gets 0 at SET EXIT"
    );
    for ctx in [ids.stream_ctx, ids.requesting_ctx] {
        sim_test_kit::pop_external(ctx, tid);
    }
    flush();
}

/// L12: the default value is process-global, set through the default thread in any context.
#[test]
fn the_default_external_value_is_global_across_contexts() {
    let _g = setup();
    let ids = ids();
    let pid = std::process::id() as u64;
    // Pushed for the default thread in a context that traces nothing of the call below.
    sim_test_kit::push_external(ids.stream_ctx, pid, 77);
    let corr = sim::driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, None).unwrap();
    sim_test_kit::pop_external(ids.stream_ctx, pid);
    let after_pop = sim::driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, None).unwrap();
    flush();
    let records = RECORDS.lock().unwrap().clone();
    let external = |corr: u64| {
        records
            .iter()
            .find(|r| r.0 == ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API && r.1 == corr)
            .expect("the HIP API record")
            .2
    };
    assert_eq!(external(corr), 77, "another context's default-thread push");
    assert_eq!(external(after_pop), 0, "the pop reset the default");
}

/// L12: a push made in ENQUEUE ENTER reaches the kernel record of a non-requesting context.
#[test]
fn kernel_dispatch_reads_the_stack_again_after_enqueue_enter() {
    let _g = setup();
    PUSH_IN_ENQUEUE.store(true, Ordering::SeqCst);
    let corr = launch();
    PUSH_IN_ENQUEUE.store(false, Ordering::SeqCst);
    flush();
    let records = RECORDS.lock().unwrap().clone();
    let kernel = records
        .iter()
        .find(|r| r.0 == ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH && r.1 == corr)
        .expect("the kernel record");
    assert_eq!(kernel.2, 99);
    let api = records
        .iter()
        .find(|r| r.0 == ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API && r.1 == corr)
        .expect("the HIP API record");
    assert_eq!(
        api.2, 0,
        "pushed after the API record's value was taken, popped before exit"
    );
}
