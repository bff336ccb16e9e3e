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
//!   (rocprofiler-sdk.md §15, §18.42).
//!
//! How the HIP runtime turns a host<->device copy into SDK records (`CopyModel`, SCENARIOS.md
//! "Machine: copies"): `ROCSIM_SDMA_THRESHOLD`, `ROCSIM_LARGE_BAR_H2D_MAX`,
//! `ROCSIM_LARGE_BAR_D2H_MAX`, `ROCSIM_PAGEABLE_CHUNK` (bytes each), `ROCSIM_H2H_RECORD` (0/1).
use std::sync::LazyLock;

#[derive(Debug, Clone)]
pub struct Machine {
    pub gpus: u32,
    pub direct_dispatch: bool,
    /// (major, minor, patch) reported by `rocprofiler_get_version` and to `rocprofiler_configure`.
    pub sdk_version: (u32, u32, u32),
    pub rocm: RocmRelease,
    /// How copies become MEMORY_COPY records (thresholds of the HIP runtime's blit manager).
    pub copies: CopyModel,
}

/// The HIP runtime's copy paths, as the SDK sees them (ROCclr `rocblit.cpp` blit managers,
/// thresholds from `flags.hpp` / `rocsettings.cpp`). Sizes in bytes; 0 turns a path off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyModel {
    /// Host<->device copies up to this size are done by a blit on the GPU: the runtime passes
    /// the GPU agent as both source and destination, so the SDK records DEVICE_TO_DEVICE with
    /// src == dst == GPU (`GPU_FORCE_BLIT_COPY_SIZE`, 16 KiB). `ROCSIM_SDMA_THRESHOLD`.
    pub sdma_threshold: u64,
    /// On a large-BAR GPU, host-to-device copies from pageable memory up to this size are a
    /// CPU `memcpy` into the BAR: no record (`KernelBlitManager::writeBuffer`,
    /// `kMaxH2dMemcpySize`, 8 KiB). `ROCSIM_LARGE_BAR_H2D_MAX`.
    pub large_bar_h2d_max: u64,
    /// The same for device-to-host reads (`KernelBlitManager::readBuffer`,
    /// `kMaxD2hMemcpySize`, 64 bytes: one cache line). `ROCSIM_LARGE_BAR_D2H_MAX`.
    pub large_bar_d2h_max: u64,
    /// Pageable host memory is pinned piece by piece: a copy larger than this gives one
    /// `hsa_amd_memory_async_copy`, hence one record, per piece, all under the call's
    /// correlation id (`DmaBlitManager::readBuffer`/`writeBuffer`, `GPU_PINNED_XFER_SIZE`,
    /// 32 MiB). `ROCSIM_PAGEABLE_CHUNK`.
    pub pageable_chunk: u64,
    /// Host-to-host copies are CPU copies in the HIP runtime (`HostBlitManager`): no record
    /// (false, the default). True gives them one HOST_TO_HOST MEMORY_COPY record with the CPU
    /// agent on both sides, as an SDMA copy would. `ROCSIM_H2H_RECORD`.
    pub h2h_record: bool,
}

impl Default for CopyModel {
    fn default() -> Self {
        CopyModel {
            sdma_threshold: 16 * 1024,
            large_bar_h2d_max: 8 * 1024,
            large_bar_d2h_max: 64,
            pageable_chunk: 32 * 1024 * 1024,
            h2h_record: false,
        }
    }
}

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
    copies: {
        let d = CopyModel::default();
        CopyModel {
            sdma_threshold: env_u64("ROCSIM_SDMA_THRESHOLD", d.sdma_threshold),
            large_bar_h2d_max: env_u64("ROCSIM_LARGE_BAR_H2D_MAX", d.large_bar_h2d_max),
            large_bar_d2h_max: env_u64("ROCSIM_LARGE_BAR_D2H_MAX", d.large_bar_d2h_max),
            pageable_chunk: env_u64("ROCSIM_PAGEABLE_CHUNK", d.pageable_chunk),
            h2h_record: env_u32("ROCSIM_H2H_RECORD", u32::from(d.h2h_record), 0..=1) == 1,
        }
    },
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

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Err(_) => default,
        Ok(text) => text.trim().parse::<u64>().unwrap_or_else(|_| {
            eprintln!("rocprofiler-sdk-sim: {name}={text:?} is not a byte count; using {default}");
            default
        }),
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
}
