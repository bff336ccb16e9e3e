//! Tool registration and the SDK lifecycle (docs/sdk-facts.md#registration,
//! docs/simulator-fidelity.md#registration-and-lifecycle): `force_configure`, the one pass
//! that collects every client at the first initialization (forced, global scope, loaded
//! libraries, `ROCP_TOOL_LIBRARIES`), the HIP runtime's table reaching the SDK or not, late
//! start from SDK 1.3.0 and late tools with anytime initialization, `initialize` on the
//! triggering thread under the registration mutex, and finalization at exit or on request.
use crate::engine::user_ptr::UserPtr;
use crate::machine::Finalization;
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

/// The configure functions already called, in every pass: the SDK calls each at most once.
static INVOKED: LazyLock<Mutex<Vec<usize>>> = LazyLock::new(|| Mutex::new(Vec::new()));
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

use crate::engine::lifecycle::{init_status, runtime_tables, set_runtime_tables, RuntimeTables};

/// The HIP version the simulated runtime reports with its initialization (7.1.0).
const HIP_VERSION: u64 = 70_100_000;

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

/// Late start (SDK 1.3.0, ROCm/rocm-systems#2168; docs/simulator-fidelity.md, row "Late
/// start"): the first forced tool after HIP started untraced gets HIP's table propagated.
fn late_start() -> bool {
    version() >= (1, 3, 0)
}

/// Anytime initialization (`anytime_initialization`, ROCm/rocm-systems#5348;
/// docs/sdk-facts.md#tool-start-up): a tool forced after initialization is configured and
/// initialized on its own, and the runtimes' tables are propagated again so that it sees
/// their calls.
fn accepts_late_tools() -> bool {
    crate::machine::machine().anytime_initialization
}

/// `rocprofiler_force_configure`: configure then initialize synchronously on this thread.
/// Before initialization this starts it, collecting every other client in the same pass;
/// after it, only an SDK with anytime initialization accepts the tool.
pub(crate) fn force_configure(configure: sys::rocprofiler_configure_func_t) -> u32 {
    let Some(configure) = configure else {
        return sys::ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    };
    if IN_INITIALIZE.get() {
        return sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    }
    let _registration = REGISTRATION_LOCK.lock();
    if init_status() == 0 && !FORCED.load(Ordering::Acquire) {
        FORCED.store(true, Ordering::Release);
        crate::engine::lifecycle::set_init(-1);
        let clients = find_clients(Some(configure));
        initialize_tools(&clients);
        if runtime_tables() == RuntimeTables::Untraced && late_start() {
            propagate_runtime_tables();
        }
        return sys::ROCPROFILER_STATUS_SUCCESS;
    }
    if init_status() == 1 && accepts_late_tools() && !already_invoked(configure) {
        crate::engine::lifecycle::set_init(-1);
        initialize_tools(&[configure]);
        if runtime_tables() != RuntimeTables::NotRegistered {
            propagate_runtime_tables();
        }
        return sys::ROCPROFILER_STATUS_SUCCESS;
    }
    if accepts_late_tools() {
        // ROCm/rocm-systems#11246: the SDK that accepts late tools says why it refused one.
        eprintln!(
            "rocprofiler-sdk-sim: rocprofiler_force_configure: CONFIGURATION_LOCKED (this tool \
             was already configured, or the SDK is finalizing)"
        );
    }
    sys::ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED
}

/// What the first HIP runtime registration does: hand HIP's table to the SDK if a tool is
/// there to take it. With nothing forced yet, the SDK initializes every tool it finds; with
/// no tool anywhere the SDK is never initialized and HIP runs untraced (a tool forced later
/// registers fine and sees nothing, unless the SDK accepts late tools).
pub(crate) fn runtime_registration() -> Result<(), SimError> {
    if IN_INITIALIZE.get() {
        // The real SDK deadlocks (documented, docs/sdk-facts.md#tool-start-up); failing loudly is kinder to tests.
        return Err(SimError::CalledFromInitialize);
    }
    if runtime_tables() != RuntimeTables::NotRegistered {
        return Ok(());
    }
    let _registration = REGISTRATION_LOCK.lock();
    if runtime_tables() != RuntimeTables::NotRegistered {
        return Ok(());
    }
    if init_status() == 0 {
        crate::engine::lifecycle::set_init(-1);
        let clients = find_clients(None);
        if clients.is_empty() {
            crate::engine::lifecycle::set_init(0);
            set_runtime_tables(RuntimeTables::Untraced);
            return Ok(());
        }
        initialize_tools(&clients);
    }
    propagate_runtime_tables();
    Ok(())
}

/// HIP's table reaches the SDK: its calls are intercepted from now on, and every context
/// tracing RUNTIME_INITIALIZATION hears that HIP initialized.
fn propagate_runtime_tables() {
    set_runtime_tables(RuntimeTables::Traced);
    let targets = crate::engine::registry::targets(
        crate::engine::registry::Selector {
            callback_kind: Some(sys::ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION),
            buffer_kind: None,
            request_kind: None,
        },
        &[sys::ROCPROFILER_RUNTIME_INITIALIZATION_HIP],
        sys::ROCPROFILER_RUNTIME_INITIALIZATION_HIP,
    );
    let tid = crate::time::clock::gettid();
    for target in targets {
        let Some(service) = &target.callback else {
            continue;
        };
        let mut payload = sys::rocprofiler_callback_tracing_runtime_initialization_data_t {
            size: std::mem::size_of::<sys::rocprofiler_callback_tracing_runtime_initialization_data_t>(
            ) as u64,
            version: HIP_VERSION,
            instance: 0,
        };
        let mut user_data = 0u64;
        crate::engine::dispatch::invoke(
            service,
            target.context,
            tid,
            sys::rocprofiler_correlation_id_t {
                internal: 0,
                external: sys::rocprofiler_user_data_t { value: 0 },
                ancestor: 0,
            },
            sys::ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION,
            sys::ROCPROFILER_RUNTIME_INITIALIZATION_HIP,
            sys::ROCPROFILER_CALLBACK_PHASE_NONE,
            (&mut payload as *mut sys::rocprofiler_callback_tracing_runtime_initialization_data_t)
                .cast(),
            &mut user_data,
        );
    }
}

fn already_invoked(configure: RawConfigure) -> bool {
    INVOKED.lock().contains(&(configure as usize))
}

type RawConfigure = sys::rocprofiler_configure_t;

/// The SDK's `find_clients`: in one pass, the forced function, `rocprofiler_configure` in the
/// global scope, in every loaded library, and in each library of `ROCP_TOOL_LIBRARIES`
/// (colon-separated, dlopened here, so their constructors run now, with the initialization
/// status -1). One client per distinct function.
fn find_clients(forced: Option<RawConfigure>) -> Vec<RawConfigure> {
    let mut found: Vec<RawConfigure> = Vec::new();
    let mut add = |configure: RawConfigure| {
        if !found.iter().any(|f| *f as usize == configure as usize) && !already_invoked(configure) {
            found.push(configure);
        }
    };
    if let Some(forced) = forced {
        add(forced);
    }
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name has no preconditions.
    if let Some(configure) = unsafe { configure_in(libc::RTLD_DEFAULT) } {
        add(configure);
    }
    for library in loaded_libraries() {
        // SAFETY: RTLD_NOLOAD only returns a handle to a library already loaded.
        let handle = unsafe { libc::dlopen(library.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
        if handle.is_null() {
            continue;
        }
        // SAFETY: `handle` is a live handle from dlopen.
        if let Some(configure) = unsafe { configure_in(handle) } {
            add(configure);
        }
    }
    for library in tool_libraries() {
        // SAFETY: loading a tool library the user named runs its constructors, as the SDK does.
        let handle = unsafe { libc::dlopen(library.as_ptr(), libc::RTLD_GLOBAL | libc::RTLD_LAZY) };
        if handle.is_null() {
            eprintln!("rocprofiler-sdk-sim: ROCP_TOOL_LIBRARIES: cannot load {library:?}");
            continue;
        }
        // SAFETY: `handle` is a live handle from dlopen.
        if let Some(configure) = unsafe { configure_in(handle) } {
            add(configure);
        }
    }
    found
}

/// `rocprofiler_configure` in `handle`'s scope.
///
/// # Safety
/// `handle` is RTLD_DEFAULT or a live handle from dlopen.
unsafe fn configure_in(handle: *mut libc::c_void) -> Option<RawConfigure> {
    // SAFETY: the caller's handle and a NUL-terminated name.
    let symbol = unsafe { libc::dlsym(handle, c"rocprofiler_configure".as_ptr()) };
    if symbol.is_null() {
        return None;
    }
    // SAFETY: a tool exporting `rocprofiler_configure` gives it the SDK's signature (docs/sdk-facts.md#registration).
    Some(unsafe { std::mem::transmute::<*mut libc::c_void, RawConfigure>(symbol) })
}

/// The paths in `ROCP_TOOL_LIBRARIES`, in order.
fn tool_libraries() -> Vec<CString> {
    std::env::var("ROCP_TOOL_LIBRARIES")
        .unwrap_or_default()
        .split(':')
        .filter(|path| !path.is_empty())
        .filter_map(|path| CString::new(path).ok())
        .collect()
}

/// The paths of the libraries in the link map, in load order (the executable excluded).
fn loaded_libraries() -> Vec<CString> {
    unsafe extern "C" fn collect(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: dl_iterate_phdr passes a valid info and our `Vec` back as `data`.
        let (info, names) = unsafe { (&*info, &mut *data.cast::<Vec<CString>>()) };
        if !info.dlpi_name.is_null() {
            // SAFETY: the loader's NUL-terminated path of the object.
            let name = unsafe { CStr::from_ptr(info.dlpi_name) };
            if !name.is_empty() {
                names.push(name.to_owned());
            }
        }
        0
    }
    let mut names: Vec<CString> = Vec::new();
    // SAFETY: `collect` only reads what the loader passes and pushes to `names`, which
    // outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(collect), (&mut names as *mut Vec<CString>).cast()) };
    names
}

/// Calls every `configure`, then every non-null `initialize` (docs/sdk-facts.md#tool-start-up "Order of calls").
/// Caller holds the registration lock and has set the initialization status to -1.
fn initialize_tools(configures: &[sys::rocprofiler_configure_t]) {
    crate::engine::lifecycle::set_init(-1);
    let (major, minor, patch) = version();
    let version = 10000 * major + 100 * minor + patch;
    let version_text = CString::new(format!("{major}.{minor}.{patch}")).unwrap_or_default();
    let mut to_initialize = Vec::new();
    for (priority, configure) in configures.iter().enumerate() {
        if already_invoked(*configure) {
            continue;
        }
        INVOKED.lock().push(*configure as usize);
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
    crate::engine::lifecycle::set_init(1);
    AT_EXIT.call_once(|| {
        // SAFETY: registering a plain extern "C" fn with no captured state.
        unsafe { libc::atexit(finalize_at_exit) };
        if crate::machine::machine().finalization == Finalization::WorkerThread {
            crate::engine::abort_flush::install(crate::engine::buffer::flush_all);
        }
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

/// The SDK's exit handler: finalizes every client on the exiting thread, or, with
/// `finalization = "worker-thread"` (10.1), on a thread of its own that it waits for.
extern "C" fn finalize_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if crate::machine::machine().finalization == Finalization::WorkerThread {
            let worker = std::thread::Builder::new()
                .name("rocprofiler-finalize".to_owned())
                .spawn(finalize_every_client);
            match worker {
                Ok(worker) => {
                    let _ = worker.join();
                }
                Err(_) => finalize_every_client(),
            }
        } else {
            finalize_every_client();
        }
    });
}

fn finalize_every_client() {
    let _ = std::panic::catch_unwind(|| {
        let handles: Vec<u32> = CLIENTS.lock().iter().map(|c| c.handle).collect();
        for handle in handles {
            finalize_client(handle);
        }
        crate::engine::lifecycle::set_fini(1);
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
    crate::engine::lifecycle::set_fini(-1);
    crate::hip::worker::wait_idle();
    crate::engine::signal::wait_all();
    crate::engine::registry::stop_client_contexts(handle);
    if let Some(finalize) = finalize {
        // SAFETY: the tool's finalize with the tool data it gave us.
        unsafe { finalize(tool_data.0) };
    }
    crate::engine::buffer::wait_client_deliveries(handle);
    let all_done = CLIENTS.lock().iter().all(|c| c.finalized);
    crate::engine::lifecycle::set_fini(if all_done { 1 } else { 0 });
}
