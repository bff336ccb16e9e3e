//! Statuses for bad input and wrong order (docs/sdk-facts.md#contexts, #callback-tracing, #buffer-behaviour, #push-and-pop, #agents, docs/simulator-fidelity.md#registration-and-lifecycle, #configuration-rules, #agents), the names
//! API (docs/sdk-facts.md#names-api), status strings and version (docs/sdk-facts.md#status-codes-and-time), and agents (docs/sdk-facts.md#agents, docs/simulator-fidelity.md#agents).
use rocprofiler_sdk_sim as sim;
use rocprofiler_sdk_sys as sys;
use sim_test_kit::ConfigureResult;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::{Mutex, OnceLock};
use sys::*;

/// (what, got, expected) observed inside initialize.
static IN_INIT: Mutex<Vec<(&'static str, u32, u32)>> = Mutex::new(Vec::new());
static HANDLES: OnceLock<(u64, u64)> = OnceLock::new();
/// A context with no services, for the status edges after initialization.
static BARE_CONTEXT: OnceLock<u64> = OnceLock::new();
/// (create_callback_thread, assign_callback_thread) before initialization started.
static BEFORE_INIT: OnceLock<(u32, u32)> = OnceLock::new();
static INIT_STATUS_DURING_INIT: Mutex<i32> = Mutex::new(99);
static DRIVER_DURING_INIT: Mutex<Option<sim::SimError>> = Mutex::new(None);

unsafe extern "C" fn noop_callback(
    _: rocprofiler_callback_tracing_record_t,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) {
}
unsafe extern "C" fn noop_buffer(
    _: rocprofiler_context_id_t,
    _: rocprofiler_buffer_id_t,
    _: *mut *mut rocprofiler_record_header_t,
    _: usize,
    _: *mut c_void,
    _: u64,
) {
}
unsafe extern "C" fn noop_request(
    _: u64,
    _: rocprofiler_context_id_t,
    _: u32,
    _: i32,
    _: u64,
    _: *mut rocprofiler_user_data_t,
    _: *mut c_void,
) -> c_int {
    0
}
unsafe extern "C" fn agents_fail(
    _: u32,
    _: *mut *const c_void,
    _: usize,
    _: *mut c_void,
) -> rocprofiler_status_t {
    ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND
}
unsafe extern "C" fn agents_ok(
    _: u32,
    _: *mut *const c_void,
    _: usize,
    _: *mut c_void,
) -> rocprofiler_status_t {
    ROCPROFILER_STATUS_SUCCESS
}

unsafe extern "C" fn tool_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    let mut out = IN_INIT.lock().unwrap();
    let mut t = |what, got, expected| out.push((what, got, expected));
    let mut s = 0;
    // SAFETY: `s` is a live local for the SDK to write.
    unsafe { rocprofiler_is_initialized(&mut s) };
    *INIT_STATUS_DURING_INIT.lock().unwrap() = s;
    *DRIVER_DURING_INIT.lock().unwrap() = sim::driver::stream_create().err();
    t(
        "force_configure in init",
        // SAFETY: this file's configure function, with the SDK's configure signature.
        unsafe { rocprofiler_force_configure(Some(configure)) },
        ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
    );
    t(
        "create_context(null)",
        // SAFETY: null is the bad argument under test; the SDK rejects it without writing.
        unsafe { rocprofiler_create_context(std::ptr::null_mut()) },
        ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
    );
    let mut ctx = rocprofiler_context_id_t { handle: 5 };
    t(
        "create_context(handle != 0)",
        // SAFETY: `ctx` is a live local for the SDK to write.
        unsafe { rocprofiler_create_context(&mut ctx) },
        ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO,
    );
    ctx.handle = 0;
    t(
        "create_context",
        // SAFETY: `ctx` is a live local for the SDK to write.
        unsafe { rocprofiler_create_context(&mut ctx) },
        ROCPROFILER_STATUS_SUCCESS,
    );
    let bogus = rocprofiler_context_id_t { handle: 1 };
    let cb = Some(noop_callback as unsafe extern "C" fn(_, _, _));
    let null = std::ptr::null_mut();
    t(
        "callback svc unknown ctx",
        // SAFETY: the operations are null or a live array (null with a count is rejected);
        // noop_callback has the SDK's callback type and gets no data.
        unsafe {
            rocprofiler_configure_callback_tracing_service(
                bogus,
                ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                std::ptr::null(),
                0,
                cb,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
    );
    t(
        "callback svc kind NONE",
        // SAFETY: the operations are null or a live array (null with a count is rejected);
        // noop_callback has the SDK's callback type and gets no data.
        unsafe {
            rocprofiler_configure_callback_tracing_service(ctx, 0, std::ptr::null(), 0, cb, null)
        },
        ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
    );
    t(
        "callback svc kind LAST",
        // SAFETY: the operations are null or a live array (null with a count is rejected);
        // noop_callback has the SDK's callback type and gets no data.
        unsafe {
            rocprofiler_configure_callback_tracing_service(
                ctx,
                ROCPROFILER_CALLBACK_TRACING_LAST,
                std::ptr::null(),
                0,
                cb,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
    );
    t(
        "callback svc null callback",
        // SAFETY: the operations are null or a live array (null with a count is rejected);
        // noop_callback has the SDK's callback type and gets no data.
        unsafe {
            rocprofiler_configure_callback_tracing_service(
                ctx,
                ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                std::ptr::null(),
                0,
                None,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
    );
    let bad_ops = [999];
    t(
        "callback svc bad op",
        // SAFETY: the operations are null or a live array (null with a count is rejected);
        // noop_callback has the SDK's callback type and gets no data.
        unsafe {
            rocprofiler_configure_callback_tracing_service(
                ctx,
                ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                bad_ops.as_ptr(),
                1,
                cb,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
    );
    t(
        "callback svc null ops with count",
        // SAFETY: the operations are null or a live array (null with a count is rejected);
        // noop_callback has the SDK's callback type and gets no data.
        unsafe {
            rocprofiler_configure_callback_tracing_service(
                ctx,
                ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                std::ptr::null(),
                3,
                cb,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
    );
    t(
        "callback svc",
        // SAFETY: the operations are null or a live array (null with a count is rejected);
        // noop_callback has the SDK's callback type and gets no data.
        unsafe {
            rocprofiler_configure_callback_tracing_service(
                ctx,
                ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                std::ptr::null(),
                0,
                cb,
                null,
            )
        },
        ROCPROFILER_STATUS_SUCCESS,
    );
    t(
        "callback svc twice",
        // SAFETY: the operations are null or a live array (null with a count is rejected);
        // noop_callback has the SDK's callback type and gets no data.
        unsafe {
            rocprofiler_configure_callback_tracing_service(
                ctx,
                ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                std::ptr::null(),
                0,
                cb,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
    );
    let bcb = Some(noop_buffer as unsafe extern "C" fn(_, _, _, _, _, _));
    let mut buf = rocprofiler_buffer_id_t { handle: 0 };
    // L10: like the SDK's `rocprofiler_create_buffer`, only the lock and an id that already
    // names a buffer are checked; each accepted oddity gets a fresh id.
    let fresh = || rocprofiler_buffer_id_t { handle: 0 };
    let mut odd = fresh();
    t(
        "create_buffer null callback is accepted",
        // SAFETY: the id points to a live local (or is null, rejected); noop_buffer has the SDK's
        // buffer callback type and gets no data.
        unsafe {
            rocprofiler_create_buffer(
                ctx,
                4096,
                1024,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                None,
                null,
                &mut odd,
            )
        },
        ROCPROFILER_STATUS_SUCCESS,
    );
    t(
        "create_buffer null id",
        // SAFETY: the id points to a live local (or is null, rejected); noop_buffer has the SDK's
        // buffer callback type and gets no data.
        unsafe {
            rocprofiler_create_buffer(
                ctx,
                4096,
                1024,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                bcb,
                null,
                std::ptr::null_mut(),
            )
        },
        ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
    );
    let mut odd = fresh();
    t(
        "create_buffer policy NONE is accepted",
        // SAFETY: the id points to a live local (or is null, rejected); noop_buffer has the SDK's
        // buffer callback type and gets no data.
        unsafe {
            rocprofiler_create_buffer(
                ctx,
                4096,
                1024,
                ROCPROFILER_BUFFER_POLICY_NONE,
                bcb,
                null,
                &mut odd,
            )
        },
        ROCPROFILER_STATUS_SUCCESS,
    );
    let mut odd = fresh();
    t(
        "create_buffer size 0 is accepted",
        // SAFETY: the id points to a live local (or is null, rejected); noop_buffer has the SDK's
        // buffer callback type and gets no data.
        unsafe {
            rocprofiler_create_buffer(
                ctx,
                0,
                0,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                bcb,
                null,
                &mut odd,
            )
        },
        ROCPROFILER_STATUS_SUCCESS,
    );
    let mut odd = fresh();
    t(
        "create_buffer unknown ctx is accepted",
        // SAFETY: the id points to a live local (or is null, rejected); noop_buffer has the SDK's
        // buffer callback type and gets no data.
        unsafe {
            rocprofiler_create_buffer(
                bogus,
                4096,
                1024,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                bcb,
                null,
                &mut odd,
            )
        },
        ROCPROFILER_STATUS_SUCCESS,
    );
    t(
        "create_buffer",
        // SAFETY: the id points to a live local (or is null, rejected); noop_buffer has the SDK's
        // buffer callback type and gets no data.
        unsafe {
            rocprofiler_create_buffer(
                ctx,
                4096,
                1024,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                bcb,
                null,
                &mut buf,
            )
        },
        ROCPROFILER_STATUS_SUCCESS,
    );
    let mut again = buf;
    t(
        "create_buffer over a live id",
        // SAFETY: the id points to a live local (or is null, rejected); noop_buffer has the SDK's
        // buffer callback type and gets no data.
        unsafe {
            rocprofiler_create_buffer(
                ctx,
                4096,
                1024,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                bcb,
                null,
                &mut again,
            )
        },
        ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
    );
    t(
        "buffer svc kind LAST",
        // SAFETY: no operations list (null, 0); plain handles the SDK validates.
        unsafe {
            rocprofiler_configure_buffer_tracing_service(
                ctx,
                ROCPROFILER_BUFFER_TRACING_LAST,
                std::ptr::null(),
                0,
                buf,
            )
        },
        ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
    );
    t(
        "buffer svc unknown buffer",
        // SAFETY: no operations list (null, 0); plain handles the SDK validates.
        unsafe {
            rocprofiler_configure_buffer_tracing_service(
                ctx,
                ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                std::ptr::null(),
                0,
                rocprofiler_buffer_id_t { handle: 1 },
            )
        },
        ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
    );
    t(
        "buffer svc unknown ctx",
        // SAFETY: no operations list (null, 0); plain handles the SDK validates.
        unsafe {
            rocprofiler_configure_buffer_tracing_service(
                bogus,
                ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                std::ptr::null(),
                0,
                buf,
            )
        },
        ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
    );
    t(
        "buffer svc",
        // SAFETY: no operations list (null, 0); plain handles the SDK validates.
        unsafe {
            rocprofiler_configure_buffer_tracing_service(
                ctx,
                ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                std::ptr::null(),
                0,
                buf,
            )
        },
        ROCPROFILER_STATUS_SUCCESS,
    );
    t(
        "buffer svc twice",
        // SAFETY: no operations list (null, 0); plain handles the SDK validates.
        unsafe {
            rocprofiler_configure_buffer_tracing_service(
                ctx,
                ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                std::ptr::null(),
                0,
                buf,
            )
        },
        ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
    );
    let rcb = Some(noop_request as unsafe extern "C" fn(_, _, _, _, _, _, _) -> _);
    let none = [ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE];
    let last = [ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST];
    let kd = [ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH];
    t(
        "request null callback",
        // SAFETY: the kinds are a live one-element array; noop_request has the SDK's request
        // callback type (or is None, rejected) and gets no data.
        unsafe {
            rocprofiler_configure_external_correlation_id_request_service(
                ctx,
                kd.as_ptr(),
                1,
                None,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
    );
    t(
        "request kind NONE",
        // SAFETY: the kinds are a live one-element array; noop_request has the SDK's request
        // callback type (or is None, rejected) and gets no data.
        unsafe {
            rocprofiler_configure_external_correlation_id_request_service(
                ctx,
                none.as_ptr(),
                1,
                rcb,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
    );
    t(
        "request kind LAST",
        // SAFETY: the kinds are a live one-element array; noop_request has the SDK's request
        // callback type (or is None, rejected) and gets no data.
        unsafe {
            rocprofiler_configure_external_correlation_id_request_service(
                ctx,
                last.as_ptr(),
                1,
                rcb,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
    );
    t(
        "request kinds with count 0",
        // SAFETY: the kinds are a live one-element array; noop_request has the SDK's request
        // callback type (or is None, rejected) and gets no data.
        unsafe {
            rocprofiler_configure_external_correlation_id_request_service(
                ctx,
                kd.as_ptr(),
                0,
                rcb,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
    );
    t(
        "request",
        // SAFETY: the kinds are a live one-element array; noop_request has the SDK's request
        // callback type (or is None, rejected) and gets no data.
        unsafe {
            rocprofiler_configure_external_correlation_id_request_service(
                ctx,
                kd.as_ptr(),
                1,
                rcb,
                null,
            )
        },
        ROCPROFILER_STATUS_SUCCESS,
    );
    t(
        "request twice",
        // SAFETY: the kinds are a live one-element array; noop_request has the SDK's request
        // callback type (or is None, rejected) and gets no data.
        unsafe {
            rocprofiler_configure_external_correlation_id_request_service(
                ctx,
                kd.as_ptr(),
                1,
                rcb,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
    );
    let mut thread = rocprofiler_callback_thread_t { handle: 0 };
    t(
        "create_callback_thread(null)",
        // SAFETY: null is the bad argument under test; the SDK rejects it without writing.
        unsafe { rocprofiler_create_callback_thread(std::ptr::null_mut()) },
        ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
    );
    t(
        "create_callback_thread",
        // SAFETY: `thread` is a live local for the SDK to write.
        unsafe { rocprofiler_create_callback_thread(&mut thread) },
        ROCPROFILER_STATUS_SUCCESS,
    );
    t(
        "assign unknown buffer",
        // SAFETY: plain handles, no pointers; the SDK validates them.
        unsafe {
            rocprofiler_assign_callback_thread(rocprofiler_buffer_id_t { handle: 1 }, thread)
        },
        ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
    );
    t(
        "assign unknown thread",
        // SAFETY: plain handles, no pointers; the SDK validates them.
        unsafe {
            rocprofiler_assign_callback_thread(buf, rocprofiler_callback_thread_t { handle: 1 })
        },
        ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND,
    );
    t(
        "assign",
        // SAFETY: plain handles, no pointers; the SDK validates them.
        unsafe { rocprofiler_assign_callback_thread(buf, thread) },
        ROCPROFILER_STATUS_SUCCESS,
    );
    let agent_size = std::mem::size_of::<rocprofiler_agent_v0_t>();
    t(
        "agents larger struct",
        // SAFETY: the agent callbacks have the SDK's type and ignore their (null) data; a struct
        // size the SDK does not accept fails before any callback.
        unsafe {
            rocprofiler_query_available_agents(
                ROCPROFILER_AGENT_INFO_VERSION_0,
                Some(agents_ok),
                agent_size + 8,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI,
    );
    t(
        "agents prefix struct",
        // SAFETY: the agent callbacks have the SDK's type and ignore their (null) data; a struct
        // size the SDK does not accept fails before any callback.
        unsafe {
            rocprofiler_query_available_agents(
                ROCPROFILER_AGENT_INFO_VERSION_0,
                Some(agents_ok),
                292,
                null,
            )
        },
        ROCPROFILER_STATUS_SUCCESS,
    );
    t(
        "agents null callback",
        // SAFETY: the agent callbacks have the SDK's type and ignore their (null) data; a struct
        // size the SDK does not accept fails before any callback.
        unsafe {
            rocprofiler_query_available_agents(
                ROCPROFILER_AGENT_INFO_VERSION_0,
                None,
                agent_size,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
    );
    t(
        "agents callback status",
        // SAFETY: the agent callbacks have the SDK's type and ignore their (null) data; a struct
        // size the SDK does not accept fails before any callback.
        unsafe {
            rocprofiler_query_available_agents(
                ROCPROFILER_AGENT_INFO_VERSION_0,
                Some(agents_fail),
                agent_size,
                null,
            )
        },
        ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
    );
    let mut bare = rocprofiler_context_id_t { handle: 0 };
    t(
        "create_context (bare)",
        // SAFETY: `bare` is a live local for the SDK to write.
        unsafe { rocprofiler_create_context(&mut bare) },
        ROCPROFILER_STATUS_SUCCESS,
    );
    BARE_CONTEXT.set(bare.handle).unwrap();
    HANDLES.set((ctx.handle, buf.handle)).unwrap();
    0
}

/// Its own `rocprofiler_configure` (not the kit's `register_tool`): it checks what the SDK
/// passes to configure.
static RESULT: ConfigureResult = ConfigureResult::new(tool_init, None);
unsafe extern "C" fn configure(
    version: u32,
    runtime: *const c_char,
    priority: u32,
    id: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    // The version of the machine's release (`rocm`, `sdk_version`).
    let v = sim::machine::machine().sdk_version;
    assert_eq!(version, 10000 * v.0 + 100 * v.1 + v.2);
    assert_eq!(
        // SAFETY: the SDK passes its runtime version as a static NUL-terminated string.
        unsafe { CStr::from_ptr(runtime) }.to_str().unwrap(),
        format!("{}.{}.{}", v.0, v.1, v.2)
    );
    assert_eq!(priority, 0);
    // SAFETY: the SDK passes this tool's client id, valid and unshared during configure.
    let id = unsafe { &mut *id };
    assert_eq!(id.size, 24);
    id.name = c"status-test-tool".as_ptr();
    RESULT.get()
}

fn setup() -> (rocprofiler_context_id_t, rocprofiler_buffer_id_t) {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let mut s = 7;
        // SAFETY: `s` is a live local for the SDK to write.
        unsafe { rocprofiler_is_initialized(&mut s) };
        assert_eq!(s, 0);
        // L10: the SDK locks callback threads only once initialization finished.
        let mut thread = rocprofiler_callback_thread_t { handle: 0 };
        // SAFETY: `thread` is a live local for the SDK to write.
        let created = unsafe { rocprofiler_create_callback_thread(&mut thread) };
        // SAFETY: plain handles, no pointers; the SDK validates them.
        let assigned = unsafe {
            rocprofiler_assign_callback_thread(rocprofiler_buffer_id_t { handle: 1 }, thread)
        };
        BEFORE_INIT.set((created, assigned)).unwrap();
        // SAFETY: this file's configure function, with the SDK's configure signature.
        assert_eq!(unsafe { rocprofiler_force_configure(Some(configure)) }, 0);
    });
    let (c, b) = *HANDLES.get().unwrap();
    (
        rocprofiler_context_id_t { handle: c },
        rocprofiler_buffer_id_t { handle: b },
    )
}

#[test]
fn configuration_errors_inside_initialize() {
    setup();
    let results = IN_INIT.lock().unwrap().clone();
    assert!(results.len() > 30);
    for (what, got, expected) in results {
        assert_eq!(got, expected, "{what}");
    }
    assert_eq!(*INIT_STATUS_DURING_INIT.lock().unwrap(), -1);
    assert_eq!(
        *DRIVER_DURING_INIT.lock().unwrap(),
        Some(sim::SimError::CalledFromInitialize)
    );
    assert!(sim::client_names()
        .iter()
        .any(|(_, n)| n.as_deref() == Some("status-test-tool")));
}

#[test]
fn callback_threads_can_be_made_before_initialization() {
    setup();
    let (created, assigned) = *BEFORE_INIT.get().unwrap();
    assert_eq!(created, ROCPROFILER_STATUS_SUCCESS);
    assert_eq!(
        assigned, ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
        "not LOCKED"
    );
}

#[test]
fn configuration_is_locked_after_initialize() {
    let (ctx, buf) = setup();
    let locked = ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    let mut new_ctx = rocprofiler_context_id_t { handle: 0 };
    let mut new_buf = rocprofiler_buffer_id_t { handle: 0 };
    let mut thread = rocprofiler_callback_thread_t { handle: 0 };
    // SAFETY: out-pointers are live locals (or null where the SDK rejects or allows it), lists
    // are null with count 0, the callbacks have the SDK's types, a zeroed context id is a plain
    // value; this file's configure has the SDK's signature.
    unsafe {
        assert_eq!(rocprofiler_create_context(&mut new_ctx), locked);
        assert_eq!(
            rocprofiler_create_buffer(
                ctx,
                4096,
                0,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                Some(noop_buffer),
                std::ptr::null_mut(),
                &mut new_buf
            ),
            locked
        );
        assert_eq!(
            rocprofiler_configure_callback_tracing_service(
                ctx,
                ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                std::ptr::null(),
                0,
                Some(noop_callback),
                std::ptr::null_mut()
            ),
            locked
        );
        assert_eq!(
            rocprofiler_configure_buffer_tracing_service(
                ctx,
                ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
                std::ptr::null(),
                0,
                buf
            ),
            locked
        );
        // L10: the SDK does not lock the request service; it only needs a registered context.
        assert_eq!(
            rocprofiler_configure_external_correlation_id_request_service(
                std::mem::zeroed(),
                std::ptr::null(),
                0,
                Some(noop_request),
                std::ptr::null_mut()
            ),
            ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
        );
        let bare = rocprofiler_context_id_t {
            handle: *BARE_CONTEXT.get().unwrap(),
        };
        assert_eq!(
            rocprofiler_configure_external_correlation_id_request_service(
                bare,
                std::ptr::null(),
                0,
                Some(noop_request),
                std::ptr::null_mut()
            ),
            ROCPROFILER_STATUS_SUCCESS,
            "a request service can be added after initialization"
        );
        assert_eq!(
            rocprofiler_configure_external_correlation_id_request_service(
                bare,
                std::ptr::null(),
                0,
                Some(noop_request),
                std::ptr::null_mut()
            ),
            ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED
        );
        assert_eq!(rocprofiler_create_callback_thread(&mut thread), locked);
        assert_eq!(rocprofiler_assign_callback_thread(buf, thread), locked);
        assert_eq!(rocprofiler_force_configure(Some(configure)), locked);
        let mut s = 0;
        rocprofiler_is_initialized(&mut s);
        assert_eq!(s, 1);
        rocprofiler_is_finalized(&mut s);
        assert_eq!(s, 0);
        assert_eq!(
            rocprofiler_is_initialized(std::ptr::null_mut()),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
        );
    }
}

#[test]
fn contexts_start_stop_and_report_state() {
    let (ctx, _) = setup();
    let bogus = rocprofiler_context_id_t { handle: 3 };
    let mut s = -1;
    // SAFETY: plain handles the SDK validates; `s` is a live local to write (null is rejected).
    unsafe {
        assert_eq!(
            rocprofiler_start_context(bogus),
            ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
        );
        assert_eq!(
            rocprofiler_stop_context(bogus),
            ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
        );
        assert_eq!(
            rocprofiler_context_is_active(bogus, &mut s),
            ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
        );
        assert_eq!(
            rocprofiler_context_is_valid(bogus, &mut s),
            ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
        );
        assert_eq!(
            rocprofiler_context_is_active(ctx, std::ptr::null_mut()),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(rocprofiler_context_is_valid(ctx, &mut s), 0);
        assert_eq!(s, 1, "is_valid writes 1 for a valid context");
        assert_eq!(rocprofiler_start_context(ctx), 0);
        assert_eq!(rocprofiler_start_context(ctx), 0, "start is idempotent");
        assert_eq!(rocprofiler_context_is_active(ctx, &mut s), 0);
        assert_eq!(s, 1);
        let from_thread = std::thread::spawn(move || rocprofiler_stop_context(ctx))
            .join()
            .unwrap();
        assert_eq!(from_thread, 0, "stop works from any thread");
        assert_eq!(rocprofiler_context_is_active(ctx, &mut s), 0);
        assert_eq!(s, 0);
        // L10: the SDK's stop_context searches the active contexts only.
        assert_eq!(
            rocprofiler_stop_context(ctx),
            ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
            "stopping a stopped context"
        );
        let bare = rocprofiler_context_id_t {
            handle: *BARE_CONTEXT.get().unwrap(),
        };
        assert_eq!(
            rocprofiler_stop_context(bare),
            ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
            "stopping a context that never started"
        );
        assert!(ctx.handle > 0);
    }
}

#[test]
fn external_correlation_push_pop() {
    let (ctx, _) = setup();
    let mut me = 0;
    let mut out = rocprofiler_user_data_t { value: 9 };
    // SAFETY: `me` and `out` are live locals for the SDK to write (pop also takes null); plain
    // handles and values otherwise.
    unsafe {
        rocprofiler_get_thread_id(&mut me);
        assert_eq!(
            rocprofiler_push_external_correlation_id(
                rocprofiler_context_id_t { handle: 3 },
                me,
                out
            ),
            ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
        );
        assert_eq!(
            rocprofiler_push_external_correlation_id(ctx, 1, out),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            rocprofiler_pop_external_correlation_id(ctx, 1, &mut out),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            rocprofiler_push_external_correlation_id(
                ctx,
                me,
                rocprofiler_user_data_t { value: 41 }
            ),
            0
        );
        assert_eq!(
            rocprofiler_push_external_correlation_id(
                ctx,
                me,
                rocprofiler_user_data_t { value: 42 }
            ),
            0
        );
        assert_eq!(
            rocprofiler_pop_external_correlation_id(ctx, me, &mut out),
            0
        );
        assert_eq!(out.value, 42);
        assert_eq!(
            rocprofiler_pop_external_correlation_id(ctx, me, std::ptr::null_mut()),
            0
        );
        assert_eq!(
            rocprofiler_pop_external_correlation_id(ctx, me, &mut out),
            0
        );
        assert_eq!(out.value, 0, "an empty stack pops {{0}}");
    }
}

#[test]
fn flush_and_destroy_of_unknown_buffers() {
    setup();
    let bogus = rocprofiler_buffer_id_t { handle: 1 };
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    unsafe {
        assert_eq!(
            rocprofiler_flush_buffer(bogus),
            ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND
        );
        assert_eq!(
            rocprofiler_destroy_buffer(bogus),
            ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND
        );
    }
}

fn cstr(p: *const c_char) -> &'static str {
    assert!(!p.is_null());
    // SAFETY: callers pass the SDK's static NUL-terminated names (non-null, checked above).
    unsafe { CStr::from_ptr(p) }.to_str().unwrap()
}

#[test]
fn status_names_strings_version_time() {
    for status in 0..ROCPROFILER_STATUS_LAST {
        // SAFETY: takes a status number, no pointers.
        let name = cstr(unsafe { rocprofiler_get_status_name(status) });
        assert!(name.starts_with("ROCPROFILER_STATUS_"), "{name}");
        // SAFETY: takes a status number, no pointers.
        assert!(!cstr(unsafe { rocprofiler_get_status_string(status) }).is_empty());
    }
    assert_eq!(
        // SAFETY: takes a status number, no pointers.
        cstr(unsafe { rocprofiler_get_status_name(16) }),
        "ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED"
    );
    assert_eq!(
        // SAFETY: takes a status number, no pointers.
        cstr(unsafe { rocprofiler_get_status_name(13) }),
        "ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO"
    );
    assert_eq!(
        // SAFETY: takes a status number, no pointers.
        cstr(unsafe { rocprofiler_get_status_name(40) }),
        "ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED"
    );
    // SAFETY: takes a status number, no pointers.
    assert!(unsafe { rocprofiler_get_status_name(ROCPROFILER_STATUS_LAST) }.is_null());
    // SAFETY: takes a status number, no pointers.
    assert!(unsafe { rocprofiler_get_status_string(1000) }.is_null());
    let (mut major, mut minor, mut patch) = (9, 9, 9);
    // SAFETY: live locals for the SDK and libc to write; null out-pointers only where the SDK
    // skips or rejects them.
    unsafe {
        assert_eq!(
            rocprofiler_get_version(&mut major, &mut minor, &mut patch),
            0
        );
        let v = sim::machine::machine().sdk_version;
        assert_eq!((major, minor, patch), (v.0, v.1, v.2));
        assert_eq!(
            rocprofiler_get_version(&mut major, std::ptr::null_mut(), std::ptr::null_mut()),
            0
        );
        let mut triplet = rocprofiler_version_triplet_t::default();
        assert_eq!(rocprofiler_get_version_triplet(&mut triplet), 0);
        assert_eq!(
            (triplet.major, triplet.minor, triplet.patch),
            (v.0, v.1, v.2)
        );
        let mut ts = 0;
        assert_eq!(rocprofiler_get_timestamp(&mut ts), 0);
        let mut boot = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut boot);
        let boot_ns = boot.tv_sec as u64 * 1_000_000_000 + boot.tv_nsec as u64;
        assert!(
            boot_ns >= ts && boot_ns - ts < 1_000_000_000,
            "CLOCK_BOOTTIME nanoseconds"
        );
        assert_eq!(
            rocprofiler_get_timestamp(std::ptr::null_mut()),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
        );
        let mut tid = 0;
        assert_eq!(rocprofiler_get_thread_id(&mut tid), 0);
        assert_eq!(tid, libc::syscall(libc::SYS_gettid) as u64);
    }
}

unsafe extern "C" fn collect_kind(kind: u32, data: *mut c_void) -> c_int {
    // SAFETY: `data` is the Vec<u32> the iterating test passed, alive and unshared meanwhile.
    let v = unsafe { &mut *(data as *mut Vec<u32>) };
    v.push(kind);
    (kind == 7 && v.len() > 100) as c_int
}
unsafe extern "C" fn collect_op(_kind: u32, op: i32, data: *mut c_void) -> c_int {
    // SAFETY: `data` is the Vec<i32> the iterating test passed, alive and unshared meanwhile.
    unsafe { (*(data as *mut Vec<i32>)).push(op) };
    0
}
unsafe extern "C" fn stop_at_three(_kind: u32, data: *mut c_void) -> c_int {
    // SAFETY: `data` is the u32 counter the iterating test passed, alive and unshared meanwhile.
    let n = unsafe { &mut *(data as *mut u32) };
    *n += 1;
    (*n == 3) as c_int
}

fn callback_op_name(kind: u32, op: i32) -> Option<String> {
    let mut name: *const c_char = std::ptr::null();
    let mut len = 0u64;
    // SAFETY: `name` and `len` are live locals for the SDK to write.
    let s = unsafe {
        rocprofiler_query_callback_tracing_kind_operation_name(kind, op, &mut name, &mut len)
    };
    (s == 0).then(|| {
        let n = cstr(name).to_owned();
        assert_eq!(n.len() as u64, len);
        n
    })
}

#[test]
fn names_api_callback_and_buffer_domains() {
    let mut kinds: Vec<u32> = Vec::new();
    // SAFETY: collect_kind has the SDK's callback type and gets `kinds`, which outlives the call.
    unsafe {
        assert_eq!(
            rocprofiler_iterate_callback_tracing_kinds(
                Some(collect_kind),
                &mut kinds as *mut _ as *mut c_void
            ),
            0
        );
    }
    assert_eq!(
        kinds,
        (0..ROCPROFILER_CALLBACK_TRACING_LAST).collect::<Vec<_>>()
    );
    let mut count = 0u32;
    // SAFETY: stop_at_three has the SDK's callback type and gets `count`, which outlives the call.
    unsafe {
        rocprofiler_iterate_callback_tracing_kinds(
            Some(stop_at_three),
            &mut count as *mut _ as *mut c_void,
        )
    };
    assert_eq!(
        count, 3,
        "iteration stops when the callback returns non-zero"
    );
    let mut ops: Vec<i32> = Vec::new();
    // SAFETY: collect_op gets `ops` (alive during the call) or, for the kinds the SDK rejects
    // before calling it, null; a null callback is rejected.
    unsafe {
        assert_eq!(
            rocprofiler_iterate_callback_tracing_kind_operations(
                ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                Some(collect_op),
                &mut ops as *mut _ as *mut c_void
            ),
            0
        );
        assert_eq!(
            rocprofiler_iterate_callback_tracing_kind_operations(
                0,
                Some(collect_op),
                std::ptr::null_mut()
            ),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            rocprofiler_iterate_callback_tracing_kind_operations(
                ROCPROFILER_CALLBACK_TRACING_LAST,
                Some(collect_op),
                std::ptr::null_mut()
            ),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            rocprofiler_iterate_callback_tracing_kinds(None, std::ptr::null_mut()),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
        );
    }
    assert_eq!(ops.len(), HIP_RUNTIME_API_NAMES.len());
    for (op, want) in [
        (
            ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel,
            "hipLaunchKernel",
        ),
        (
            ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync,
            "hipMemcpyAsync",
        ),
        (
            ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch,
            "hipGraphLaunch",
        ),
        (0, "hipApiName"),
    ] {
        assert_eq!(
            callback_op_name(ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, op).as_deref(),
            Some(want)
        );
    }
    assert_eq!(
        callback_op_name(ROCPROFILER_CALLBACK_TRACING_HIP_STREAM, 3).as_deref(),
        Some("HIP_STREAM_SET")
    );
    assert_eq!(
        callback_op_name(ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, 2).as_deref(),
        Some("KERNEL_DISPATCH_COMPLETE")
    );
    assert_eq!(
        callback_op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, 4).as_deref(),
        Some("MEMORY_COPY_DEVICE_TO_DEVICE")
    );
    assert_eq!(
        callback_op_name(ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, 2).as_deref(),
        Some("CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER")
    );
    assert_eq!(
        callback_op_name(ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, 100_000),
        None
    );
    let mut name: *const c_char = std::ptr::null();
    // SAFETY: `name` is a live local for the SDK to write (no length asked for); the iterate
    // callbacks have the SDK's types and get `kinds` and `ops`, alive during the calls.
    unsafe {
        assert_eq!(
            rocprofiler_query_callback_tracing_kind_name(
                ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                &mut name,
                std::ptr::null_mut()
            ),
            0
        );
        assert_eq!(cstr(name), "HIP_RUNTIME_API");
        assert_eq!(
            rocprofiler_query_callback_tracing_kind_name(
                ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                &mut name,
                std::ptr::null_mut()
            ),
            0
        );
        assert_eq!(cstr(name), "HIP_STREAM");
        assert_eq!(
            rocprofiler_query_callback_tracing_kind_name(99, &mut name, std::ptr::null_mut()),
            ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND
        );
        assert_eq!(
            rocprofiler_query_callback_tracing_kind_operation_name(
                99,
                0,
                &mut name,
                std::ptr::null_mut()
            ),
            ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND
        );
        assert_eq!(
            rocprofiler_query_buffer_tracing_kind_name(
                ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
                &mut name,
                std::ptr::null_mut()
            ),
            0
        );
        assert_eq!(cstr(name), "KERNEL_DISPATCH");
        assert_eq!(
            rocprofiler_query_buffer_tracing_kind_name(
                ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
                &mut name,
                std::ptr::null_mut()
            ),
            0
        );
        assert_eq!(cstr(name), "MEMORY_COPY");
        assert_eq!(
            rocprofiler_query_buffer_tracing_kind_operation_name(
                ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
                2,
                &mut name,
                std::ptr::null_mut()
            ),
            0
        );
        assert_eq!(cstr(name), "MEMORY_COPY_HOST_TO_DEVICE");
        assert_eq!(
            rocprofiler_query_buffer_tracing_kind_operation_name(
                ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
                214,
                &mut name,
                std::ptr::null_mut()
            ),
            0
        );
        assert_eq!(cstr(name), "hipLaunchKernel");
        let mut kinds: Vec<u32> = Vec::new();
        assert_eq!(
            rocprofiler_iterate_buffer_tracing_kinds(
                Some(collect_kind),
                &mut kinds as *mut _ as *mut c_void
            ),
            0
        );
        assert_eq!(kinds.len() as u32, ROCPROFILER_BUFFER_TRACING_LAST);
        let mut ops: Vec<i32> = Vec::new();
        assert_eq!(
            rocprofiler_iterate_buffer_tracing_kind_operations(
                ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
                Some(collect_op),
                &mut ops as *mut _ as *mut c_void
            ),
            0
        );
        assert_eq!(ops, vec![1, 2, 3, 4]);
    }
}

unsafe extern "C" fn capture_agents(
    _: u32,
    agents: *mut *const c_void,
    n: usize,
    data: *mut c_void,
) -> rocprofiler_status_t {
    // SAFETY: `data` is the Vec the querying test passed, alive and unshared meanwhile.
    let out = unsafe { &mut *(data as *mut Vec<*const rocprofiler_agent_v0_t>) };
    for i in 0..n {
        // SAFETY: the SDK passes `n` agent pointers.
        out.push(unsafe { *agents.add(i) } as *const rocprofiler_agent_v0_t);
    }
    0
}

#[test]
fn agents_are_one_cpu_and_mi300x_gpus() {
    setup();
    let mut agents: Vec<*const rocprofiler_agent_v0_t> = Vec::new();
    let size = std::mem::size_of::<rocprofiler_agent_v0_t>();
    // SAFETY: capture_agents has the SDK's agent callback type and gets `agents`, which outlives
    // the call.
    unsafe {
        assert_eq!(
            rocprofiler_query_available_agents(
                ROCPROFILER_AGENT_INFO_VERSION_0,
                Some(capture_agents),
                size,
                &mut agents as *mut _ as *mut c_void
            ),
            0
        );
    }
    // One CPU agent per socket (cpus, default 2), then the GPUs.
    let cpus = sim::machine::machine().cpus as usize;
    assert_eq!(agents.len(), cpus + sim::machine::machine().gpus as usize);
    // SAFETY: the SDK's agent structs live for the process, full-size (checked via `size`).
    let agents: Vec<&rocprofiler_agent_v0_t> = agents.iter().map(|p| unsafe { &**p }).collect();
    let cpu = agents[0];
    assert_eq!(cpu.type_, ROCPROFILER_AGENT_TYPE_CPU);
    assert!(cpu.id.handle >= 255);
    for cpu in &agents[..cpus] {
        assert_eq!(cpu.type_, ROCPROFILER_AGENT_TYPE_CPU);
    }
    for (i, gpu) in agents[cpus..].iter().enumerate() {
        assert_eq!(gpu.size as usize, 312);
        assert_eq!(gpu.type_, ROCPROFILER_AGENT_TYPE_GPU);
        assert_eq!(
            gpu.id.handle,
            cpu.id.handle + (cpus + i) as u64,
            "consecutive handles"
        );
        assert_eq!(gpu.logical_node_type_id, i as i32);
        assert_eq!(
            (
                gpu.cu_count,
                gpu.max_engine_clk_fcompute,
                gpu.gfx_target_version
            ),
            (304, 2100, 90402)
        );
        assert_eq!(cstr(gpu.name), "gfx942");
        assert_eq!(gpu.mem_banks_count, 1);
        // SAFETY: a GPU agent's mem_banks points to its `mem_banks_count` (1, checked) banks, which
        // live as long as the agent.
        let bank = unsafe { &*gpu.mem_banks };
        assert_eq!(bank.heap_type, HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE);
        assert_eq!(
            (bank.size_in_bytes, bank.width, bank.mem_clk_max),
            (192 << 30, 8192, 1300)
        );
    }
}
