//! HIP initialized before any tool registered (docs/sdk-facts.md#tool-start-up): with no tool
//! to find (this binary exports no `rocprofiler_configure`), HIP's table never reaches the
//! SDK. A tool forced afterwards registers fine and never sees a HIP call or device work, and
//! hears no RUNTIME_INITIALIZATION of HIP; from SDK 1.3.0 (late start, ROCm/rocm-systems#2168)
//! the SDK propagates the table again for it, and it sees both. Each case in its own child process.
use rocprofiler_sdk_sys::*;
use sim_test_kit::{child, sim, ConfigureResult};
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

static CREATES: AtomicUsize = AtomicUsize::new(0);
static LAUNCHES: AtomicUsize = AtomicUsize::new(0);
static HIP_INITIALIZED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_record(
    record: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
    let counter = match record.kind {
        ROCPROFILER_CALLBACK_TRACING_HIP_STREAM
            if record.operation == ROCPROFILER_HIP_STREAM_CREATE =>
        {
            &CREATES
        }
        ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH
            if record.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE =>
        {
            &LAUNCHES
        }
        ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION
            if record.operation == ROCPROFILER_RUNTIME_INITIALIZATION_HIP =>
        {
            &HIP_INITIALIZED
        }
        _ => return,
    };
    counter.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn tool_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    let ctx = sim_test_kit::callback_context(
        &[
            ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
            ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
            ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION,
        ],
        Some(on_record),
    );
    sim_test_kit::start(ctx);
    0
}

static RESULT: ConfigureResult = ConfigureResult::new(tool_init, None);

unsafe extern "C" fn configure(
    _: u32,
    _: *const c_char,
    _: u32,
    _: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    RESULT.get()
}

fn init_status() -> c_int {
    let mut status = 7;
    // SAFETY: `status` is a live local for the SDK to write.
    unsafe { rocprofiler_is_initialized(&mut status) };
    status
}

/// HIP first, then the tool; returns what the tool saw of a stream and a launch after: stream
/// creations, whether any kernel-dispatch callback came, HIP initializations.
fn hip_then_tool() -> (usize, bool, usize) {
    let stream = sim::driver::stream_create().unwrap();
    assert_eq!(init_status(), 0, "no tool: the SDK was never initialized");
    // SAFETY: `configure` has the SDK's signature.
    let status = unsafe { rocprofiler_force_configure(Some(configure)) };
    assert_eq!(
        status, ROCPROFILER_STATUS_SUCCESS,
        "the tool registers fine"
    );
    assert_eq!(init_status(), 1);
    sim::driver::stream_create().unwrap();
    sim::driver::launch_kernel(stream, &sim_test_kit::tiny_kernel("k", 1_000)).unwrap();
    sim::driver::stream_synchronize(stream).unwrap();
    (
        CREATES.load(Ordering::SeqCst),
        LAUNCHES.load(Ordering::SeqCst) > 0,
        HIP_INITIALIZED.load(Ordering::SeqCst),
    )
}

#[test]
fn a_tool_registered_after_hip_sees_nothing_before_sdk_1_3_0() {
    const NAME: &str = "a_tool_registered_after_hip_sees_nothing_before_sdk_1_3_0";
    if !child::is_child(NAME) {
        child::assert_passed(NAME, &child::rerun(NAME, &[]));
        return;
    }
    assert_eq!(hip_then_tool(), (0, false, 0));
}

#[test]
fn a_tool_registered_after_hip_sees_later_calls_from_sdk_1_3_0() {
    const NAME: &str = "a_tool_registered_after_hip_sees_later_calls_from_sdk_1_3_0";
    if !child::is_child(NAME) {
        child::assert_passed(
            NAME,
            &child::rerun(NAME, &[("ROCSIM_MACHINE", "rocm = \"7.14\"")]),
        );
        return;
    }
    assert_eq!(hip_then_tool(), (1, true, 1));
}

/// 7.13 ships SDK 1.3.0, the first with late start (its CHANGELOG entry); 7.14's 1.3.2 adds
/// only the second forced tool.
#[test]
fn late_start_comes_with_rocm_7_13() {
    const NAME: &str = "late_start_comes_with_rocm_7_13";
    if !child::is_child(NAME) {
        child::assert_passed(
            NAME,
            &child::rerun(NAME, &[("ROCSIM_MACHINE", "rocm = \"7.13\"")]),
        );
        return;
    }
    assert_eq!(hip_then_tool(), (1, true, 1));
}
