//! Contexts and the services configured on them (docs/sdk-facts.md#contexts, #callback-tracing, #buffers, #external-correlation). Services are added
//! while tools initialize (an external-correlation request service also later, as the SDK
//! allows); a context's active flag is an atomic, so start/stop work from any thread,
//! including from inside callbacks (docs/simulator-fidelity.md#configuration-rules).
//!
//! Producers never call into a tool while holding this registry's lock: they copy out the
//! [`Target`]s they need, release the lock, then invoke (docs/simulator-fidelity.md#threading).
use crate::engine::user_ptr::UserPtr;
use parking_lot::RwLock;
use rocprofiler_sdk_sys as sys;
use smallvec::SmallVec;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

pub(crate) type CallbackFn = unsafe extern "C" fn(
    sys::rocprofiler_callback_tracing_record_t,
    *mut sys::rocprofiler_user_data_t,
    *mut std::ffi::c_void,
);
pub(crate) type RequestFn = unsafe extern "C" fn(
    sys::rocprofiler_thread_id_t,
    sys::rocprofiler_context_id_t,
    sys::rocprofiler_external_correlation_id_request_kind_t,
    sys::rocprofiler_tracing_operation_t,
    u64,
    *mut sys::rocprofiler_user_data_t,
    *mut std::ffi::c_void,
) -> std::ffi::c_int;

/// The operations a service was configured for; `None` = all (docs/sdk-facts.md#callback-tracing "NULL = all operations").
#[derive(Clone, Debug, Default)]
pub(crate) struct OpFilter(Option<Arc<[i32]>>);

impl OpFilter {
    pub(crate) fn new(ops: Option<Vec<i32>>) -> Self {
        OpFilter(ops.map(Into::into))
    }
    pub(crate) fn allows(&self, op: i32) -> bool {
        self.0.as_ref().is_none_or(|ops| ops.contains(&op))
    }
}

#[derive(Clone)]
pub(crate) struct CallbackService {
    pub ops: OpFilter,
    pub callback: CallbackFn,
    pub data: UserPtr,
}

#[derive(Clone)]
pub(crate) struct BufferService {
    pub ops: OpFilter,
    pub buffer: u64,
}

#[derive(Clone)]
pub(crate) struct RequestService {
    /// Bit `k` set = request kind `k` is requested.
    pub kinds: u64,
    pub callback: RequestFn,
    pub data: UserPtr,
}

pub(crate) struct Context {
    pub handle: u64,
    pub client: u32,
    active: AtomicBool,
    callbacks: Vec<(u32, CallbackService)>,
    buffers: Vec<(u32, BufferService)>,
    request: Option<RequestService>,
}

struct Registry {
    offset: u64,
    contexts: Vec<Context>,
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(|| {
    RwLock::new(Registry {
        offset: crate::engine::handles::random_offset(),
        contexts: Vec::new(),
    })
});

impl Registry {
    fn find(&self, handle: u64) -> Option<&Context> {
        self.contexts.iter().find(|c| c.handle == handle)
    }
    fn find_mut(&mut self, handle: u64) -> Option<&mut Context> {
        self.contexts.iter_mut().find(|c| c.handle == handle)
    }
}

pub(crate) fn create_context(client: u32) -> u64 {
    let mut registry = REGISTRY.write();
    let handle = registry.offset + registry.contexts.len() as u64;
    registry.contexts.push(Context {
        handle,
        client,
        active: AtomicBool::new(false),
        callbacks: Vec::new(),
        buffers: Vec::new(),
        request: None,
    });
    handle
}

pub(crate) fn exists(handle: u64) -> bool {
    REGISTRY.read().find(handle).is_some()
}

pub(crate) fn is_active(handle: u64) -> Option<bool> {
    REGISTRY
        .read()
        .find(handle)
        .map(|c| c.active.load(Ordering::Acquire))
}

pub(crate) fn client_of(handle: u64) -> Option<u32> {
    REGISTRY.read().find(handle).map(|c| c.client)
}

pub(crate) fn set_active(handle: u64, active: bool) -> bool {
    match REGISTRY.read().find(handle) {
        Some(context) => {
            context.active.store(active, Ordering::Release);
            true
        }
        None => false,
    }
}

/// Stops an active context; false if it does not exist or is not active.
pub(crate) fn deactivate(handle: u64) -> bool {
    REGISTRY
        .read()
        .find(handle)
        .is_some_and(|c| c.active.swap(false, Ordering::AcqRel))
}

pub(crate) fn stop_client_contexts(client: u32) {
    for context in REGISTRY
        .read()
        .contexts
        .iter()
        .filter(|c| c.client == client)
    {
        context.active.store(false, Ordering::Release);
    }
}

pub(crate) enum ConfigureError {
    ContextNotFound,
    AlreadyConfigured,
}

pub(crate) fn add_callback_service(
    context: u64,
    kind: u32,
    service: CallbackService,
) -> Result<(), ConfigureError> {
    let mut registry = REGISTRY.write();
    let context = registry
        .find_mut(context)
        .ok_or(ConfigureError::ContextNotFound)?;
    if context.callbacks.iter().any(|(k, _)| *k == kind) {
        return Err(ConfigureError::AlreadyConfigured);
    }
    context.callbacks.push((kind, service));
    Ok(())
}

pub(crate) fn add_buffer_service(
    context: u64,
    kind: u32,
    service: BufferService,
) -> Result<(), ConfigureError> {
    let mut registry = REGISTRY.write();
    let context = registry
        .find_mut(context)
        .ok_or(ConfigureError::ContextNotFound)?;
    if context.buffers.iter().any(|(k, _)| *k == kind) {
        return Err(ConfigureError::AlreadyConfigured);
    }
    context.buffers.push((kind, service));
    Ok(())
}

pub(crate) fn has_request_service(context: u64) -> bool {
    REGISTRY
        .read()
        .find(context)
        .is_some_and(|c| c.request.is_some())
}

pub(crate) fn add_request_service(
    context: u64,
    service: RequestService,
) -> Result<(), ConfigureError> {
    let mut registry = REGISTRY.write();
    let context = registry
        .find_mut(context)
        .ok_or(ConfigureError::ContextNotFound)?;
    if context.request.is_some() {
        return Err(ConfigureError::AlreadyConfigured);
    }
    context.request = Some(service);
    Ok(())
}

/// Which services of one tracing domain a producer looks for.
#[derive(Clone, Copy)]
pub(crate) struct Selector {
    pub callback_kind: Option<u32>,
    pub buffer_kind: Option<u32>,
    pub request_kind: Option<u32>,
}

/// What one active context wants for one operation.
#[derive(Clone)]
pub(crate) struct Target {
    pub context: u64,
    pub callback: Option<CallbackService>,
    pub buffer: Option<u64>,
    pub request: Option<RequestService>,
}

pub(crate) type Targets = SmallVec<[Target; 4]>;

/// The active contexts that trace an operation: their callback service if it allows any of
/// `callback_ops`, their buffer service if it allows `buffer_op`, and their request service if
/// it requests `request_kind` (only for contexts that trace the operation, docs/sdk-facts.md#which-value-a-record-carries).
pub(crate) fn targets(sel: Selector, callback_ops: &[i32], buffer_op: i32) -> Targets {
    let mut out = Targets::new();
    // A runtime whose table never reached the SDK is not intercepted: no tool sees its calls
    // or its device work, whatever contexts are active.
    if crate::engine::lifecycle::runtime_tables()
        == crate::engine::lifecycle::RuntimeTables::Untraced
    {
        return out;
    }
    let registry = REGISTRY.read();
    for context in &registry.contexts {
        if !context.active.load(Ordering::Acquire) {
            continue;
        }
        let callback = sel.callback_kind.and_then(|kind| {
            context
                .callbacks
                .iter()
                .find(|(k, s)| *k == kind && callback_ops.iter().any(|op| s.ops.allows(*op)))
                .map(|(_, s)| s.clone())
        });
        let buffer = sel.buffer_kind.and_then(|kind| {
            context
                .buffers
                .iter()
                .find(|(k, s)| *k == kind && s.ops.allows(buffer_op))
                .map(|(_, s)| s.buffer)
        });
        if callback.is_none() && buffer.is_none() {
            continue;
        }
        let request = sel.request_kind.and_then(|kind| {
            context
                .request
                .as_ref()
                .filter(|r| r.kinds & (1u64 << kind) != 0)
                .cloned()
        });
        out.push(Target {
            context: context.handle,
            callback,
            buffer,
            request,
        });
    }
    out
}
