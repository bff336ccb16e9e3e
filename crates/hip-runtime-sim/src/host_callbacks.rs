//! Host functions enqueued on streams (`hipLaunchHostFunc`). HIP runs each on a runtime thread
//! once the stream's earlier work finished; here one callback thread takes them in enqueue
//! order, waits (untraced) for the stream's earlier device work, then calls the function.
//! Synchronizing the stream or device also waits for its callbacks, which are stream work.

use crate::driver;
use crate::error::{HipError, HIP_ERROR_UNKNOWN};
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::sync::mpsc::{channel, Sender};
use std::sync::OnceLock;

/// `hipHostFn_t`.
pub type HostFn = unsafe extern "C" fn(user_data: *mut std::ffi::c_void);

struct Job {
    stream: u64,
    func: HostFn,
    /// The program's `userData`, passed back untouched.
    user_data: usize,
}

/// Callbacks enqueued and not yet returned, per stream.
static PENDING: Mutex<Option<HashMap<u64, usize>>> = Mutex::new(None);
static RETURNED: Condvar = Condvar::new();

fn pending_change(stream: u64, up: bool) {
    let mut pending = PENDING.lock();
    let counts = pending.get_or_insert_with(HashMap::new);
    let count = counts.entry(stream).or_insert(0);
    if up {
        *count += 1;
    } else {
        *count = count.saturating_sub(1);
        if *count == 0 {
            counts.remove(&stream);
        }
        RETURNED.notify_all();
    }
}

fn run(job: Job) {
    // A failed wait (the stream was destroyed meanwhile) still runs the callback: HIP never
    // drops an enqueued host function.
    let _ = driver::stream_wait(job.stream);
    // SAFETY: the program gave this function and its argument for this call (HIP's contract).
    unsafe { (job.func)(job.user_data as *mut std::ffi::c_void) };
    pending_change(job.stream, false);
}

fn sender() -> Option<&'static Mutex<Sender<Job>>> {
    static SENDER: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    SENDER
        .get_or_init(|| {
            let (tx, rx) = channel::<Job>();
            std::thread::Builder::new()
                .name("hip-host-callbacks".into())
                .spawn(move || {
                    for job in rx {
                        run(job);
                    }
                })
                .ok()?;
            Some(Mutex::new(tx))
        })
        .as_ref()
}

/// Enqueues `func(user_data)` behind the work submitted to `stream` so far.
pub fn enqueue(stream: u64, func: HostFn, user_data: usize) -> Result<(), HipError> {
    let sender = sender().ok_or(HipError(HIP_ERROR_UNKNOWN))?;
    pending_change(stream, true);
    let job = Job {
        stream,
        func,
        user_data,
    };
    if sender.lock().send(job).is_err() {
        pending_change(stream, false);
        return Err(HipError(HIP_ERROR_UNKNOWN));
    }
    Ok(())
}

/// Waits until every callback enqueued on `stream` returned. Not from a callback itself (HIP
/// forbids HIP calls there).
pub fn wait_stream(stream: u64) {
    let mut pending = PENDING.lock();
    while pending.as_ref().is_some_and(|p| p.contains_key(&stream)) {
        RETURNED.wait(&mut pending);
    }
}

/// Waits until every enqueued callback returned.
pub fn wait_all() {
    let mut pending = PENDING.lock();
    while pending.as_ref().is_some_and(|p| !p.is_empty()) {
        RETURNED.wait(&mut pending);
    }
}
