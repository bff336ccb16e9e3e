//! A simulated `librocprofiler-sdk-roctx.so` (SONAME `librocprofiler-sdk-roctx.so.1`, as ROCm 7's):
//! the ROCTx C functions a program calls, `roctxRangePushA`, `roctxRangePop`, `roctxRangeStartA`,
//! `roctxRangeStop`, `roctxMarkA` and `roctxNameHipStream`, in the library the real ones live in (the simulated SDK library does
//! not export them, as the real one does not).
//!
//! The real library reaches the SDK through the marker tables the SDK installs; this one looks
//! up the simulated SDK's `rocsim_roctx_*` entry points (rocsim-abi) in the process: in the
//! global scope (an SDK linked into the program or loaded `RTLD_GLOBAL`), else in an already
//! loaded `librocprofiler-sdk.so.1`. Found once, they are kept; until then every call looks
//! again and, with no SDK in the process, does what ROCTx does without a tool: a push or pop
//! only counts the thread's nesting level, a start returns a fresh range id, a stop, mark or
//! stream name does nothing.
use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use rocsim_abi::{
    rocsim_roctx_mark_a_fn, rocsim_roctx_name_hip_stream_fn, rocsim_roctx_range_pop_fn,
    rocsim_roctx_range_push_a_fn, rocsim_roctx_range_start_a_fn, rocsim_roctx_range_stop_fn,
};

/// The simulated SDK's ROCTx entry points.
#[derive(Clone, Copy)]
struct Sdk {
    range_push_a: rocsim_roctx_range_push_a_fn,
    range_pop: rocsim_roctx_range_pop_fn,
    range_start_a: rocsim_roctx_range_start_a_fn,
    range_stop: rocsim_roctx_range_stop_fn,
    mark_a: rocsim_roctx_mark_a_fn,
    name_hip_stream: rocsim_roctx_name_hip_stream_fn,
}

static SDK: OnceLock<Sdk> = OnceLock::new();

thread_local! {
    /// The thread's nesting level while no SDK is in the process.
    static LEVEL: Cell<c_int> = const { Cell::new(0) };
}

/// The entry points in the scope of `handle`, if all are there.
///
/// # Safety
/// `handle` is `RTLD_DEFAULT` or a live `dlopen` handle.
unsafe fn look_up(handle: *mut c_void) -> Option<Sdk> {
    let symbol = |name: &CStr| {
        // SAFETY: the caller's contract; `name` is NUL-terminated.
        let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
        (!address.is_null()).then_some(address)
    };
    let range_push_a = symbol(c"rocsim_roctx_range_push_a")?;
    let range_pop = symbol(c"rocsim_roctx_range_pop")?;
    let range_start_a = symbol(c"rocsim_roctx_range_start_a")?;
    let range_stop = symbol(c"rocsim_roctx_range_stop")?;
    let mark_a = symbol(c"rocsim_roctx_mark_a")?;
    let name_hip_stream = symbol(c"rocsim_roctx_name_hip_stream")?;
    // SAFETY: the simulated SDK defines these symbols with rocsim-abi's signatures (checked
    // where they are defined).
    unsafe {
        Some(Sdk {
            range_push_a: std::mem::transmute::<*mut c_void, rocsim_roctx_range_push_a_fn>(
                range_push_a,
            ),
            range_pop: std::mem::transmute::<*mut c_void, rocsim_roctx_range_pop_fn>(range_pop),
            range_start_a: std::mem::transmute::<*mut c_void, rocsim_roctx_range_start_a_fn>(
                range_start_a,
            ),
            range_stop: std::mem::transmute::<*mut c_void, rocsim_roctx_range_stop_fn>(range_stop),
            mark_a: std::mem::transmute::<*mut c_void, rocsim_roctx_mark_a_fn>(mark_a),
            name_hip_stream: std::mem::transmute::<*mut c_void, rocsim_roctx_name_hip_stream_fn>(
                name_hip_stream,
            ),
        })
    }
}

fn sdk() -> Option<Sdk> {
    if let Some(sdk) = SDK.get() {
        return Some(*sdk);
    }
    // SAFETY: RTLD_DEFAULT is a valid pseudo-handle.
    let found = unsafe { look_up(libc::RTLD_DEFAULT) }.or_else(|| {
        // RTLD_NOLOAD: only an SDK the process already loaded, never a new one. The handle is
        // kept: the entry points must stay valid.
        // SAFETY: a NUL-terminated name; dlopen has no other precondition.
        let handle = unsafe {
            libc::dlopen(
                c"librocprofiler-sdk.so.1".as_ptr(),
                libc::RTLD_LAZY | libc::RTLD_NOLOAD,
            )
        };
        // SAFETY: a live handle.
        (!handle.is_null()).then(|| unsafe { look_up(handle) })?
    })?;
    Some(*SDK.get_or_init(|| found))
}

/// `int roctxRangePushA(const char* message)`: opens a range on the calling thread; returns its
/// 0-based nesting level.
///
/// # Safety
/// `message` is null or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn roctxRangePushA(message: *const c_char) -> c_int {
    match sdk() {
        // SAFETY: the caller's contract, passed on.
        Some(sdk) => unsafe { (sdk.range_push_a)(message) },
        None => LEVEL
            .try_with(|level| {
                level.set(level.get() + 1);
                level.get() - 1
            })
            .unwrap_or(-1),
    }
}

/// `int roctxRangePop(void)`: closes the calling thread's innermost range; returns its level, or
/// -1 when none was open.
#[no_mangle]
pub extern "C" fn roctxRangePop() -> c_int {
    match sdk() {
        Some(sdk) => (sdk.range_pop)(),
        None => LEVEL
            .try_with(|level| {
                let closed = level.get() - 1;
                level.set(closed.max(0));
                closed.max(-1)
            })
            .unwrap_or(-1),
    }
}

/// Range ids handed out while no SDK is in the process (ROCTx's ids start at 1).
static NEXT_RANGE_ID: AtomicU64 = AtomicU64::new(1);

/// `roctx_range_id_t roctxRangeStartA(const char* message)`: opens a process range, which any
/// thread may stop; returns its id.
///
/// # Safety
/// `message` is null or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn roctxRangeStartA(message: *const c_char) -> u64 {
    match sdk() {
        // SAFETY: the caller's contract, passed on.
        Some(sdk) => unsafe { (sdk.range_start_a)(message) },
        None => NEXT_RANGE_ID.fetch_add(1, Ordering::Relaxed),
    }
}

/// `void roctxRangeStop(roctx_range_id_t id)`: closes the process range `id`.
#[no_mangle]
pub extern "C" fn roctxRangeStop(id: u64) {
    if let Some(sdk) = sdk() {
        (sdk.range_stop)(id);
    }
}

/// `void roctxMarkA(const char* message)`: a zero-length mark.
///
/// # Safety
/// `message` is null or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn roctxMarkA(message: *const c_char) {
    if let Some(sdk) = sdk() {
        // SAFETY: the caller's contract, passed on.
        unsafe { (sdk.mark_a)(message) }
    }
}

/// `int roctxNameHipStream(const char* name, const struct ihipStream_t* stream)`: names a HIP
/// stream for tools; 0.
///
/// # Safety
/// `name` is null or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn roctxNameHipStream(name: *const c_char, stream: *const c_void) -> c_int {
    match sdk() {
        // SAFETY: the caller's contract, passed on.
        Some(sdk) => unsafe { (sdk.name_hip_stream)(name, stream) },
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_an_sdk_ranges_only_count_levels() {
        std::thread::spawn(|| {
            assert!(sdk().is_none(), "no simulated SDK in this test's process");
            // SAFETY: NUL-terminated messages; a null one is allowed.
            unsafe {
                assert_eq!(roctxRangePushA(c"outer".as_ptr()), 0);
                assert_eq!(roctxRangePushA(std::ptr::null()), 1);
                roctxMarkA(c"mark".as_ptr());
                assert_eq!(roctxNameHipStream(c"s".as_ptr(), std::ptr::null()), 0);
            }
            assert_eq!(roctxRangePop(), 1);
            assert_eq!(roctxRangePop(), 0);
            assert_eq!(roctxRangePop(), -1);
            // SAFETY: as above.
            let (first, second) = unsafe {
                (
                    roctxRangeStartA(c"a".as_ptr()),
                    roctxRangeStartA(c"b".as_ptr()),
                )
            };
            assert_ne!(first, second, "each process range has its own id");
            roctxRangeStop(first);
            roctxRangeStop(second);
            // SAFETY: as above.
            assert_eq!(unsafe { roctxRangePushA(c"again".as_ptr()) }, 0);
        })
        .join()
        .unwrap();
    }
}
