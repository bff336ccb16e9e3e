//! The test kit of the simulators' suites (`rocprofiler-sdk-sim` and `hip-runtime-sim`):
//! * [`recording`]: a tiny XLA-shaped recording tool most tests observe the SDK with;
//! * [`register_tool`]: the configure boilerplate of a test's own tool (a `'static`
//!   configure result, a `rocprofiler_configure`-shaped function, `force_configure` once per
//!   process);
//! * [`flush`], [`check`], [`tid`], [`kernel`]: small helpers many tests repeated;
//! * [`child`]: re-running one test in a child process with another environment.
//!
//! Each test binary is its own process, so whatever the kit registers is registered once per
//! test binary, as when each file carried its own copy.

pub mod child;
pub mod recording;

pub use rocprofiler_sdk_sim as sim;
pub use rocprofiler_sdk_sys as sys;

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// Asserts a rocprofiler call succeeded.
#[track_caller]
pub fn check(status: sys::rocprofiler_status_t) {
    assert_eq!(status, sys::ROCPROFILER_STATUS_SUCCESS, "status {status}");
}

/// The calling thread's id as the SDK reports it.
pub fn tid() -> u64 {
    let mut t = 0;
    // SAFETY: `t` is a valid out-pointer.
    check(unsafe { sys::rocprofiler_get_thread_id(&mut t) });
    t
}

/// Waits for all device work, then delivers buffer `handle`. Concurrent tests flush too, and
/// the SDK answers a flush during another flush of the same buffer with BUFFER_BUSY: retry.
pub fn flush(handle: u64) {
    sim::driver::wait_idle();
    let buffer = sys::rocprofiler_buffer_id_t { handle };
    loop {
        // SAFETY: plain value call.
        match unsafe { sys::rocprofiler_flush_buffer(buffer) } {
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

/// A tool's `initialize`.
pub type Initialize =
    unsafe extern "C" fn(fini: sys::rocprofiler_client_finalize_t, data: *mut c_void) -> c_int;
/// A tool's `finalize`.
pub type Finalize = unsafe extern "C" fn(data: *mut c_void);

struct Tool {
    name: &'static CStr,
    result: sys::rocprofiler_tool_configure_result_t,
}
// SAFETY: immutable once set; `tool_data` is null.
unsafe impl Sync for Tool {}
// SAFETY: as above.
unsafe impl Send for Tool {}

static TOOL: OnceLock<Tool> = OnceLock::new();
static CONFIGURED: OnceLock<()> = OnceLock::new();

unsafe extern "C" fn configure_tool(
    _version: u32,
    _runtime_version: *const c_char,
    _priority: u32,
    client_id: *mut sys::rocprofiler_client_id_t,
) -> *mut sys::rocprofiler_tool_configure_result_t {
    let tool = TOOL
        .get()
        .expect("register_tool sets the tool before configuring");
    // SAFETY: the SDK passes a valid client id.
    unsafe { (*client_id).name = tool.name.as_ptr() };
    &tool.result as *const _ as *mut _
}

/// Registers the test binary's own tool through `rocprofiler_force_configure`, once per
/// process: the first call configures (and runs `initialize`, synchronously, as the SDK
/// does), later calls wait for that and return. One kit tool per process: a second name
/// panics (a test needing a second client registers it itself).
pub fn register_tool(name: &'static CStr, initialize: Initialize, finalize: Option<Finalize>) {
    let tool = TOOL.get_or_init(|| Tool {
        name,
        result: sys::rocprofiler_tool_configure_result_t {
            size: std::mem::size_of::<sys::rocprofiler_tool_configure_result_t>(),
            initialize: Some(initialize),
            finalize,
            tool_data: std::ptr::null_mut(),
        },
    });
    assert_eq!(tool.name, name, "one kit tool per process");
    // SAFETY: `configure_tool` returns a configure result that lives for the process.
    CONFIGURED
        .get_or_init(|| check(unsafe { sys::rocprofiler_force_configure(Some(configure_tool)) }));
}
