//! A condition variable whose waiter spins a little before it sleeps, for the simulator's own
//! hand-offs between a HIP thread and the signal thread (signal.rs). They happen once per copy
//! each way; with each side asleep in a futex, a hand-off cost two wake-ups of an idle CPU,
//! tens of microseconds in a virtual machine and most of a long replay's wall time
//! (docs/simulator-fidelity.md#threading).
//!
//! Spinning changes no order, because a ring needs the lock its waiter waits with (the ring
//! functions take the guard) and every waiter re-checks its condition after `wait` returns.
//! At most as many waiters spin at once as there are CPUs, and none on a single CPU (where a
//! spinner only delays the thread that will ring); the others sleep at once. A spinner gives
//! its place up as soon as its spin ends, so a HIP thread and the signal thread handing work
//! back and forth both spin on two CPUs. A spinner also yields its CPU every few dozen
//! checks: on a busy machine a pure spin took the CPU the ringing thread needed (a million
//! replay steps beside a build: 26-32 s spinning, 7.4-7.7 s yielding, 22 s sleeping at once).
use parking_lot::{Condvar, MutexGuard};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// How long a waiter spins before it sleeps.
pub(crate) const SPIN: Duration = Duration::from_micros(50);

/// Waiters spinning now, over every bell.
static SPINNING: AtomicUsize = AtomicUsize::new(0);

/// How many waiters may spin at once: one per CPU, none on a single CPU.
fn spin_slots() -> usize {
    static SLOTS: LazyLock<usize> =
        LazyLock::new(
            || match std::thread::available_parallelism().map_or(1, |cpus| cpus.get()) {
                1 => 0,
                cpus => cpus,
            },
        );
    *SLOTS
}

#[derive(Default)]
pub(crate) struct Bell {
    condvar: Condvar,
    rings: AtomicU64,
}

impl Bell {
    /// Wakes one waiter. `_held` is the guard of the lock the waiters wait with: a ring
    /// without it could fall between a waiter's last look and its sleep, and be lost.
    pub(crate) fn ring_one<T>(&self, _held: &MutexGuard<'_, T>) {
        self.rings.fetch_add(1, Ordering::Release);
        self.condvar.notify_one();
    }

    /// Wakes every waiter (see [`Bell::ring_one`] for `_held`).
    pub(crate) fn ring_all<T>(&self, _held: &MutexGuard<'_, T>) {
        self.rings.fetch_add(1, Ordering::Release);
        self.condvar.notify_all();
    }

    /// Returns after a ring, or spuriously, as a condition variable may: callers re-check.
    pub(crate) fn wait<T>(&self, held: &mut MutexGuard<'_, T>) {
        let seen = self.rings.load(Ordering::Acquire);
        if SPINNING.fetch_add(1, Ordering::AcqRel) < spin_slots() {
            MutexGuard::unlocked(held, || {
                self.spin_while_silent(seen);
                SPINNING.fetch_sub(1, Ordering::AcqRel);
            });
        } else {
            SPINNING.fetch_sub(1, Ordering::AcqRel);
        }
        if self.rings.load(Ordering::Acquire) != seen {
            return;
        }
        self.condvar.wait(held);
    }

    fn spin_while_silent(&self, seen: u64) {
        let start = Instant::now();
        let mut spins = 0u32;
        while self.rings.load(Ordering::Acquire) == seen {
            std::hint::spin_loop();
            spins += 1;
            if spins.is_multiple_of(64) {
                if start.elapsed() >= SPIN {
                    return;
                }
                // Lets a thread waiting for this CPU (perhaps the one that will ring) run.
                std::thread::yield_now();
            }
        }
    }

    /// Sleeps until a ring or `timeout`, without spinning (the real clock's timed waits);
    /// may return spuriously.
    pub(crate) fn wait_for<T>(&self, held: &mut MutexGuard<'_, T>, timeout: Duration) {
        self.condvar.wait_for(held, timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;
    use std::sync::{mpsc, Arc};

    /// (round the waiter waits for, last round rung).
    type Rounds = (Mutex<(u64, u64)>, Bell);

    /// Busy-waits `delay`: a sleep would take the timer's slack (tens of microseconds) and
    /// miss the moments the test aims at.
    fn pause(delay: Duration) {
        let end = Instant::now() + delay;
        while Instant::now() < end {
            std::hint::spin_loop();
        }
    }

    /// A ring is never lost, whether it comes while the waiter spins, about when its spin
    /// ends, or while it sleeps: the waiter sees every round (a lost ring would leave it
    /// asleep, and the test fails after its timeout instead of hanging).
    #[test]
    fn a_bell_wakes_its_waiter_however_late_it_rings() {
        const ROUNDS: u64 = 300;
        let shared: Arc<Rounds> = Arc::new((Mutex::new((0, 0)), Bell::default()));
        let (finished, done) = mpsc::channel();
        let waiter = {
            let shared = shared.clone();
            std::thread::spawn(move || {
                let (rounds, bell) = &*shared;
                for round in 1..=ROUNDS {
                    let mut rounds = rounds.lock();
                    rounds.0 = round;
                    while rounds.1 < round {
                        bell.wait(&mut rounds);
                    }
                }
                let _ = finished.send(());
            })
        };
        // The ringer runs apart too: if the waiter stops, it waits for an announcement that
        // never comes, and the test fails at its timeout.
        std::thread::spawn(move || {
            let (rounds, bell) = &*shared;
            let delays = [
                Duration::ZERO,
                SPIN / 5,
                SPIN - SPIN / 10,
                SPIN + SPIN / 10,
                SPIN * 6,
            ];
            for round in 1..=ROUNDS {
                while rounds.lock().0 != round {
                    std::thread::yield_now();
                }
                pause(delays[(round % 5) as usize]);
                let mut rounds = rounds.lock();
                rounds.1 = round;
                bell.ring_all(&rounds);
            }
        });
        assert!(
            done.recv_timeout(Duration::from_secs(20)).is_ok(),
            "the waiter missed a ring"
        );
        waiter.join().unwrap();
    }
}
