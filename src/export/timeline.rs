//! Event times on an XLine (docs/xla-interface.md#event-stats): lines start at the capture's wall-clock
//! start, events are offsets from the SDK-clock start, and events outside the capture window
//! are not exported.
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
