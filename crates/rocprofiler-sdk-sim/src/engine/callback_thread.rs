//! SDK-owned threads that run buffer callbacks (docs/sdk-facts.md#threading, #callback-threads, docs/simulator-fidelity.md#buffers). One default thread is
//! shared by every buffer; `rocprofiler_create_callback_thread` makes more. The OS thread is
//! spawned on first use, never from inside a load-time constructor.
use parking_lot::Mutex;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, LazyLock, OnceLock};

pub(crate) type Task = Box<dyn FnOnce() + Send>;

struct CallbackThread {
    handle: u64,
    sender: OnceLock<Mutex<mpsc::Sender<Task>>>,
}

struct Threads {
    offset: u64,
    list: Vec<Arc<CallbackThread>>,
}

static THREADS: LazyLock<Mutex<Threads>> = LazyLock::new(|| {
    let offset = crate::engine::handles::random_offset();
    let default = Arc::new(CallbackThread {
        handle: offset,
        sender: OnceLock::new(),
    });
    Mutex::new(Threads {
        offset,
        list: vec![default],
    })
});

thread_local! {
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

/// The shared default callback thread.
pub(crate) fn default_thread() -> u64 {
    THREADS.lock().list[0].handle
}

pub(crate) fn create() -> u64 {
    let mut threads = THREADS.lock();
    let handle = threads.offset + threads.list.len() as u64;
    threads.list.push(Arc::new(CallbackThread {
        handle,
        sender: OnceLock::new(),
    }));
    handle
}

pub(crate) fn exists(handle: u64) -> bool {
    THREADS.lock().list.iter().any(|t| t.handle == handle)
}

/// The callback thread the caller runs on, or 0 on any other thread.
pub(crate) fn current() -> u64 {
    CURRENT.get()
}

/// Queues `task` on callback thread `handle` (FIFO per thread).
pub(crate) fn submit(handle: u64, task: Task) {
    let thread = {
        let threads = THREADS.lock();
        match threads.list.iter().find(|t| t.handle == handle) {
            Some(t) => Arc::clone(t),
            None => Arc::clone(&threads.list[0]),
        }
    };
    let sender = thread
        .sender
        .get_or_init(|| Mutex::new(spawn(thread.handle)));
    if sender.lock().send(task).is_err() {
        eprintln!("rocprofiler-sdk-sim: callback thread {handle} is gone; aborting");
        std::process::abort();
    }
}

fn spawn(handle: u64) -> mpsc::Sender<Task> {
    let (sender, receiver) = mpsc::channel::<Task>();
    let spawned = std::thread::Builder::new()
        .name(format!("rocsim-cb-{handle}"))
        .spawn(move || {
            CURRENT.set(handle);
            for task in receiver {
                // A buffer callback cannot unwind (it is extern "C"); this guards the sim's own
                // bookkeeping so one bad batch does not kill the thread.
                let _ = catch_unwind(AssertUnwindSafe(task));
            }
        });
    if spawned.is_err() {
        // Without its threads the SDK cannot deliver buffers at all; no honest fallback.
        eprintln!("rocprofiler-sdk-sim: cannot spawn a callback thread; aborting");
        std::process::abort();
    }
    sender
}
