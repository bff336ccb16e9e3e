//! The HSA runtime's asynchronous signal-handler thread: completions run there once the
//! modelled device end time has passed (§13.1, §18.21). It also tracks outstanding work per
//! device and per stream, so synchronize calls can wait until completions were pushed.
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{LazyLock, Once};
use std::time::Duration;

type Job = Box<dyn FnOnce() + Send>;

struct Pending {
    job: Job,
    device: u32,
    stream: (u32, u64),
}

#[derive(Default)]
struct State {
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    jobs: HashMap<u64, Pending>,
    next_seq: u64,
    per_device: HashMap<u32, u64>,
    per_stream: HashMap<(u32, u64), u64>,
    total: u64,
}

struct Signal {
    state: Mutex<State>,
    work: Condvar,
    done: Condvar,
}

static SIGNAL: LazyLock<Signal> = LazyLock::new(|| Signal {
    state: Mutex::new(State::default()),
    work: Condvar::new(),
    done: Condvar::new(),
});
static SPAWN: Once = Once::new();

/// Registers one unit of work as outstanding (at API time, before any hand-off).
pub(crate) fn begin(device: u32, stream: (u32, u64)) {
    let mut state = SIGNAL.state.lock();
    *state.per_device.entry(device).or_insert(0) += 1;
    *state.per_stream.entry(stream).or_insert(0) += 1;
    state.total += 1;
}

/// Runs `job` on the signal thread at boot-clock time `end_ns`, then retires one unit of the
/// work registered by [`begin`] for the same device and stream.
pub(crate) fn complete_at(
    end_ns: u64,
    device: u32,
    stream: (u32, u64),
    job: impl FnOnce() + Send + 'static,
) {
    SPAWN.call_once(spawn);
    let mut state = SIGNAL.state.lock();
    let seq = state.next_seq;
    state.next_seq += 1;
    state.heap.push(Reverse((end_ns, seq)));
    state.jobs.insert(
        seq,
        Pending {
            job: Box::new(job),
            device,
            stream,
        },
    );
    SIGNAL.work.notify_one();
}

fn retire(state: &mut State, device: u32, stream: (u32, u64)) {
    if let Some(n) = state.per_device.get_mut(&device) {
        *n = n.saturating_sub(1);
    }
    if let Some(n) = state.per_stream.get_mut(&stream) {
        *n = n.saturating_sub(1);
    }
    state.total = state.total.saturating_sub(1);
}

fn spawn() {
    let spawned = std::thread::Builder::new()
        .name("rocsim-signal".into())
        .spawn(|| {
            let mut state = SIGNAL.state.lock();
            loop {
                let now = crate::clock::now_ns();
                let next = state.heap.peek().map(|Reverse((end, seq))| (*end, *seq));
                match next {
                    None => SIGNAL.work.wait(&mut state),
                    Some((end, _)) if end > now => {
                        SIGNAL
                            .work
                            .wait_for(&mut state, Duration::from_nanos(end - now));
                    }
                    Some((_, seq)) => {
                        state.heap.pop();
                        let Some(pending) = state.jobs.remove(&seq) else {
                            continue;
                        };
                        let job = pending.job;
                        MutexGuard::unlocked(&mut state, || {
                            let _ = catch_unwind(AssertUnwindSafe(job));
                        });
                        retire(&mut state, pending.device, pending.stream);
                        SIGNAL.done.notify_all();
                    }
                }
            }
        });
    if spawned.is_err() {
        eprintln!("rocprofiler-sdk-sim: cannot spawn the signal thread; aborting");
        std::process::abort();
    }
}

fn wait_until(mut idle: impl FnMut(&State) -> bool) {
    let mut state = SIGNAL.state.lock();
    while !idle(&state) {
        SIGNAL.done.wait(&mut state);
    }
}

/// Waits until every unit of work begun on `device` completed and its records were pushed.
pub(crate) fn wait_device(device: u32) {
    wait_until(|s| s.per_device.get(&device).copied().unwrap_or(0) == 0);
}

pub(crate) fn wait_stream(stream: (u32, u64)) {
    wait_until(|s| s.per_stream.get(&stream).copied().unwrap_or(0) == 0);
}

pub(crate) fn wait_all() {
    wait_until(|s| s.total == 0);
}
