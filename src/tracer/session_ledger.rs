//! Which session each kernel dispatch and memory copy belongs to, and how many of a session's
//! records are still missing (issue 13, "Nothing lost at Disable").
//!
//! The external-correlation request callback runs once per kernel dispatch and per memory copy
//! the SDK will record, on the thread that enqueues it, while the main context is active. The
//! ledger notes each request under its internal correlation id and the session that made it;
//! every KERNEL_DISPATCH / MEMORY_COPY record that arrives is matched back to that session by
//! the same id. So `disable()` knows how many records its session still waits for, and a
//! record that lands after its session ended (kernel records are emplaced by the SDK's signal
//! handler a lag after the GPU finished, even after a synchronize) is recognized as such
//! instead of being counted against the next session.
use std::collections::HashMap;

use parking_lot::Mutex;

/// Where a kernel or copy record belongs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Attribution {
    /// Requested by the running session.
    Current,
    /// Requested by a session that has already ended.
    EndedSession,
    /// No request was seen for this id (made before the tracer saw any, or by another tool's
    /// context): the caller falls back to the record's timestamp.
    Unrequested,
}

#[derive(Default)]
struct LedgerState {
    /// The running session's number; `None` between sessions.
    current: Option<u64>,
    next_session: u64,
    /// Internal correlation id -> (session, records still expected under it).
    expected: HashMap<u64, (u64, u32)>,
    /// Requests and matched records of the running (or last ended) session.
    requested: u64,
    arrived: u64,
}

/// Thread-safe; one short lock per request and per kernel or copy record.
#[derive(Default)]
pub struct SessionLedger {
    state: Mutex<LedgerState>,
}

impl SessionLedger {
    /// Starts counting for a new session.
    pub fn begin(&self) {
        let mut state = self.state.lock();
        state.next_session += 1;
        state.current = Some(state.next_session);
        state.requested = 0;
        state.arrived = 0;
    }

    /// Ends the running session; returns how many of its records never arrived. The ended
    /// session's ids stay known (so their late records are recognized) until the next one ends.
    pub fn end(&self) -> u64 {
        let mut state = self.state.lock();
        let Some(ended) = state.current.take() else {
            return 0;
        };
        state.expected.retain(|_, (session, _)| *session >= ended);
        state.requested.saturating_sub(state.arrived)
    }

    /// One external-correlation request (one record to come) under `correlation_id`. Outside a
    /// session it is ignored. Allocation-free once the map has grown to the session's
    /// concurrency (ids are removed again as their records arrive).
    pub fn on_request(&self, correlation_id: u64) {
        let mut state = self.state.lock();
        let Some(session) = state.current else {
            return;
        };
        state.requested += 1;
        let entry = state.expected.entry(correlation_id).or_insert((session, 0));
        if entry.0 != session {
            // An id reused by a later session (never by the SDK's counter): the newer wins.
            *entry = (session, 0);
        }
        entry.1 = entry.1.saturating_add(1);
    }

    /// Matches one arrived kernel or copy record.
    pub fn on_record(&self, correlation_id: u64) -> Attribution {
        attribute(&mut self.state.lock(), correlation_id)
    }

    /// Records the running (or last ended) session requested that have not arrived (in it).
    pub fn missing(&self) -> u64 {
        let state = self.state.lock();
        state.requested.saturating_sub(state.arrived)
    }
}

fn attribute(state: &mut LedgerState, correlation_id: u64) -> Attribution {
    let Some((session, remaining)) = state.expected.get_mut(&correlation_id) else {
        return Attribution::Unrequested;
    };
    let session = *session;
    *remaining -= 1;
    if *remaining == 0 {
        state.expected.remove(&correlation_id);
    }
    if state.current == Some(session) {
        state.arrived += 1;
        Attribution::Current
    } else {
        Attribution::EndedSession
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_matched_to_the_session_that_requested_them() {
        let ledger = SessionLedger::default();
        ledger.on_request(1); // no session: ignored
        ledger.begin();
        ledger.on_request(10);
        ledger.on_request(10); // a graph launch: two dispatches, one id
        ledger.on_request(11);
        assert_eq!(ledger.missing(), 3);
        assert_eq!(ledger.on_record(10), Attribution::Current);
        assert_eq!(ledger.missing(), 2);
        assert_eq!(ledger.end(), 2, "one of id 10 and id 11 never came");

        ledger.begin();
        ledger.on_request(12);
        assert_eq!(ledger.on_record(11), Attribution::EndedSession);
        assert_eq!(ledger.on_record(10), Attribution::EndedSession);
        assert_eq!(ledger.on_record(1), Attribution::Unrequested);
        assert_eq!(
            ledger.missing(),
            1,
            "late records do not count for this session"
        );
        assert_eq!(ledger.on_record(12), Attribution::Current);
        assert_eq!(ledger.end(), 0);
        assert_eq!(
            ledger.on_record(12),
            Attribution::Unrequested,
            "all arrived"
        );
    }

    #[test]
    fn ids_of_older_sessions_are_forgotten_when_the_next_one_ends() {
        let ledger = SessionLedger::default();
        ledger.begin();
        ledger.on_request(1);
        ledger.end();
        ledger.begin();
        ledger.end();
        assert_eq!(ledger.on_record(1), Attribution::Unrequested);
        assert!(ledger.state.lock().expected.is_empty());
    }
}
