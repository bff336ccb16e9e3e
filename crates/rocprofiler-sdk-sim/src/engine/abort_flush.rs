//! ROCm 10.1's flush on `SIGABRT` (`finalization = "worker-thread"`; docs/simulator-fidelity.md,
//! row "Finalization" [RN]): a handler installed at the first initialization asks a flusher
//! thread to flush every buffer to its tool and waits for it, at most
//! `ROCPROF_ABORT_FLUSH_TIMEOUT_SECONDS` (default 10), then hands the signal on to the handler
//! that was there before (a tool's, chained) or to the default action. The pin says what is
//! flushed and for how long; that the handler chains, and that the flush runs off the signal's
//! thread, is this model's shape (an SDK that replaced a tool's handler would be a bug to find
//! with a tool that has one).
//!
//! The handler only calls async-signal-safe functions (write, poll, getpid, sigaction, raise).
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};

pub const TIMEOUT_VARIABLE: &str = "ROCPROF_ABORT_FLUSH_TIMEOUT_SECONDS";
const DEFAULT_TIMEOUT_SECONDS: u32 = 10;

static WAKE_FD: AtomicI32 = AtomicI32::new(-1);
static DONE_FD: AtomicI32 = AtomicI32::new(-1);
static TIMEOUT_MILLISECONDS: AtomicU32 = AtomicU32::new(DEFAULT_TIMEOUT_SECONDS * 1000);
static FLUSH_ASKED: AtomicBool = AtomicBool::new(false);
static INSTALLED_BY: AtomicU32 = AtomicU32::new(0);

struct Previous(UnsafeCell<Option<libc::sigaction>>);
// SAFETY: written only in `install`, before the handler that reads it is installed.
unsafe impl Sync for Previous {}
static PREVIOUS: Previous = Previous(UnsafeCell::new(None));

fn pipe() -> Option<(libc::c_int, libc::c_int)> {
    let mut fds = [0; 2];
    // SAFETY: fds has room for the two descriptors pipe2 writes.
    (unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0).then_some((fds[0], fds[1]))
}

/// Starts the flusher and installs the handler (once, at the first initialization). `flush`
/// flushes every buffer; it runs on the flusher thread, never in the handler.
pub(crate) fn install(flush: fn()) {
    let (Some((wake_read, wake_write)), Some((done_read, done_write))) = (pipe(), pipe()) else {
        return;
    };
    let seconds = std::env::var(TIMEOUT_VARIABLE)
        .ok()
        .and_then(|value| value.trim().parse::<u32>().ok())
        .unwrap_or(DEFAULT_TIMEOUT_SECONDS);
    TIMEOUT_MILLISECONDS.store(seconds.saturating_mul(1000), Ordering::Relaxed);
    let started = std::thread::Builder::new()
        .name("rocprofiler-abort-flush".to_owned())
        .spawn(move || {
            let mut byte = 0u8;
            // SAFETY: reading one byte into a local.
            if unsafe { libc::read(wake_read, (&mut byte as *mut u8).cast(), 1) } == 1 {
                let _ = std::panic::catch_unwind(flush);
                // SAFETY: writing one byte from a local.
                unsafe { libc::write(done_write, (&byte as *const u8).cast(), 1) };
            }
        });
    if started.is_err() {
        return;
    }
    WAKE_FD.store(wake_write, Ordering::Relaxed);
    DONE_FD.store(done_read, Ordering::Relaxed);
    INSTALLED_BY.store(std::process::id(), Ordering::Relaxed);
    // SAFETY: a zeroed sigaction is a valid out-parameter; sigaction(2) fills it.
    let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: reading the current action.
    if unsafe { libc::sigaction(libc::SIGABRT, std::ptr::null(), &mut previous) } != 0 {
        return;
    }
    // SAFETY: our handler is not installed yet, so nothing reads PREVIOUS.
    unsafe { *PREVIOUS.0.get() = Some(previous) };
    // SAFETY: zeroed, then every field the kernel reads is set.
    let mut ours: libc::sigaction = unsafe { std::mem::zeroed() };
    ours.sa_sigaction = on_abort as *const () as usize;
    ours.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
    // SAFETY: sa_mask is ours to fill; the handler is async-signal-safe.
    unsafe {
        libc::sigemptyset(&mut ours.sa_mask);
        libc::sigaction(libc::SIGABRT, &ours, std::ptr::null_mut());
    }
}

/// The next `SIGABRT` goes straight on, unflushed (an abort of the simulator's own, from a
/// thread that holds a buffer's lock).
pub(crate) fn skip() {
    FLUSH_ASKED.store(true, Ordering::Release);
}

extern "C" fn on_abort(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    // SAFETY: errno's location is thread-local and valid; restored before returning.
    let saved_errno = unsafe { *libc::__errno_location() };
    // SAFETY: getpid is async-signal-safe.
    let pid = unsafe { libc::getpid() } as u32;
    if pid == INSTALLED_BY.load(Ordering::Relaxed) && !FLUSH_ASKED.swap(true, Ordering::AcqRel) {
        let byte = 1u8;
        // SAFETY: one byte from a local into our pipe.
        if unsafe {
            libc::write(
                WAKE_FD.load(Ordering::Relaxed),
                (&byte as *const u8).cast(),
                1,
            )
        } == 1
        {
            let mut done = libc::pollfd {
                fd: DONE_FD.load(Ordering::Relaxed),
                events: libc::POLLIN,
                revents: 0,
            };
            let limit = TIMEOUT_MILLISECONDS.load(Ordering::Relaxed) as libc::c_int;
            // SAFETY: polling one valid pollfd.
            unsafe { libc::poll(&mut done, 1, limit) };
        }
    }
    // SAFETY: PREVIOUS was written before this handler was installed.
    let previous = unsafe { *PREVIOUS.0.get() };
    match previous {
        Some(previous)
            if previous.sa_sigaction != libc::SIG_DFL && previous.sa_sigaction != libc::SIG_IGN =>
        {
            if previous.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: SA_SIGINFO says the address is a three-argument handler.
                let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    unsafe { std::mem::transmute(previous.sa_sigaction) };
                handler(signal, info, context);
            } else {
                // SAFETY: without SA_SIGINFO the address is a one-argument handler.
                let handler: extern "C" fn(libc::c_int) =
                    unsafe { std::mem::transmute(previous.sa_sigaction) };
                handler(signal);
            }
        }
        _ => {
            // SAFETY: zeroed with SIG_DFL is the default action; sigaction and raise are
            // async-signal-safe. The signal is blocked here, so it ends the process on return.
            unsafe {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
                libc::raise(signal);
            }
        }
    }
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = saved_errno };
}
