//! Registering a recording tool as an SDK client through `rocprofiler_force_configure`, once
//! per process: the configure function names the client and writes down what the SDK passed it.

use crate::Sdk;
use rocprofiler_sdk_sys as sys;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// A tool's `initialize`.
pub type Initialize =
    unsafe extern "C" fn(fini: sys::rocprofiler_client_finalize_t, data: *mut c_void) -> c_int;
/// A tool's `finalize`.
pub type Finalize = unsafe extern "C" fn(data: *mut c_void);

/// A configure result in a `static`: what `rocprofiler_configure` returns, for [`register`] and
/// for a test whose tool the SDK must find by itself (an exported `rocprofiler_configure`).
pub struct ConfigureResult(sys::rocprofiler_tool_configure_result_t);
// SAFETY: immutable; `tool_data` is null.
unsafe impl Sync for ConfigureResult {}
// SAFETY: as above.
unsafe impl Send for ConfigureResult {}

impl ConfigureResult {
    pub const fn new(initialize: Initialize, finalize: Option<Finalize>) -> Self {
        ConfigureResult(sys::rocprofiler_tool_configure_result_t {
            size: std::mem::size_of::<sys::rocprofiler_tool_configure_result_t>(),
            initialize: Some(initialize),
            finalize,
            tool_data: std::ptr::null_mut(),
        })
    }

    /// What `rocprofiler_configure` returns (the SDK only reads it).
    pub fn get(&'static self) -> *mut sys::rocprofiler_tool_configure_result_t {
        &self.0 as *const _ as *mut _
    }
}

/// What the SDK passed the configure function.
#[derive(Clone, Debug)]
pub struct Configured {
    /// `rocprofiler_configure`'s version argument.
    pub version: u32,
    /// Its runtime version string.
    pub runtime_version: String,
    /// The client handle the SDK gave the tool.
    pub handle: u32,
}

struct Client {
    name: &'static CStr,
    result: ConfigureResult,
}

static CLIENT: OnceLock<Client> = OnceLock::new();
static CONFIGURED: OnceLock<Configured> = OnceLock::new();

unsafe extern "C" fn configure(
    version: u32,
    runtime_version: *const c_char,
    _priority: u32,
    client_id: *mut sys::rocprofiler_client_id_t,
) -> *mut sys::rocprofiler_tool_configure_result_t {
    // `register` sets the client before configuring; without one, decline (no panic may cross
    // this C boundary).
    let Some(client) = CLIENT.get() else {
        return std::ptr::null_mut();
    };
    let runtime_version = if runtime_version.is_null() {
        String::new()
    } else {
        // SAFETY: the SDK passes a C string.
        unsafe { CStr::from_ptr(runtime_version) }
            .to_string_lossy()
            .into_owned()
    };
    let mut handle = 0;
    if !client_id.is_null() {
        // SAFETY: the SDK passes a writable client id; the name is a static C string.
        unsafe {
            (*client_id).name = client.name.as_ptr();
            handle = (*client_id).handle;
        }
    }
    let _ = CONFIGURED.set(Configured {
        version,
        runtime_version,
        handle,
    });
    client.result.get()
}

/// Registers the tool `name` with `rocprofiler_force_configure` (which configures, and runs
/// `initialize`, before it returns); returns the SDK's status. One tool per process: a later
/// call with another name is refused with INVALID_ARGUMENT and configures nothing.
pub fn register(
    sdk: &Sdk,
    name: &'static CStr,
    initialize: Initialize,
    finalize: Option<Finalize>,
) -> sys::rocprofiler_status_t {
    let client = CLIENT.get_or_init(|| Client {
        name,
        result: ConfigureResult::new(initialize, finalize),
    });
    if client.name != name {
        return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: `sdk` holds the SDK's functions (see `Sdk`); `configure` has the SDK's configure
    // type and returns a result that lives for the process.
    unsafe { (sdk.force_configure)(Some(configure)) }
}

/// The name of the tool [`register`] registered (the first one).
pub fn registered_name() -> Option<&'static CStr> {
    CLIENT.get().map(|c| c.name)
}

/// What the SDK passed the configure function, once it was called.
pub fn configured() -> Option<&'static Configured> {
    CONFIGURED.get()
}
