//! Several tools in one process, as the SDK's `find_clients` collects them
//! (docs/sdk-facts.md#tool-start-up): the forced tool and every other one it can find are
//! configured in the same pass, each with its own client id and contexts; a second forced
//! tool is refused without anytime initialization (ROCm 7.0 to 10.0) and accepted with it (10.1). This test
//! binary exports `rocprofiler_configure` (build.rs), so the SDK finds it in the global scope.
//! Each test runs in its own child process: registration happens once per process.
use rocprofiler_sdk_sys::*;
use sim_test_kit::{child, sim, ConfigureResult};
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

static FORCED_CREATES: AtomicUsize = AtomicUsize::new(0);
static DISCOVERED_CREATES: AtomicUsize = AtomicUsize::new(0);
static LATE_CREATES: AtomicUsize = AtomicUsize::new(0);

fn count_creates(record: &rocprofiler_callback_tracing_record_t, counter: &AtomicUsize) {
    if record.operation == ROCPROFILER_HIP_STREAM_CREATE {
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

unsafe extern "C" fn forced_stream(
    record: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
    count_creates(&record, &FORCED_CREATES);
}

unsafe extern "C" fn discovered_stream(
    record: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
    count_creates(&record, &DISCOVERED_CREATES);
}

unsafe extern "C" fn late_stream(
    record: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
    count_creates(&record, &LATE_CREATES);
}

fn stream_tool(callback: rocprofiler_callback_tracing_cb_t) {
    let ctx = sim_test_kit::callback_context(&[ROCPROFILER_CALLBACK_TRACING_HIP_STREAM], callback);
    sim_test_kit::start(ctx);
}

unsafe extern "C" fn forced_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    stream_tool(Some(forced_stream));
    0
}
unsafe extern "C" fn discovered_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    stream_tool(Some(discovered_stream));
    0
}
unsafe extern "C" fn late_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    stream_tool(Some(late_stream));
    0
}

static FORCED: ConfigureResult = ConfigureResult::new(forced_init, None);
static DISCOVERED: ConfigureResult = ConfigureResult::new(discovered_init, None);
static LATE: ConfigureResult = ConfigureResult::new(late_init, None);

unsafe extern "C" fn configure_forced(
    _: u32,
    _: *const c_char,
    _: u32,
    id: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    // SAFETY: the SDK passes this tool's client id, valid during configure; the name is static.
    unsafe { (*id).name = c"forced-tool".as_ptr() };
    FORCED.get()
}

unsafe extern "C" fn configure_late(
    _: u32,
    _: *const c_char,
    _: u32,
    id: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    // SAFETY: as above.
    unsafe { (*id).name = c"late-tool".as_ptr() };
    LATE.get()
}

/// The tool the SDK finds with `dlsym(RTLD_DEFAULT)`.
///
/// # Safety
/// Called by the SDK with a valid `client_id`.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure(
    _: u32,
    _: *const c_char,
    _: u32,
    id: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    // SAFETY: as above.
    unsafe { (*id).name = c"discovered-tool".as_ptr() };
    DISCOVERED.get()
}

fn force(configure: rocprofiler_configure_func_t) -> rocprofiler_status_t {
    // SAFETY: the configure functions of this file have the SDK's signature.
    unsafe { rocprofiler_force_configure(configure) }
}

fn handle_of(name: &str) -> u32 {
    sim::client_names()
        .iter()
        .find(|(_, n)| n.as_deref() == Some(name))
        .map(|(handle, _)| *handle)
        .unwrap_or_else(|| panic!("{name} is a client: {:?}", sim::client_names()))
}

const ANYTIME: (&str, &str) = ("ROCSIM_MACHINE", "rocm = \"10.1\"");

#[test]
fn the_forced_tool_and_a_discovered_one_are_both_configured_in_one_pass() {
    const NAME: &str = "the_forced_tool_and_a_discovered_one_are_both_configured_in_one_pass";
    if !child::is_child(NAME) {
        child::assert_passed(NAME, &child::rerun(NAME, &[]));
        return;
    }
    assert_eq!(force(Some(configure_forced)), ROCPROFILER_STATUS_SUCCESS);
    assert_ne!(handle_of("forced-tool"), handle_of("discovered-tool"));
    sim::driver::stream_create().unwrap();
    assert_eq!(FORCED_CREATES.load(Ordering::SeqCst), 1);
    assert_eq!(
        DISCOVERED_CREATES.load(Ordering::SeqCst),
        1,
        "each tool its own contexts"
    );
}

#[test]
fn a_second_forced_tool_is_refused_without_anytime_initialization() {
    const NAME: &str = "a_second_forced_tool_is_refused_without_anytime_initialization";
    if !child::is_child(NAME) {
        // 7.14 and 10.0 included: #5348 merged after their branches were cut.
        for rocm in ["7.1", "7.14", "10.0"] {
            let machine = format!("rocm = \"{rocm}\"");
            child::assert_passed(NAME, &child::rerun(NAME, &[("ROCSIM_MACHINE", &machine)]));
        }
        return;
    }
    assert_eq!(force(Some(configure_forced)), ROCPROFILER_STATUS_SUCCESS);
    assert_eq!(
        force(Some(configure_late)),
        ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED
    );
    sim::driver::stream_create().unwrap();
    assert_eq!(LATE_CREATES.load(Ordering::SeqCst), 0);
    assert!(!sim::client_names()
        .iter()
        .any(|(_, n)| n.as_deref() == Some("late-tool")));
}

#[test]
fn a_second_forced_tool_is_accepted_with_anytime_initialization() {
    const NAME: &str = "a_second_forced_tool_is_accepted_with_anytime_initialization";
    if !child::is_child(NAME) {
        child::assert_passed(NAME, &child::rerun(NAME, &[ANYTIME]));
        return;
    }
    assert_eq!(force(Some(configure_forced)), ROCPROFILER_STATUS_SUCCESS);
    sim::driver::stream_create().unwrap();
    assert_eq!(force(Some(configure_late)), ROCPROFILER_STATUS_SUCCESS);
    assert_eq!(
        force(Some(configure_late)),
        ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
        "configured once"
    );
    sim::driver::stream_create().unwrap();
    assert_eq!(FORCED_CREATES.load(Ordering::SeqCst), 2);
    assert_eq!(LATE_CREATES.load(Ordering::SeqCst), 1);
    assert_eq!(DISCOVERED_CREATES.load(Ordering::SeqCst), 2);
}
