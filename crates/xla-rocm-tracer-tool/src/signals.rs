//! Writing the whole-process capture when the process is ended by `SIGTERM` or `SIGABRT`
//! (docs/tool-library.md#teardown). Neither runs `atexit`, so without this the capture is lost.
//!
//! The handler does only async-signal-safe work: it wakes a flusher thread (started at load)
//! through a pipe, waits on a second pipe for it to write the capture, for at most
//! `XLA_ROCM_TRACER_SIGNAL_FLUSH_SECONDS` (default 10, as ROCm 10.1's SDK waits on `SIGABRT`),
//! and then hands the signal on: to the handler the program had before ours (chained, never
//! replaced silently), or to the default action, which ends the process by that signal as it
//! would have. If the flush does not finish in time (the signal interrupted a thread holding a
//! lock the writer needs), or the flush time is 0, one line on stderr says the capture is lost
//! (`record` says it when the capture goes to its folder, else the handler).
//!
//! A program that installs its own handler after the library loaded replaces ours: its handler
//! decides, and an `exit` from it writes the capture through `atexit` as usual.
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};

/// The signals whose default action ends the process without `atexit`, and that a program
/// may be sent (or send itself) while it is being traced.
const SIGNALS: [libc::c_int; 2] = [libc::SIGTERM, libc::SIGABRT];

pub const FLUSH_SECONDS_VARIABLE: &str = "XLA_ROCM_TRACER_SIGNAL_FLUSH_SECONDS";
const DEFAULT_FLUSH_SECONDS: u32 = 10;

/// Written by the handler to wake the flusher.
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);
/// Written by the flusher when the capture is written (or could not be).
static DONE_FD: AtomicI32 = AtomicI32::new(-1);
static FLUSH_MILLISECONDS: AtomicU32 = AtomicU32::new(DEFAULT_FLUSH_SECONDS * 1000);
/// The first signal flushes; any later one goes straight on.
static FLUSH_ASKED: AtomicBool = AtomicBool::new(false);
/// Whether the handler says a loss itself: not when writing into a folder, whose reader
/// (`record`) says it, so that one loss is one line.
static SAY_LOSS: AtomicBool = AtomicBool::new(true);
/// The process that installed the handlers: a child forked without exec hands signals on.
static INSTALLED_BY: AtomicU32 = AtomicU32::new(0);

/// The program's handlers from before ours, one per entry of `SIGNALS`. Written once, before
/// our handler is installed, and only read afterwards.
struct Previous(UnsafeCell<[Option<libc::sigaction>; 2]>);
// SAFETY: written only in `install`, before any handler that reads it can run.
unsafe impl Sync for Previous {}
static PREVIOUS: Previous = Previous(UnsafeCell::new([None, None]));

fn flush_milliseconds() -> u32 {
    std::env::var(FLUSH_SECONDS_VARIABLE)
        .ok()
        .and_then(|value| value.trim().parse::<u32>().ok())
        .unwrap_or(DEFAULT_FLUSH_SECONDS)
        .saturating_mul(1000)
}

fn pipe() -> Option<(libc::c_int, libc::c_int)> {
    let mut fds = [0; 2];
    // SAFETY: fds has room for the two descriptors pipe2 writes.
    (unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0).then_some((fds[0], fds[1]))
}

/// Starts the flusher and installs the handlers. `flush` writes the capture; it runs on the
/// flusher thread, never in the handler. `say_loss`: whether the handler itself says a capture
/// it could not write (false when a reader of the output folder says it).
pub fn install(flush: fn(), say_loss: bool) -> Result<(), String> {
    SAY_LOSS.store(say_loss, Ordering::Relaxed);
    let (Some((wake_read, wake_write)), Some((done_read, done_write))) = (pipe(), pipe()) else {
        return Err("cannot create the pipes of the signal flush".to_owned());
    };
    FLUSH_MILLISECONDS.store(flush_milliseconds(), Ordering::Relaxed);
    std::thread::Builder::new()
        .name("xrt-signal-flush".to_owned())
        .spawn(move || {
            let mut byte = 0u8;
            // SAFETY: reading one byte into a local.
            let read = unsafe { libc::read(wake_read, (&mut byte as *mut u8).cast(), 1) };
            if read == 1 {
                let _ = std::panic::catch_unwind(flush);
                // SAFETY: writing one byte from a local.
                unsafe { libc::write(done_write, (&byte as *const u8).cast(), 1) };
            }
        })
        .map_err(|error| format!("cannot start the signal flush thread: {error}"))?;
    WAKE_FD.store(wake_write, Ordering::Relaxed);
    DONE_FD.store(done_read, Ordering::Relaxed);
    INSTALLED_BY.store(std::process::id(), Ordering::Relaxed);
    for (index, signal) in SIGNALS.into_iter().enumerate() {
        // SAFETY: a zeroed sigaction is a valid out-parameter; sigaction(2) fills it.
        let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: reading the current action into `previous`.
        if unsafe { libc::sigaction(signal, std::ptr::null(), &mut previous) } != 0 {
            continue;
        }
        if previous.sa_sigaction == libc::SIG_IGN {
            continue; // the program ignores it: the process goes on, and so does the capture
        }
        // SAFETY: no handler of ours is installed yet for this signal, so nothing reads it.
        unsafe { (*PREVIOUS.0.get())[index] = Some(previous) };
        // SAFETY: as above; `ours` is fully set before sigaction reads it.
        let mut ours: libc::sigaction = unsafe { std::mem::zeroed() };
        ours.sa_sigaction = on_signal as *const () as usize;
        ours.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
        // SAFETY: sa_mask is ours to fill.
        unsafe { libc::sigemptyset(&mut ours.sa_mask) };
        // SAFETY: installing a handler that only calls async-signal-safe functions.
        unsafe { libc::sigaction(signal, &ours, std::ptr::null_mut()) };
    }
    Ok(())
}

fn write_stderr(text: &[u8]) {
    // SAFETY: write(2) is async-signal-safe; the slice is valid for its length.
    unsafe { libc::write(2, text.as_ptr().cast(), text.len()) };
}

fn signal_name(signal: libc::c_int) -> &'static [u8] {
    if signal == libc::SIGTERM {
        b"SIGTERM"
    } else {
        b"SIGABRT"
    }
}

/// Asks the flusher for the capture and waits for it, at most the flush time. Async-signal-safe:
/// write(2), poll(2), read(2), getpid(2).
fn flush_from_handler(signal: libc::c_int) {
    // SAFETY: getpid is async-signal-safe.
    let pid = unsafe { libc::getpid() } as u32;
    if pid != INSTALLED_BY.load(Ordering::Relaxed) || FLUSH_ASKED.swap(true, Ordering::AcqRel) {
        return;
    }
    // A flush time of 0 asks for no flush: the capture is lost, and said.
    let limit = FLUSH_MILLISECONDS.load(Ordering::Relaxed) as libc::c_int;
    let byte = signal as u8;
    let wake = WAKE_FD.load(Ordering::Relaxed);
    // SAFETY: writing one byte from a local to our own pipe.
    let woken = limit > 0 && unsafe { libc::write(wake, (&byte as *const u8).cast(), 1) } == 1;
    let mut done = libc::pollfd {
        fd: DONE_FD.load(Ordering::Relaxed),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: polling one valid pollfd.
    let flushed = woken && unsafe { libc::poll(&mut done, 1, limit) } == 1;
    if !flushed && SAY_LOSS.load(Ordering::Relaxed) {
        write_stderr(b"xla-rocm-tracer tool: the process ended by ");
        write_stderr(signal_name(signal));
        write_stderr(
            b" before the trace was written (no flush within XLA_ROCM_TRACER_SIGNAL_FLUSH_SECONDS): the capture is lost\n",
        );
    }
}

extern "C" fn on_signal(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    // SAFETY: errno's location is thread-local and valid; the handler must leave it as found.
    let saved_errno = unsafe { *libc::__errno_location() };
    flush_from_handler(signal);
    let index = SIGNALS.iter().position(|&s| s == signal);
    // SAFETY: PREVIOUS was written before this handler was installed.
    let previous = index.and_then(|index| unsafe { (*PREVIOUS.0.get())[index] });
    match previous {
        Some(previous)
            if previous.sa_sigaction != libc::SIG_DFL && previous.sa_sigaction != libc::SIG_IGN =>
        {
            // The program's own handler, called as the kernel would have called it.
            if previous.sa_flags & libc::SA_SIGINFO != 0 {
                let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    // SAFETY: SA_SIGINFO says the address is a three-argument handler.
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
            // The default action: restore it and send the signal again. It is blocked while
            // this handler runs, so it arrives as the handler returns and ends the process by
            // the same signal (abort(3) would also do it itself for SIGABRT).
            // SAFETY: a zeroed sigaction with SIG_DFL is the default action.
            let mut default: libc::sigaction = unsafe { std::mem::zeroed() };
            default.sa_sigaction = libc::SIG_DFL;
            // SAFETY: sigaction and raise are async-signal-safe.
            unsafe {
                libc::sigaction(signal, &default, std::ptr::null_mut());
                libc::raise(signal);
            }
        }
    }
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = saved_errno };
}
