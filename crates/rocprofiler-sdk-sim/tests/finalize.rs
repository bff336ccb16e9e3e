//! Finalization (docs/sdk-facts.md#tool-start-up, docs/simulator-fidelity.md#registration-and-lifecycle): through the `client_finalize` handed to initialize, and at
//! process exit. As the SDK's `registration::finalize`: is_finalized = -1 first, in-flight
//! work drains into the buffers, the client's contexts are stopped (stop_context on them then
//! answers CONTEXT_NOT_FOUND), the tool's finalize runs, and **no buffer is flushed**: records
//! below the watermark are lost unless the tool flushes in its finalize (M7).
use rocprofiler_sdk_sys::*;
use sim_test_kit::{child, sim};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

static FINALIZE: Mutex<Option<(rocprofiler_client_finalize_t, u32)>> = Mutex::new(None);
static CONTEXT: AtomicU64 = AtomicU64::new(0);
static BUFFER: AtomicU64 = AtomicU64::new(0);
static RECORDS: AtomicUsize = AtomicUsize::new(0);
static FINI_STATUS_IN_FINALIZE: AtomicI32 = AtomicI32::new(99);
static ACTIVE_IN_FINALIZE: AtomicI32 = AtomicI32::new(99);
static RECORDS_AT_FINALIZE: AtomicUsize = AtomicUsize::new(usize::MAX);
static STOP_IN_FINALIZE: AtomicU32 = AtomicU32::new(u32::MAX);
static FLUSH_IN_FINALIZE: AtomicU32 = AtomicU32::new(u32::MAX);
/// is_finalized seen by the KERNEL_DISPATCH COMPLETE callback of the kernel that drains.
static FINI_STATUS_AT_COMPLETE: AtomicI32 = AtomicI32::new(99);

unsafe extern "C" fn on_dispatch(
    record: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
    if record.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE {
        let mut fini = 0;
        // SAFETY: `fini` is a live local for the SDK to write.
        unsafe { rocprofiler_is_finalized(&mut fini) };
        FINI_STATUS_AT_COMPLETE.store(fini, Ordering::SeqCst);
    }
}

unsafe extern "C" fn on_buffer(
    _: rocprofiler_context_id_t,
    _: rocprofiler_buffer_id_t,
    _: *mut *mut rocprofiler_record_header_t,
    n: usize,
    _: *mut c_void,
    _: u64,
) {
    RECORDS.fetch_add(n, Ordering::SeqCst);
}

unsafe extern "C" fn tool_init(fini: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    let ctx = sim_test_kit::context();
    // A huge watermark: nothing is delivered unless someone flushes.
    let buffer = sim_test_kit::lossless_buffer(ctx, 1 << 20, 1 << 20, Some(on_buffer));
    let kinds = [
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
    ];
    sim_test_kit::trace_buffer(ctx, &kinds, buffer);
    let dispatch = [ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH];
    sim_test_kit::trace_callbacks(ctx, &dispatch, Some(on_dispatch));
    // SAFETY: a context handle the SDK created (it validates handles).
    unsafe { rocprofiler_start_context(ctx) };
    CONTEXT.store(ctx.handle, Ordering::SeqCst);
    BUFFER.store(buffer.handle, Ordering::SeqCst);
    *FINALIZE.lock().unwrap() = Some((fini, sim_test_kit::client_handle()));
    0
}

unsafe extern "C" fn tool_fini(_: *mut c_void) {
    let (mut fini, mut active) = (0, 0);
    // SAFETY: `fini` is a live local for the SDK to write.
    unsafe { rocprofiler_is_finalized(&mut fini) };
    FINI_STATUS_IN_FINALIZE.store(fini, Ordering::SeqCst);
    // SAFETY: `active` is a live local for the SDK to write; the handle is validated.
    unsafe {
        rocprofiler_context_is_active(
            rocprofiler_context_id_t {
                handle: CONTEXT.load(Ordering::SeqCst),
            },
            &mut active,
        )
    };
    ACTIVE_IN_FINALIZE.store(active, Ordering::SeqCst);
    RECORDS_AT_FINALIZE.store(RECORDS.load(Ordering::SeqCst), Ordering::SeqCst);
    STOP_IN_FINALIZE.store(
        // SAFETY: a plain context handle (the SDK validates handles).
        unsafe {
            rocprofiler_stop_context(rocprofiler_context_id_t {
                handle: CONTEXT.load(Ordering::SeqCst),
            })
        },
        Ordering::SeqCst,
    );
    if std::env::var("FINALIZE_TEST_FLUSH").is_ok() {
        FLUSH_IN_FINALIZE.store(
            // SAFETY: a plain buffer handle (the SDK validates handles).
            unsafe {
                rocprofiler_flush_buffer(rocprofiler_buffer_id_t {
                    handle: BUFFER.load(Ordering::SeqCst),
                })
            },
            Ordering::SeqCst,
        );
    }
    if let Ok(path) = std::env::var("FINALIZE_TEST_MARKER") {
        let records = RECORDS_AT_FINALIZE.load(Ordering::SeqCst);
        let _ = std::fs::write(
            path,
            format!("finalizing={fini} active={active} records={records}"),
        );
    }
}

fn configure() {
    sim_test_kit::register_tool(c"finalize-test-tool", tool_init, Some(tool_fini));
}

fn work() {
    let launch = sim_test_kit::tiny_kernel("_Z4slowv", 50_000_000);
    sim::driver::launch_kernel(sim::driver::NULL_STREAM, &launch).unwrap();
}

fn finalize_now() -> (rocprofiler_client_finalize_t, rocprofiler_client_id_t) {
    let (fini, handle) = FINALIZE.lock().unwrap().unwrap();
    let id = rocprofiler_client_id_t {
        size: 24,
        name: std::ptr::null(),
        handle,
    };
    // SAFETY: the finalize function the SDK handed the tool, called with the tool's client id.
    unsafe { fini.unwrap()(id) };
    (fini, id)
}

#[test]
fn client_finalize_stops_drains_and_locks() {
    if !child::in_child("client_finalize_stops_drains_and_locks", &[]) {
        return;
    }
    configure();
    // A 50 ms kernel is still running when the tool asks to finalize.
    work();
    assert_eq!(RECORDS.load(Ordering::SeqCst), 0);
    let (fini, id) = finalize_now();
    assert_eq!(
        FINI_STATUS_AT_COMPLETE.load(Ordering::SeqCst),
        -1,
        "the finalizing status is set before in-flight work drains"
    );
    assert_eq!(FINI_STATUS_IN_FINALIZE.load(Ordering::SeqCst), -1);
    assert_eq!(
        ACTIVE_IN_FINALIZE.load(Ordering::SeqCst),
        0,
        "contexts stopped before finalize"
    );
    assert_eq!(
        STOP_IN_FINALIZE.load(Ordering::SeqCst),
        ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
        "the SDK already stopped the context"
    );
    assert_eq!(
        RECORDS_AT_FINALIZE.load(Ordering::SeqCst),
        0,
        "the SDK flushes nothing before the tool's finalize"
    );
    let mut s = 0;
    // SAFETY: the SDK calls below get live locals to write and plain handles it validates.
    unsafe {
        rocprofiler_is_finalized(&mut s);
        assert_eq!(s, 1);
        let ctx = rocprofiler_context_id_t {
            handle: CONTEXT.load(Ordering::SeqCst),
        };
        assert_eq!(
            rocprofiler_flush_buffer(rocprofiler_buffer_id_t {
                handle: BUFFER.load(Ordering::SeqCst)
            }),
            ROCPROFILER_STATUS_ERROR_FINALIZED
        );
        assert_eq!(
            rocprofiler_start_context(ctx),
            ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED
        );
        assert_eq!(rocprofiler_stop_context(ctx), ROCPROFILER_STATUS_SUCCESS);
        // Finalizing twice is harmless.
        fini.unwrap()(id);
    }
    // Work after finalization produces nothing, and the drained records were never delivered.
    work();
    sim::driver::wait_idle();
    assert_eq!(
        RECORDS.load(Ordering::SeqCst),
        0,
        "the tail below the watermark is lost"
    );
    let counts = sim::record_counts(BUFFER.load(Ordering::SeqCst)).unwrap();
    assert_eq!(
        counts.total_written(),
        2,
        "the in-flight kernel drained into the buffer"
    );
    assert_eq!(counts.delivered, 0);
}

/// M7: a tool that wants the tail flushes in its finalize; a flush during finalization waits.
#[test]
fn a_tool_that_flushes_in_its_finalize_gets_the_tail() {
    if !child::in_child(
        "a_tool_that_flushes_in_its_finalize_gets_the_tail",
        &[("FINALIZE_TEST_FLUSH", "1")],
    ) {
        return;
    }
    configure();
    work();
    finalize_now();
    assert_eq!(
        FLUSH_IN_FINALIZE.load(Ordering::SeqCst),
        ROCPROFILER_STATUS_SUCCESS
    );
    assert_eq!(RECORDS.load(Ordering::SeqCst), 2);
}

#[test]
fn process_exit_finalizes_the_tool() {
    let marker = std::env::temp_dir().join(format!("rocsim-finalize-{}", std::process::id()));
    let marker_str = marker.to_string_lossy().into_owned();
    if child::in_child(
        "process_exit_finalizes_the_tool",
        &[("FINALIZE_TEST_MARKER", &marker_str)],
    ) {
        configure();
        work();
        return; // the atexit handler finalizes
    }
    let text = std::fs::read_to_string(&marker).expect("the tool's finalize ran at exit");
    let _ = std::fs::remove_file(&marker);
    assert_eq!(
        text, "finalizing=-1 active=0 records=0",
        "stopped and drained, nothing flushed, then finalize"
    );
}
