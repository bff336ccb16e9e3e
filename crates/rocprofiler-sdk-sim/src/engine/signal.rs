//! The HSA runtime's asynchronous signal-handler thread: completions run there once the
//! modelled device end time has passed (docs/sdk-facts.md#threading, docs/simulator-fidelity.md#asynchronous-completion). It also tracks outstanding work per
//! device and per stream, in two stages:
//! * **finished on the device** — what `hipStreamSynchronize`/`hipDeviceSynchronize` wait for.
//!   On ROCm the SDK's queue interceptor (`WriteInterceptor` in the SDK's `hsa/queue.cpp`)
//!   chains the application's completion signal behind a barrier packet, so HIP's wait ends
//!   when the GPU is done, not when the SDK's handler ran;
//! * **record pushed** — when the completion job (callbacks, buffer records) ran. For kernels
//!   that is the end time plus a lag (`kernel_record_lag_us`): the SDK's
//!   `AsyncSignalHandler` runs when the HSA async-handler thread wakes up. Copies push their
//!   record first and only then count as finished: HIP waits on the copy's original signal,
//!   which the SDK's `async_copy_handler` releases after emplacing the record.
//!
//! [`wait_all`] (used by `driver::wait_idle`, not a HIP call) waits for the second stage.
//!
//! One wake of the handler thread handles every completion it can see, not only the one that
//! woke it: ROCR's `Runtime::AsyncEventsLoop` (ROCR-Runtime `src/core/runtime/runtime.cpp`)
//! runs the handler of the signal `hsa_amd_signal_wait_any` returned and then "checks
//! remaining signals before sleeping", running the handler of every other satisfied one. The
//! kernel record lag models when the handler gets to a kernel's SDK signal: no earlier than
//! the lag's minimum after the kernel ended (the signal's interrupt and the thread's wake-up),
//! and at the latest at the kernel's own drawn lag. So a wake at time `t` (for a copy, or for a
//! kernel whose lag is up) also pushes the records of the kernels that ended by `t` minus the
//! minimum lag, ahead of their own lag; every record still comes within
//! `kernel_record_lag_us` of its kernel's end. Besides being what the runtime does, it spares
//! a long replay one hand-off to this thread per kernel.
//!
//! Under the virtual clock the thread runs a job when virtual time passes its due time, and
//! waits move virtual time forward instead of sleeping.
use parking_lot::{Mutex, MutexGuard};
use rustc_hash::FxHashMap as HashMap;
use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{LazyLock, Once};
use std::time::Duration;

use crate::engine::bell::Bell;

type Job = Box<dyn FnOnce() + Send>;

enum Pending {
    /// The device finished the work (kernels: the record follows later).
    Finish { device: u32, stream: (u32, u64) },
    /// Push the records; with `finish`, the work also counts as finished afterwards.
    Push {
        job: Job,
        finish: Option<(u32, (u32, u64))>,
    },
}

#[derive(Default)]
struct State {
    /// (due time, sequence number) of every entry in `jobs`, earliest first. An entry whose
    /// job already ran (handled early by a wake for another one) stays until it reaches the
    /// top, where [`State::next_due`] discards it.
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    /// (time the handler can first see it, sequence number) of kernel record pushes that
    /// wait for a lag: a wake of the handler thread at or after that time pushes them too.
    visible: BinaryHeap<Reverse<(u64, u64)>>,
    jobs: HashMap<u64, Pending>,
    next_seq: u64,
    /// Work not finished on the device yet.
    per_device: HashMap<u32, u64>,
    per_stream: HashMap<(u32, u64), u64>,
    /// Work whose records were not pushed yet.
    unpushed: u64,
    /// The signal thread is running a job it already took off the heap.
    running: bool,
    /// The signal thread woke for a due record push and has not yet handled every other
    /// completion it can see (`visible`); waiters for "everything due ran" wait for it too.
    awake: bool,
}

impl State {
    /// The earliest due time of an entry still to run.
    fn next_due(&mut self) -> Option<u64> {
        while let Some(&Reverse((due, seq))) = self.heap.peek() {
            if self.jobs.contains_key(&seq) {
                return Some(due);
            }
            self.heap.pop();
        }
        None
    }

    /// A record push still to run that the handler can see at `now`, earliest first.
    fn next_visible(&mut self, now: u64) -> Option<u64> {
        while let Some(&Reverse((visible, seq))) = self.visible.peek() {
            if !self.jobs.contains_key(&seq) {
                self.visible.pop();
                continue;
            }
            return (visible <= now).then_some(seq);
        }
        None
    }

    /// With nothing left to run, gives back what a burst of outstanding work grew: a long
    /// replay's final synchronize had a million completions queued, and the process would
    /// otherwise hold their room through the export (tens of MB).
    fn shrink_when_idle(&mut self) {
        const KEPT: usize = 1024;
        if !self.jobs.is_empty() || self.jobs.capacity() <= KEPT {
            return;
        }
        self.heap.shrink_to(KEPT);
        self.visible.shrink_to(KEPT);
        self.jobs.shrink_to(KEPT);
    }

    /// Whether the signal thread has work at `now`: an entry due, or the rest of a wake.
    fn busy_at(&mut self, now: u64) -> bool {
        self.running || self.awake || self.next_due().is_some_and(|due| due <= now)
    }
}

struct Signal {
    state: Mutex<State>,
    work: Bell,
    done: Bell,
}

static SIGNAL: LazyLock<Signal> = LazyLock::new(|| Signal {
    state: Mutex::new(State::default()),
    work: Bell::default(),
    done: Bell::default(),
});
static SPAWN: Once = Once::new();

thread_local! {
    static ON_SIGNAL_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Registers one unit of work as outstanding (at API time, before any hand-off).
pub(crate) fn begin(device: u32, stream: (u32, u64)) {
    let mut state = SIGNAL.state.lock();
    *state.per_device.entry(device).or_insert(0) += 1;
    *state.per_stream.entry(stream).or_insert(0) += 1;
    state.unpushed += 1;
}

fn schedule(state: &mut State, due: u64, pending: Pending) {
    let seq = state.next_seq;
    state.next_seq += 1;
    state.heap.push(Reverse((due, seq)));
    state.jobs.insert(seq, pending);
}

/// A copy: runs `job` on the signal thread at `end_ns`, then counts the work registered by
/// [`begin`] as finished, so a synchronize never returns before the copy's records.
pub(crate) fn complete_at(
    end_ns: u64,
    device: u32,
    stream: (u32, u64),
    job: impl FnOnce() + Send + 'static,
) {
    complete_after_lag(end_ns, 0, device, stream, Box::new(job));
}

/// A kernel: counts as finished at `end_ns`; `job` pushes its records on the signal thread
/// after the kernel record lag. With a zero lag the records come first, as for copies.
pub(crate) fn complete_kernel_at(
    end_ns: u64,
    device: u32,
    stream: (u32, u64),
    job: impl FnOnce() + Send + 'static,
) {
    let lag = crate::time::clock::kernel_record_lag_ns();
    complete_after_lag(end_ns, lag, device, stream, Box::new(job));
}

fn complete_after_lag(end_ns: u64, lag_ns: u64, device: u32, stream: (u32, u64), job: Job) {
    SPAWN.call_once(spawn);
    let mut state = SIGNAL.state.lock();
    if lag_ns == 0 {
        let finish = Some((device, stream));
        schedule(&mut state, end_ns, Pending::Push { job, finish });
    } else {
        schedule(&mut state, end_ns, Pending::Finish { device, stream });
        let due = end_ns.saturating_add(lag_ns);
        schedule(&mut state, due, Pending::Push { job, finish: None });
        let seq = state.next_seq - 1;
        let visible = end_ns.saturating_add(crate::time::clock::kernel_record_min_lag_ns());
        if visible < due {
            state.visible.push(Reverse((visible, seq)));
        }
    }
    // Under the virtual clock an entry due later waits for `run_due`, which wakes the thread
    // itself: waking it for every completion only to find nothing due was two context
    // switches per kernel (most of a long replay's time).
    if !crate::time::clock::is_virtual() || end_ns <= crate::time::clock::now_ns() {
        SIGNAL.work.ring_one(&state);
    }
    // A waiter under the virtual clock may be waiting for work the HIP worker registers.
    SIGNAL.done.ring_all(&state);
}

fn finish(state: &mut State, device: u32, stream: (u32, u64)) {
    if let Some(n) = state.per_device.get_mut(&device) {
        *n = n.saturating_sub(1);
    }
    if let Some(n) = state.per_stream.get_mut(&stream) {
        *n = n.saturating_sub(1);
    }
}

/// Runs the earliest entry; `state` is unlocked while a job runs. Returns whether it was a
/// record push (the handler thread is then awake).
fn run_next(state: &mut MutexGuard<'_, State>) -> bool {
    let Some(Reverse((_, seq))) = state.heap.pop() else {
        return false;
    };
    run_entry(state, seq)
}

/// Runs entry `seq` if it has not run yet; returns whether it was a record push.
fn run_entry(state: &mut MutexGuard<'_, State>, seq: u64) -> bool {
    let mut pushed = false;
    match state.jobs.remove(&seq) {
        None => {}
        Some(Pending::Finish { device, stream }) => finish(state, device, stream),
        Some(Pending::Push { job, finish: after }) => {
            pushed = true;
            state.running = true;
            MutexGuard::unlocked(state, || {
                let _ = catch_unwind(AssertUnwindSafe(job));
            });
            state.running = false;
            if let Some((device, stream)) = after {
                finish(state, device, stream);
            }
            state.unpushed = state.unpushed.saturating_sub(1);
        }
    }
    // Under the virtual clock the thread that moved time waits for the whole wake: the signal
    // thread tells it once, when the wake ends (waking it after every push only for it to
    // wait again was a context switch per record).
    if !pushed || !crate::time::clock::is_virtual() {
        SIGNAL.done.ring_all(state);
    }
    pushed
}

/// The rest of a wake of the handler thread at `now`: the record pushes it can see, in the
/// order their kernels ended. Returns whether it ran one.
fn run_visible(state: &mut MutexGuard<'_, State>, now: u64) -> bool {
    let mut ran = false;
    while let Some(seq) = state.next_visible(now) {
        state.visible.pop();
        ran |= run_entry(state, seq);
    }
    ran
}

fn spawn() {
    let spawned = std::thread::Builder::new()
        .name("rocsim-signal".into())
        .spawn(|| {
            ON_SIGNAL_THREAD.set(true);
            crate::time::clock::set_virtual_tid(crate::time::clock::SIGNAL_THREAD_TID);
            let mut state = SIGNAL.state.lock();
            loop {
                let now = crate::time::clock::now_ns();
                if state.next_due().is_some_and(|due| due <= now) {
                    if run_next(&mut state) {
                        state.awake = true;
                    }
                    continue;
                }
                if state.awake {
                    // Every due entry ran: the other completions this wake can see.
                    run_visible(&mut state, now);
                    state.awake = false;
                    SIGNAL.done.ring_all(&state);
                    continue;
                }
                match state.next_due() {
                    None => {
                        state.shrink_when_idle();
                        SIGNAL.work.wait(&mut state)
                    }
                    // Virtual time moves only when a driver thread advances it (and notifies).
                    Some(due) if due > now && crate::time::clock::is_virtual() => {
                        SIGNAL.work.wait(&mut state)
                    }
                    Some(due) if due > now => {
                        SIGNAL
                            .work
                            .wait_for(&mut state, Duration::from_nanos(due - now));
                    }
                    Some(_) => {}
                }
            }
        });
    if spawned.is_err() {
        eprintln!("rocprofiler-sdk-sim: cannot spawn the signal thread; aborting");
        std::process::abort();
    }
}

/// Virtual clock: virtual time just reached `now`; waits until the signal thread ran every
/// entry due by then. On the signal thread itself (a tool callback making a HIP call) it
/// cannot wait for itself, so the entries run on its next turn.
pub(crate) fn run_due(now: u64) {
    if ON_SIGNAL_THREAD.try_with(Cell::get).unwrap_or(true) {
        return;
    }
    let mut state = SIGNAL.state.lock();
    // A due "finished on the device" entry only moves counters: taken off here, it costs no
    // hand-off to the signal thread. Entries keep their order: only the earliest is taken,
    // and only while the signal thread is idle.
    while !state.running && !state.awake && state.next_due().is_some_and(|due| due <= now) {
        let Some(Reverse((_, seq))) = state.heap.peek().copied() else {
            break;
        };
        if !matches!(state.jobs.get(&seq), Some(Pending::Finish { .. })) {
            break;
        }
        run_next(&mut state);
    }
    if !state.busy_at(now) {
        return;
    }
    SPAWN.call_once(spawn);
    SIGNAL.work.ring_one(&state);
    while state.busy_at(now) {
        SIGNAL.done.wait(&mut state);
    }
}

fn wait_until(mut idle: impl FnMut(&State) -> bool) {
    if crate::time::clock::is_virtual() {
        return wait_virtual(idle);
    }
    let mut state = SIGNAL.state.lock();
    while !idle(&state) {
        SIGNAL.done.wait(&mut state);
    }
}

/// Virtual clock: moves time to the next due entry until `idle` holds.
fn wait_virtual(mut idle: impl FnMut(&State) -> bool) {
    loop {
        crate::hip::worker::wait_idle();
        let next = {
            let mut state = SIGNAL.state.lock();
            if idle(&state) {
                return;
            }
            match state.next_due() {
                Some(due) => due,
                None => {
                    // Registered by `begin` but not scheduled yet: wait for `complete_*`.
                    SIGNAL.done.wait(&mut state);
                    continue;
                }
            }
        };
        advance_to(next);
        if ON_SIGNAL_THREAD.try_with(Cell::get).unwrap_or(true) {
            // A callback on the signal thread waiting for later work would wait for itself.
            return;
        }
    }
}

/// Waits until every unit of work begun on `device` finished on the device.
pub(crate) fn wait_device(device: u32) {
    wait_until(|s| s.per_device.get(&device).copied().unwrap_or(0) == 0);
}

/// Waits until every unit of work begun on `stream` finished on the device.
pub(crate) fn wait_stream(stream: (u32, u64)) {
    wait_until(|s| s.per_stream.get(&stream).copied().unwrap_or(0) == 0);
}

/// Waits until every unit of work begun anywhere finished and its records were pushed.
pub(crate) fn wait_all() {
    wait_until(|s| s.unpushed == 0 && !s.running && !s.awake);
}

/// Moves virtual time forward to `t` (never back), then waits until every completion due by
/// then ran. No-op with the real clock.
pub(crate) fn advance_to(t: u64) {
    if !crate::time::clock::is_virtual() {
        return;
    }
    // Work the HIP worker still has to submit reads "now" when it does: let it finish first.
    crate::hip::worker::wait_idle();
    run_due(crate::time::clock::advance_virtual_now(t));
}

/// Moves virtual time forward by `ns` (see [`advance_to`]).
pub(crate) fn advance_by(ns: u64) {
    if crate::time::clock::is_virtual() {
        advance_to(crate::time::clock::now_ns().saturating_add(ns));
    }
}

/// The modelled duration of one HIP call: called between ENTER and EXIT.
pub(crate) fn api_call_elapsed() {
    advance_by(crate::time::clock::API_CALL_NS);
}

/// A host thread waiting until time `t`: virtual time moving forward, or a real sleep.
/// HIP's worker thread (indirect dispatch) only moves time: waiting there for the signal
/// thread could wait on a tool callback that waits for the worker; the completions that
/// became due run at the next wait of an API thread.
pub(crate) fn wait_until_time(t: u64) {
    if crate::time::clock::is_virtual() {
        if crate::hip::worker::on_worker() {
            crate::time::clock::advance_virtual_now(t);
        } else {
            advance_to(t);
        }
    } else if let Some(ns) = t
        .checked_sub(crate::time::clock::now_ns())
        .filter(|&ns| ns > 0)
    {
        std::thread::sleep(std::time::Duration::from_nanos(ns));
    }
}

/// A host thread sleeping `ns`: real sleep, or virtual time moving forward.
pub(crate) fn sleep_ns(ns: u64) {
    if crate::time::clock::is_virtual() {
        advance_by(ns);
    } else {
        std::thread::sleep(std::time::Duration::from_nanos(ns));
    }
}
