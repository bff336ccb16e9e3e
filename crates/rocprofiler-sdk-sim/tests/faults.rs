//! Fault injection: through the Rust API after startup, and through ROCSIM_FAULTS read at
//! startup (in a child process).
use rocprofiler_sdk_sys::*;
use sim_test_kit::{child, sim};
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

#[test]
fn injected_statuses_are_returned_always_or_on_the_nth_call() {
    let mut t = 0;
    // SAFETY: `t` is a live local the SDK calls below write to; the strings are static.
    unsafe {
        assert_eq!(rocprofiler_get_timestamp(&mut t), 0);
        sim::faults::inject(
            "rocprofiler_get_timestamp",
            ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE,
            None,
        );
        assert_eq!(
            rocprofiler_get_timestamp(&mut t),
            ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE
        );
        assert_eq!(
            rocprofiler_get_timestamp(&mut t),
            ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE
        );
        sim::faults::clear();
        assert_eq!(rocprofiler_get_timestamp(&mut t), 0);
        let next = sim::faults::call_count("rocprofiler_get_thread_id") + 2;
        sim::faults::inject("rocprofiler_get_thread_id", 37, Some(next));
        assert_eq!(rocprofiler_get_thread_id(&mut t), 0);
        assert_eq!(rocprofiler_get_thread_id(&mut t), 37);
        assert_eq!(rocprofiler_get_thread_id(&mut t), 0);
        sim::faults::clear();
    }
}

static SEEN: Mutex<Vec<u32>> = Mutex::new(Vec::new());

unsafe extern "C" fn noop_buffer(
    _: rocprofiler_context_id_t,
    _: rocprofiler_buffer_id_t,
    _: *mut *mut rocprofiler_record_header_t,
    _: usize,
    _: *mut c_void,
    _: u64,
) {
}

unsafe extern "C" fn tool_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    let mut ctx = rocprofiler_context_id_t { handle: 0 };
    let mut seen = SEEN.lock().unwrap();
    // SAFETY: `ctx` is a live local for the SDK to write.
    seen.push(unsafe { rocprofiler_create_context(&mut ctx) });
    let mut buffer = rocprofiler_buffer_id_t { handle: 0 };
    // SAFETY: `buffer` is a live local for the SDK to write; no callback data.
    seen.push(unsafe {
        rocprofiler_create_buffer(
            ctx,
            4096,
            0,
            ROCPROFILER_BUFFER_POLICY_LOSSLESS,
            Some(noop_buffer),
            std::ptr::null_mut(),
            &mut buffer,
        )
    });
    // SAFETY: plain calls with a context handle (the SDK validates it).
    seen.push(unsafe { rocprofiler_start_context(ctx) });
    // SAFETY: as above.
    seen.push(unsafe { rocprofiler_start_context(ctx) });
    0
}

#[test]
fn rocsim_faults_env_fails_the_named_calls() {
    let spec = "rocprofiler_create_buffer=29, rocprofiler_start_context@1=16";
    if !child::in_child(
        "rocsim_faults_env_fails_the_named_calls",
        &[("ROCSIM_FAULTS", spec)],
    ) {
        return;
    }
    sim_test_kit::register_tool(c"faults-test-tool", tool_init, None);
    assert_eq!(
        *SEEN.lock().unwrap(),
        vec![
            0,
            ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES,
            ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
            0
        ]
    );
}

#[test]
fn a_malformed_rocsim_faults_is_ignored() {
    if !child::in_child(
        "a_malformed_rocsim_faults_is_ignored",
        &[("ROCSIM_FAULTS", "nonsense,=,x@y=z")],
    ) {
        return;
    }
    let mut t = 0;
    // SAFETY: `t` is a live local for the SDK to write.
    assert_eq!(unsafe { rocprofiler_get_timestamp(&mut t) }, 0);
}
