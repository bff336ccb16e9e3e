//! External correlation ids (docs/sdk-facts.md#external-correlation): per-(context, thread) push/pop stacks and the request
//! service's return contract.
use crate::engine::registry::Target;
use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;
use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;

/// Stacks by (context, thread id).
type Stacks = HashMap<(u64, u64), Vec<u64>>;

static STACKS: LazyLock<Mutex<Stacks>> = LazyLock::new(|| Mutex::new(HashMap::default()));

/// The SDK's process-global default value (`get_default_data` in `external_correlation.cpp`):
/// the top left by the last push or pop made on the default thread (the one that loaded the
/// SDK: the main thread, tid == pid), in **any** context. Threads with no pushed value of
/// their own get it.
static DEFAULT: AtomicU64 = AtomicU64::new(0);

fn is_default_thread(tid: u64) -> bool {
    tid == crate::time::clock::getpid()
}

pub(crate) fn push(context: u64, tid: u64, value: u64) {
    STACKS.lock().entry((context, tid)).or_default().push(value);
    if is_default_thread(tid) {
        DEFAULT.store(value, Ordering::Relaxed);
    }
}

/// Pops the top of the stack; an empty stack pops `{0}` (docs/sdk-facts.md#push-and-pop).
pub(crate) fn pop(context: u64, tid: u64) -> u64 {
    let mut stacks = STACKS.lock();
    let Some(stack) = stacks.get_mut(&(context, tid)) else {
        return 0;
    };
    let Some(value) = stack.pop() else {
        return 0;
    };
    if is_default_thread(tid) {
        DEFAULT.store(stack.last().copied().unwrap_or(0), Ordering::Relaxed);
    }
    value
}

/// The value a record of `tid` gets from the stacks: its own top in `context`, else the
/// process-global default (docs/sdk-facts.md#push-and-pop).
pub(crate) fn top(context: u64, tid: u64) -> u64 {
    let stacks = STACKS.lock();
    let own = stacks.get(&(context, tid)).and_then(|s| s.last().copied());
    own.unwrap_or_else(|| DEFAULT.load(Ordering::Relaxed))
}

/// The external value one context gets for one operation: the request callback's value if it
/// returns 0, the pushed value if it returns non-zero or the context requests nothing for this
/// kind (docs/sdk-facts.md#request-return-contract, docs/simulator-fidelity.md#external-correlation). `*external` is zeroed before the call.
pub(crate) fn resolve(
    target: &Target,
    kind: sys::rocprofiler_external_correlation_id_request_kind_t,
    operation: i32,
    internal: u64,
    tid: u64,
) -> u64 {
    if let Some(request) = &target.request {
        let mut external = sys::rocprofiler_user_data_t { value: 0 };
        // SAFETY: the tool's request callback with a valid, zeroed out-pointer that outlives
        // the call; no sim lock is held here.
        let rc = unsafe {
            (request.callback)(
                tid,
                sys::rocprofiler_context_id_t {
                    handle: target.context,
                },
                kind,
                operation,
                internal,
                &mut external,
                request.data.0,
            )
        };
        if rc == 0 {
            // SAFETY: both union members are 8 bytes; reading `value` reads whatever was stored.
            return unsafe { external.value };
        }
    }
    top(target.context, tid)
}
