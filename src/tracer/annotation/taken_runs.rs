//! The closed runs the annotation map took from the threads' logs, by first correlation id.
//!
//! A sorted vector, not a tree map: a session with a new annotation every few calls has a
//! run per step (a quarter of a million in the replay benchmark), and a tree's half-full nodes
//! cost twice the 40 bytes of a run. Runs arrive nearly in order (each log's in order, logs
//! of different threads interleaved over at most a log's capacity), so an insertion moves
//! only the few runs after it.
use crate::tracer::annotation::thread_log::Run;

#[derive(Default)]
pub(super) struct TakenRuns {
    /// Ascending `first`; runs never overlap (each holds consecutive ids of one thread).
    runs: Vec<Run>,
}

impl TakenRuns {
    pub(super) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Adds `run`, replacing a run with the same first id.
    pub(super) fn insert(&mut self, run: Run) {
        if self.runs.last().is_none_or(|last| last.first < run.first) {
            self.runs.push(run);
            return;
        }
        let at = self.runs.partition_point(|taken| taken.first < run.first);
        match self.runs.get_mut(at) {
            Some(taken) if taken.first == run.first => *taken = run,
            _ => self.runs.insert(at, run),
        }
    }

    /// The run holding `correlation_id`.
    pub(super) fn covering(&self, correlation_id: u64) -> Option<Run> {
        let after = self
            .runs
            .partition_point(|taken| taken.first <= correlation_id);
        let run = self.runs.get(after.checked_sub(1)?)?;
        (run.last >= correlation_id).then_some(*run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(first: u64, last: u64, string: u64) -> Run {
        Run {
            first,
            last,
            string,
            scope_range_id: 0,
            label: 0,
        }
    }

    #[test]
    fn runs_taken_out_of_order_are_found_by_any_of_their_ids() {
        let mut runs = TakenRuns::default();
        assert!(runs.is_empty());
        // Two threads' logs, taken one after the other: their ids interleave.
        for taken in [run(1, 2, 10), run(5, 6, 11), run(3, 4, 20), run(7, 9, 21)] {
            runs.insert(taken);
        }
        for (id, string) in [
            (1, 10),
            (2, 10),
            (3, 20),
            (4, 20),
            (5, 11),
            (6, 11),
            (9, 21),
        ] {
            assert_eq!(
                runs.covering(id).map(|run| run.string),
                Some(string),
                "{id}"
            );
        }
        assert_eq!(runs.covering(0), None);
        assert_eq!(runs.covering(10), None);
        // The same first id again replaces the run.
        runs.insert(run(3, 4, 30));
        assert_eq!(runs.covering(4).map(|run| run.string), Some(30));
        runs.insert(run(12, 12, 40));
        assert_eq!(runs.covering(11), None);
        assert_eq!(runs.covering(12).map(|run| run.string), Some(40));
    }
}
