//! The SDK's clock and thread ids: `CLOCK_BOOTTIME` nanoseconds and `gettid` (docs/sdk-facts.md#callback-tracing, docs/simulator-fidelity.md#record-contents).
//!
//! With `clock = "virtual"` both become functions of the program instead of the host:
//! * time is a process-wide virtual "now" that only the driver advances: every HIP call costs
//!   [`API_CALL_NS`] between its ENTER and EXIT, sleeps and synchronizes move it forward, and
//!   reads ([`now_ns`], `rocprofiler_get_timestamp`) never do. Whenever it moves, the thread
//!   that moved it waits until the signal thread ran every completion that became due, so the
//!   order of record pushes relative to later HIP calls does not depend on thread timing;
//! * thread ids are small numbers: the main thread is [`VIRTUAL_PID`], threads the replay
//!   names get their own, and any other thread gets the next free one on its first use;
//! * the process id is [`VIRTUAL_PID`].
//!
//! Lags and handle offsets are drawn from `seed` through [`mix`].
use crate::machine::{machine, ClockMode};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// What one HIP call costs on the virtual clock, between its ENTER and EXIT timestamps.
pub const API_CALL_NS: u64 = 1_000;
/// Where the virtual clock starts: 1000 s after "boot", so no timestamp is small or zero.
pub const VIRTUAL_START_NS: u64 = 1_000_000_000_000;
/// The process id, and the main thread's id, under the virtual clock.
pub const VIRTUAL_PID: u64 = 4_000;
/// Virtual thread ids handed to threads nobody named (the HIP worker, tool threads, ...).
const FIRST_UNNAMED_TID: u64 = VIRTUAL_PID + 1_000;

static VIRTUAL_NOW: AtomicU64 = AtomicU64::new(VIRTUAL_START_NS);
static NEXT_UNNAMED_TID: AtomicU64 = AtomicU64::new(FIRST_UNNAMED_TID);
static NEXT_LAG: AtomicU64 = AtomicU64::new(0);
static NEXT_OFFSET: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static VIRTUAL_TID: Cell<u64> = const { Cell::new(0) };
}

/// Whether this process runs on the virtual clock.
pub(crate) fn is_virtual() -> bool {
    machine().clock == ClockMode::Virtual
}

/// Moves virtual time forward to `t` (never back) and returns the new time. Only the signal
/// thread's room (`signal::advance_to`) calls it, so that due completions run as time passes.
pub(crate) fn advance_virtual_now(t: u64) -> u64 {
    VIRTUAL_NOW.fetch_max(t, Ordering::SeqCst);
    VIRTUAL_NOW.load(Ordering::SeqCst)
}

fn boottime_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_BOOTTIME exists on every Linux we target.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64
}

pub(crate) fn now_ns() -> u64 {
    if is_virtual() {
        VIRTUAL_NOW.load(Ordering::SeqCst)
    } else {
        boottime_ns()
    }
}

fn real_gettid() -> u64 {
    // SAFETY: gettid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
}

fn real_getpid() -> u64 {
    // SAFETY: getpid cannot fail.
    unsafe { libc::getpid() as u64 }
}

pub(crate) fn gettid() -> u64 {
    if !is_virtual() {
        return real_gettid();
    }
    VIRTUAL_TID
        .try_with(|tid| {
            if tid.get() == 0 {
                tid.set(if real_gettid() == real_getpid() {
                    VIRTUAL_PID
                } else {
                    NEXT_UNNAMED_TID.fetch_add(1, Ordering::Relaxed)
                });
            }
            tid.get()
        })
        // A thread being torn down: any id that is not another thread's.
        .unwrap_or_else(|_| NEXT_UNNAMED_TID.fetch_add(1, Ordering::Relaxed))
}

pub(crate) fn getpid() -> u64 {
    if is_virtual() {
        VIRTUAL_PID
    } else {
        real_getpid()
    }
}

/// The signal thread's virtual thread id.
pub(crate) const SIGNAL_THREAD_TID: u64 = VIRTUAL_PID + 999;

/// Gives the calling thread virtual thread id `VIRTUAL_PID + 1 + index` (ignored with the
/// real clock). Replay names its scenario threads this way, so their ids do not depend on
/// which one first reached the SDK.
pub(crate) fn name_thread(index: usize) {
    set_virtual_tid(VIRTUAL_PID + 1 + index as u64);
}

/// Fixes the calling thread's virtual thread id (ignored with the real clock).
pub(crate) fn set_virtual_tid(value: u64) {
    if is_virtual() {
        let _ = VIRTUAL_TID.try_with(|tid| tid.set(value));
    }
}

/// SplitMix64 of `seed` and `n`: the simulator's only source of pseudo-randomness.
pub(crate) fn mix(seed: u64, n: u64) -> u64 {
    let mut z = seed ^ n.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The next kernel's completion lag in ns: uniform in `kernel_record_lag_us`, drawn
/// from the seed in the order kernels are submitted.
pub(crate) fn kernel_record_lag_ns() -> u64 {
    let [min, max] = machine().kernel_record_lag_us;
    let (min, max) = (min * 1_000, max * 1_000);
    if min == max {
        return min;
    }
    let n = NEXT_LAG.fetch_add(1, Ordering::Relaxed);
    min + mix(machine().seed(), n) % (max - min + 1)
}

/// The smallest kernel completion lag in ns: how soon after a kernel's end the signal handler
/// thread can see it at all (see `signal.rs`).
pub(crate) fn kernel_record_min_lag_ns() -> u64 {
    machine().kernel_record_lag_us[0] * 1_000
}

/// With the virtual clock, the `n`-th handle offset of the process drawn from the seed.
pub(crate) fn seeded_offset() -> Option<u64> {
    is_virtual().then(|| {
        let n = NEXT_OFFSET.fetch_add(1, Ordering::Relaxed);
        mix(machine().seed() ^ 0x6f66_6673_6574, n)
    })
}
