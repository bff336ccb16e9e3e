//! The simulated machine, fixed for the life of the process like real hardware: one value,
//! [`Machine`], and the only configuration the simulator has. The same keys are
//! * a scenario's `[machine]` table (SCENARIOS.md "Machine", which a test keeps equal to the
//!   fields below);
//! * the probe's vocabulary: its findings name these fields;
//! * for programs we do not control, the one environment variable [`MACHINE_VARIABLE`]
//!   (`ROCSIM_MACHINE`), read once on first use: the table's keys as TOML, on one line
//!   separated by commas (`ROCSIM_MACHINE='gpus = 2, rocm = "7.14"'`, read as an inline
//!   table) or as a document over several lines. A value that does not parse is reported on
//!   stderr and the default machine is used (the SDK cannot fail a program's start-up).
//!
//! Every default is a real release's behaviour, pinned in the ledger of
//! docs/simulator-fidelity.md. An option models the real SDK, runtime or hardware, never an
//! earlier simulator. The device-visibility keys are
//! the real runtimes' variables of the same names (upper case): a process's machine takes them
//! from its environment, never from `ROCSIM_MACHINE`; a scenario's sets them for its replay.
mod release;

pub use release::{ReleaseProfile, RocmRelease, DEFAULT_ROCM};
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

/// The environment variable that holds the machine of a process (see the module comment).
pub const MACHINE_VARIABLE: &str = "ROCSIM_MACHINE";

/// Every key of the simulated machine. These doc comments are the reference.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Machine {
    /// GPUs, 1..=16 (default 1): MI300X-like agents after the CPUs.
    pub gpus: u32,
    /// CPU sockets, 1..=8 (default 2: MI300X-class nodes are dual-socket hosts), each one CPU
    /// agent listed before the GPUs.
    pub cpus: u32,
    /// HIP's `AMD_DIRECT_DISPATCH` (default true). False: kernel and copy submission, and with
    /// it the external-correlation request and the enqueue callbacks, run on a HIP worker
    /// thread instead of the calling thread (docs/simulator-fidelity.md#threading).
    pub direct_dispatch: bool,
    /// The ROCm release the machine runs (default `"7.1"`: docs/simulator-fidelity.md, the
    /// ledger): `"7.0"`, `"7.1"`, `"7.2"`, `"7.13"`, `"7.14"`, `"10.0"` or `"10.1"`. It sets
    /// the SDK's layouts and, unless given explicitly, the keys `sdk_version`,
    /// `anytime_initialization`, `uuid_bytes`, `stream_map`, `buffer_sync`, `sdma_threshold`
    /// and `finalization` to that release's.
    pub rocm: RocmRelease,
    /// The rocprofiler-sdk version reported to tools, `"major.minor.patch"` (default: the
    /// release's, `"1.1.0"` for 7.1). From 1.3.0 a tool forced after HIP started untraced gets
    /// HIP's table (late start; `engine/registration.rs`); otherwise only the number changes,
    /// so another version tests a tool's version gate, not another ABI.
    pub sdk_version: Version,
    /// A tool forced after initialization is configured and initialized on its own and sees
    /// later calls (anytime initialization, ROCm/rocm-systems#5348; default: the release's,
    /// true for 10.1 only); otherwise `rocprofiler_force_configure` returns
    /// CONFIGURATION_LOCKED.
    pub anytime_initialization: bool,
    /// How the SDK finalizes its tools at exit and what it does on `SIGABRT` ([`Finalization`]):
    /// `"at-exit"` or `"worker-thread"` (default: the release's, `"at-exit"` for 7.1; ledger row
    /// "Finalization").
    pub finalization: Finalization,
    /// Bytes of the agents' `rocprofiler_uuid_t`, 8 or 16 (default: the release's, 16; 8 for
    /// 7.0's branch): the agent struct is 296 bytes plus these (304 or 312).
    pub uuid_bytes: u8,
    /// How HIP_STREAM tracing maps `hipStream_t` values to stream ids: `"sdk-1.0"`,
    /// `"sdk-1.1"` or `"newer"` ([`StreamMap`]; default: the release's, `"sdk-1.1"` for 7.1).
    pub stream_map: StreamMap,
    /// How producers wait for a buffer's callback ([`BufferSync`]): `"none"`, `"per-buffer"`
    /// or `"per-half"` (default: the release's, `"per-buffer"` for 7.1).
    pub buffer_sync: BufferSync,
    /// Where the real SDK deadlocks because a record is produced on the callback thread that
    /// is delivering its buffer: `"abort"` (default: say which buffer and callback, then
    /// abort) or `"drop"` (count it in `BufferRecordCounts::self_deadlocks`, drop the record).
    pub buffer_self_deadlock: SelfDeadlock,
    /// Bytes (default: the release's, 16384; 0 = off): a host<->device copy up to this size,
    /// from pinned or pageable memory, is the shader blit `__amd_rocclr_copyBuffer` (a
    /// KERNEL_DISPATCH record, no MEMORY_COPY); above it an SDMA copy (ROCclr
    /// `GPU_FORCE_BLIT_COPY_SIZE`, `KernelBlitManager::copyBuffer`/`readBuffer`/`writeBuffer`;
    /// docs/simulator-fidelity.md, row "Small copies").
    pub sdma_threshold: u64,
    /// Bytes (default 33554432, 0 = off): pageable memory is pinned piece by piece, one record
    /// per piece, all under the call's correlation id (`GPU_PINNED_XFER_SIZE`).
    pub pageable_chunk: u64,
    /// Packets an HSA queue holds (default 16384, ROCclr `ROC_AQL_QUEUE_SIZE`): a kernel launch
    /// onto a full queue waits until the oldest packet is launched, so a program that launches
    /// faster than the GPU runs is held back (docs/simulator-fidelity.md#queue-capacity).
    pub aql_queue_packets: u64,
    /// Host-to-host copies give one HOST_TO_HOST record with the CPU on both sides, as an SDMA
    /// copy would (default false: the HIP runtime copies them on the CPU, no record).
    pub h2h_record: bool,
    /// Which callback domains carry ROCTx's ranges and marks ([`RoctxDomains`]): `"core"`,
    /// `"core-and-range"` (default) or `"range"` (docs/simulator-fidelity.md, row "ROCTx
    /// domains": unpinned on every release, so no release sets it).
    pub roctx_domains: RoctxDomains,
    /// `[min, max]` microseconds, max at most 1000000 (default `[20, 200]`): how long after a
    /// kernel ended its completion (COMPLETE callback, buffer record) is pushed by the signal
    /// thread, so records can arrive after `hipStreamSynchronize` returned.
    pub kernel_record_lag_us: [u64; 2],
    /// Seed of the lags and, with the virtual clock, of the handle offsets (default: random
    /// with the real clock, 0 with the virtual clock).
    pub seed: Option<u64>,
    /// `"real"` (default: `CLOCK_BOOTTIME` and real thread ids) or `"virtual"`: every
    /// timestamp, thread id, schedule and lag is a function of the program and the seed.
    pub clock: ClockMode,
    /// The real `HIP_VISIBLE_DEVICES` (see `agents`).
    pub hip_visible_devices: Option<String>,
    /// The real `ROCR_VISIBLE_DEVICES`.
    pub rocr_visible_devices: Option<String>,
    /// The real `CUDA_VISIBLE_DEVICES`.
    pub cuda_visible_devices: Option<String>,
    /// The real `GPU_DEVICE_ORDINAL`.
    pub gpu_device_ordinal: Option<String>,
}

/// The visibility keys and the real variables they stand for.
pub const VISIBILITY_VARIABLES: [(&str, &str); 4] = [
    ("hip_visible_devices", "HIP_VISIBLE_DEVICES"),
    ("rocr_visible_devices", "ROCR_VISIBLE_DEVICES"),
    ("cuda_visible_devices", "CUDA_VISIBLE_DEVICES"),
    ("gpu_device_ordinal", "GPU_DEVICE_ORDINAL"),
];

impl Default for Machine {
    fn default() -> Self {
        Machine {
            gpus: 1,
            cpus: DEFAULT_CPUS,
            direct_dispatch: true,
            rocm: DEFAULT_ROCM,
            sdk_version: DEFAULT_ROCM.sdk_version(),
            stream_map: DEFAULT_ROCM.stream_map(),
            buffer_sync: DEFAULT_ROCM.buffer_sync(),
            buffer_self_deadlock: SelfDeadlock::Abort,
            sdma_threshold: DEFAULT_ROCM.sdma_threshold(),
            anytime_initialization: DEFAULT_ROCM.anytime_initialization(),
            finalization: DEFAULT_ROCM.finalization(),
            uuid_bytes: DEFAULT_ROCM.uuid_bytes(),
            pageable_chunk: 32 * 1024 * 1024,
            aql_queue_packets: 16384,
            h2h_record: false,
            roctx_domains: RoctxDomains::CoreAndRange,
            kernel_record_lag_us: [20, 200],
            seed: None,
            clock: ClockMode::Real,
            hip_visible_devices: None,
            rocr_visible_devices: None,
            cuda_visible_devices: None,
            gpu_device_ordinal: None,
        }
    }
}

impl Machine {
    /// A machine from `ROCSIM_MACHINE`'s text: the keys given, the defaults for the rest.
    pub fn parse(text: &str) -> Result<Machine, String> {
        let table: toml::Table = if text.contains('\n') {
            toml::from_str(text).map_err(|e| e.message().to_owned())?
        } else {
            let mut outer: toml::Table =
                toml::from_str(&format!("m = {{ {text} }}")).map_err(|e| e.message().to_owned())?;
            match outer.remove("m") {
                Some(toml::Value::Table(table)) => table,
                _ => toml::Table::new(),
            }
        };
        Machine::default().overlaid(&table)
    }

    /// This machine with the keys of `table` replaced, checked. A `rocm` in `table` also
    /// sets the keys of its release profile that `table` does not give.
    pub fn overlaid(&self, table: &toml::Table) -> Result<Machine, String> {
        let mut merged = toml::Table::try_from(self).map_err(|e| e.to_string())?;
        if let Some(rocm) = table.get("rocm") {
            let rocm: RocmRelease = rocm
                .clone()
                .try_into()
                .map_err(|e: toml::de::Error| format!("rocm: {}", e.message().trim()))?;
            let profile = toml::Table::try_from(rocm.profile()).map_err(|e| e.to_string())?;
            merged.extend(profile);
        }
        merged.extend(table.iter().map(|(k, v)| (k.clone(), v.clone())));
        let machine: Machine = merged
            .try_into()
            .map_err(|e: toml::de::Error| e.message().trim().replace('\n', " "))?;
        machine.check()?;
        Ok(machine)
    }

    /// The checks serde's types cannot express.
    fn check(&self) -> Result<(), String> {
        if !(1..=MAX_GPUS).contains(&self.gpus) {
            return Err(format!("gpus must be 1..={MAX_GPUS}"));
        }
        if !(1..=MAX_CPUS).contains(&self.cpus) {
            return Err(format!("cpus must be 1..={MAX_CPUS}"));
        }
        if ![8, 16].contains(&self.uuid_bytes) {
            return Err("uuid_bytes must be 8 or 16".into());
        }
        if !(1..=MAX_AQL_QUEUE_PACKETS).contains(&self.aql_queue_packets) {
            return Err(format!(
                "aql_queue_packets must be 1..={MAX_AQL_QUEUE_PACKETS}"
            ));
        }
        let [min, max] = self.kernel_record_lag_us;
        if min > max || max > 1_000_000 {
            return Err(
                "kernel_record_lag_us must be [min, max] with min <= max <= 1000000".into(),
            );
        }
        Ok(())
    }

    /// The machine of this process: `ROCSIM_MACHINE`, and the visibility of the real variables.
    fn of_process() -> Machine {
        let mut machine = match std::env::var(MACHINE_VARIABLE) {
            Err(_) => Machine::default(),
            Ok(text) => Machine::parse(&text).unwrap_or_else(|error| {
                eprintln!(
                    "rocprofiler-sdk-sim: {MACHINE_VARIABLE}={text:?}: {error}; using the default machine"
                );
                Machine::default()
            }),
        };
        let given = machine.visibility();
        let real = VisibilityEnv::from_env();
        if given != VisibilityEnv::default() && given != real {
            eprintln!(
                "rocprofiler-sdk-sim: {MACHINE_VARIABLE} cannot set device visibility; set the \
                 real variables (HIP_VISIBLE_DEVICES, ...) instead"
            );
        }
        machine.hip_visible_devices = real.hip_visible_devices;
        machine.rocr_visible_devices = real.rocr_visible_devices;
        machine.cuda_visible_devices = real.cuda_visible_devices;
        machine.gpu_device_ordinal = real.gpu_device_ordinal;
        machine
    }

    /// The environment that gives a child process this machine: `ROCSIM_MACHINE` with every
    /// key but visibility, and the real visibility variables that are set.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let table = toml::Table::try_from(self).unwrap_or_default();
        table_env(&table)
    }

    /// The keys a release profile sets, as they are on this machine.
    pub fn profile_keys(&self) -> ReleaseProfile {
        ReleaseProfile {
            sdk_version: self.sdk_version,
            stream_map: self.stream_map,
            buffer_sync: self.buffer_sync,
            sdma_threshold: self.sdma_threshold,
            anytime_initialization: self.anytime_initialization,
            finalization: self.finalization,
            uuid_bytes: self.uuid_bytes,
        }
    }

    /// `sizeof(rocprofiler_agent_v0_t)` on this machine: 304 with the 8-byte UUID, 312 with
    /// the 16-byte one.
    pub fn agent_struct_size(&self) -> usize {
        296 + self.uuid_bytes as usize
    }

    /// The seed in force (see [`Machine::seed`] the field).
    pub fn seed(&self) -> u64 {
        static RANDOM: LazyLock<u64> = LazyLock::new(|| {
            use std::hash::{BuildHasher, Hasher};
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u64(u64::from(std::process::id()));
            hasher.finish()
        });
        self.seed.unwrap_or_else(|| match self.clock {
            ClockMode::Virtual => 0,
            ClockMode::Real => *RANDOM,
        })
    }

    pub fn visibility(&self) -> VisibilityEnv {
        let list = |v: &Option<String>| v.clone().filter(|v| !v.is_empty());
        VisibilityEnv {
            hip_visible_devices: list(&self.hip_visible_devices),
            rocr_visible_devices: list(&self.rocr_visible_devices),
            cuda_visible_devices: list(&self.cuda_visible_devices),
            gpu_device_ordinal: list(&self.gpu_device_ordinal),
        }
    }
}

/// The environment for the machine keys in `table` (see [`Machine::env`]).
pub fn table_env(table: &toml::Table) -> Vec<(&'static str, String)> {
    let mut rest = table.clone();
    let mut env = Vec::new();
    for (key, variable) in VISIBILITY_VARIABLES {
        if let Some(toml::Value::String(list)) = rest.remove(key) {
            env.push((variable, list));
        }
    }
    if !rest.is_empty() {
        env.insert(0, (MACHINE_VARIABLE, rest.to_string()));
    }
    env
}

/// A rocprofiler-sdk version, spelled `"major.minor.patch"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(try_from = "String", into = "String")]
pub struct Version(pub u32, pub u32, pub u32);

impl TryFrom<String> for Version {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        let mut parts = text.trim().split('.').map(|p| p.parse::<u32>().ok());
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(Some(a)), Some(Some(b)), Some(Some(c)), None) => Ok(Version(a, b, c)),
            _ => Err(format!("sdk_version {text:?} is not major.minor.patch")),
        }
    }
}

impl From<Version> for String {
    fn from(v: Version) -> String {
        format!("{}.{}.{}", v.0, v.1, v.2)
    }
}

/// Which of the SDK's two ROCTx callback domains deliver a ROCTx call (ledger row "ROCTx
/// domains", pin U8: which release's library feeds which domain is not read, so every shape the
/// SDK's sources allow is one value). The shapes share how each domain looks: MARKER_CORE_API
/// (7) gets one ENTER/EXIT pair per call (`roctxMarkA`, `roctxRangePushA`, `roctxRangePop`,
/// `roctxRangeStartA`, `roctxRangeStop`); MARKER_CORE_RANGE_API (21) one per mark and one per
/// range, ENTER at its push or start, EXIT at its pop or stop, under one correlation id
/// (`roctxThreadRangeA` for push/pop, `roctxProcessRangeA` for start/stop: the SDK's
/// `marker/range_marker.cpp`, search index id 1455165569).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoctxDomains {
    /// Every call on MARKER_CORE_API only (the field report's ROCm 6.4.1).
    Core,
    /// Both domains, as the SDK's sources wire them: the range domain wraps ROCTx's core
    /// functions, so a tool that traces both sees a range on each, and the core call made
    /// inside a range's push or start carries the range's correlation id ("Correlation ID will
    /// be identical for MARKER_CORE_API and MARKER_CORE_RANGE_API", the SDK's tests).
    CoreAndRange,
    /// Ranges and marks on MARKER_CORE_RANGE_API only (the field report's ROCm 7.2 reading).
    Range,
}

impl RoctxDomains {
    /// Whether MARKER_CORE_API delivers ROCTx's calls.
    pub fn core(self) -> bool {
        matches!(self, RoctxDomains::Core | RoctxDomains::CoreAndRange)
    }

    /// Whether MARKER_CORE_RANGE_API delivers ROCTx's ranges and marks.
    pub fn range(self) -> bool {
        matches!(self, RoctxDomains::Range | RoctxDomains::CoreAndRange)
    }
}

/// What a producer does where the real SDK would wait forever on its own buffer callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SelfDeadlock {
    /// Print which buffer and callback, then abort the process.
    Abort,
    /// Count it (`BufferRecordCounts::self_deadlocks`) and drop the record.
    Drop,
}

/// How the SDK maps `hipStream_t` values to `rocprofiler_stream_id_t` (HIP_STREAM tracing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum StreamMap {
    /// rocprofiler-sdk 1.0.0 as shipped with ROCm 7.0 (`hip/stream.cpp`): one map that
    /// holds the null stream at id 0 and the streams whose creation a HIP_STREAM callback
    /// context saw; a SET or DESTROY on any other value (`hipStreamLegacy`,
    /// `hipStreamPerThread`, streams created while no such context was active) throws
    /// `std::out_of_range` out of the HIP call, which aborts the process. DESTROY keeps the
    /// entry; CREATE also fires after a failed create.
    #[serde(rename = "sdk-1.0")]
    Sdk1_0,
    /// rocprofiler-sdk 1.1.0 to 1.3.0 (ROCm 7.1 to 7.13): the 1.0.0 map, except that
    /// `hipStreamLegacy` and `hipStreamPerThread` are the null stream, id 0
    /// (ROCm/rocm-systems#343), and a stream the map never saw is added at its first traced
    /// SET or DESTROY, with the next size-based id and no CREATE (#1142; #1488 on the 7.1
    /// branch). DESTROY keeps the entry.
    #[serde(rename = "sdk-1.1")]
    Sdk1_1,
    /// The 2026 `hip/stream.cpp` (ROCm 10.0, 10.1, and 7.14 unpinned; #6276 and #7713): ids
    /// from a lifetime counter with 0 for the null stream and `hipStreamLegacy`,
    /// `hipStreamPerThread` gets a lazy id per thread, unknown streams are registered lazily,
    /// DESTROY removes the entry.
    #[serde(rename = "newer")]
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

/// Where the simulator's time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockMode {
    /// `CLOCK_BOOTTIME` and real thread ids, like the real SDK.
    Real,
    /// A process-wide virtual time that only HIP calls, sleeps and synchronizes advance.
    Virtual,
}

/// How the SDK finalizes its tools at process exit, and what it does on `SIGABRT` (ledger row
/// "Finalization"; `engine/registration.rs`, `engine/abort_flush.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Finalization {
    /// ROCm 7.0 [F0] (7.1 to 10.0 unpinned, taken as 7.0): the `std::atexit` handler registered
    /// at initialization finalizes every tool on the exiting thread; the SDK installs no signal
    /// handler, so `SIGABRT` ends the process with the buffers as they are.
    AtExit,
    /// ROCm 10.1 [RN]: the exit handler runs the finalization on a worker thread and waits for
    /// it; on `SIGABRT` the SDK flushes every buffer to its tool, waiting at most
    /// `ROCPROF_ABORT_FLUSH_TIMEOUT_SECONDS` (default 10), then hands the signal on.
    WorkerThread,
}

/// How a buffer's producers wait for its callback (the SDK's `buffer::instance::emplace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BufferSync {
    /// ROCm 7.0 (`release/rocm-rel-7.0` @ `64cf36de`): `emplace` takes no syncer. The buffer's
    /// one `syncer` is taken by `flush` alone, before it flips the halves, and cleared by the
    /// flush task after the callback: a non-waiting (watermark) flush during a callback answers
    /// BUFFER_BUSY without flipping, so producers go on writing the free half. A producer that
    /// meets the half being delivered waits for that half's lock and writes the cleared half.
    None,
    /// ROCm 7.1, 7.2 (#529): one `syncer` per buffer, held by a flush until the callback
    /// returned. Every producer waits for the whole callback of every flush, and a traced
    /// call made inside the callback deadlocks on its first record.
    PerBuffer,
    /// ROCm 7.13 to 10.1 (ROCm/rocm-systems#2334): one `syncer` per half; producers wait only
    /// when the half they write is the one being delivered.
    PerHalf,
}

pub const MAX_GPUS: u32 = 16;
pub const MAX_CPUS: u32 = 8;
/// The largest HSA queue ROCR creates (`queue_max_size`, 2^17 packets on current GPUs).
pub const MAX_AQL_QUEUE_PACKETS: u64 = 1 << 17;
pub const DEFAULT_CPUS: u32 = 2;

impl StreamMap {
    pub fn as_str(self) -> &'static str {
        match self {
            StreamMap::Sdk1_0 => "sdk-1.0",
            StreamMap::Sdk1_1 => "sdk-1.1",
            StreamMap::Newer => "newer",
        }
    }

    /// Whether ids come from the map's size and entries outlive their streams (SDK 1.0.0 to
    /// 1.3.0), rather than from a lifetime counter.
    pub fn is_size_indexed(self) -> bool {
        self != StreamMap::Newer
    }
}

static MACHINE: LazyLock<Machine> = LazyLock::new(Machine::of_process);

/// The machine of this process.
pub fn machine() -> &'static Machine {
    &MACHINE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_reads_one_line_or_a_document_and_checks_ranges() {
        let m = Machine::parse(r#"gpus = 2, stream_map = "newer", sdk_version = "1.3.2""#);
        let m = m.unwrap();
        assert_eq!(
            (m.gpus, m.stream_map, m.sdk_version),
            (2, StreamMap::Newer, Version(1, 3, 2))
        );
        let m = Machine::parse("clock = \"virtual\"\nkernel_record_lag_us = [5, 5]\n").unwrap();
        assert_eq!(
            (m.clock, m.kernel_record_lag_us, m.seed()),
            (ClockMode::Virtual, [5, 5], 0)
        );
        assert_eq!(Machine::parse("").unwrap(), Machine::default());
        for bad in [
            "gpus = 0",
            "uuid_bytes = 12",
            "gpus = 17",
            "kernel_record_lag_us = [9, 3]",
            "statuses = \"sim\"",
            "sdk_version = \"1.0\"",
            "rocm = \"6.4\"",
            "rocm = 7.1",
            "stream_map = \"old\"",
            "buffer_sync = \"per-queue\"",
            "gpus = ",
        ] {
            assert!(Machine::parse(bad).is_err(), "{bad}");
        }
    }

    /// The ledger's row "Finalization": 10.1 on a worker thread with the abort flush [RN],
    /// every other release from `std::atexit` [F0, U9].
    #[test]
    fn only_10_1_finalizes_on_a_worker_thread() {
        for rocm in RocmRelease::ALL {
            let m = Machine::parse(&format!("rocm = \"{}\"", rocm.as_str())).unwrap();
            let expected = if rocm == RocmRelease::Rocm10_1 {
                Finalization::WorkerThread
            } else {
                Finalization::AtExit
            };
            assert_eq!(m.finalization, expected, "{}", rocm.as_str());
        }
        let overlaid = Machine::parse("rocm = \"7.1\", finalization = \"worker-thread\"").unwrap();
        assert_eq!(overlaid.finalization, Finalization::WorkerThread);
        assert!(Machine::parse("finalization = \"signal\"").is_err());
    }

    /// The ledger's cells (docs/simulator-fidelity.md), written out literally: a release whose
    /// profile or layouts change must change this table and the ledger with it.
    #[test]
    fn each_release_has_the_ledger_values() {
        use BufferSync::{None as NoSyncer, PerBuffer, PerHalf};
        use StreamMap::{Newer, Sdk1_0, Sdk1_1};
        let blit = 16 * 1024;
        let anytime = "anytime_initialization = true";
        let worker = "finalization = \"worker-thread\"";
        #[rustfmt::skip]
        let ledger = [
            // rocm,  sdk,        anytime, stream map, syncer,   blit max, agent, uuid, CONTEXT_NONE, unpinned
            ("7.0",  (1, 0, 0), false, Sdk1_0, NoSyncer,  blit, 304, 8,  u64::MAX, vec!["sdma_threshold = 0", "uuid_bytes = 16"]),
            ("7.1",  (1, 1, 0), false, Sdk1_1, PerBuffer, blit, 312, 16, 0, vec![worker, "roctx_domains = \"core\"", "roctx_domains = \"range\""]),
            ("7.2",  (1, 1, 0), false, Sdk1_1, PerBuffer, blit, 312, 16, 0, vec!["buffer_sync = \"per-half\"", worker]),
            ("7.13", (1, 3, 0), false, Sdk1_1, PerHalf,   blit, 312, 16, 0, vec![worker]),
            ("7.14", (1, 3, 2), false, Newer,  PerHalf,   blit, 312, 16, 0, vec!["stream_map = \"sdk-1.1\"", anytime, worker]),
            ("10.0", (1, 3, 5), false, Newer,  PerHalf,   blit, 312, 16, 0, vec![anytime, worker]),
            ("10.1", (1, 4, 1), true,  Newer,  PerHalf,   blit, 312, 16, 0, vec![]),
        ];
        assert_eq!(ledger.len(), RocmRelease::ALL.len());
        for (rocm, (a, b, c), any, map, sync, threshold, agent, uuid, none, unpinned) in ledger {
            let m = Machine::parse(&format!("rocm = \"{rocm}\"")).unwrap();
            assert_eq!(m.rocm.as_str(), rocm);
            assert_eq!(
                (
                    m.sdk_version,
                    m.anytime_initialization,
                    m.stream_map,
                    m.buffer_sync,
                    m.sdma_threshold
                ),
                (Version(a, b, c), any, map, sync, threshold),
                "{rocm}"
            );
            assert_eq!(
                (
                    m.agent_struct_size(),
                    m.uuid_bytes as usize,
                    m.rocm.context_none()
                ),
                (agent, uuid, none),
                "{rocm}"
            );
            let overlays: Vec<_> = m.rocm.unpinned().iter().map(|u| u.overlay).collect();
            assert_eq!(overlays, unpinned, "{rocm}");
            for overlay in overlays {
                let other = Machine::parse(&format!("rocm = \"{rocm}\", {overlay}")).unwrap();
                assert_ne!(other, m, "{rocm}: {overlay}");
            }
        }
        assert_eq!(Machine::default().rocm.as_str(), "7.1");
    }

    #[test]
    fn explicit_keys_override_the_release() {
        let m = Machine::parse(r#"rocm = "7.14", buffer_sync = "per-buffer""#).unwrap();
        assert_eq!(
            (m.sdk_version, m.buffer_sync, m.stream_map),
            (Version(1, 3, 2), BufferSync::PerBuffer, StreamMap::Newer)
        );
        // A later overlay with another release moves the keys it does not give.
        let later = m
            .overlaid(&toml::from_str("rocm = \"7.0\"").unwrap())
            .unwrap();
        assert_eq!(later.profile_keys(), RocmRelease::Rocm7_0.profile());
        let default = Machine::default();
        assert_eq!(
            (default.rocm, default.profile_keys()),
            (DEFAULT_ROCM, DEFAULT_ROCM.profile())
        );
    }

    #[test]
    fn a_machine_survives_its_environment() {
        let mut m = Machine::parse("gpus = 3, seed = 7, h2h_record = true").unwrap();
        m.hip_visible_devices = Some("2,0".into());
        let env = m.env();
        assert_eq!(env[1], ("HIP_VISIBLE_DEVICES", "2,0".to_owned()));
        let mut back = Machine::parse(&env[0].1).unwrap();
        back.hip_visible_devices = Some("2,0".into());
        assert_eq!(back, m);
    }
}
