//! The simulated machine, fixed for the life of the process like real hardware. Read once from
//! the environment on first use:
//! * `ROCSIM_GPUS` — number of GPUs (default 1, 1..=16);
//! * `ROCSIM_DIRECT_DISPATCH` — `1` (default, HIP's `AMD_DIRECT_DISPATCH=1`) or `0`: with `0`,
//!   kernel and copy submission, and with it the external-correlation request and the enqueue
//!   callbacks, run on a HIP worker thread instead of the calling thread (§13.2, §18.40).
use std::sync::LazyLock;

#[derive(Debug, Clone)]
pub struct Machine {
    pub gpus: u32,
    pub direct_dispatch: bool,
}

pub const MAX_GPUS: u32 = 16;

static MACHINE: LazyLock<Machine> = LazyLock::new(|| Machine {
    gpus: env_u32("ROCSIM_GPUS", 1, 1..=MAX_GPUS),
    direct_dispatch: env_u32("ROCSIM_DIRECT_DISPATCH", 1, 0..=1) == 1,
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
