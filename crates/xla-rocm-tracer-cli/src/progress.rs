//! Progress lines on stderr: asked for with `--progress`, or by default for inputs large
//! enough to take a while when stderr is a terminal (never into a log or a pipe unasked).
use std::time::{Duration, Instant};

/// Inputs from this size on report progress on a terminal.
pub const LARGE_INPUT_BYTES: u64 = 32 << 20;

pub struct Progress {
    enabled: bool,
    what: &'static str,
    count: u64,
    last_report: Instant,
}

impl Progress {
    pub fn new(enabled: bool, what: &'static str) -> Progress {
        Progress {
            enabled,
            what,
            count: 0,
            last_report: Instant::now(),
        }
    }

    pub fn stage(&self, message: &str) {
        if self.enabled {
            eprintln!("{message}");
        }
    }

    pub fn tick(&mut self) {
        self.count += 1;
        if self.enabled
            && self.count.is_multiple_of(100_000)
            && self.last_report.elapsed() > Duration::from_secs(1)
        {
            eprintln!("  {} {}...", self.count, self.what);
            self.last_report = Instant::now();
        }
    }
}
