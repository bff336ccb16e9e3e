//! The test kit of the simulators' suites (`rocprofiler-sdk-sim` and `hip-runtime-sim`):
//! * [`recording`]: a tiny XLA-shaped recording tool most tests observe the SDK with;
//! * [`register_tool`]: a test's own tool registered through `force_configure` once per
//!   process ([`ConfigureResult`] for a tool that must bring its own `rocprofiler_configure`);
//! * [`SDK`]: the SDK's linked functions in `sdk_recorder`'s table, which the probe fills with
//!   `dlsym`'d ones: the kit and the probe set up and read through the same code;
//! * set-up inside `initialize`: [`context`], [`callback_context`], [`trace_callbacks`],
//!   [`lossless_buffer`], [`trace_buffer`], [`start`], [`agents`];
//! * small helpers many tests repeated: [`check`], [`tid`], [`flush`], [`kernel`],
//!   [`kernel_on`], [`tiny_kernel`], [`copy`], [`arg_texts`],
//!   [`push_external`], [`pop_external`];
//! * [`child`]: re-running one test in a child process with another environment, or to watch
//!   it abort; every wait for a child has a time limit (120 s, or
//!   `SIM_TEST_KIT_CHILD_TIME_LIMIT_SECS`), after which the child is killed and its test fails.
//!
//! Each test binary is its own process, so whatever the kit registers is registered once per
//! test binary, as when each file carried its own copy.

pub mod child;
pub mod recording;

pub use rocprofiler_sdk_sim as sim;
pub use rocprofiler_sdk_sys as sys;
pub use sdk_recorder::{self, ConfigureResult, Finalize, Initialize, Sdk};

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// The SDK's functions as linked into the test binary (the simulated library), in the table
/// the probe fills with `dlsym`: the kit and the probe set up their tools through the same calls.
pub static SDK: Sdk = Sdk {
    get_version: sys::rocprofiler_get_version,
    force_configure: sys::rocprofiler_force_configure,
    create_context: sys::rocprofiler_create_context,
    start_context: sys::rocprofiler_start_context,
    stop_context: sys::rocprofiler_stop_context,
    create_buffer: sys::rocprofiler_create_buffer,
    flush_buffer: sys::rocprofiler_flush_buffer,
    configure_buffer_tracing: sys::rocprofiler_configure_buffer_tracing_service,
    configure_callback_tracing: sys::rocprofiler_configure_callback_tracing_service,
    configure_external_correlation:
        sys::rocprofiler_configure_external_correlation_id_request_service,
    query_available_agents: sys::rocprofiler_query_available_agents,
    callback_operation_name: sys::rocprofiler_query_callback_tracing_kind_operation_name,
    buffer_operation_name: sys::rocprofiler_query_buffer_tracing_kind_operation_name,
    status_name: sys::rocprofiler_get_status_name,
    get_thread_id: sys::rocprofiler_get_thread_id,
    push_external_correlation_id: sys::rocprofiler_push_external_correlation_id,
    pop_external_correlation_id: sys::rocprofiler_pop_external_correlation_id,
    sim_host_sleep_ns: Some(sim::capi::rocsim_host_sleep_ns),
};

/// Asserts a rocprofiler call succeeded.
#[track_caller]
pub fn check(status: sys::rocprofiler_status_t) {
    assert_eq!(status, sys::ROCPROFILER_STATUS_SUCCESS, "status {status}");
}

/// The value of a rocprofiler call, asserting it succeeded.
#[track_caller]
pub fn checked<T>(result: Result<T, sys::rocprofiler_status_t>) -> T {
    result.unwrap_or_else(|status| panic!("status {status}"))
}

/// The calling thread's id as the SDK reports it.
pub fn tid() -> u64 {
    checked(SDK.thread_id())
}

/// Waits for all device work, then delivers buffer `handle`. Concurrent tests flush too, and
/// the SDK answers a flush during another flush of the same buffer with BUFFER_BUSY: retry.
pub fn flush(handle: u64) {
    sim::driver::wait_idle();
    let buffer = sys::rocprofiler_buffer_id_t { handle };
    loop {
        match SDK.flush(buffer) {
            sys::ROCPROFILER_STATUS_ERROR_BUFFER_BUSY => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
            status => return check(status),
        }
    }
}

/// A launch of a kernel named `name`, loaded in its own code object on the current device:
/// 1024 work-items in blocks of 256, 20 µs. Tests wanting other numbers override fields
/// (`KernelLaunch { duration_ns: 1_000, ..kernel(name) }`).
pub fn kernel(name: &str) -> sim::driver::KernelLaunch {
    kernel_on(sim::driver::current_device(), name)
}

/// As [`kernel`], loaded on HIP device `device`.
pub fn kernel_on(device: u32, name: &str) -> sim::driver::KernelLaunch {
    let (_, ids) = sim::driver::load_code_object(device, &[name]).unwrap();
    sim::driver::KernelLaunch {
        kernel: ids[0],
        grid: [1024, 1, 1],
        block: [256, 1, 1],
        private_segment_size: 0,
        group_segment_size: 0,
        duration_ns: 20_000,
    }
}

static REGISTERED: OnceLock<()> = OnceLock::new();

/// The client handle the SDK gave the tool [`register_tool`] registered (0 before).
pub fn client_handle() -> u32 {
    sdk_recorder::configured().map_or(0, |c| c.handle)
}

/// Registers the test binary's own tool through `rocprofiler_force_configure`, once per
/// process (as the probe registers its own, `sdk_recorder::register`): the first call
/// configures (and runs `initialize`, synchronously, as the SDK does), later calls wait for
/// that and return. One kit tool per process: a second name fails (a test needing a second
/// client registers it itself).
pub fn register_tool(name: &'static CStr, initialize: Initialize, finalize: Option<Finalize>) {
    REGISTERED.get_or_init(|| check(sdk_recorder::register(&SDK, name, initialize, finalize)));
    assert_eq!(
        sdk_recorder::registered_name(),
        Some(name),
        "one kit tool per process"
    );
}

/// A one-block launch of a kernel named `name` on HIP device 0: 64 work-items, `duration_ns`.
pub fn tiny_kernel(name: &str, duration_ns: u64) -> sim::driver::KernelLaunch {
    sim::driver::KernelLaunch {
        grid: [64, 1, 1],
        block: [64, 1, 1],
        duration_ns,
        ..kernel_on(0, name)
    }
}

/// A new context (in a tool's `initialize`).
pub fn context() -> sys::rocprofiler_context_id_t {
    checked(SDK.create_context())
}

/// A new context that callback-traces every operation of each of `kinds` with `callback`.
pub fn callback_context(
    kinds: &[sys::rocprofiler_callback_tracing_kind_t],
    callback: sys::rocprofiler_callback_tracing_cb_t,
) -> sys::rocprofiler_context_id_t {
    let ctx = context();
    trace_callbacks(ctx, kinds, callback);
    ctx
}

/// Callback-traces every operation of each of `kinds` in `ctx` with `callback` (null data).
pub fn trace_callbacks(
    ctx: sys::rocprofiler_context_id_t,
    kinds: &[sys::rocprofiler_callback_tracing_kind_t],
    callback: sys::rocprofiler_callback_tracing_cb_t,
) {
    for &kind in kinds {
        check(SDK.trace_callbacks(ctx, kind, callback));
    }
}

/// A LOSSLESS buffer of `size` bytes with `watermark` in `ctx`, delivered to `callback`
/// (null data).
pub fn lossless_buffer(
    ctx: sys::rocprofiler_context_id_t,
    size: usize,
    watermark: usize,
    callback: sys::rocprofiler_buffer_tracing_cb_t,
) -> sys::rocprofiler_buffer_id_t {
    checked(SDK.lossless_buffer(ctx, size, watermark, callback))
}

/// Buffer-traces every operation of each of `kinds` in `ctx` into `buffer`.
pub fn trace_buffer(
    ctx: sys::rocprofiler_context_id_t,
    kinds: &[sys::rocprofiler_buffer_tracing_kind_t],
    buffer: sys::rocprofiler_buffer_id_t,
) {
    for &kind in kinds {
        check(SDK.trace_buffer(ctx, kind, buffer));
    }
}

/// Starts `ctx`.
pub fn start(ctx: sys::rocprofiler_context_id_t) {
    check(SDK.start(ctx));
}

/// (name, value text) of each argument of a HIP API callback record, through
/// `rocprofiler_iterate_callback_tracing_kind_operation_args` (dereferencing once).
///
/// # Safety
/// `record` is a callback record the SDK passed, read during the callback.
pub unsafe fn arg_texts(
    record: sys::rocprofiler_callback_tracing_record_t,
) -> Vec<(String, String)> {
    #[allow(clippy::too_many_arguments)]
    unsafe extern "C" fn on_arg(
        _kind: sys::rocprofiler_callback_tracing_kind_t,
        _operation: sys::rocprofiler_tracing_operation_t,
        _arg_number: u32,
        _arg_value_addr: *const c_void,
        _arg_indirection_count: i32,
        _arg_type: *const c_char,
        arg_name: *const c_char,
        arg_value_str: *const c_char,
        _arg_dereference_count: i32,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: `data` is the vector below; the SDK passes C strings.
        unsafe {
            let out = &mut *data.cast::<Vec<(String, String)>>();
            out.push((
                CStr::from_ptr(arg_name).to_string_lossy().into_owned(),
                CStr::from_ptr(arg_value_str).to_string_lossy().into_owned(),
            ));
        }
        0
    }
    let mut args: Vec<(String, String)> = Vec::new();
    // SAFETY: caller contract; `args` outlives the call.
    unsafe {
        sys::rocprofiler_iterate_callback_tracing_kind_operation_args(
            record,
            Some(on_arg),
            1,
            (&mut args as *mut Vec<(String, String)>).cast(),
        )
    };
    args
}

/// A copy between the default devices of its two sides.
pub fn copy(kind: sim::driver::CopyKind, bytes: u64, duration_ns: u64) -> sim::driver::Copy {
    sim::driver::Copy {
        kind,
        bytes,
        src_device: None,
        dst_device: None,
        duration_ns,
    }
}

/// The agents `rocprofiler_query_available_agents` lists (version 0), copied out.
pub fn agents() -> Vec<sys::rocprofiler_agent_v0_t> {
    // A ROCm 7.0 machine has the shorter agent struct and refuses the 7.1 size.
    checked(SDK.agents(sim::machine::machine().agent_struct_size()))
}

/// Pushes external correlation `value` for thread `tid` in context `ctx`, asserting success.
pub fn push_external(ctx: u64, tid: u64, value: u64) {
    check(SDK.push_external(sys::rocprofiler_context_id_t { handle: ctx }, tid, value));
}

/// Pops thread `tid`'s external correlation in context `ctx`, asserting success.
pub fn pop_external(ctx: u64, tid: u64) {
    check(SDK.pop_external(sys::rocprofiler_context_id_t { handle: ctx }, tid));
}
