//! ROCTx process ranges (`roctxRangeStartA` / `roctxRangeStop`; the SDK's
//! `roctxProcessRangeA`): started on one thread, stopped by id on any, so they are kept
//! process-wide, not on a thread's stack, label no HIP call, and become events on the host
//! plane's process-wide line (`RocmTracerEvent::PROCESS_RANGE_THREAD_ID`;
//! docs/xla-interface.md#roctx-ranges-and-marks).
//!
//! Either domain may tell of a range, or both: MARKER_CORE_API at the start's ENTER (message),
//! the start's EXIT (the id it returned) and the stop's ENTER (the id); MARKER_CORE_RANGE_API at
//! ENTER (start, message) and EXIT (stop) under the range's one correlation id, which the core
//! start shares. A range the range domain told of is closed by its EXIT only, so the core stop
//! of the same range closes nothing: one range, one event. Ranges are rare: a lock and a list.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::{marker_event, MarkerDomain, Opening};
use crate::event::RocmTracerEvent;

/// One open process range.
struct OpenRange {
    /// The correlation id of its start (0: unknown).
    correlation: u64,
    /// The id `roctxRangeStartA` returned, once the core domain's EXIT told it.
    id: Option<u64>,
    /// Whether the range domain told of it: then only that domain's EXIT closes it.
    told_by_range: bool,
    /// `None` for a null or empty message: the range shows nothing.
    label: Option<Arc<str>>,
    start_ns: u64,
    generation: u64,
}

static OPEN: Mutex<Vec<OpenRange>> = Mutex::new(Vec::new());
/// Stops (by id or correlation id) that found no open range.
static UNMATCHED_STOPS: AtomicU64 = AtomicU64::new(0);

/// Stops that found no open process range, since the process started.
pub fn unmatched_stops() -> u64 {
    UNMATCHED_STOPS.load(Ordering::Relaxed)
}

/// A start told by `opening` at `now_ns`: opens the range, unless the other domain already told
/// of it (same correlation id).
pub(super) fn start(label: Option<Arc<str>>, now_ns: u64, generation: u64, opening: Opening) {
    let mut open = OPEN.lock();
    let told_by_range = opening.domain == MarkerDomain::Range;
    if opening.correlation != 0 {
        if let Some(range) = open
            .iter_mut()
            .find(|range| range.correlation == opening.correlation)
        {
            range.told_by_range |= told_by_range;
            return;
        }
    }
    open.push(OpenRange {
        correlation: opening.correlation,
        id: None,
        told_by_range,
        label: label.filter(|label| !label.is_empty()),
        start_ns: now_ns,
        generation,
    });
}

/// The core start's EXIT: the id its range goes by.
pub(super) fn started(correlation: u64, id: u64) {
    if correlation == 0 {
        return;
    }
    if let Some(range) = OPEN
        .lock()
        .iter_mut()
        .find(|range| range.correlation == correlation)
    {
        range.id = Some(id);
    }
}

/// The core domain's `roctxRangeStop(id)` at `now_ns`: the range it closes, if it is to be
/// shown. A range the range domain told of stays open for that domain's EXIT.
pub(super) fn stop_by_id(id: u64, now_ns: u64, generation: u64) -> Option<RocmTracerEvent> {
    let mut open = OPEN.lock();
    let Some(index) = open.iter().position(|range| range.id == Some(id)) else {
        UNMATCHED_STOPS.fetch_add(1, Ordering::Relaxed);
        return None;
    };
    if open[index].told_by_range {
        return None;
    }
    finish(open.remove(index), now_ns, generation)
}

/// The range domain's EXIT of the range started under `correlation`, at `now_ns`.
pub(super) fn stop_by_correlation(
    correlation: u64,
    now_ns: u64,
    generation: u64,
) -> Option<RocmTracerEvent> {
    let mut open = OPEN.lock();
    let Some(index) = open
        .iter()
        .position(|range| correlation != 0 && range.correlation == correlation)
    else {
        UNMATCHED_STOPS.fetch_add(1, Ordering::Relaxed);
        return None;
    };
    finish(open.remove(index), now_ns, generation)
}

/// A closed range's event: only a range started and stopped within one session shows, as for
/// thread ranges (a range crossing a session boundary is counted with them).
fn finish(range: OpenRange, now_ns: u64, generation: u64) -> Option<RocmTracerEvent> {
    if range.generation != generation {
        if range.label.is_some() {
            super::CROSSED_SESSIONS.fetch_add(1, Ordering::Relaxed);
        }
        return None;
    }
    let label = range.label?;
    (range.start_ns != 0 && now_ns != 0).then(|| {
        marker_event(
            label,
            range.start_ns,
            now_ns,
            RocmTracerEvent::PROCESS_RANGE_THREAD_ID,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Correlation ids no other test uses (the list is process-wide).
    fn opening(domain: MarkerDomain, correlation: u64) -> Opening {
        Opening {
            domain,
            correlation: 0x5eed_0000 + correlation,
        }
    }

    #[test]
    fn a_range_told_by_the_core_domain_alone_is_stopped_by_its_id() {
        let start_opening = opening(MarkerDomain::Core, 1);
        start(Some("epoch".into()), 100, 7, start_opening);
        started(start_opening.correlation, 9001);
        let event = stop_by_id(9001, 250, 7).unwrap();
        assert_eq!(
            (
                &*event.name,
                event.start_time_ns,
                event.end_time_ns,
                event.thread_id
            ),
            ("epoch", 100, 250, RocmTracerEvent::PROCESS_RANGE_THREAD_ID)
        );
        let before = unmatched_stops();
        assert!(stop_by_id(9001, 260, 7).is_none(), "stopped once");
        assert!(unmatched_stops() > before);
    }

    #[test]
    fn a_range_told_by_both_domains_is_one_range_closed_by_the_range_domain() {
        // The SDK's order: range ENTER, core start (same correlation id), core stop, range EXIT.
        let range = opening(MarkerDomain::Range, 2);
        let core = opening(MarkerDomain::Core, 2);
        start(Some("both".into()), 100, 7, range);
        start(Some("both".into()), 101, 7, core);
        started(core.correlation, 9002);
        assert!(
            stop_by_id(9002, 300, 7).is_none(),
            "the core stop closes nothing"
        );
        let event = stop_by_correlation(range.correlation, 301, 7).unwrap();
        assert_eq!(
            (&*event.name, event.start_time_ns, event.end_time_ns),
            ("both", 100, 301)
        );
        assert!(stop_by_correlation(range.correlation, 302, 7).is_none());
    }

    #[test]
    fn a_range_told_by_the_range_domain_alone_closes_at_its_exit() {
        let range = opening(MarkerDomain::Range, 3);
        start(Some("range only".into()), 10, 7, range);
        let event = stop_by_correlation(range.correlation, 20, 7).unwrap();
        assert_eq!((event.start_time_ns, event.end_time_ns), (10, 20));
    }

    #[test]
    fn a_range_crossing_sessions_or_without_a_label_shows_nothing() {
        let crossing = opening(MarkerDomain::Range, 4);
        start(Some("crossing".into()), 10, 7, crossing);
        assert!(stop_by_correlation(crossing.correlation, 20, 9).is_none());
        let unlabelled = opening(MarkerDomain::Range, 5);
        start(Some("".into()), 10, 7, unlabelled);
        assert!(stop_by_correlation(unlabelled.correlation, 20, 7).is_none());
    }
}
