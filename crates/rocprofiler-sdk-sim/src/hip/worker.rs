//! HIP's worker thread for `direct_dispatch=0` (`AMD_DIRECT_DISPATCH=0`): submission,
//! and with it the external-correlation request and the enqueue callbacks, leaves the API
//! thread (docs/sdk-facts.md#direct-dispatch, docs/simulator-fidelity.md#threading). With direct dispatch (the default) work runs inline.
use parking_lot::{Condvar, Mutex};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, LazyLock};

type Work = Box<dyn FnOnce() + Send>;

thread_local! {
    /// True on the worker thread, which must never wait for its own queue.
    static ON_WORKER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

struct Worker {
    sender: Mutex<mpsc::Sender<Work>>,
    pending: Mutex<u64>,
    idle: Condvar,
}

static WORKER: LazyLock<Worker> = LazyLock::new(|| {
    let (sender, receiver) = mpsc::channel::<Work>();
    let spawned = std::thread::Builder::new()
        .name("rocsim-hip-worker".into())
        .spawn(move || {
            ON_WORKER.set(true);
            for work in receiver {
                let _ = catch_unwind(AssertUnwindSafe(work));
                let mut pending = WORKER.pending.lock();
                *pending -= 1;
                WORKER.idle.notify_all();
            }
        });
    if spawned.is_err() {
        eprintln!("rocprofiler-sdk-sim: cannot spawn the HIP worker thread; aborting");
        std::process::abort();
    }
    Worker {
        sender: Mutex::new(sender),
        pending: Mutex::new(0),
        idle: Condvar::new(),
    }
});

/// Runs `work` inline under direct dispatch, else queues it on the worker (FIFO).
pub(crate) fn submit(work: impl FnOnce() + Send + 'static) {
    if crate::machine::machine().direct_dispatch {
        work();
        return;
    }
    *WORKER.pending.lock() += 1;
    if WORKER.sender.lock().send(Box::new(work)).is_err() {
        *WORKER.pending.lock() -= 1;
    }
}

/// Whether the calling thread is HIP's worker thread.
pub(crate) fn on_worker() -> bool {
    ON_WORKER.get()
}

/// Waits until the worker has submitted everything queued so far. On the worker itself (a
/// tool callback running there that makes a HIP call) it returns at once: the work it would
/// wait for includes the job that is running.
pub(crate) fn wait_idle() {
    if crate::machine::machine().direct_dispatch || ON_WORKER.get() {
        return;
    }
    let mut pending = WORKER.pending.lock();
    while *pending > 0 {
        WORKER.idle.wait(&mut pending);
    }
}
