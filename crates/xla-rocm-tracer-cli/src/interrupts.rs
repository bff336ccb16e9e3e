//! SIGINT, SIGTERM and SIGHUP: what they do at each point of a command.
//!
//! * While an output's temporary file exists, any of them removes it and ends the process with
//!   128 + the signal's number: no temporary file is left and an interrupted write never exits 0.
//! * While a replay runs its steps ([`Graceful`]), the first one is recorded and the replay
//!   stops at the next step boundary ([`received`]); a second one ends the process at once.
//! * At any other point they end the process with 128 + the signal's number, as the default
//!   action would, less abruptly for the shell (an exit status, not a death by signal).
//!
//! The handler only loads atomics, calls `unlink` and `_exit` (async-signal-safe); the path
//! it may remove is a leaked C string that is never freed, so it can be read at any moment.
use std::ffi::{c_char, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};

use anyhow::{Context, Result};

/// The signals that stop a command.
pub const STOP_SIGNALS: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The temporary file being written, or null.
static TEMPORARY: AtomicPtr<c_char> = AtomicPtr::new(std::ptr::null_mut());
/// Set while a replay runs its steps.
static GRACEFUL: AtomicBool = AtomicBool::new(false);
/// The first stop signal received while graceful, or 0.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

fn on_signal(signal: i32) {
    let temporary = TEMPORARY.load(Ordering::SeqCst);
    if !temporary.is_null() {
        // SAFETY: a NUL-terminated string that is never freed (`remove_on_signal`).
        unsafe {
            libc::unlink(temporary);
        }
        exit_for(signal);
    }
    if GRACEFUL.load(Ordering::SeqCst)
        && RECEIVED
            .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    {
        return;
    }
    exit_for(signal);
}

fn exit_for(signal: i32) -> ! {
    // SAFETY: _exit is async-signal-safe and ends the process without running Rust code.
    unsafe { libc::_exit(128 + signal) }
}

/// Installs the handler for [`STOP_SIGNALS`]; call once, early in `main`.
pub fn install() -> Result<()> {
    for signal in STOP_SIGNALS {
        // SAFETY: `on_signal` only uses async-signal-safe operations (see the module comment).
        unsafe { signal_hook::low_level::register(signal, move || on_signal(signal)) }
            .with_context(|| format!("cannot install the handler of signal {signal}"))?;
    }
    Ok(())
}

/// Removes `path` if a stop signal arrives before [`Temporary::done`] or the guard's drop.
/// Call before creating the file, so that no moment exists where it is there unguarded.
pub fn remove_on_signal(path: &Path) -> Temporary {
    let text = CString::new(path.as_os_str().as_bytes())
        .unwrap_or_else(|_| CString::from(c"/nonexistent"));
    // Leaked on purpose: the handler may hold the pointer at any moment. One per output.
    TEMPORARY.store(text.into_raw(), Ordering::SeqCst);
    Temporary
}

/// The guard of [`remove_on_signal`].
pub struct Temporary;

impl Drop for Temporary {
    fn drop(&mut self) {
        TEMPORARY.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

/// While the guard lives, the first stop signal is only recorded ([`received`]).
pub fn graceful() -> Graceful {
    GRACEFUL.store(true, Ordering::SeqCst);
    Graceful
}

pub struct Graceful;

impl Drop for Graceful {
    fn drop(&mut self) {
        GRACEFUL.store(false, Ordering::SeqCst);
    }
}

/// The stop signal recorded while graceful, if any. Checked again after the [`Graceful`]
/// guard is dropped, a signal that arrived just before cannot be missed.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// "Ctrl-C", "SIGTERM", "SIGHUP".
pub fn describe(signal: i32) -> String {
    match signal {
        libc::SIGINT => "Ctrl-C".to_owned(),
        libc::SIGTERM => "SIGTERM".to_owned(),
        libc::SIGHUP => "SIGHUP".to_owned(),
        other => format!("signal {other}"),
    }
}
