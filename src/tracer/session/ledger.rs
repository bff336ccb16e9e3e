//! Which session each kernel dispatch and memory copy belongs to, and how many of a session's
//! records are still missing (issue 13, "Nothing lost at Disable").
//!
//! The external-correlation request callback runs once per kernel dispatch and per memory copy
//! the SDK will record, on the thread that enqueues it, while the main context is active. The
//! ledger notes each request under its internal correlation id and the session that made it;
//! every KERNEL_DISPATCH / MEMORY_COPY record that arrives is matched back to that session by
//! the same id. Internal correlation ids grow with every HIP call, so sessions own disjoint id
//! ranges: an id up to the largest one an ended session requested belongs to an ended session,
//! a larger one to the running session. The request side, on every application thread that
//! launches work, writes the thread's own counters: a load and a store each, no locked
//! instruction (a thread's first request registers them, once, under a lock; its exit folds
//! them into one total for exited threads, under the same lock, so reading the ledger costs
//! the threads alive at once, not every thread ever seen). The buffer thread counts arrivals.
//! So `disable()`, polling while it waits, knows how many records its session still waits for,
//! and a record that lands after its session ended (kernel records are emplaced by the SDK's signal
//! handler a lag after the GPU finished, even after a synchronize) is recognized as such
//! instead of being counted against the next session.
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::tracer::thread_state::{self, ThreadRequests, ThreadState};

/// Where a kernel or copy record belongs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Attribution {
    /// Requested by the running session.
    Current,
    /// Requested by a session that has ended: a late record.
    EndedSession,
    /// No session was running and no ended session requested it.
    Unrequested,
}

/// Request counters, one cache line each, so that threads launching work concurrently rarely
/// share one.
const STRIPES: usize = 16;

#[derive(Default)]
#[repr(align(64))]
struct Stripe {
    /// Requests of the running session.
    requested: AtomicU64,
    /// The largest correlation id ever requested through this stripe.
    max_id: AtomicU64,
}

/// A thread's request counters (layout in `thread_state`).
impl ThreadRequests {
    /// Owning thread only.
    #[inline]
    fn add(&self, correlation_id: u64) {
        let requests = self.requests.load(Ordering::Relaxed);
        self.requests.store(requests + 1, Ordering::Release);
        // A thread's ids grow, but for an outer call's work requested after a nested call's.
        if correlation_id > self.max_id.load(Ordering::Relaxed) {
            self.max_id.store(correlation_id, Ordering::Release);
        }
    }

    /// Requests of the running (or last) session.
    fn in_session(&self) -> u64 {
        let requests = self.requests.load(Ordering::Acquire);
        requests.saturating_sub(self.at_begin.load(Ordering::Relaxed))
    }
}

/// The counters of the threads that requested through one ledger: the live threads' in slots,
/// what exited threads requested folded into totals. A slot is reused once its thread exits, so
/// reading every counter costs the most threads alive at once, not every thread ever seen (a
/// program that runs a short-lived thread per task would otherwise make every `disable()` poll
/// longer and longer).
#[derive(Default)]
struct ThreadRegistry {
    slots: Vec<Option<Arc<ThreadRequests>>>,
    free: Vec<usize>,
    /// Requests of the running (or last) session by threads that have exited.
    exited_in_session: u64,
    /// The largest correlation id any exited thread requested.
    exited_max_id: u64,
}

impl ThreadRegistry {
    /// Registers a thread's counters; returns its slot.
    fn add(&mut self, requests: Arc<ThreadRequests>) -> usize {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = Some(requests);
                slot
            }
            None => {
                self.slots.push(Some(requests));
                self.slots.len() - 1
            }
        }
    }

    /// The thread in `slot` exited: its counts join the exited threads' and its slot is free.
    fn retire(&mut self, slot: usize) {
        let Some(requests) = self.slots.get_mut(slot).and_then(Option::take) else {
            return;
        };
        self.exited_in_session += requests.in_session();
        self.exited_max_id = self
            .exited_max_id
            .max(requests.max_id.load(Ordering::Acquire));
        self.free.push(slot);
    }

    fn live(&self) -> impl Iterator<Item = &ThreadRequests> {
        self.slots.iter().flatten().map(|requests| &**requests)
    }
}

/// A thread's counters for one ledger, and where that ledger keeps them.
struct Registration {
    ledger_id: u64,
    requests: Arc<ThreadRequests>,
    registry: Arc<Mutex<ThreadRegistry>>,
    slot: usize,
}

/// This thread's counters, one per ledger it requested through.
struct OwnedThreadRequests(RefCell<Vec<Registration>>);

impl Drop for OwnedThreadRequests {
    fn drop(&mut self) {
        // Requests made later in this thread's teardown count in the ledgers' stripes.
        thread_state::with(|thread| {
            thread.ledger.session_key.set(0);
            thread.ledger.requests.set(std::ptr::null());
        });
        for registration in self.0.get_mut().drain(..) {
            registration.registry.lock().retire(registration.slot);
        }
    }
}

thread_local! {
    static OWNED_THREAD_REQUESTS: OwnedThreadRequests =
        const { OwnedThreadRequests(RefCell::new(Vec::new())) };
}

static NEXT_LEDGER_ID: AtomicU64 = AtomicU64::new(1);

/// Keys of running sessions, unique over every ledger, so that one compare tells a thread both
/// that a session runs and that its counters are this ledger's and noted for this session.
/// 0 is no thread's key yet (`ThreadLedger::session_key`).
static NEXT_SESSION_KEY: AtomicU64 = AtomicU64::new(1);

/// `SessionLedger::session_key` while no session runs: no thread's key.
const NO_SESSION: u64 = u64::MAX;

/// Thread-safe. `begin` and `end` are serialized by the tracer's control lock.
pub(crate) struct SessionLedger {
    id: u64,
    /// Whether a session runs (requests count only then).
    running: AtomicU64,
    /// The running session's key, [`NO_SESSION`] when none runs. Set before `running` at
    /// `begin` and cleared before it at `end`.
    session_key: AtomicU64,
    /// Correlation ids up to this one were requested by ended sessions. Constant while a
    /// session runs, so requests and records agree on where an id belongs.
    ended_max: AtomicU64,
    /// The threads' counters (a thread's are registered at its first request and folded
    /// into a total when it exits).
    threads: Arc<Mutex<ThreadRegistry>>,
    /// For requests made without the thread's counters (thread teardown, direct calls).
    stripes: [Stripe; STRIPES],
    /// Records of the running session that arrived.
    arrived: AtomicU64,
}

impl Default for SessionLedger {
    fn default() -> SessionLedger {
        SessionLedger {
            id: NEXT_LEDGER_ID.fetch_add(1, Ordering::Relaxed),
            running: AtomicU64::new(0),
            session_key: AtomicU64::new(NO_SESSION),
            ended_max: AtomicU64::new(0),
            threads: Arc::default(),
            stripes: Default::default(),
            arrived: AtomicU64::new(0),
        }
    }
}

impl SessionLedger {
    /// A session starts: nothing requested, nothing arrived.
    pub(crate) fn begin(&self) {
        for stripe in &self.stripes {
            stripe.requested.store(0, Ordering::Relaxed);
        }
        let mut threads = self.threads.lock();
        // Exited threads hold nothing of the new session.
        threads.exited_in_session = 0;
        // No session runs, so no thread counts a request until `running` is set below.
        for requests in threads.live() {
            requests
                .at_begin
                .store(requests.requests.load(Ordering::Acquire), Ordering::Relaxed);
        }
        drop(threads);
        self.arrived.store(0, Ordering::Relaxed);
        // The key before `running`: a request that sees the new key but not yet `running`
        // is one made before the session began (not counted, as before `begin`), never one
        // of a running session that finds no key (uncounted, though its record would count).
        self.session_key.store(
            NEXT_SESSION_KEY.fetch_add(1, Ordering::Relaxed),
            Ordering::Release,
        );
        self.running.store(1, Ordering::Release);
    }

    /// The session ends; returns how many of its records are still missing. Its ids become
    /// "ended" for the records that arrive later.
    pub(crate) fn end(&self) -> u64 {
        self.session_key.store(NO_SESSION, Ordering::Release);
        if self.running.swap(0, Ordering::AcqRel) == 0 {
            return 0;
        }
        let missing = self.missing();
        let threads = self.threads.lock();
        let max_id = self
            .stripes
            .iter()
            .map(|stripe| stripe.max_id.load(Ordering::Relaxed))
            .chain(
                threads
                    .live()
                    .map(|requests| requests.max_id.load(Ordering::Acquire)),
            )
            .fold(threads.exited_max_id, u64::max);
        drop(threads);
        self.ended_max.fetch_max(max_id, Ordering::AcqRel);
        missing
    }

    /// One kernel dispatch or copy requested on the calling thread, whose state the caller
    /// holds, under `correlation_id`. The fast path, a thread's every request but its first of
    /// a session: one compare of the running session's key with the thread's, the ended-ids
    /// check, and the thread's own counters (plain loads and stores).
    #[inline]
    pub(crate) fn on_request_on_thread(&self, thread: &ThreadState, correlation_id: u64) {
        let key = self.session_key.load(Ordering::Acquire);
        if key != thread.ledger.session_key.get()
            || correlation_id <= self.ended_max.load(Ordering::Relaxed)
        {
            return self.on_request_on_thread_slow(thread, key, correlation_id);
        }
        // SAFETY: a key of a running session (never 0) matches only after
        // `on_request_on_thread_slow` pointed `requests` into an `Arc` this thread's
        // `OwnedThreadRequests` holds (see `ThreadLedger::requests`).
        let requests = unsafe { &*thread.ledger.requests.get() };
        requests.add(correlation_id);
    }

    /// A request the fast path does not count: none runs, an ended session's id, or the
    /// thread's first request of session `key` (it notes the key, and at its first request
    /// through this ledger registers its counters: one lock and one allocation per thread; it
    /// counts in the shared stripes if it cannot).
    #[cold]
    #[inline(never)]
    fn on_request_on_thread_slow(&self, thread: &ThreadState, key: u64, correlation_id: u64) {
        if key == NO_SESSION
            || self.running.load(Ordering::Acquire) == 0
            || correlation_id <= self.ended_max.load(Ordering::Relaxed)
        {
            return;
        }
        let counted = OWNED_THREAD_REQUESTS.try_with(|owned| {
            let Ok(mut owned) = owned.0.try_borrow_mut() else {
                return false;
            };
            let requests = match owned.iter().find(|owned| owned.ledger_id == self.id) {
                Some(registration) => registration.requests.clone(),
                None => {
                    let requests = Arc::new(ThreadRequests::default());
                    let slot = self.threads.lock().add(requests.clone());
                    owned.push(Registration {
                        ledger_id: self.id,
                        requests: requests.clone(),
                        registry: self.threads.clone(),
                        slot,
                    });
                    requests
                }
            };
            thread.ledger.requests.set(Arc::as_ptr(&requests));
            thread.ledger.session_key.set(key);
            requests.add(correlation_id);
            true
        });
        if counted != Ok(true) {
            // Any value unique to the thread spreads threads over the stripes.
            let thread_key = thread as *const ThreadState as u64 >> 6;
            self.count_in_stripes(thread_key, correlation_id);
        }
    }

    /// One kernel dispatch or copy requested by thread `thread_id` under `correlation_id`,
    /// counted in the shared stripes.
    pub(crate) fn on_request(&self, thread_id: u64, correlation_id: u64) {
        if self.running.load(Ordering::Acquire) == 0
            || correlation_id <= self.ended_max.load(Ordering::Relaxed)
        {
            return;
        }
        self.count_in_stripes(thread_id, correlation_id);
    }

    fn count_in_stripes(&self, thread_key: u64, correlation_id: u64) {
        let stripe = &self.stripes[thread_key as usize % STRIPES];
        stripe.requested.fetch_add(1, Ordering::Relaxed);
        stripe.max_id.fetch_max(correlation_id, Ordering::Relaxed);
    }

    /// Where the kernel or copy record of `correlation_id` belongs (counted as arrived when it
    /// is the running session's).
    pub(crate) fn on_record(&self, correlation_id: u64) -> Attribution {
        if correlation_id <= self.ended_max.load(Ordering::Acquire) {
            Attribution::EndedSession
        } else if self.running.load(Ordering::Acquire) != 0 {
            self.arrived.fetch_add(1, Ordering::Relaxed);
            Attribution::Current
        } else {
            Attribution::Unrequested
        }
    }

    /// Whether the last (or running) session requested or received any kernel or copy record.
    pub(crate) fn saw_device_work(&self) -> bool {
        self.requested() > 0 || self.arrived.load(Ordering::Relaxed) > 0
    }

    /// Requests of the running (or last) session.
    fn requested(&self) -> u64 {
        let striped: u64 = self
            .stripes
            .iter()
            .map(|stripe| stripe.requested.load(Ordering::Relaxed))
            .sum();
        let threads = self.threads.lock();
        let live: u64 = threads.live().map(ThreadRequests::in_session).sum();
        striped + threads.exited_in_session + live
    }

    /// Records the running session requested that have not arrived yet. Polled by `disable()`
    /// while it waits (each flush, every 50 µs to 10 ms) and by `records_in_flight()`: it
    /// reads the stripes and the live threads' counters, not every thread ever seen.
    pub(crate) fn missing(&self) -> u64 {
        self.requested()
            .saturating_sub(self.arrived.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_matched_to_the_session_that_requested_them() {
        let ledger = SessionLedger::default();
        ledger.on_request(1, 1); // no session: ignored
        ledger.begin();
        ledger.on_request(1, 10);
        ledger.on_request(1, 10); // a graph launch: two dispatches, one id
        ledger.on_request(2, 11);
        assert_eq!(ledger.missing(), 3);
        assert_eq!(ledger.on_record(10), Attribution::Current);
        assert_eq!(ledger.missing(), 2);
        assert_eq!(ledger.end(), 2, "one of id 10 and id 11 never came");

        ledger.begin();
        ledger.on_request(1, 12);
        assert_eq!(ledger.on_record(11), Attribution::EndedSession);
        assert_eq!(ledger.on_record(10), Attribution::EndedSession);
        assert_eq!(
            ledger.missing(),
            1,
            "late records do not count for this session"
        );
        assert_eq!(ledger.on_record(12), Attribution::Current);
        assert_eq!(ledger.end(), 0);
        assert_eq!(ledger.on_record(12), Attribution::EndedSession);
        assert_eq!(
            ledger.on_record(13),
            Attribution::Unrequested,
            "no session runs"
        );
    }

    fn request_on_thread(ledger: &SessionLedger, correlation_id: u64) {
        thread_state::with(|thread| ledger.on_request_on_thread(thread, correlation_id));
    }

    #[test]
    fn each_thread_counts_its_own_requests_for_the_session() {
        let ledger = Arc::new(SessionLedger::default());
        request_on_thread(&ledger, 1); // no session: ignored
        ledger.begin();
        request_on_thread(&ledger, 10);
        request_on_thread(&ledger, 10);
        // Another thread, which exits before the session ends: its requests still count.
        let other = ledger.clone();
        std::thread::spawn(move || {
            request_on_thread(&other, 11);
            request_on_thread(&other, 12);
        })
        .join()
        .unwrap();
        // And one counted in the shared stripes (no thread state).
        ledger.on_request(3, 13);
        assert_eq!(ledger.missing(), 5);
        assert_eq!(ledger.on_record(12), Attribution::Current);
        assert_eq!(ledger.end(), 4);
        // Every id up to the largest requested, by any thread, is the ended session's.
        assert_eq!(ledger.on_record(13), Attribution::EndedSession);
        assert_eq!(ledger.on_record(11), Attribution::EndedSession);

        ledger.begin();
        assert_eq!(ledger.missing(), 0, "a new session starts from nothing");
        assert!(!ledger.saw_device_work());
        request_on_thread(&ledger, 14);
        assert_eq!(ledger.missing(), 1);
        assert!(ledger.saw_device_work());
        assert_eq!(ledger.on_record(14), Attribution::Current);
        assert_eq!(ledger.end(), 0);
    }

    /// The thread's noted session key stands for one ledger's counters and one session: a
    /// thread requesting through two ledgers in turn, across sessions, counts each request in
    /// the ledger it was made through.
    #[test]
    fn a_thread_alternating_between_ledgers_counts_in_each() {
        std::thread::spawn(|| {
            let first = SessionLedger::default();
            let second = SessionLedger::default();
            first.begin();
            second.begin();
            for id in [10, 11, 12] {
                request_on_thread(&first, id);
                request_on_thread(&second, id);
                request_on_thread(&second, id);
            }
            assert_eq!(first.missing(), 3);
            assert_eq!(second.missing(), 6);
            assert_eq!(first.end(), 3);
            request_on_thread(&first, 13); // no session runs in `first`
            request_on_thread(&second, 13);
            assert_eq!(second.missing(), 7);
            first.begin();
            request_on_thread(&first, 14);
            request_on_thread(&first, 12); // an ended session's call
            request_on_thread(&second, 14);
            assert_eq!(first.missing(), 1, "a new session starts from nothing");
            assert_eq!(second.missing(), 8);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_request_of_an_ended_session_made_late_counts_for_no_session() {
        let ledger = SessionLedger::default();
        ledger.begin();
        ledger.on_request(3, 20);
        ledger.on_record(20);
        ledger.end();
        ledger.begin();
        // A call of the first session whose dispatch is requested only now.
        ledger.on_request(3, 19);
        assert_eq!(ledger.missing(), 0);
        assert_eq!(ledger.on_record(19), Attribution::EndedSession);
        assert_eq!(ledger.end(), 0);
    }

    /// Many short-lived threads, a few alive at a time: what they requested counts after they
    /// exit, until the next session begins; the largest id an exited thread requested still
    /// ends its session's range; and the ledger keeps slots for the threads alive at once, not
    /// for every thread it has seen.
    #[test]
    fn requests_of_exited_threads_count_until_the_next_session() {
        const AT_ONCE: u64 = 8;
        let ledger = Arc::new(SessionLedger::default());
        ledger.begin();
        let mut next_id = 100;
        let mut requested = 0;
        let mut arrived = 0;
        for _ in 0..250 {
            let threads: Vec<_> = (0..AT_ONCE)
                .map(|t| {
                    let ledger = ledger.clone();
                    let first = next_id + 3 * t;
                    std::thread::spawn(move || {
                        for id in first..first + 3 {
                            request_on_thread(&ledger, id);
                        }
                    })
                })
                .collect();
            // `join` returns after the thread's thread-locals are destroyed.
            for thread in threads {
                thread.join().unwrap();
            }
            requested += 3 * AT_ONCE;
            assert_eq!(ledger.on_record(next_id), Attribution::Current);
            arrived += 1;
            next_id += 3 * AT_ONCE;
            assert_eq!(ledger.missing(), requested - arrived);
            assert!(ledger.threads.lock().slots.len() <= AT_ONCE as usize);
        }
        // A thread that stays: its requests count beside the exited threads'.
        request_on_thread(&ledger, next_id);
        requested += 1;
        assert_eq!(ledger.missing(), requested - arrived);
        assert_eq!(ledger.end(), requested - arrived);
        assert_eq!(ledger.missing(), requested - arrived, "the last session's");

        ledger.begin();
        assert_eq!(ledger.missing(), 0, "a new session starts from nothing");
        assert!(!ledger.saw_device_work());
        let other = ledger.clone();
        std::thread::spawn(move || request_on_thread(&other, next_id + 1))
            .join()
            .unwrap();
        assert_eq!(ledger.missing(), 1);
        assert!(ledger.saw_device_work());
        assert_eq!(ledger.end(), 1);
        // Larger than any live thread's or stripe's id: known from the exited thread only.
        assert_eq!(ledger.on_record(next_id + 1), Attribution::EndedSession);
    }
}
