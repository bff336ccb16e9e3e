//! The simulated machine, fixed for the life of the process like real hardware. Read once from
//! the environment on first use:
//! * `ROCSIM_GPUS` — number of GPUs (default 1, 1..=16);
//! * `ROCSIM_DIRECT_DISPATCH` — `1` (default, HIP's `AMD_DIRECT_DISPATCH=1`) or `0`: with `0`,
//!   kernel and copy submission, and with it the external-correlation request and the enqueue
//!   callbacks, run on a HIP worker thread instead of the calling thread (docs/sdk-facts.md#direct-dispatch, docs/simulator-fidelity.md#threading);
//! * `ROCSIM_VERSION` — the rocprofiler-sdk version reported to tools, `major.minor.patch`
//!   (default `1.0.0`). Only the number changes: the layouts stay those of `ROCSIM_ROCM`, so
//!   an old version tests a tool's version gate, not an old ABI;
//! * `ROCSIM_ROCM` — `7.1` (default) or `7.0`: the release whose layouts the SDK has. 7.0 has
//!   a 304-byte agent struct with an 8-byte UUID and `ROCPROFILER_CONTEXT_NONE = UINT64_MAX`
//!   (docs/sdk-facts.md#version-hazards, docs/simulator-fidelity.md#versions);
//! * `ROCSIM_BUFFER_SELF_DEADLOCK` — `abort` (default) or `drop`: what the sim does where the
//!   real SDK deadlocks because a record is produced on the callback thread that is delivering
//!   its buffer (see `crate::buffer`);
//! * `ROCSIM_FINALIZE_FLUSH` — `0` (default, the SDK flushes no buffer at finalization) or
//!   `1` (the sim's earlier behaviour: finalization delivers what the buffers hold);
//! * `ROCSIM_STATUSES` — `sdk` (default) or `sim`: the status codes of the context, buffer,
//!   request-service and callback-thread calls as the SDK source returns them, or as the sim
//!   returned them before it modelled the SDK's (stricter on input, looser on stop_context);
//! * `ROCSIM_CORRELATION` — `sdk` (default) or `sim`: the SDK's external ids on HIP_STREAM SET,
//!   HIP API record before SET EXIT, process-global default external value and KERNEL_DISPATCH
//!   re-read after ENQUEUE ENTER; or the sim's earlier per-context rules.
//! * `ROCSIM_STREAM_MAP` — `sdk-1.0` or `newer`: how HIP_STREAM maps `hipStream_t` values to
//!   stream ids ([`StreamMap`]). Default: `sdk-1.0` when `ROCSIM_VERSION` is below 1.1.0 (so
//!   for the default 1.0.0), `newer` from 1.1.0;
//! * `ROCSIM_CPUS` — CPU sockets, each one CPU agent listed before the GPUs (default 2, 1..=8);
//! * `HIP_VISIBLE_DEVICES`, `CUDA_VISIBLE_DEVICES`, `GPU_DEVICE_ORDINAL`, `ROCR_VISIBLE_DEVICES`
//!   — the real runtimes' variables, read as the SDK and HIP read them (see `agents`).
//!
//! How the HIP runtime turns a host<->device copy into SDK records (`CopyModel`, SCENARIOS.md
//! "Machine: copies"): `ROCSIM_SDMA_THRESHOLD`, `ROCSIM_LARGE_BAR_H2D_MAX`,
//! `ROCSIM_LARGE_BAR_D2H_MAX`, `ROCSIM_PAGEABLE_CHUNK` (bytes each), `ROCSIM_H2H_RECORD` (0/1).
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
    /// `ROCSIM_BUFFER_SELF_DEADLOCK`.
    pub buffer_self_deadlock: SelfDeadlock,
    /// `ROCSIM_FINALIZE_FLUSH`: finalization flushes the client's buffers (not the SDK's way).
    pub finalize_flush: bool,
    /// `ROCSIM_STATUSES`.
    pub statuses: Fidelity,
    /// `ROCSIM_CORRELATION`.
    pub correlation: Fidelity,
    pub stream_map: StreamMap,
    /// CPU agents (sockets); GPU `logical_node_id`s start after them.
    pub cpus: u32,
    pub visibility: VisibilityEnv,
    /// How copies become MEMORY_COPY records (thresholds of the HIP runtime's blit manager).
    pub copies: CopyModel,
    /// Kernel completion lag in microseconds, (min, max) inclusive.
    pub kernel_record_lag_us: (u64, u64),
    /// Seed of the lags (and of the handle offsets under the virtual clock).
    pub seed: u64,
    pub clock: ClockMode,
}

/// Whether a detail follows the SDK source (default) or the sim's behaviour before it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fidelity {
    Sdk,
    Sim,
}

/// What a producer does where the real SDK would wait forever on its own buffer callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelfDeadlock {
    /// Print which buffer and callback, then abort the process.
    Abort,
    /// Count it (`BufferRecordCounts::self_deadlocks`) and drop the record.
    Drop,
}

/// How the SDK maps `hipStream_t` values to `rocprofiler_stream_id_t` (HIP_STREAM tracing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamMap {
    /// rocprofiler-sdk 1.0.0 as shipped with ROCm 7.0 and 7.1 (`hip/stream.cpp`): one map that
    /// holds the null stream at id 0 and the streams whose creation a HIP_STREAM callback
    /// context saw; a SET or DESTROY on any other value (`hipStreamLegacy`,
    /// `hipStreamPerThread`, streams created while no such context was active) throws
    /// `std::out_of_range` out of the HIP call, which aborts the process. DESTROY keeps the
    /// entry; CREATE also fires after a failed create.
    Sdk1_0,
    /// Later SDKs: `hipStreamLegacy` is id 0, `hipStreamPerThread` gets a lazy id per thread,
    /// unknown streams are registered lazily, DESTROY removes the entry.
    Newer,
}

/// The device-visibility variables of the process, unset or empty = `None` (as the SDK's
/// `get_env(name, "")` followed by an emptiness check).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VisibilityEnv {
    pub rocr_visible_devices: Option<String>,
    pub hip_visible_devices: Option<String>,
    pub cuda_visible_devices: Option<String>,
    pub gpu_device_ordinal: Option<String>,
}

impl VisibilityEnv {
    fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        VisibilityEnv {
            rocr_visible_devices: var("ROCR_VISIBLE_DEVICES"),
            hip_visible_devices: var("HIP_VISIBLE_DEVICES"),
            cuda_visible_devices: var("CUDA_VISIBLE_DEVICES"),
            gpu_device_ordinal: var("GPU_DEVICE_ORDINAL"),
        }
    }
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
    /// `sizeof(rocprofiler_agent_v0_t)` in this release (docs/sdk-facts.md#version-hazards).
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

    /// The library's `ROCPROFILER_CONTEXT_NONE.handle` (docs/sdk-facts.md#contexts).
    pub fn context_none(self) -> u64 {
        match self {
            RocmRelease::Rocm7_0 => u64::MAX,
            RocmRelease::Rocm7_1 => 0,
        }
    }
}

pub const MAX_GPUS: u32 = 16;
pub const MAX_CPUS: u32 = 8;
/// Two sockets: MI300X-class nodes (8 GPUs) are dual-socket hosts.
pub const DEFAULT_CPUS: u32 = 2;

static MACHINE: LazyLock<Machine> = LazyLock::new(|| {
    let sdk_version = env_version("ROCSIM_VERSION", (1, 0, 0));
    Machine {
        gpus: env_u32("ROCSIM_GPUS", 1, 1..=MAX_GPUS),
        direct_dispatch: env_u32("ROCSIM_DIRECT_DISPATCH", 1, 0..=1) == 1,
        sdk_version,
        rocm: env_rocm("ROCSIM_ROCM"),
        stream_map: env_stream_map("ROCSIM_STREAM_MAP", sdk_version),
        cpus: env_u32("ROCSIM_CPUS", DEFAULT_CPUS, 1..=MAX_CPUS),
        visibility: VisibilityEnv::from_env(),
        buffer_self_deadlock: env_self_deadlock("ROCSIM_BUFFER_SELF_DEADLOCK"),
        finalize_flush: env_u32("ROCSIM_FINALIZE_FLUSH", 0, 0..=1) == 1,
        statuses: env_fidelity("ROCSIM_STATUSES"),
        correlation: env_fidelity("ROCSIM_CORRELATION"),
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
        kernel_record_lag_us: env_range(
            "ROCSIM_KERNEL_RECORD_LAG_US",
            DEFAULT_KERNEL_RECORD_LAG_US,
        ),
        seed: env_seed("ROCSIM_SEED", env_clock("ROCSIM_CLOCK")),
        clock: env_clock("ROCSIM_CLOCK"),
    }
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

fn env_self_deadlock(name: &str) -> SelfDeadlock {
    match std::env::var(name).as_deref().map(str::trim) {
        Err(_) | Ok("abort") => SelfDeadlock::Abort,
        Ok("drop") => SelfDeadlock::Drop,
        Ok(other) => {
            eprintln!("rocprofiler-sdk-sim: {name}={other:?} is not abort or drop; using abort");
            SelfDeadlock::Abort
        }
    }
}

impl StreamMap {
    /// The spelling of `ROCSIM_STREAM_MAP` and of the scenario key `[machine] stream_map`.
    pub fn parse(text: &str) -> Option<StreamMap> {
        match text.trim() {
            "sdk-1.0" => Some(StreamMap::Sdk1_0),
            "newer" => Some(StreamMap::Newer),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StreamMap::Sdk1_0 => "sdk-1.0",
            StreamMap::Newer => "newer",
        }
    }

    /// The map an SDK of this version has. Every release that ships as 1.0.x (ROCm 7.0 and
    /// 7.1) has the throwing map; the lenient one is only known from trees that already say
    /// 1.1 or later. Versions before 1.0.0 have no HIP_STREAM tracing at all, so the strict
    /// map (never reached) is as good as any.
    pub fn for_version(version: (u32, u32, u32)) -> StreamMap {
        if version >= (1, 1, 0) {
            StreamMap::Newer
        } else {
            StreamMap::Sdk1_0
        }
    }
}

fn env_fidelity(name: &str) -> Fidelity {
    match std::env::var(name).as_deref().map(str::trim) {
        Err(_) | Ok("sdk") => Fidelity::Sdk,
        Ok("sim") => Fidelity::Sim,
        Ok(other) => {
            eprintln!("rocprofiler-sdk-sim: {name}={other:?} is not sdk or sim; using sdk");
            Fidelity::Sdk
        }
    }
}

/// True when `ROCSIM_STATUSES=sim`.
pub(crate) fn sim_statuses() -> bool {
    machine().statuses == Fidelity::Sim
}

/// True when `ROCSIM_CORRELATION=sim`.
pub(crate) fn sim_correlation() -> bool {
    machine().correlation == Fidelity::Sim
}

fn env_stream_map(name: &str, version: (u32, u32, u32)) -> StreamMap {
    let default = StreamMap::for_version(version);
    match std::env::var(name) {
        Err(_) => default,
        Ok(text) => StreamMap::parse(&text).unwrap_or_else(|| {
            eprintln!(
                "rocprofiler-sdk-sim: {name}={text:?} is not sdk-1.0 or newer; using {}",
                default.as_str()
            );
            default
        }),
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
    fn the_stream_map_follows_the_version_unless_set() {
        assert_eq!(StreamMap::for_version((1, 0, 0)), StreamMap::Sdk1_0);
        assert_eq!(StreamMap::for_version((1, 0, 7)), StreamMap::Sdk1_0);
        assert_eq!(StreamMap::for_version((1, 1, 0)), StreamMap::Newer);
        assert_eq!(StreamMap::for_version((1, 3, 5)), StreamMap::Newer);
        assert_eq!(StreamMap::parse(" newer "), Some(StreamMap::Newer));
        assert_eq!(StreamMap::parse("sdk-1.0"), Some(StreamMap::Sdk1_0));
        assert_eq!(StreamMap::parse("1.0"), None);
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
