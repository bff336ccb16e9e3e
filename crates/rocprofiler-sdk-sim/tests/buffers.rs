//! Buffer semantics (docs/sdk-facts.md#buffer-behaviour, docs/simulator-fidelity.md#buffers), as the SDK's `buffer::instance` has them: watermark,
//! blocking flush, producers waiting for the callback that delivers their half (API threads
//! and the completion thread), the self-deadlock report, DISCARD's single half and cumulative
//! drop count, a flush during another flush, BUSY for a self flush, poisoned memory after the
//! callback, destroy, callback threads. Each buffer sits on its own context that traces only
//! HIP_RUNTIME_API (and KERNEL_DISPATCH for one) into it, and is started only by its test
//! (tests here run one at a time). Nothing here waits for a fixed time: tests that need a
//! callback to be running hold it at a gate, and observe waiting producers through the sim's
//! record counts. How producers wait for a callback is the release's (`buffer_sync`): the
//! tests of one release's behaviour run in a child process with that `rocm`.
use sim_test_kit::{check, child, sim, sys, tid, trace_buffer};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};
use sys::*;

const RECORD: usize = std::mem::size_of::<rocprofiler_buffer_tracing_hip_api_record_t>();
/// The SDK rounds a buffer up to whole pages.
const PAGE: usize = 4096;

#[derive(Default)]
struct Probe {
    calls: AtomicUsize,
    records: AtomicUsize,
    drops: AtomicU64,
    self_flush_status: AtomicU32,
    first_payload: AtomicUsize,
    tids: Mutex<Vec<u64>>,
    /// drop_count of every callback, in order.
    drop_counts: Mutex<Vec<u64>>,
    /// Callbacks that started (before the gate).
    entered: AtomicUsize,
    /// Closed: callbacks wait at the gate until the test opens it.
    gate_closed: Mutex<bool>,
    gate: Condvar,
    nested_calls: AtomicUsize,
}

/// Callbacks wait at the probe's gate until this is dropped. Dropped by a failing assertion
/// too: a callback left waiting would hold the SDK's finalization at exit, and the failed test
/// would hang instead of failing.
struct ClosedGate(&'static Probe);

impl Drop for ClosedGate {
    fn drop(&mut self) {
        *self.0.gate_closed.lock().unwrap_or_else(|e| e.into_inner()) = false;
        self.0.gate.notify_all();
    }
}

impl Probe {
    fn close_gate(&'static self) -> ClosedGate {
        *self.gate_closed.lock().unwrap() = true;
        ClosedGate(self)
    }
    fn pass_gate(&self) {
        let mut closed = self.gate_closed.lock().unwrap();
        while *closed {
            closed = self.gate.wait(closed).unwrap();
        }
    }
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
    Nested,
    /// Every record flushes; the callback takes 1 ms.
    Slow,
}
const ALL: [B; 9] = [
    B::Watermark,
    B::Lossless,
    B::Discard,
    B::SelfFlush,
    B::Busy,
    B::Destroy,
    B::Assigned,
    B::Nested,
    B::Slow,
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
    p.entered.fetch_add(1, Ordering::SeqCst);
    if data as usize == B::Slow as usize {
        std::thread::sleep(Duration::from_millis(1));
    }
    for i in 0..num_headers {
        // SAFETY: the SDK hands over `num_headers` valid header pointers, live for the callback.
        let h = unsafe { &**headers.add(i) };
        if h.kind() == ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API {
            // SAFETY: a HIP_RUNTIME_API record's payload is the SDK's hip_api record, live for the
            // callback.
            let r = unsafe { &*(h.payload as *const rocprofiler_buffer_tracing_hip_api_record_t) };
            assert_eq!(r.size as usize, RECORD);
        } else {
            assert_eq!(h.kind(), ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH);
        }
    }
    if num_headers > 0 {
        // SAFETY: there is at least one header (checked above), valid for the callback.
        p.first_payload
            .store(unsafe { (**headers).payload } as usize, Ordering::SeqCst);
    }
    if data as usize == B::SelfFlush as usize {
        // SAFETY: a plain handle, no pointers; the SDK validates it.
        p.self_flush_status.store(
            unsafe { rocprofiler_flush_buffer(buffer) },
            Ordering::SeqCst,
        );
    }
    if data as usize == B::Nested as usize && p.nested_calls.load(Ordering::SeqCst) == 0 {
        // A sink that makes traced HIP calls while it handles a batch: the first lands in the
        // other half and flushes it, the second needs the half this callback is delivering.
        for _ in 0..2 {
            p.nested_calls.fetch_add(1, Ordering::SeqCst);
            call();
        }
    }
    p.pass_gate();
    p.records.fetch_add(num_headers, Ordering::SeqCst);
    p.drops.fetch_add(drop_count, Ordering::SeqCst);
    p.drop_counts.lock().unwrap().push(drop_count);
    p.calls.fetch_add(1, Ordering::SeqCst);
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
            // Every record flushes: a second record moves producers back to the first half.
            B::Lossless | B::Nested | B::Slow => (PAGE, 0, ROCPROFILER_BUFFER_POLICY_LOSSLESS),
            // A watermark above the capacity: only explicit flushes deliver.
            B::Discard => (PAGE, 2 * PAGE, ROCPROFILER_BUFFER_POLICY_DISCARD),
            B::Busy => (PAGE, 2 * PAGE, ROCPROFILER_BUFFER_POLICY_LOSSLESS),
            _ => (
                100 * RECORD,
                100 * RECORD,
                ROCPROFILER_BUFFER_POLICY_LOSSLESS,
            ),
        };
        let ctx = sim_test_kit::context();
        let mut buffer = rocprofiler_buffer_id_t { handle: 0 };
        // SAFETY: `buffer` is a live local for the SDK to write; on_buffer has the SDK's buffer
        // callback type and its data is a probe index, never dereferenced.
        check(unsafe {
            rocprofiler_create_buffer(
                ctx,
                size,
                watermark,
                policy,
                Some(on_buffer),
                b as usize as *mut c_void,
                &mut buffer,
            )
        });
        assert!(
            (255..=65535 + 64).contains(&buffer.handle),
            "buffer handles start at a random offset in [255, 65535]"
        );
        trace_buffer(ctx, &[ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API], buffer);
        if let B::Lossless = b {
            trace_buffer(ctx, &[ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH], buffer);
        }
        if let B::Assigned = b {
            let mut thread = rocprofiler_callback_thread_t { handle: 0 };
            // SAFETY: `thread` is a live local for the SDK to write.
            check(unsafe { rocprofiler_create_callback_thread(&mut thread) });
            // SAFETY: a plain handle, no pointers; the SDK validates it.
            check(unsafe { rocprofiler_assign_callback_thread(buffer, thread) });
        }
        ids.push((ctx, buffer));
    }
    IDS.set(ids).ok().unwrap();
    0
}

/// Serializes the tests and starts only `b`'s context for the duration of the guard.
struct Active(#[allow(dead_code)] std::sync::MutexGuard<'static, ()>, B);
fn activate(b: B) -> Active {
    sim_test_kit::register_tool(c"buffers-test-tool", tool_init, None);
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_start_context(ids(b).0) });
    Active(guard, b)
}
impl Drop for Active {
    fn drop(&mut self) {
        // SAFETY: a plain handle, no pointers; the SDK validates it.
        unsafe { rocprofiler_stop_context(ids(self.1).0) };
    }
}

fn call() {
    sim::driver::api_call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, None).unwrap();
}

/// Polls a condition the sim is guaranteed to reach; the deadline only bounds a failure.
fn wait_for(what: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if what() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

fn counts(b: B) -> sim::BufferRecordCounts {
    sim::record_counts(ids(b).1.handle).expect("the buffer exists")
}

#[test]
fn watermark_queues_a_flush_and_flush_blocks_until_the_callback_ran() {
    let _a = activate(B::Watermark);
    let p = probe(B::Watermark);
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Watermark).1) });
    let (calls0, records0) = (
        p.calls.load(Ordering::SeqCst),
        p.records.load(Ordering::SeqCst),
    );
    let calls = || p.calls.load(Ordering::SeqCst) - calls0;
    let records = || p.records.load(Ordering::SeqCst) - records0;
    let delivered0 = counts(B::Watermark).delivered;
    for _ in 0..3 {
        call();
    }
    // Below the watermark no delivery was even queued: everything written is still held.
    assert_eq!(
        counts(B::Watermark).delivered,
        delivered0,
        "below the watermark nothing is delivered"
    );
    assert_eq!(calls(), 0);
    call();
    assert!(wait_for(|| calls() == 1), "reaching the watermark delivers");
    assert_eq!(records(), 4);
    call();
    call();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Watermark).1) });
    // No waiting: flush returned only after the callback ran.
    assert_eq!(calls(), 2);
    assert_eq!(records(), 6);
    // Flushing an empty buffer succeeds without a callback.
    // SAFETY: a plain handle, no pointers; the SDK validates it.
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
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Watermark).1) });
    let stale = p.first_payload.load(Ordering::SeqCst) as *const u64;
    // A tool that kept the pointer would read this pattern instead of its record.
    // SAFETY: the arena is still owned by the sim (it is reused), so reading it is sound.
    assert_eq!(unsafe { stale.read_volatile() }, 0xDBDB_DBDB_DBDB_DBDB);
}

/// H1: while the callback delivers one half, producers write the other; once that one reaches
/// the watermark and the index flips back, every producer, the HIP API thread and the
/// completion (signal) thread alike, waits until the tool's callback returned.
#[test]
fn producers_wait_while_the_callback_delivers_their_half() {
    if !child::in_child(
        "producers_wait_while_the_callback_delivers_their_half",
        &[ROCM_7_14],
    ) {
        return;
    }
    let _a = activate(B::Lossless);
    let p = probe(B::Lossless);
    let buffer = ids(B::Lossless).1;
    let launch = sim_test_kit::tiny_kernel("_Z6waiterv", 1_000);
    let before = counts(B::Lossless);
    let gate = p.close_gate();
    // Record 1 fills the first half (watermark 0): its delivery starts and holds at the gate.
    call();
    assert!(wait_for(|| p.entered.load(Ordering::SeqCst) == 1));
    // Record 2 goes to the second half and flushes it, moving producers back to the first.
    call();
    // A HIP call on another thread: its API record, and its kernel's record on the signal
    // thread, both need the first half.
    let done = std::sync::Arc::new(AtomicUsize::new(0));
    let done2 = done.clone();
    let producer = std::thread::spawn(move || {
        sim::driver::launch_kernel(sim::driver::NULL_STREAM, &launch).unwrap();
        done2.store(1, Ordering::SeqCst);
    });
    assert!(
        wait_for(|| counts(B::Lossless).producer_waits - before.producer_waits == 2),
        "the API thread and the completion thread wait for the callback"
    );
    assert_eq!(
        done.load(Ordering::SeqCst),
        0,
        "the HIP call has not returned"
    );
    assert_eq!(
        counts(B::Lossless).written(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH)
            - before.written(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH),
        0,
        "the kernel record waits too"
    );
    drop(gate);
    producer.join().unwrap();
    sim::driver::wait_idle();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(buffer) });
    // SAFETY: as above.
    check(unsafe { rocprofiler_flush_buffer(buffer) });
    let after = counts(B::Lossless);
    assert_eq!(after.total_written() - before.total_written(), 4);
    assert_eq!(after.delivered - before.delivered, 4, "nothing lost");
    assert_eq!(p.records.load(Ordering::SeqCst), 4);
    assert_eq!(p.drops.load(Ordering::SeqCst), 0);
}

const ROCM_7_0: (&str, &str) = ("ROCSIM_MACHINE", "rocm = \"7.0\"");
const ROCM_7_1: (&str, &str) = ("ROCSIM_MACHINE", "rocm = \"7.1\"");
const ROCM_7_14: (&str, &str) = ("ROCSIM_MACHINE", "rocm = \"7.14\"");

/// ROCm 7.1/7.2 (one syncer per buffer, #529): a producer waits for the callback even when the
/// half it writes is free.
#[test]
fn with_one_syncer_per_buffer_producers_wait_for_every_callback() {
    if !child::in_child(
        "with_one_syncer_per_buffer_producers_wait_for_every_callback",
        &[ROCM_7_1],
    ) {
        return;
    }
    let _a = activate(B::Lossless);
    let p = probe(B::Lossless);
    let before = counts(B::Lossless);
    let gate = p.close_gate();
    // Record 1 fills the first half (watermark 0): its delivery holds at the gate.
    call();
    assert!(wait_for(|| p.entered.load(Ordering::SeqCst) == 1));
    // Record 2 would go to the free second half, but the buffer's one flag is held.
    let done = std::sync::Arc::new(AtomicUsize::new(0));
    let done2 = done.clone();
    let producer = std::thread::spawn(move || {
        call();
        done2.store(1, Ordering::SeqCst);
    });
    assert!(wait_for(|| counts(B::Lossless).producer_waits
        - before.producer_waits
        == 1));
    assert_eq!(
        done.load(Ordering::SeqCst),
        0,
        "the HIP call has not returned"
    );
    assert_eq!(
        counts(B::Lossless).total_written() - before.total_written(),
        1
    );
    drop(gate);
    producer.join().unwrap();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Lossless).1) });
    let after = counts(B::Lossless);
    assert_eq!(after.total_written() - before.total_written(), 2);
    assert_eq!(after.delivered - before.delivered, 2, "nothing lost");
}

/// ROCm 7.0 (`release/rocm-rel-7.0` @ `64cf36de`: `flush` tests the buffer's one syncer before
/// it flips the halves; `emplace` never takes it). During a long callback every watermark flush
/// answers BUFFER_BUSY without flipping, so producers fill the free half without waiting and
/// without losing a record; when it is full, a LOSSLESS producer's waiting flush waits for the
/// callback, then flips and delivers. Everything is delivered later, nothing is lost.
#[test]
fn when_only_flush_takes_the_syncer_producers_fill_the_free_half_and_lose_nothing() {
    if !child::in_child(
        "when_only_flush_takes_the_syncer_producers_fill_the_free_half_and_lose_nothing",
        &[ROCM_7_0],
    ) {
        return;
    }
    let _a = activate(B::Lossless);
    let p = probe(B::Lossless);
    let buffer = ids(B::Lossless).1;
    let per_half = PAGE / RECORD;
    let before = counts(B::Lossless);
    let gate = p.close_gate();
    // Record 1 fills the first half (watermark 0): its delivery starts and holds at the gate.
    call();
    assert!(wait_for(|| p.entered.load(Ordering::SeqCst) == 1));
    // The second half, to the last record that fits: every record reaches the watermark, and
    // every watermark flush finds the syncer held.
    for _ in 0..per_half {
        call();
    }
    let during = counts(B::Lossless);
    assert_eq!(
        during.busy_flushes - before.busy_flushes,
        per_half as u64,
        "each watermark flush during the callback is BUSY"
    );
    assert_eq!(
        during.total_written() - before.total_written(),
        1 + per_half as u64,
        "a BUSY flush does not flip: the records stay on the free half"
    );
    assert_eq!(during.total_lost() - before.total_lost(), 0, "none lost");
    assert_eq!(during.producer_waits, before.producer_waits, "nobody waits");
    assert_eq!(p.calls.load(Ordering::SeqCst), 0, "the callback still runs");
    // The next record does not fit: its producer runs a waiting flush, which waits for the
    // running callback.
    let done = std::sync::Arc::new(AtomicUsize::new(0));
    let done2 = done.clone();
    let producer = std::thread::spawn(move || {
        call();
        done2.store(1, Ordering::SeqCst);
    });
    assert!(
        wait_for(|| counts(B::Lossless).flush_waits > before.flush_waits),
        "the full half's producer waits for the callback"
    );
    assert_eq!(
        done.load(Ordering::SeqCst),
        0,
        "the HIP call has not returned"
    );
    drop(gate);
    producer.join().unwrap();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(buffer) });
    // SAFETY: as above.
    check(unsafe { rocprofiler_flush_buffer(buffer) });
    let after = counts(B::Lossless);
    assert_eq!(
        after.total_written() - before.total_written(),
        2 + per_half as u64
    );
    assert_eq!(after.total_lost() - before.total_lost(), 0, "none lost");
    assert_eq!(
        after.delivered - before.delivered,
        2 + per_half as u64,
        "every record delivered"
    );
    assert_eq!(p.records.load(Ordering::SeqCst), 2 + per_half);
    assert_eq!(p.drops.load(Ordering::SeqCst), 0);
}

/// What a 1 ms buffer callback costs a HIP thread that produces records during it, measured
/// as the SDK makes it wait (`producer_wait_ns`): record 2 finds the other half free, record 3
/// finds producers moved back to the half being delivered. Prints the numbers of five attempts
/// (a loaded machine can deschedule the test for longer than the callback, so the assertions
/// ask for the stall in at least one attempt): per attempt, (record 2 waits, its µs, record 3
/// waits, its µs).
fn one_ms_callback_stalls(test: &str, rocm: (&str, &str)) -> Option<Vec<[u64; 4]>> {
    let in_child = child::in_child_checked(test, &[rocm], |output| {
        child::assert_passed(test, output);
        // The child's numbers, shown by `cargo test ... -- --nocapture`.
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            if line.contains("1 ms buffer callback") {
                println!("{line}");
            }
        }
    });
    if !in_child {
        return None;
    }
    let _a = activate(B::Slow);
    let p = probe(B::Slow);
    let waited = |f: &dyn Fn()| {
        let before = counts(B::Slow);
        f();
        let after = counts(B::Slow);
        (
            after.producer_waits - before.producer_waits,
            (after.producer_wait_ns - before.producer_wait_ns) / 1000,
        )
    };
    let mut attempts = Vec::new();
    for _ in 0..5 {
        let entered = p.entered.load(Ordering::SeqCst);
        // Record 1 starts a 1 ms callback; wait (spinning, not sleeping) until it runs.
        call();
        while p.entered.load(Ordering::SeqCst) == entered {
            std::thread::yield_now();
        }
        let (waits_2, us_2) = waited(&call);
        let (waits_3, us_3) = waited(&call);
        attempts.push([waits_2, us_2, waits_3, us_3]);
        // SAFETY: a plain handle, no pointers; the SDK validates it.
        check(unsafe { rocprofiler_flush_buffer(ids(B::Slow).1) });
        // SAFETY: as above.
        check(unsafe { rocprofiler_flush_buffer(ids(B::Slow).1) });
    }
    // Past the test harness's capture, so that the parent sees it.
    use std::io::Write;
    let _ = writeln!(
        std::io::stdout().lock(),
        "{}: 1 ms buffer callback; per attempt [record 2 (other half free) waits, us, \
         record 3 (its half being delivered) waits, us]: {attempts:?}",
        rocm.1,
    );
    Some(attempts)
}

#[test]
fn under_rocm_7_1_a_1ms_callback_stalls_every_producer() {
    let Some(attempts) = one_ms_callback_stalls(
        "under_rocm_7_1_a_1ms_callback_stalls_every_producer",
        ROCM_7_1,
    ) else {
        return;
    };
    // The callback had started before record 2: it waits for the rest of that millisecond
    // although the other half is free.
    assert!(
        attempts.iter().any(|a| a[0] == 1 && a[1] >= 200),
        "{attempts:?}"
    );
}

#[test]
fn under_rocm_7_14_a_1ms_callback_stalls_only_the_half_it_delivers() {
    let Some(attempts) = one_ms_callback_stalls(
        "under_rocm_7_14_a_1ms_callback_stalls_only_the_half_it_delivers",
        ROCM_7_14,
    ) else {
        return;
    };
    assert!(attempts.iter().all(|a| a[0] == 0), "{attempts:?}");
    assert!(attempts.iter().any(|a| a[2] == 1), "{attempts:?}");
}

/// H1: a traced HIP call made from inside a buffer callback deadlocks the real SDK once it
/// needs the half being delivered; the sim aborts and names the buffer and its callback. One
/// flag per half (7.14): the second nested call needs it. (The child's release is explicit:
/// under 7.0 nothing deadlocks.)
#[test]
fn a_traced_call_inside_the_buffer_callback_is_reported_as_a_deadlock() {
    if !child::aborts_in_child(
        "a_traced_call_inside_the_buffer_callback_is_reported_as_a_deadlock",
        &[ROCM_7_14],
        &[
            "deadlock",
            "buffer callback",
            "buffer_self_deadlock = \"drop\"",
        ],
    ) {
        return;
    }
    let _a = activate(B::Nested);
    call();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Nested).1) });
    unreachable!("the nested call aborts the process");
}

/// With `buffer_self_deadlock = "drop"` the same deadlock is counted and the record dropped.
/// One flag per half (7.13, 7.14): the first nested call lands in the other half.
#[test]
fn a_self_deadlock_can_be_counted_instead() {
    if !child::in_child(
        "a_self_deadlock_can_be_counted_instead",
        &[(
            "ROCSIM_MACHINE",
            "rocm = \"7.14\", buffer_self_deadlock = \"drop\"",
        )],
    ) {
        return;
    }
    let _a = activate(B::Nested);
    let p = probe(B::Nested);
    call();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Nested).1) });
    sim::driver::wait_idle();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Nested).1) });
    // SAFETY: as above.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Nested).1) });
    assert_eq!(p.nested_calls.load(Ordering::SeqCst), 2);
    let c = counts(B::Nested);
    assert_eq!(c.self_deadlocks, 1);
    assert_eq!(
        c.total_written(),
        2,
        "the outer call and the first nested one"
    );
    assert_eq!(c.delivered, 2);
}

/// One flag per buffer (7.1, 7.2): the first traced call inside the callback deadlocks.
#[test]
fn with_one_syncer_per_buffer_the_first_nested_call_deadlocks() {
    if !child::in_child(
        "with_one_syncer_per_buffer_the_first_nested_call_deadlocks",
        &[(
            "ROCSIM_MACHINE",
            "rocm = \"7.1\", buffer_self_deadlock = \"drop\"",
        )],
    ) {
        return;
    }
    let _a = activate(B::Nested);
    call();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Nested).1) });
    sim::driver::wait_idle();
    assert_eq!(probe(B::Nested).nested_calls.load(Ordering::SeqCst), 2);
    let c = counts(B::Nested);
    assert_eq!((c.self_deadlocks, c.total_written()), (2, 1));
}

/// A syncer only `flush` takes (7.0, `buffer_sync = "none"`): both nested calls write the free
/// half, their watermark flushes are BUSY without flipping, nothing deadlocks and nothing is
/// lost.
#[test]
fn when_only_flush_takes_the_syncer_a_nested_call_never_deadlocks() {
    if !child::in_child(
        "when_only_flush_takes_the_syncer_a_nested_call_never_deadlocks",
        &[(
            "ROCSIM_MACHINE",
            "rocm = \"7.0\", buffer_self_deadlock = \"drop\"",
        )],
    ) {
        return;
    }
    let _a = activate(B::Nested);
    call();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Nested).1) });
    sim::driver::wait_idle();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Nested).1) });
    assert_eq!(probe(B::Nested).nested_calls.load(Ordering::SeqCst), 2);
    let c = counts(B::Nested);
    assert_eq!(
        (c.self_deadlocks, c.total_written(), c.total_lost()),
        (0, 3, 0)
    );
    assert_eq!(c.busy_flushes, 2, "the nested calls' watermark flushes");
    assert_eq!(
        c.delivered, 3,
        "the nested records are delivered by the next flush"
    );
}

/// L9: DISCARD has one internal half. A full half counts drops; `drop_count` is cumulative.
/// After a flush the index points at the missing half, where records vanish without a drop
/// until the next flush flips it back; a flush of that empty half calls nothing. (So under
/// DISCARD the callback never makes a producer wait, H1: its records are lost instead.)
#[test]
fn discard_has_one_half_loses_records_silently_and_counts_drops_cumulatively() {
    let _a = activate(B::Discard);
    let p = probe(B::Discard);
    let buffer = ids(B::Discard).1;
    let per_half = PAGE / RECORD;
    for _ in 0..per_half + 6 {
        call();
    }
    let c = counts(B::Discard);
    assert_eq!(c.total_written() as usize, per_half);
    assert_eq!(c.total_discarded(), 6);
    assert_eq!(
        p.calls.load(Ordering::SeqCst),
        0,
        "above capacity, below the watermark"
    );
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(buffer) });
    assert_eq!(p.calls.load(Ordering::SeqCst), 1);
    assert_eq!(p.records.load(Ordering::SeqCst), per_half);
    for _ in 0..5 {
        call();
    }
    let c = counts(B::Discard);
    assert_eq!(c.total_lost(), 5, "written into the unallocated half");
    assert_eq!(c.total_discarded(), 6, "no drop counted for them");
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(buffer) });
    assert_eq!(
        p.calls.load(Ordering::SeqCst),
        1,
        "an empty half calls nothing"
    );
    for _ in 0..per_half + 2 {
        call();
    }
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(buffer) });
    assert_eq!(p.calls.load(Ordering::SeqCst), 2);
    assert_eq!(
        *p.drop_counts.lock().unwrap(),
        vec![6, 8],
        "cumulative drop_count"
    );
    assert_eq!(p.records.load(Ordering::SeqCst), 2 * per_half);
    assert_eq!(
        counts(B::Discard).producer_waits,
        0,
        "DISCARD producers never wait: during a delivery they write the missing half"
    );
}

#[test]
fn flush_from_the_buffers_own_callback_is_busy_not_success() {
    let _a = activate(B::SelfFlush);
    let p = probe(B::SelfFlush);
    p.self_flush_status.store(u32::MAX, Ordering::SeqCst);
    call();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::SelfFlush).1) });
    assert_eq!(
        p.self_flush_status.load(Ordering::SeqCst),
        ROCPROFILER_STATUS_ERROR_BUFFER_BUSY
    );
}

/// L8: `rocprofiler_flush_buffer` during another flush waits for it and succeeds.
#[test]
fn flush_during_another_flush_waits_and_succeeds() {
    let _a = activate(B::Busy);
    let p = probe(B::Busy);
    let buffer = ids(B::Busy).1;
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(buffer) });
    let (calls0, records0, entered0) = (
        p.calls.load(Ordering::SeqCst),
        p.records.load(Ordering::SeqCst),
        p.entered.load(Ordering::SeqCst),
    );
    let waits0 = counts(B::Busy).flush_waits;
    let gate = p.close_gate();
    call();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    let first = std::thread::spawn(move || unsafe { rocprofiler_flush_buffer(buffer) });
    assert!(wait_for(|| p.entered.load(Ordering::SeqCst) > entered0));
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    let second = std::thread::spawn(move || unsafe { rocprofiler_flush_buffer(buffer) });
    assert!(
        wait_for(|| counts(B::Busy).flush_waits > waits0),
        "the second flush waits for the first"
    );
    drop(gate);
    assert_eq!(first.join().unwrap(), ROCPROFILER_STATUS_SUCCESS);
    assert_eq!(second.join().unwrap(), ROCPROFILER_STATUS_SUCCESS);
    assert_eq!(p.calls.load(Ordering::SeqCst) - calls0, 1);
    assert_eq!(p.records.load(Ordering::SeqCst) - records0, 1);
}

#[test]
fn assigned_callback_thread_differs_from_the_default_one() {
    let guard = activate(B::Assigned);
    call();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Assigned).1) });
    drop(guard);
    let guard = activate(B::Busy);
    call();
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_flush_buffer(ids(B::Busy).1) });
    drop(guard);
    let assigned = probe(B::Assigned).tids.lock().unwrap().clone();
    let default = probe(B::Busy).tids.lock().unwrap().clone();
    assert!(!assigned.is_empty() && !default.is_empty());
    assert!(assigned.iter().all(|t| !default.contains(t)));
    assert!(!assigned.contains(&tid()));
}

/// L10: destroying a buffer does not invalidate its context: the SDK's start_context and
/// context_is_valid do not look at buffers.
#[test]
fn destroyed_buffers_are_gone_and_leave_their_context_valid() {
    let a = activate(B::Destroy);
    let (ctx, buffer) = ids(B::Destroy);
    {
        let _a = a;
        call();
        // SAFETY: a plain handle, no pointers; the SDK validates it.
        check(unsafe { rocprofiler_destroy_buffer(buffer) });
        call(); // pushes to a destroyed buffer are ignored
    }
    assert_eq!(
        probe(B::Destroy).calls.load(Ordering::SeqCst),
        0,
        "unflushed records were dropped"
    );
    assert_eq!(
        // SAFETY: a plain handle, no pointers; the SDK validates it.
        unsafe { rocprofiler_flush_buffer(buffer) },
        ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND
    );
    assert_eq!(
        // SAFETY: a plain handle, no pointers; the SDK validates it.
        unsafe { rocprofiler_destroy_buffer(buffer) },
        ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND
    );
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_start_context(ctx) });
    let mut valid = -1;
    // SAFETY: `valid` is a live local for the SDK to write.
    check(unsafe { rocprofiler_context_is_valid(ctx, &mut valid) });
    assert_eq!(valid, 1);
    call(); // traced into a buffer that is gone: ignored
            // SAFETY: a plain handle, no pointers; the SDK validates it.
    check(unsafe { rocprofiler_stop_context(ctx) });
}
