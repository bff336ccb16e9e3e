//! Tool registration with rocprofiler-sdk, like XLA's (docs/xla-interface.md#tool-registration;
//! docs/sdk-facts.md#registration): the exported `rocprofiler_configure` entry point, a load-time
//! constructor that forces configuration, and [`ensure_registered`] for when that constructor
//! did not run (a constructor in an rlib or staticlib is dropped by the linker when nothing
//! references its object file, so `Tracer::get()` calls this explicitly).
use std::cell::UnsafeCell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use rocprofiler_sdk_sys as sys;

use crate::tracer::sdk::calls as sdk;
use crate::tracer::sdk::tool_libraries;
use crate::tracer::{instance, Tracer, TracerError};

/// The name XLA registers under.
pub const CLIENT_NAME: &CStr = c"XLA-with-rocprofiler-sdk";

/// How long [`ensure_registered`] waits for an initialization another thread has started.
const INITIALIZATION_WAIT: Duration = Duration::from_secs(10);

static CONFIGURE_CALLED: AtomicBool = AtomicBool::new(false);
static CLIENT_HANDLE: AtomicU32 = AtomicU32::new(0);

/// The configure result handed to the SDK. The SDK only reads it, but takes it as `*mut`, so
/// it lives in an `UnsafeCell`; its `tool_data` pointer is null.
struct ConfigureResult(UnsafeCell<sys::rocprofiler_tool_configure_result_t>);

// SAFETY: never mutated by Rust; the SDK reads it (from any thread) after configure returns.
unsafe impl Sync for ConfigureResult {}

static CONFIGURE_RESULT: ConfigureResult =
    ConfigureResult(UnsafeCell::new(sys::rocprofiler_tool_configure_result_t {
        size: std::mem::size_of::<sys::rocprofiler_tool_configure_result_t>(),
        initialize: Some(tool_initialize),
        finalize: Some(tool_finalize),
        tool_data: std::ptr::null_mut(),
    }));

/// The tool entry point the SDK calls (through `rocprofiler_force_configure` or its own
/// symbol lookup). Names the client and returns the initialize/finalize pair; a second call
/// returns null, i.e. declines.
///
/// # Safety
/// `client_id` is null or points to the SDK's writable client id record.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_configure(
    _version: u32,
    _runtime_version: *const c_char,
    _priority: u32,
    client_id: *mut sys::rocprofiler_client_id_t,
) -> *mut sys::rocprofiler_tool_configure_result_t {
    // Panic-free: atomics and a checked pointer write.
    if CONFIGURE_CALLED.swap(true, Ordering::AcqRel) {
        return std::ptr::null_mut();
    }
    if !client_id.is_null() {
        // SAFETY: non-null and writable per the SDK contract; CLIENT_NAME is 'static.
        unsafe {
            (*client_id).name = CLIENT_NAME.as_ptr();
            CLIENT_HANDLE.store((*client_id).handle, Ordering::Relaxed);
        }
    }
    CONFIGURE_RESULT.0.get()
}

unsafe extern "C" fn tool_initialize(
    _finalize: sys::rocprofiler_client_finalize_t,
    _tool_data: *mut c_void,
) -> c_int {
    std::panic::catch_unwind(|| {
        let code = instance().initialize_from_tool();
        if code == 0 {
            run_hook(|hooks| hooks.after_initialize);
        }
        code
    })
    .unwrap_or(-1)
}

unsafe extern "C" fn tool_finalize(_tool_data: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        run_hook(|hooks| hooks.before_finalize);
        instance().finalize()
    });
}

/// What the tool library (`crates/xla-rocm-tracer-tool`) runs around the SDK's calls into
/// this tool: its whole-process capture starts once the tracer is set up and ends while the
/// SDK finalizes, before the tracer stops (docs/tool-library.md).
#[derive(Clone, Copy)]
pub struct ToolLibraryHooks {
    /// After a successful `initialize` (or at once, if that already happened).
    pub after_initialize: fn(),
    /// At the start of the tool's `finalize`.
    pub before_finalize: fn(),
}

static HOOKS: std::sync::OnceLock<ToolLibraryHooks> = std::sync::OnceLock::new();

fn run_hook(which: impl FnOnce(&ToolLibraryHooks) -> fn()) {
    if let Some(hooks) = HOOKS.get() {
        which(hooks)();
    }
}

/// The tool library's load-time start: keeps `hooks`, registers as the load-time constructor
/// does (never waiting for an initialization in progress, which may be the one loading this
/// library), and runs `after_initialize` now if the tracer is already set up. Returns false if
/// hooks were already installed (they are kept).
pub fn register_as_tool_library(hooks: ToolLibraryHooks) -> bool {
    if HOOKS.set(hooks).is_err() {
        return false;
    }
    register(WhileInitializing::Defer);
    if instance().is_available() {
        (hooks.after_initialize)();
    }
    true
}

impl Tracer {
    /// XLA's `GetRocmTracerSingleton()`: registers with the SDK first if the load-time
    /// constructor did not (or was dropped by the linker). Defined here, next to that
    /// constructor, so that any program calling it links the constructor's code too.
    pub fn get() -> &'static Tracer {
        ensure_registered();
        instance()
    }
}

/// The SDK's handle for this tool, 0 before configuration.
#[cfg(any(test, feature = "testing"))]
pub fn client_handle() -> u32 {
    CLIENT_HANDLE.load(Ordering::Relaxed)
}

/// Registers with the SDK unless already registered, waiting (bounded) for an initialization
/// another thread has started; idempotent and thread-safe. Afterwards the tracer is either
/// initialized or unavailable with a reason.
pub(crate) fn ensure_registered() {
    register(WhileInitializing::Wait);
}

/// What to do when the SDK reports its initialization in progress (status -1).
#[derive(Clone, Copy, PartialEq, Eq)]
enum WhileInitializing {
    /// Another thread is initializing: it may find and call our `rocprofiler_configure`
    /// itself; wait for it (bounded), then decide.
    Wait,
    /// Leave the decision for later: at load time the initializing thread may be this one,
    /// loading this library from `ROCP_TOOL_LIBRARIES` inside the SDK's initialization, and it
    /// calls our `rocprofiler_configure` as soon as this constructor returns (waiting would
    /// wait for ourselves). Before any initialization, a library `ROCP_TOOL_LIBRARIES`
    /// names does not force the SDK either: that initialization will configure it.
    Defer,
}

/// Serializes registration attempts; never held while the SDK calls into this tool from
/// another thread we wait for (the SDK's own calls come on the forcing thread).
static REGISTERING: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

fn register(while_initializing: WhileInitializing) {
    let tracer = instance();
    if tracer.is_initialized() {
        return;
    }
    let _registering = REGISTERING.lock();
    if tracer.is_initialized() {
        return;
    }
    match sdk::is_initialized() {
        // At load, named in ROCP_TOOL_LIBRARIES: the SDK's first initialization configures
        // this tool with every other one, whoever starts it; forcing it now would keep the
        // tools loaded later out of it (`tool_libraries.rs`).
        Ok(0)
            if while_initializing == WhileInitializing::Defer
                && tool_libraries::names_this_library() =>
        {
            return
        }
        Ok(0) => {
            if let Err(error) = sdk::force_configure(Some(rocprofiler_configure)) {
                if !CONFIGURE_CALLED.load(Ordering::Acquire) {
                    tracer.set_unavailable(TracerError::Unavailable(format!(
                        "could not register with rocprofiler-sdk: {error}"
                    )));
                }
            }
        }
        Ok(-1) if while_initializing == WhileInitializing::Defer => return,
        Ok(-1) => {
            let deadline = Instant::now() + INITIALIZATION_WAIT;
            while !tracer.is_initialized()
                && matches!(sdk::is_initialized(), Ok(-1))
                && Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            if !tracer.is_initialized() && !CONFIGURE_CALLED.load(Ordering::Acquire) {
                register_late(tracer);
            }
        }
        Ok(_) => register_late(tracer),
        Err(error) => tracer.set_unavailable(TracerError::Unavailable(format!(
            "could not query rocprofiler-sdk's state: {error}"
        ))),
    }
    if !tracer.is_initialized() {
        tracer.set_unavailable(TracerError::Unavailable(SDK_HELD_ELSEWHERE.to_owned()));
    }
}

/// The SDK was initialized without this tool (another tool forced it first, or a runtime
/// found other tools). An SDK with anytime initialization (ROCm 10.1) accepts a late forced
/// tool; older ones answer CONFIGURATION_LOCKED, and the tracer stays unavailable.
fn register_late(tracer: &Tracer) {
    if CONFIGURE_CALLED.load(Ordering::Acquire) {
        return;
    }
    match sdk::force_configure(Some(rocprofiler_configure)) {
        Ok(()) => {}
        Err(error) => log::debug!("late registration refused: {error}"),
    }
    if !tracer.is_initialized() {
        log::warn!("{SDK_HELD_ELSEWHERE}");
    }
}

/// Why the tracer is unavailable when the SDK was initialized without it, and what to do.
pub const SDK_HELD_ELSEWHERE: &str = "rocprofiler-sdk was initialized without this tracer \
     (another tool configured it first, or a HIP call came before the tracer was loaded), and \
     this SDK accepts no tool after that (anytime initialization needs ROCm 10.1's rocprofiler-sdk 1.4.1): \
     load the tracer before the first HIP call and before other tools force the SDK, e.g. \
     through ROCP_TOOL_LIBRARIES=libxla_rocm_tracer_tool.so";

/// Registration at load, before `main` and so before the program's first HIP call: the SDK
/// of ROCm 7.0 (1.0.0; docs/simulator-fidelity.md, row "Stream ids") maps a HIP stream to an
/// id only if a HIP_STREAM callback context was active when the stream was created, and
/// aborts the process on any later call on a stream it never mapped. Registering lazily (at
/// the first `Tracer::get()`) would leave streams the program created before that unmapped.
/// `tests/tracer_registration.rs` fails if this becomes lazy.
#[ctor::ctor(unsafe)]
fn register_at_load() {
    // XLA's `init_rocm_lib`. A panic must not escape a constructor.
    let _ = std::panic::catch_unwind(|| register(WhileInitializing::Defer));
}
