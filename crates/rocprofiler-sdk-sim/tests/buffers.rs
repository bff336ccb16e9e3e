//! Buffer semantics (§7.2, §18.24-29): watermark, blocking flush, LOSSLESS blocking, DISCARD
//! drop counting, BUSY for concurrent and self flushes, poisoned memory after the callback,
//! destroy, callback threads. Each buffer sits on its own context that traces only
//! HIP_RUNTIME_API into it, and is started only by its test (tests here run one at a time).
use rocprofiler_sdk_sim as sim;
use rocprofiler_sdk_sys as sys;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};
use sys::*;

const RECORD: usize = std::mem::size_of::<rocprofiler_buffer_tracing_hip_api_record_t>();

#[derive(Default)]
struct Probe {
    calls: AtomicUsize,
    records: AtomicUsize,
    drops: AtomicU64,
    sleep_ms: AtomicU64,
    self_flush_status: AtomicU32,
    first_payload: AtomicUsize,
    tids: Mutex<Vec<u64>>,
}

#[derive(Clone, Copy)]
enum B {
    Watermark,
    Lossless,
    Discard,
    SelfFlush,
    Busy,
    Destroy,
    Assigned,
}
const ALL: [B; 7] = [
    B::Watermark,
    B::Lossless,
    B::Discard,
    B::SelfFlush,
    B::Busy,
    B::Destroy,
    B::Assigned,
];

static PROBES: OnceLock<Vec<Probe>> = OnceLock::new();
static IDS: OnceLock<Vec<(rocprofiler_context_id_t, rocprofiler_buffer_id_t)>> = OnceLock::new();
static SERIAL: Mutex<()> = Mutex::new(());

fn probe(b: B) -> &'static Probe {
    &PROBES.get().unwrap()[b as usize]
}
fn ids(b: B) -> (rocprofiler_context_id_t, rocprofiler_buffer_id_t) {
    IDS.get().unwrap()[b as usize]
}
fn tid() -> u64 {
    let mut t = 0;
    unsafe { rocprofiler_get_thread_id(&mut t) };
    t
}

unsafe extern "C" fn on_buffer(
    _context: rocprofiler_context_id_t,
    buffer: rocprofiler_buffer_id_t,
    headers: *mut *mut rocprofiler_record_header_t,
    num_headers: usize,
    data: *mut c_void,
    drop_count: u64,
) {
    let p = &PROBES.get().unwrap()[data as usize];
    p.tids.lock().unwrap().push(tid());
    for i in 0..num_headers {
        let h = &**headers.add(i);
        assert_eq!(h.kind(), ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API);
        let r = &*(h.payload as *const rocprofiler_buffer_tracing_hip_api_record_t);
        assert_eq!(r.size as usize, RECORD);
    }
    if num_headers > 0 {
        p.first_payload
            .store((**headers).payload as usize, Ordering::SeqCst);
    }
    if data as usize == B::SelfFlush as usize {
        p.self_flush_status
            .store(rocprofiler_flush_buffer(buffer), Ordering::SeqCst);
    }
    let sleep = p.sleep_ms.swap(0, Ordering::SeqCst);
    if sleep > 0 {
        std::thread::sleep(Duration::from_millis(sleep));
    }
    p.records.fetch_add(num_headers, Ordering::SeqCst);
    p.drops.fetch_add(drop_count, Ordering::SeqCst);
    p.calls.fetch_add(1, Ordering::SeqCst);
}

fn check(s: rocprofiler_status_t) {
    assert_eq!(s, ROCPROFILER_STATUS_SUCCESS);
}

unsafe extern "C" fn tool_init(_f: rocprofiler_client_finalize_t, _d: *mut c_void) -> c_int {
    PROBES
        .set(ALL.iter().map(|_| Probe::default()).collect())
        .ok()
        .unwrap();
    let mut ids = Vec::new();
    for b in ALL {
        let (size, watermark, policy) = match b {
            B::Watermark => (10 * RECORD, 4 * RECORD, ROCPROFILER_BUFFER_POLICY_LOSSLESS),
            B::Lossless => (2 * RECORD, 2 * RECORD, ROCPROFILER_BUFFER_POLICY_LOSSLESS),
            B::Discard => (2 * RECORD, 2 * RECORD, ROCPROFILER_BUFFER_POLICY_DISCARD),
            _ => (
                100 * RECORD,
                100 * RECORD,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
            ),
        };
        let mut ctx = rocprofiler_context_id_t { handle: 0 };
        check(rocprofiler_create_context(&mut ctx));
        let mut buffer = rocprofiler_buffer_id_t { handle: 0 };
        check(rocprofiler_create_buffer(
            ctx,
            size,
            watermark,
            policy,
            Some(on_buffer),
            b as usize as *mut c_void,
            &mut buffer,
        ));
        assert!(
            (255..=65535 + 64).contains(&buffer.handle),
            "buffer handles start at a random offset in [255, 65535]"
        );
        check(rocprofiler_configure_buffer_tracing_service(
            ctx,
            ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
            std::ptr::null(),
            0,
            buffer,
        ));
        if let B::Assigned = b {
            let mut thread = rocprofiler_callback_thread_t { handle: 0 };
            check(rocprofiler_create_callback_thread(&mut thread));
            check(rocprofiler_assign_callback_thread(buffer, thread));
        }
        ids.push((ctx, buffer));
    }
    IDS.set(ids).ok().unwrap();
    0
}

struct Result(rocprofiler_tool_configure_result_t);
unsafe impl Sync for Result {}
static RESULT: Result = Result(rocprofiler_tool_configure_result_t {
    size: 32,
    initialize: Some(tool_init),
    finalize: None,
    tool_data: std::ptr::null_mut(),
});
unsafe extern "C" fn configure(
    _: u32,
    _: *const std::ffi::c_char,
    _: u32,
    _: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    &RESULT.0 as *const _ as *mut _
}

/// Serializes the tests and starts only `b`'s context for the duration of the guard.
struct Active(#[allow(dead_code)] std::sync::MutexGuard<'static, ()>, B);
fn activate(b: B) -> Active {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| check(unsafe { rocprofiler_force_configure(Some(configure)) }));
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    check(unsafe { rocprofiler_start_context(ids(b).0) });
    Active(guard, b)
}
impl Drop for Active {
    fn drop(&mut self) {
        unsafe { rocprofiler_stop_context(ids(self.1).0) };
    }
}

fn call() {
    sim::driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, None).unwrap();
}

fn wait_for(what: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if what() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

#[test]
fn watermark_queues_a_flush_and_flush_blocks_until_the_callback_ran() {
    let _a = activate(B::Watermark);
    let p = probe(B::Watermark);
    check(unsafe { rocprofiler_flush_buffer(ids(B::Watermark).1) });
    let (calls0, records0) = (
        p.calls.load(Ordering::SeqCst),
        p.records.load(Ordering::SeqCst),
    );
    let calls = || p.calls.load(Ordering::SeqCst) - calls0;
    let records = || p.records.load(Ordering::SeqCst) - records0;
    for _ in 0..3 {
        call();
    }
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(calls(), 0, "below the watermark nothing is delivered");
    call();
    assert!(wait_for(|| calls() == 1), "reaching the watermark delivers");
    assert_eq!(records(), 4);
    call();
    call();
    check(unsafe { rocprofiler_flush_buffer(ids(B::Watermark).1) });
    // No waiting: flush returned only after the callback ran.
    assert_eq!(calls(), 2);
    assert_eq!(records(), 6);
    // Flushing an empty buffer succeeds without a callback.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Watermark).1) });
    assert_eq!(calls(), 2);
    let me = tid();
    assert!(
        p.tids.lock().unwrap().iter().all(|t| *t != me),
        "never on the app thread"
    );
}

#[cfg(debug_assertions)]
#[test]
fn record_memory_is_poisoned_after_the_callback() {
    let _a = activate(B::Watermark);
    let p = probe(B::Watermark);
    call();
    check(unsafe { rocprofiler_flush_buffer(ids(B::Watermark).1) });
    let stale = p.first_payload.load(Ordering::SeqCst) as *const u64;
    // The arena is still owned by the sim (it is reused), so reading it is sound; a tool that
    // kept the pointer would read this pattern instead of its record.
    assert_eq!(unsafe { stale.read_volatile() }, 0xDBDB_DBDB_DBDB_DBDB);
}

#[test]
fn lossless_blocks_the_producer_instead_of_dropping() {
    let _a = activate(B::Lossless);
    let p = probe(B::Lossless);
    p.sleep_ms.store(300, Ordering::SeqCst);
    let start = Instant::now();
    for _ in 0..6 {
        call();
    }
    let elapsed = start.elapsed();
    check(unsafe { rocprofiler_flush_buffer(ids(B::Lossless).1) });
    assert!(
        elapsed >= Duration::from_millis(250),
        "producer was not blocked ({elapsed:?})"
    );
    assert_eq!(p.records.load(Ordering::SeqCst), 6);
    assert_eq!(p.drops.load(Ordering::SeqCst), 0);
}

#[test]
fn discard_drops_and_counts_instead_of_blocking() {
    let _a = activate(B::Discard);
    let p = probe(B::Discard);
    p.sleep_ms.store(300, Ordering::SeqCst);
    let start = Instant::now();
    for _ in 0..6 {
        call();
    }
    let elapsed = start.elapsed();
    check(unsafe { rocprofiler_flush_buffer(ids(B::Discard).1) });
    assert!(
        elapsed < Duration::from_millis(250),
        "DISCARD must not block ({elapsed:?})"
    );
    let (records, drops) = (
        p.records.load(Ordering::SeqCst),
        p.drops.load(Ordering::SeqCst),
    );
    assert!(drops >= 1, "drops are reported in drop_count");
    assert_eq!(records as u64 + drops, 6);
}

#[test]
fn flush_from_the_buffers_own_callback_is_busy_not_success() {
    let _a = activate(B::SelfFlush);
    let p = probe(B::SelfFlush);
    p.self_flush_status.store(u32::MAX, Ordering::SeqCst);
    call();
    check(unsafe { rocprofiler_flush_buffer(ids(B::SelfFlush).1) });
    assert_eq!(
        p.self_flush_status.load(Ordering::SeqCst),
        ROCPROFILER_STATUS_ERROR_BUFFER_BUSY
    );
}

#[test]
fn flush_during_a_concurrent_flush_is_busy() {
    let _a = activate(B::Busy);
    let p = probe(B::Busy);
    let buffer = ids(B::Busy).1;
    check(unsafe { rocprofiler_flush_buffer(buffer) });
    let (seen, records0) = (
        p.tids.lock().unwrap().len(),
        p.records.load(Ordering::SeqCst),
    );
    p.sleep_ms.store(300, Ordering::SeqCst);
    call();
    let first = std::thread::spawn(move || unsafe { rocprofiler_flush_buffer(buffer) });
    assert!(
        wait_for(|| p.tids.lock().unwrap().len() > seen),
        "first flush started its callback"
    );
    assert_eq!(
        unsafe { rocprofiler_flush_buffer(buffer) },
        ROCPROFILER_STATUS_ERROR_BUFFER_BUSY
    );
    assert_eq!(first.join().unwrap(), ROCPROFILER_STATUS_SUCCESS);
    assert_eq!(p.records.load(Ordering::SeqCst) - records0, 1);
}

#[test]
fn assigned_callback_thread_differs_from_the_default_one() {
    let guard = activate(B::Assigned);
    call();
    check(unsafe { rocprofiler_flush_buffer(ids(B::Assigned).1) });
    drop(guard);
    let guard = activate(B::Busy);
    call();
    check(unsafe { rocprofiler_flush_buffer(ids(B::Busy).1) });
    drop(guard);
    let assigned = probe(B::Assigned).tids.lock().unwrap().clone();
    let default = probe(B::Busy).tids.lock().unwrap().clone();
    assert!(!assigned.is_empty() && !default.is_empty());
    assert!(assigned.iter().all(|t| !default.contains(t)));
    assert!(!assigned.contains(&tid()));
}

#[test]
fn destroyed_buffers_are_gone_and_invalidate_their_context() {
    let a = activate(B::Destroy);
    let (ctx, buffer) = ids(B::Destroy);
    {
        let _a = a;
        call();
        check(unsafe { rocprofiler_destroy_buffer(buffer) });
        call(); // pushes to a destroyed buffer are ignored
        unsafe { rocprofiler_stop_context(ctx) };
    }
    assert_eq!(
        probe(B::Destroy).calls.load(Ordering::SeqCst),
        0,
        "unflushed records were dropped"
    );
    assert_eq!(
        unsafe { rocprofiler_flush_buffer(buffer) },
        ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND
    );
    assert_eq!(
        unsafe { rocprofiler_destroy_buffer(buffer) },
        ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND
    );
    assert_eq!(
        unsafe { rocprofiler_start_context(ctx) },
        ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID
    );
    let mut valid = -1;
    check(unsafe { rocprofiler_context_is_valid(ctx, &mut valid) });
    assert_eq!(valid, 0);
}
