//! The simulated machine, fixed for the life of the process like real hardware. Read once from
//! the environment on first use:
//! * `ROCSIM_GPUS` — number of GPUs (default 1, 1..=16);
//! * `ROCSIM_DIRECT_DISPATCH` — `1` (default, HIP's `AMD_DIRECT_DISPATCH=1`) or `0`: with `0`,
//!   kernel and copy submission, and with it the external-correlation request and the enqueue
//!   callbacks, run on a HIP worker thread instead of the calling thread (§13.2, §18.40);
//! * `ROCSIM_VERSION` — the rocprofiler-sdk version reported to tools, `major.minor.patch`
//!   (default `1.0.0`). Only the number changes: the layouts stay those of `ROCSIM_ROCM`, so
//!   an old version tests a tool's version gate, not an old ABI;
//! * `ROCSIM_ROCM` — `7.1` (default) or `7.0`: the release whose layouts the SDK has. 7.0 has
//!   a 304-byte agent struct with an 8-byte UUID and `ROCPROFILER_CONTEXT_NONE = UINT64_MAX`
//!   (rocprofiler-sdk.md §15, §18.42);
//! * `ROCSIM_KERNEL_RECORD_LAG_US` — `min..max` or `n` (default `20..200`): how long after a
//!   kernel finished on the device its completion (COMPLETE callback, buffer record) is pushed
//!   by the signal thread. Synchronize returns at the device end time, so with a non-zero lag
//!   kernel records can arrive after `hipStreamSynchronize` returned, as on the real SDK;
//! * `ROCSIM_SEED` — seed of the lags and, with the virtual clock, of the handle offsets
//!   (default: random with the real clock, 0 with the virtual clock);
//! * `ROCSIM_CLOCK` — `real` (default) or `virtual`: with `virtual`, every timestamp, thread
//!   id, schedule and lag is a function of the program and the seed (see `crate::clock`).
use std::sync::LazyLock;

#[derive(Debug, Clone)]
pub struct Machine {
    pub gpus: u32,
    pub direct_dispatch: bool,
    /// (major, minor, patch) reported by `rocprofiler_get_version` and to `rocprofiler_configure`.
    pub sdk_version: (u32, u32, u32),
    pub rocm: RocmRelease,
    /// Kernel completion lag in microseconds, (min, max) inclusive.
    pub kernel_record_lag_us: (u64, u64),
    /// Seed of the lags (and of the handle offsets under the virtual clock).
    pub seed: u64,
    pub clock: ClockMode,
}

/// Where the simulator's time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockMode {
    /// `CLOCK_BOOTTIME` and real thread ids, like the real SDK.
    Real,
    /// A process-wide virtual time that only HIP calls, sleeps and synchronizes advance.
    Virtual,
}

/// The default kernel completion lag (µs): the SDK's async signal handler wakes after the
/// barrier packet has already released the application's wait.
pub const DEFAULT_KERNEL_RECORD_LAG_US: (u64, u64) = (20, 200);

/// The ROCm release whose rocprofiler-sdk layouts the simulated library has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RocmRelease {
    Rocm7_0,
    Rocm7_1,
}

impl RocmRelease {
    /// `sizeof(rocprofiler_agent_v0_t)` in this release (§15).
    pub fn agent_struct_size(self) -> usize {
        match self {
            RocmRelease::Rocm7_0 => 304,
            RocmRelease::Rocm7_1 => 312,
        }
    }

    /// Bytes of `rocprofiler_uuid_t` (an 8-byte union up to 7.0, 16 bytes from 7.1).
    pub fn uuid_size(self) -> usize {
        match self {
            RocmRelease::Rocm7_0 => 8,
            RocmRelease::Rocm7_1 => 16,
        }
    }

    /// The library's `ROCPROFILER_CONTEXT_NONE.handle` (§4).
    pub fn context_none(self) -> u64 {
        match self {
            RocmRelease::Rocm7_0 => u64::MAX,
            RocmRelease::Rocm7_1 => 0,
        }
    }
}

pub const MAX_GPUS: u32 = 16;

static MACHINE: LazyLock<Machine> = LazyLock::new(|| Machine {
    gpus: env_u32("ROCSIM_GPUS", 1, 1..=MAX_GPUS),
    direct_dispatch: env_u32("ROCSIM_DIRECT_DISPATCH", 1, 0..=1) == 1,
    sdk_version: env_version("ROCSIM_VERSION", (1, 0, 0)),
    rocm: env_rocm("ROCSIM_ROCM"),
    kernel_record_lag_us: env_range("ROCSIM_KERNEL_RECORD_LAG_US", DEFAULT_KERNEL_RECORD_LAG_US),
    seed: env_seed("ROCSIM_SEED", env_clock("ROCSIM_CLOCK")),
    clock: env_clock("ROCSIM_CLOCK"),
});

/// The machine of this process.
pub fn machine() -> &'static Machine {
    &MACHINE
}

fn env_u32(name: &str, default: u32, range: std::ops::RangeInclusive<u32>) -> u32 {
    match std::env::var(name) {
        Err(_) => default,
        Ok(text) => match text.trim().parse::<u32>() {
            Ok(v) if range.contains(&v) => v,
            _ => {
                eprintln!(
                    "rocprofiler-sdk-sim: {name}={text:?} is not in {range:?}; using {default}"
                );
                default
            }
        },
    }
}

fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split('.').map(|p| p.parse::<u32>().ok());
    let version = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(version)
}

fn env_version(name: &str, default: (u32, u32, u32)) -> (u32, u32, u32) {
    match std::env::var(name) {
        Err(_) => default,
        Ok(text) => parse_version(&text).unwrap_or_else(|| {
            eprintln!(
                "rocprofiler-sdk-sim: {name}={text:?} is not major.minor.patch; using {default:?}"
            );
            default
        }),
    }
}

fn env_rocm(name: &str) -> RocmRelease {
    match std::env::var(name).as_deref().map(str::trim) {
        Err(_) | Ok("7.1") => RocmRelease::Rocm7_1,
        Ok("7.0") => RocmRelease::Rocm7_0,
        Ok(other) => {
            eprintln!("rocprofiler-sdk-sim: {name}={other:?} is not 7.0 or 7.1; using 7.1");
            RocmRelease::Rocm7_1
        }
    }
}

/// `min..max` (inclusive, min <= max) or a single number, at most one second.
fn parse_range(text: &str) -> Option<(u64, u64)> {
    let text = text.trim();
    let (min, max) = match text.split_once("..") {
        Some((min, max)) => (min.trim().parse().ok()?, max.trim().parse().ok()?),
        None => {
            let n = text.parse().ok()?;
            (n, n)
        }
    };
    (min <= max && max <= 1_000_000).then_some((min, max))
}

fn env_range(name: &str, default: (u64, u64)) -> (u64, u64) {
    match std::env::var(name) {
        Err(_) => default,
        Ok(text) => parse_range(&text).unwrap_or_else(|| {
            eprintln!(
                "rocprofiler-sdk-sim: {name}={text:?} is not min..max or n (µs, <= 1000000); using {}..{}",
                default.0, default.1
            );
            default
        }),
    }
}

fn env_clock(name: &str) -> ClockMode {
    match std::env::var(name).as_deref().map(str::trim) {
        Err(_) | Ok("real") => ClockMode::Real,
        Ok("virtual") => ClockMode::Virtual,
        Ok(other) => {
            eprintln!("rocprofiler-sdk-sim: {name}={other:?} is not real or virtual; using real");
            ClockMode::Real
        }
    }
}

/// The seed: given, else 0 under the virtual clock (replays repeat), else random like a real
/// machine's timing.
fn env_seed(name: &str, clock: ClockMode) -> u64 {
    let given = std::env::var(name).ok().and_then(|text| {
        let parsed = text.trim().parse::<u64>().ok();
        if parsed.is_none() {
            eprintln!("rocprofiler-sdk-sim: {name}={text:?} is not a number; ignoring it");
        }
        parsed
    });
    given.unwrap_or_else(|| match clock {
        ClockMode::Virtual => 0,
        ClockMode::Real => {
            use std::hash::{BuildHasher, Hasher};
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u64(u64::from(std::process::id()));
            hasher.finish()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_as_three_numbers_only() {
        assert_eq!(parse_version("0.6.0"), Some((0, 6, 0)));
        assert_eq!(parse_version(" 1.3.2 "), Some((1, 3, 2)));
        assert_eq!(parse_version("1.0"), None);
        assert_eq!(parse_version("1.0.0.1"), None);
        assert_eq!(parse_version("1.x.0"), None);
    }

    #[test]
    fn lag_ranges_parse_as_min_max_or_one_number() {
        assert_eq!(parse_range("20..200"), Some((20, 200)));
        assert_eq!(parse_range(" 0 "), Some((0, 0)));
        assert_eq!(parse_range("5 .. 5"), Some((5, 5)));
        assert_eq!(parse_range("9..3"), None);
        assert_eq!(parse_range("1..2000000"), None);
        assert_eq!(parse_range("x"), None);
    }
}
