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
//! launches work, is two relaxed atomic operations on a cache line picked by the SDK's thread
//! id (no lock, no allocation); the buffer thread counts arrivals. So `disable()` knows how many records its session still waits for, and a
//! record that lands after its session ended (kernel records are emplaced by the SDK's signal
//! handler a lag after the GPU finished, even after a synchronize) is recognized as such
//! instead of being counted against the next session.
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Thread-safe. `begin` and `end` are serialized by the tracer's control lock.
#[derive(Default)]
pub(crate) struct SessionLedger {
    /// Whether a session runs (requests count only then).
    running: AtomicU64,
    /// Correlation ids up to this one were requested by ended sessions. Constant while a
    /// session runs, so requests and records agree on where an id belongs.
    ended_max: AtomicU64,
    stripes: [Stripe; STRIPES],
    /// Records of the running session that arrived.
    arrived: AtomicU64,
}

impl SessionLedger {
    /// A session starts: nothing requested, nothing arrived.
    pub(crate) fn begin(&self) {
        for stripe in &self.stripes {
            stripe.requested.store(0, Ordering::Relaxed);
        }
        self.arrived.store(0, Ordering::Relaxed);
        self.running.store(1, Ordering::Release);
    }

    /// The session ends; returns how many of its records are still missing. Its ids become
    /// "ended" for the records that arrive later.
    pub(crate) fn end(&self) -> u64 {
        if self.running.swap(0, Ordering::AcqRel) == 0 {
            return 0;
        }
        let missing = self.missing();
        let max_id = self
            .stripes
            .iter()
            .map(|stripe| stripe.max_id.load(Ordering::Relaxed))
            .max()
            .unwrap_or(0);
        self.ended_max.fetch_max(max_id, Ordering::AcqRel);
        missing
    }

    /// One kernel dispatch or copy requested by thread `thread_id` under `correlation_id`.
    pub(crate) fn on_request(&self, thread_id: u64, correlation_id: u64) {
        if self.running.load(Ordering::Acquire) == 0
            || correlation_id <= self.ended_max.load(Ordering::Relaxed)
        {
            return;
        }
        let stripe = &self.stripes[thread_id as usize % STRIPES];
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
        self.arrived.load(Ordering::Relaxed) > 0
            || self
                .stripes
                .iter()
                .any(|stripe| stripe.requested.load(Ordering::Relaxed) > 0)
    }

    /// Records the running session requested that have not arrived yet.
    pub(crate) fn missing(&self) -> u64 {
        let requested: u64 = self
            .stripes
            .iter()
            .map(|stripe| stripe.requested.load(Ordering::Relaxed))
            .sum();
        requested.saturating_sub(self.arrived.load(Ordering::Relaxed))
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
}
