//! How a recording tool reaches the SDK: a table of its functions, and the set-up calls over it.
//! Each call returns the SDK's status; the test kit asserts success, the probe writes it down.

use rocprofiler_sdk_sys::*;
use std::ffi::{c_char, c_void};

/// The rocprofiler-sdk functions a recording tool calls, as a table of function pointers: the
/// test kit fills it with the linked symbols, the probe with `dlsym`'d ones. Whoever builds one
/// vouches that each field is the SDK function of its name (the methods below rely on it).
#[derive(Clone, Copy)]
pub struct Sdk {
    pub get_version: unsafe extern "C" fn(*mut u32, *mut u32, *mut u32) -> rocprofiler_status_t,
    pub force_configure: unsafe extern "C" fn(rocprofiler_configure_func_t) -> rocprofiler_status_t,
    pub create_context: unsafe extern "C" fn(*mut rocprofiler_context_id_t) -> rocprofiler_status_t,
    pub start_context: unsafe extern "C" fn(rocprofiler_context_id_t) -> rocprofiler_status_t,
    pub stop_context: unsafe extern "C" fn(rocprofiler_context_id_t) -> rocprofiler_status_t,
    pub create_buffer: unsafe extern "C" fn(
        rocprofiler_context_id_t,
        usize,
        usize,
        rocprofiler_buffer_policy_t,
        rocprofiler_buffer_tracing_cb_t,
        *mut c_void,
        *mut rocprofiler_buffer_id_t,
    ) -> rocprofiler_status_t,
    pub flush_buffer: unsafe extern "C" fn(rocprofiler_buffer_id_t) -> rocprofiler_status_t,
    pub configure_buffer_tracing: unsafe extern "C" fn(
        rocprofiler_context_id_t,
        rocprofiler_buffer_tracing_kind_t,
        *const rocprofiler_tracing_operation_t,
        usize,
        rocprofiler_buffer_id_t,
    ) -> rocprofiler_status_t,
    pub configure_callback_tracing: unsafe extern "C" fn(
        rocprofiler_context_id_t,
        rocprofiler_callback_tracing_kind_t,
        *const rocprofiler_tracing_operation_t,
        usize,
        rocprofiler_callback_tracing_cb_t,
        *mut c_void,
    ) -> rocprofiler_status_t,
    pub configure_external_correlation: unsafe extern "C" fn(
        rocprofiler_context_id_t,
        *const rocprofiler_external_correlation_id_request_kind_t,
        usize,
        rocprofiler_external_correlation_id_request_cb_t,
        *mut c_void,
    ) -> rocprofiler_status_t,
    pub query_available_agents: unsafe extern "C" fn(
        rocprofiler_agent_version_t,
        rocprofiler_query_available_agents_cb_t,
        usize,
        *mut c_void,
    ) -> rocprofiler_status_t,
    pub callback_operation_name: unsafe extern "C" fn(
        rocprofiler_callback_tracing_kind_t,
        rocprofiler_tracing_operation_t,
        *mut *const c_char,
        *mut u64,
    ) -> rocprofiler_status_t,
    pub buffer_operation_name: unsafe extern "C" fn(
        rocprofiler_buffer_tracing_kind_t,
        rocprofiler_tracing_operation_t,
        *mut *const c_char,
        *mut u64,
    ) -> rocprofiler_status_t,
    pub status_name: unsafe extern "C" fn(rocprofiler_status_t) -> *const c_char,
    pub get_thread_id: unsafe extern "C" fn(*mut rocprofiler_thread_id_t) -> rocprofiler_status_t,
    pub push_external_correlation_id: unsafe extern "C" fn(
        rocprofiler_context_id_t,
        rocprofiler_thread_id_t,
        rocprofiler_user_data_t,
    ) -> rocprofiler_status_t,
    pub pop_external_correlation_id: unsafe extern "C" fn(
        rocprofiler_context_id_t,
        rocprofiler_thread_id_t,
        *mut rocprofiler_user_data_t,
    ) -> rocprofiler_status_t,
    /// The simulator's own hook (`rocsim_host_sleep_ns`): a wait that moves its virtual clock.
    /// Absent from the real SDK, where the probe sleeps for real.
    pub sim_host_sleep_ns: Option<unsafe extern "C" fn(u64)>,
}

/// `Err` for a status that is not SUCCESS.
fn ok(status: rocprofiler_status_t) -> Result<(), rocprofiler_status_t> {
    match status {
        ROCPROFILER_STATUS_SUCCESS => Ok(()),
        status => Err(status),
    }
}

// SAFETY (every method): the table holds the SDK's functions (see `Sdk`); each call passes
// plain values, live locals for the SDK to write, or callbacks of the SDK's types with null data.
impl Sdk {
    pub fn create_context(&self) -> Result<rocprofiler_context_id_t, rocprofiler_status_t> {
        let mut ctx = rocprofiler_context_id_t::default();
        // SAFETY: see the impl.
        ok(unsafe { (self.create_context)(&mut ctx) }).map(|()| ctx)
    }

    pub fn start(&self, ctx: rocprofiler_context_id_t) -> rocprofiler_status_t {
        // SAFETY: see the impl.
        unsafe { (self.start_context)(ctx) }
    }

    pub fn stop(&self, ctx: rocprofiler_context_id_t) -> rocprofiler_status_t {
        // SAFETY: see the impl.
        unsafe { (self.stop_context)(ctx) }
    }

    /// Callback-traces every operation of `kind` in `ctx` with `callback`.
    pub fn trace_callbacks(
        &self,
        ctx: rocprofiler_context_id_t,
        kind: rocprofiler_callback_tracing_kind_t,
        callback: rocprofiler_callback_tracing_cb_t,
    ) -> rocprofiler_status_t {
        // SAFETY: see the impl; no operation list means every operation.
        unsafe {
            (self.configure_callback_tracing)(
                ctx,
                kind,
                std::ptr::null(),
                0,
                callback,
                std::ptr::null_mut(),
            )
        }
    }

    /// A LOSSLESS buffer of `size` bytes with `watermark` in `ctx`, delivered to `callback`.
    pub fn lossless_buffer(
        &self,
        ctx: rocprofiler_context_id_t,
        size: usize,
        watermark: usize,
        callback: rocprofiler_buffer_tracing_cb_t,
    ) -> Result<rocprofiler_buffer_id_t, rocprofiler_status_t> {
        let mut buffer = rocprofiler_buffer_id_t::default();
        // SAFETY: see the impl.
        ok(unsafe {
            (self.create_buffer)(
                ctx,
                size,
                watermark,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                callback,
                std::ptr::null_mut(),
                &mut buffer,
            )
        })
        .map(|()| buffer)
    }

    /// Buffer-traces every operation of `kind` in `ctx` into `buffer`.
    pub fn trace_buffer(
        &self,
        ctx: rocprofiler_context_id_t,
        kind: rocprofiler_buffer_tracing_kind_t,
        buffer: rocprofiler_buffer_id_t,
    ) -> rocprofiler_status_t {
        // SAFETY: see the impl; no operation list means every operation.
        unsafe { (self.configure_buffer_tracing)(ctx, kind, std::ptr::null(), 0, buffer) }
    }

    /// Asks `callback` for the external correlation id of each record of `kinds` in `ctx`.
    pub fn request_external_correlation(
        &self,
        ctx: rocprofiler_context_id_t,
        kinds: &[rocprofiler_external_correlation_id_request_kind_t],
        callback: rocprofiler_external_correlation_id_request_cb_t,
    ) -> rocprofiler_status_t {
        // SAFETY: see the impl; `kinds` outlives the call (the SDK copies the list).
        unsafe {
            (self.configure_external_correlation)(
                ctx,
                kinds.as_ptr(),
                kinds.len(),
                callback,
                std::ptr::null_mut(),
            )
        }
    }

    pub fn flush(&self, buffer: rocprofiler_buffer_id_t) -> rocprofiler_status_t {
        // SAFETY: see the impl.
        unsafe { (self.flush_buffer)(buffer) }
    }

    /// The calling thread's id as the SDK reports it.
    pub fn thread_id(&self) -> Result<rocprofiler_thread_id_t, rocprofiler_status_t> {
        let mut tid = 0;
        // SAFETY: see the impl.
        ok(unsafe { (self.get_thread_id)(&mut tid) }).map(|()| tid)
    }

    /// Pushes `value` as thread `tid`'s external correlation id in `ctx`.
    pub fn push_external(
        &self,
        ctx: rocprofiler_context_id_t,
        tid: rocprofiler_thread_id_t,
        value: u64,
    ) -> rocprofiler_status_t {
        // SAFETY: see the impl.
        unsafe { (self.push_external_correlation_id)(ctx, tid, rocprofiler_user_data_t { value }) }
    }

    /// Pops thread `tid`'s external correlation id in `ctx`.
    pub fn pop_external(
        &self,
        ctx: rocprofiler_context_id_t,
        tid: rocprofiler_thread_id_t,
    ) -> rocprofiler_status_t {
        let mut popped = rocprofiler_user_data_t { value: 0 };
        // SAFETY: see the impl.
        unsafe { (self.pop_external_correlation_id)(ctx, tid, &mut popped) }
    }

    /// The agents `rocprofiler_query_available_agents` lists (version 0), asking for `size`
    /// bytes of each: those bytes are copied out, the rest of each agent left zero. (The real
    /// SDK refuses a size larger than its own struct: docs/sdk-facts.md#agents.)
    pub fn agents(&self, size: usize) -> Result<Vec<rocprofiler_agent_v0_t>, rocprofiler_status_t> {
        unsafe extern "C" fn keep(
            _version: rocprofiler_agent_version_t,
            agents: *mut *const c_void,
            num_agents: usize,
            data: *mut c_void,
        ) -> rocprofiler_status_t {
            // SAFETY: `data` is the (size, list) below; the SDK passes `num_agents` agents of
            // the size asked for. All-zero is a valid agent (integers and raw pointers).
            unsafe {
                let (size, out) = &mut *data.cast::<(usize, Vec<rocprofiler_agent_v0_t>)>();
                let size = (*size).min(std::mem::size_of::<rocprofiler_agent_v0_t>());
                for i in 0..num_agents {
                    let mut agent: rocprofiler_agent_v0_t = std::mem::zeroed();
                    std::ptr::copy_nonoverlapping(
                        (*agents.add(i)).cast::<u8>(),
                        (&mut agent as *mut rocprofiler_agent_v0_t).cast::<u8>(),
                        size,
                    );
                    out.push(agent);
                }
            }
            ROCPROFILER_STATUS_SUCCESS
        }
        let mut found: (usize, Vec<rocprofiler_agent_v0_t>) = (size, Vec::new());
        // SAFETY: see the impl; `found` outlives the call.
        ok(unsafe {
            (self.query_available_agents)(
                ROCPROFILER_AGENT_INFO_VERSION_0,
                Some(keep),
                size,
                (&mut found as *mut (usize, Vec<rocprofiler_agent_v0_t>)).cast(),
            )
        })
        .map(|()| found.1)
    }
}
