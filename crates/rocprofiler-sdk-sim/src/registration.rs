//! Tool registration and the SDK lifecycle (docs/sdk-facts.md#registration, docs/simulator-fidelity.md#registration-and-lifecycle): `force_configure`, passive discovery
//! of `rocprofiler_configure` when the (simulated) HIP runtime registers, `initialize` on the
//! triggering thread under the registration mutex, and finalization at exit or on request.
use crate::user_ptr::UserPtr;
use crate::SimError;
use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;
use std::cell::Cell;
use std::ffi::{c_char, CStr, CString};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{LazyLock, Once};

/// Version reported to tools and by `rocprofiler_get_version` (docs/simulator-fidelity.md#versions; `sdk_version`).
pub(crate) fn version() -> (u32, u32, u32) {
    let v = crate::machine::machine().sdk_version;
    (v.0, v.1, v.2)
}

static FORCED: AtomicBool = AtomicBool::new(false);
/// Client whose `initialize` is running: contexts created now belong to it.
static INITIALIZING_CLIENT: AtomicU32 = AtomicU32::new(0);
static REGISTRATION_LOCK: Mutex<()> = Mutex::new(());
static CLIENTS: LazyLock<Mutex<Vec<Client>>> = LazyLock::new(|| Mutex::new(Vec::new()));
static AT_EXIT: Once = Once::new();

thread_local! {
    static IN_INITIALIZE: Cell<bool> = const { Cell::new(false) };
}

struct Client {
    handle: u32,
    name: Option<String>,
    finalize: sys::rocprofiler_tool_finalize_t,
    tool_data: UserPtr,
    finalized: bool,
}

use crate::lifecycle::init_status;

pub(crate) fn initializing_client() -> u32 {
    INITIALIZING_CLIENT.load(Ordering::Acquire)
}

/// Names tools gave themselves in `rocprofiler_configure`, by client handle.
pub fn client_names() -> Vec<(u32, Option<String>)> {
    CLIENTS
        .lock()
        .iter()
        .map(|c| (c.handle, c.name.clone()))
        .collect()
}

/// `rocprofiler_force_configure`: configure then initialize synchronously on this thread.
pub(crate) fn force_configure(configure: sys::rocprofiler_configure_func_t) -> u32 {
    let Some(configure) = configure else {
        return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    };
    if IN_INITIALIZE.get() {
        return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    }
    let _registration = REGISTRATION_LOCK.lock();
    // Pre-1.3.0 behaviour: one forced tool, and only before initialization started (docs/sdk-facts.md#tool-start-up).
    if init_status() != 0 || FORCED.load(Ordering::Acquire) {
        return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    }
    FORCED.store(true, Ordering::Release);
    initialize_tools(&[configure]);
    sys::ROCPROFILER_STATUS_SUCCESS
}

/// What the first HIP runtime registration does: if no tool was forced yet, look for
/// `rocprofiler_configure` in the global symbol scope and initialize it.
pub(crate) fn runtime_registration() -> Result<(), SimError> {
    if IN_INITIALIZE.get() {
        // The real SDK deadlocks (documented, docs/sdk-facts.md#tool-start-up); failing loudly is kinder to tests.
        return Err(SimError::CalledFromInitialize);
    }
    if init_status() == 1 {
        return Ok(());
    }
    let _registration = REGISTRATION_LOCK.lock();
    if init_status() == 0 {
        let found = discover_configure();
        initialize_tools(found.as_slice());
    }
    Ok(())
}

fn discover_configure() -> Vec<sys::rocprofiler_configure_t> {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name has no preconditions.
    let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"rocprofiler_configure".as_ptr()) };
    if symbol.is_null() {
        return Vec::new();
    }
    // SAFETY: a tool exporting `rocprofiler_configure` gives it the SDK's signature (docs/sdk-facts.md#registration).
    vec![unsafe { std::mem::transmute::<*mut libc::c_void, sys::rocprofiler_configure_t>(symbol) }]
}

/// Calls every `configure`, then every non-null `initialize` (docs/sdk-facts.md#tool-start-up "Order of calls").
/// Caller holds the registration lock.
fn initialize_tools(configures: &[sys::rocprofiler_configure_t]) {
    crate::lifecycle::set_init(-1);
    let (major, minor, patch) = version();
    let version = 10000 * major + 100 * minor + patch;
    let version_text = CString::new(format!("{major}.{minor}.{patch}")).unwrap_or_default();
    let mut to_initialize = Vec::new();
    for (priority, configure) in configures.iter().enumerate() {
        let handle = CLIENTS.lock().len() as u32 + 1;
        let mut client_id = sys::rocprofiler_client_id_t {
            size: std::mem::size_of::<sys::rocprofiler_client_id_t>(),
            name: std::ptr::null(),
            handle,
        };
        // SAFETY: `configure` is the tool's entry point; `client_id` outlives the call.
        let result = unsafe {
            configure(
                version,
                version_text.as_ptr(),
                priority as u32,
                &mut client_id,
            )
        };
        if result.is_null() {
            continue; // the tool declined
        }
        // SAFETY: a non-null result points to the tool's configure result (docs/sdk-facts.md#registration), which the tool
        // keeps alive at least until initialize and finalize ran.
        let result = unsafe { *result };
        let name = read_name(client_id.name);
        CLIENTS.lock().push(Client {
            handle,
            name,
            finalize: result.finalize,
            tool_data: UserPtr(result.tool_data),
            finalized: false,
        });
        to_initialize.push((handle, result.initialize, UserPtr(result.tool_data)));
    }
    for (handle, initialize, tool_data) in to_initialize {
        let Some(initialize) = initialize else {
            continue;
        };
        INITIALIZING_CLIENT.store(handle, Ordering::Release);
        IN_INITIALIZE.set(true);
        // The return value is ignored, as the develop SDK does (docs/sdk-facts.md#tool-start-up).
        // SAFETY: the tool's initialize, with the finalize function and its own tool data.
        unsafe { initialize(Some(client_finalize), tool_data.0) };
        IN_INITIALIZE.set(false);
        INITIALIZING_CLIENT.store(0, Ordering::Release);
    }
    crate::lifecycle::set_init(1);
    AT_EXIT.call_once(|| {
        // SAFETY: registering a plain extern "C" fn with no captured state.
        unsafe { libc::atexit(finalize_at_exit) };
    });
}

fn read_name(name: *const c_char) -> Option<String> {
    if name.is_null() {
        return None;
    }
    // SAFETY: the tool set `name` to a NUL-terminated string (docs/sdk-facts.md#registration "set by the client").
    Some(
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// The `rocprofiler_client_finalize_t` handed to `initialize`.
unsafe extern "C" fn client_finalize(client_id: sys::rocprofiler_client_id_t) {
    let _ = std::panic::catch_unwind(|| finalize_client(client_id.handle));
}

/// What the SDK does at process exit, now: finalizes every client (drains in-flight work,
/// stops the contexts, calls each tool's `finalize`), after which the SDK is finalized. A
/// runner that must read what a tool kept (`xla-rocm-tracer replay` of a scenario that exits
/// while tracing) calls this instead of exiting; the atexit handler then finds nothing to do.
pub fn finalize_as_at_exit() {
    finalize_at_exit();
}

extern "C" fn finalize_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        let handles: Vec<u32> = CLIENTS.lock().iter().map(|c| c.handle).collect();
        for handle in handles {
            finalize_client(handle);
        }
        crate::lifecycle::set_fini(1);
    });
}

/// The SDK's `registration::finalize` and `invoke_client_finalizer` (docs/sdk-facts.md#tool-start-up, docs/simulator-fidelity.md#registration-and-lifecycle): the
/// finalization status is -1 first; in-flight device work drains while the contexts are still
/// active (its records land in the buffers); the client's contexts are stopped; the tool's
/// finalize runs; then the callback threads finish the deliveries already queued
/// (`internal_threading::finalize`). No buffer is flushed: records below the watermark are
/// lost unless the tool flushes in its finalize (a flush during finalization waits and
/// works).
fn finalize_client(handle: u32) {
    let (finalize, tool_data) = {
        let mut clients = CLIENTS.lock();
        let Some(client) = clients.iter_mut().find(|c| c.handle == handle) else {
            return;
        };
        if client.finalized {
            return;
        }
        client.finalized = true;
        (client.finalize, client.tool_data)
    };
    crate::lifecycle::set_fini(-1);
    crate::worker::wait_idle();
    crate::signal::wait_all();
    crate::registry::stop_client_contexts(handle);
    if let Some(finalize) = finalize {
        // SAFETY: the tool's finalize with the tool data it gave us.
        unsafe { finalize(tool_data.0) };
    }
    crate::buffer::wait_client_deliveries(handle);
    let all_done = CLIENTS.lock().iter().all(|c| c.finalized);
    crate::lifecycle::set_fini(if all_done { 1 } else { 0 });
}
