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
#[path = "common/child.rs"]
mod child;
use rocprofiler_sdk_sim as sim;
use rocprofiler_sdk_sys::*;
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
            record.correlation_id.external.value,
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
        rocprofiler_push_external_correlation_id(
            ctx,
            record.thread_id,
            rocprofiler_user_data_t { value: 99 },
        );
    } else {
        rocprofiler_pop_external_correlation_id(ctx, record.thread_id, std::ptr::null_mut());
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
    (*external).value = 5;
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
    let mut out = RECORDS.lock().unwrap();
    for i in 0..n {
        let h = &**headers.add(i);
        match h.kind() {
            ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API => {
                let r = &*(h.payload as *const rocprofiler_buffer_tracing_hip_api_record_t);
                out.push((
                    h.kind(),
                    r.correlation_id.internal,
                    r.correlation_id.external.value,
                ));
            }
            ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => {
                let r = &*(h.payload as *const rocprofiler_buffer_tracing_kernel_dispatch_record_t);
                out.push((
                    h.kind(),
                    r.correlation_id.internal,
                    r.correlation_id.external.value,
                ));
            }
            _ => {}
        }
    }
}

fn check(status: rocprofiler_status_t) {
    assert_eq!(status, ROCPROFILER_STATUS_SUCCESS);
}

unsafe extern "C" fn tool_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    let mut ctxs = [rocprofiler_context_id_t { handle: 0 }; 3];
    for ctx in &mut ctxs {
        check(rocprofiler_create_context(ctx));
    }
    let [stream_ctx, requesting_ctx, main_ctx] = ctxs;
    for ctx in [stream_ctx, requesting_ctx] {
        check(rocprofiler_configure_callback_tracing_service(
            ctx,
            ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
            std::ptr::null(),
            0,
            Some(on_stream),
            std::ptr::null_mut(),
        ));
    }
    let hip = [ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API];
    check(
        rocprofiler_configure_external_correlation_id_request_service(
            requesting_ctx,
            hip.as_ptr(),
            1,
            Some(on_request),
            std::ptr::null_mut(),
        ),
    );
    check(rocprofiler_configure_callback_tracing_service(
        main_ctx,
        ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
        std::ptr::null(),
        0,
        Some(on_dispatch),
        std::ptr::null_mut(),
    ));
    let mut buffer = rocprofiler_buffer_id_t { handle: 0 };
    check(rocprofiler_create_buffer(
        main_ctx,
        1 << 16,
        1 << 16,
        ROCPROFILER_BUFFER_POLICY_LOSSLESS,
        Some(on_buffer),
        std::ptr::null_mut(),
        &mut buffer,
    ));
    for kind in [
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
    ] {
        check(rocprofiler_configure_buffer_tracing_service(
            main_ctx,
            kind,
            std::ptr::null(),
            0,
            buffer,
        ));
    }
    for ctx in ctxs {
        check(rocprofiler_start_context(ctx));
    }
    IDS.set(Ids {
        stream_ctx: stream_ctx.handle,
        requesting_ctx: requesting_ctx.handle,
        main_ctx: main_ctx.handle,
        buffer: buffer.handle,
    })
    .unwrap();
    0
}

struct R(rocprofiler_tool_configure_result_t);
unsafe impl Sync for R {}
static RESULT: R = R(rocprofiler_tool_configure_result_t {
    size: 32,
    initialize: Some(tool_init),
    finalize: None,
    tool_data: std::ptr::null_mut(),
});
unsafe extern "C" fn configure(
    _: u32,
    _: *const std::ffi::c_char,
    _: u32,
    _: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    &RESULT.0 as *const _ as *mut _
}

fn setup() -> std::sync::MutexGuard<'static, ()> {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| check(unsafe { rocprofiler_force_configure(Some(configure)) }));
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    SETS.lock().unwrap().clear();
    RECORDS.lock().unwrap().clear();
    guard
}

fn me() -> u64 {
    let mut t = 0;
    unsafe { rocprofiler_get_thread_id(&mut t) };
    t
}

fn flush() {
    sim::driver::wait_idle();
    check(unsafe {
        rocprofiler_flush_buffer(rocprofiler_buffer_id_t {
            handle: ids().buffer,
        })
    });
}

fn launch() -> u64 {
    let (_, kernels) = sim::driver::load_code_object(0, &["_Z5orderv"]).unwrap();
    let launch = sim::driver::KernelLaunch {
        kernel: kernels[0],
        grid: [64, 1, 1],
        block: [64, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 1_000,
    };
    sim::driver::launch_kernel(sim::driver::NULL_STREAM, &launch).unwrap()
}

/// L11.
#[test]
fn set_enter_has_no_external_and_the_api_record_precedes_set_exit() {
    let _g = setup();
    let ids = ids();
    let tid = me();
    for ctx in [ids.stream_ctx, ids.requesting_ctx] {
        check(unsafe {
            rocprofiler_push_external_correlation_id(
                rocprofiler_context_id_t { handle: ctx },
                tid,
                rocprofiler_user_data_t { value: 55 },
            )
        });
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
        check(unsafe {
            rocprofiler_pop_external_correlation_id(
                rocprofiler_context_id_t { handle: ctx },
                tid,
                std::ptr::null_mut(),
            )
        });
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
    check(unsafe {
        rocprofiler_push_external_correlation_id(
            rocprofiler_context_id_t {
                handle: ids.stream_ctx,
            },
            pid,
            rocprofiler_user_data_t { value: 77 },
        )
    });
    let corr = sim::driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, None).unwrap();
    check(unsafe {
        rocprofiler_pop_external_correlation_id(
            rocprofiler_context_id_t {
                handle: ids.stream_ctx,
            },
            pid,
            std::ptr::null_mut(),
        )
    });
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

/// `ROCSIM_CORRELATION=sim`: the sim's earlier rules (SET ENTER carries the pushed value, the
/// HIP API record follows SET EXIT, the default value is per context).
#[test]
fn sim_correlation_option_restores_the_earlier_rules() {
    if !child::in_child(
        "sim_correlation_option_restores_the_earlier_rules",
        &[("ROCSIM_CORRELATION", "sim")],
    ) {
        return;
    }
    let _g = setup();
    let ids = ids();
    let tid = me();
    check(unsafe {
        rocprofiler_push_external_correlation_id(
            rocprofiler_context_id_t {
                handle: ids.stream_ctx,
            },
            tid,
            rocprofiler_user_data_t { value: 55 },
        )
    });
    let before = api_records_written();
    launch();
    let sets = SETS.lock().unwrap().clone();
    let enter = sets
        .iter()
        .find(|s| s.0 == ids.stream_ctx && s.1 == ROCPROFILER_CALLBACK_PHASE_ENTER)
        .unwrap();
    let exit = sets
        .iter()
        .find(|s| s.0 == ids.stream_ctx && s.1 == ROCPROFILER_CALLBACK_PHASE_EXIT)
        .unwrap();
    assert_eq!(enter.2, 55);
    assert_eq!(exit.3, before, "the API record comes after SET EXIT");
    let pid = std::process::id() as u64;
    check(unsafe {
        rocprofiler_push_external_correlation_id(
            rocprofiler_context_id_t {
                handle: ids.stream_ctx,
            },
            pid,
            rocprofiler_user_data_t { value: 77 },
        )
    });
    let corr = sim::driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, None).unwrap();
    flush();
    let records = RECORDS.lock().unwrap().clone();
    let api = records.iter().find(|r| r.1 == corr).unwrap();
    assert_eq!(api.2, 0, "the default is per context");
}
