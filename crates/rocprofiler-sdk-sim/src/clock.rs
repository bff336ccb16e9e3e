//! The SDK's clock and thread ids: `CLOCK_BOOTTIME` nanoseconds and `gettid` (§5.1, §18.34-35).

pub(crate) fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_BOOTTIME exists on every Linux we target.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64
}

pub(crate) fn gettid() -> u64 {
    // SAFETY: gettid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
}

pub(crate) fn getpid() -> u64 {
    // SAFETY: getpid cannot fail.
    unsafe { libc::getpid() as u64 }
}
