//! The virtual clock's turns (`clock = "virtual"`): scenario threads stay real OS threads but
//! run one step at a time, always the thread with the smallest local virtual time (ties: the
//! earlier thread in the file); under the real clock the [`Gate`] only sleeps.
use parking_lot::{Condvar, Mutex};

/// The virtual-clock scheduler: whose turn it is, and each thread's local virtual time.
pub(super) struct Turns {
    state: Mutex<TurnState>,
    /// One per thread, so that a turn wakes only the thread whose turn it is (waking all of
    /// them after every step made a 16-thread replay mostly context switches).
    turn_of: Vec<Condvar>,
}

struct TurnState {
    local_ns: Vec<u64>,
    finished: Vec<bool>,
    turn: Option<usize>,
}

impl Turns {
    pub(super) fn new(threads: usize) -> Turns {
        let mut state = TurnState {
            local_ns: vec![crate::time::clock::now_ns(); threads],
            finished: vec![false; threads],
            turn: None,
        };
        state.pick();
        Turns {
            state: Mutex::new(state),
            turn_of: (0..threads).map(|_| Condvar::new()).collect(),
        }
    }
}

impl Turns {
    /// Wakes the thread whose turn it now is.
    fn wake(&self, state: &TurnState) {
        if let Some(turn) = state.turn {
            self.turn_of[turn].notify_one();
        }
    }
}

impl TurnState {
    /// The unfinished thread with the smallest local time, ties by index.
    fn pick(&mut self) {
        self.turn = (0..self.local_ns.len())
            .filter(|&i| !self.finished[i])
            .min_by_key(|&i| (self.local_ns[i], i));
    }
}

/// One scenario thread's place in the [`Turns`] (none under the real clock). Dropping it
/// ends the thread's turns, also when a step failed.
pub(super) struct Gate<'a> {
    pub(super) turns: Option<&'a Turns>,
    pub(super) index: usize,
}

impl Gate<'_> {
    /// Waits for this thread's turn; virtual time moves to its local time.
    pub(super) fn before_step(&self) {
        if let Some(turns) = self.turns {
            let local = {
                let mut state = turns.state.lock();
                while state.turn != Some(self.index) {
                    turns.turn_of[self.index].wait(&mut state);
                }
                state.local_ns[self.index]
            };
            crate::engine::signal::advance_to(local);
        }
    }

    /// Ends the turn; the thread's local time is now, plus `sleep_ns` if the step slept.
    pub(super) fn after_step(&self, sleep_ns: u64) {
        match self.turns {
            Some(turns) => {
                let mut state = turns.state.lock();
                state.local_ns[self.index] = crate::time::clock::now_ns().saturating_add(sleep_ns);
                state.pick();
                turns.wake(&state);
            }
            None if sleep_ns > 0 => crate::engine::signal::sleep_ns(sleep_ns),
            None => {}
        }
    }
}

impl Drop for Gate<'_> {
    fn drop(&mut self) {
        if let Some(turns) = self.turns {
            let mut state = turns.state.lock();
            state.finished[self.index] = true;
            state.pick();
            turns.wake(&state);
        }
    }
}
