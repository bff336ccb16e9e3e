//! Passive discovery (docs/sdk-facts.md#tool-start-up): with no forced tool, the first HIP runtime call makes the SDK look
//! up `rocprofiler_configure` in the global scope (this executable exports it, see build.rs)
//! and initialize it on the calling thread.
use rocprofiler_sdk_sys::*;
use sim_test_kit::{sim, ConfigureResult};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

static INIT_THREAD: AtomicU64 = AtomicU64::new(0);
static CREATES: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_stream(
    record: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
    if record.operation == ROCPROFILER_HIP_STREAM_CREATE {
        CREATES.fetch_add(1, Ordering::SeqCst);
    }
}

unsafe extern "C" fn tool_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    INIT_THREAD.store(sim_test_kit::tid(), Ordering::SeqCst);
    let stream = [ROCPROFILER_CALLBACK_TRACING_HIP_STREAM];
    let ctx = sim_test_kit::callback_context(&stream, Some(on_stream));
    sim_test_kit::start(ctx);
    0
}

static RESULT: ConfigureResult = ConfigureResult::new(tool_init, None);

/// The tool entry point the SDK finds with `dlsym(RTLD_DEFAULT)`.
///
/// # Safety
/// Called by the SDK with a valid `client_id`.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure(
    _: u32,
    _: *const std::ffi::c_char,
    _: u32,
    id: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    // SAFETY: the SDK passes this tool's client id, valid during configure; the name is static.
    unsafe { (*id).name = c"discovered-tool".as_ptr() };
    RESULT.get()
}

#[test]
fn the_first_hip_call_discovers_and_initializes_the_tool() {
    let mut status = 7;
    // SAFETY: `status` is a live local for the SDK to write.
    unsafe { rocprofiler_is_initialized(&mut status) };
    assert_eq!(
        status, 0,
        "nothing initializes before the runtime registers"
    );
    sim::driver::stream_create().unwrap();
    // SAFETY: as above.
    unsafe { rocprofiler_is_initialized(&mut status) };
    assert_eq!(status, 1);
    assert_eq!(
        INIT_THREAD.load(Ordering::SeqCst),
        sim_test_kit::tid(),
        "initialize runs on the triggering thread"
    );
    assert_eq!(CREATES.load(Ordering::SeqCst), 1);
    assert!(sim::client_names()
        .iter()
        .any(|(_, n)| n.as_deref() == Some("discovered-tool")));
    assert_eq!(
        // SAFETY: this file's configure function, with the SDK's configure signature.
        unsafe { rocprofiler_force_configure(Some(rocprofiler_configure)) },
        ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED
    );
}
