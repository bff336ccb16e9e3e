//! Event times on an XLine (docs/xla-interface.md#event-stats): lines start at the capture's wall-clock
//! start, events are offsets from the SDK-clock start, and events outside the capture window
//! are not exported.
use crate::collector::CaptureStart;

#[derive(Copy, Clone, Debug)]
pub(crate) struct Timeline {
    pub start_gputime_ns: u64,
    pub end_gputime_ns: u64,
    pub line_timestamp_ns: i64,
}

/// Where an event sits on its line, in picoseconds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Placement {
    pub offset_ps: i64,
    pub duration_ps: i64,
}

impl Timeline {
    /// The window of a capture that started at `start` and is exported at `end_gputime_ns`
    /// (the SDK clock at export).
    pub(crate) fn new(start: CaptureStart, end_gputime_ns: u64) -> Timeline {
        Timeline {
            start_gputime_ns: start.gputime_ns,
            // XLA's GetTimestamp() returns 0 when the SDK clock fails; taken as the end, it
            // would drop every event of the capture. An unknown end bounds nothing instead.
            end_gputime_ns: if end_gputime_ns == 0 {
                u64::MAX
            } else {
                end_gputime_ns
            },
            line_timestamp_ns: i64::try_from(start.walltime_ns).unwrap_or(i64::MAX),
        }
    }

    /// `None` when XLA would drop the event (`start < start_gputime`, `end > end_gputime`,
    /// `start > end`), or when the picosecond values do not fit an `int64`.
    pub(crate) fn place(&self, (start, end): (u64, u64)) -> Option<Placement> {
        if start < self.start_gputime_ns || end > self.end_gputime_ns || start > end {
            return None;
        }
        let to_ps = |ns: u64| ns.checked_mul(1000).and_then(|ps| i64::try_from(ps).ok());
        Some(Placement {
            offset_ps: to_ps(start - self.start_gputime_ns)?,
            duration_ps: to_ps(end - start)?,
        })
    }
}
