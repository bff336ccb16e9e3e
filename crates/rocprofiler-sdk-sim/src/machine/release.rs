//! The ROCm releases the simulator models and what each one sets unless a key is given: its
//! SDK version, stream map, buffer synchronisation, small-copy size and struct layouts. Every
//! value here is a cell of the ledger in docs/simulator-fidelity.md, which names the
//! file@commit that pins it; where no release tree pins a behaviour, [`RocmRelease::unpinned`]
//! lists the other shapes the sources allow, and tests/releases/run.sh runs the product on
//! each of them too.
use super::{BufferSync, Finalization, StreamMap, Version};
use serde::{Deserialize, Serialize};

/// A ROCm release: its rocprofiler-sdk layouts and, through [`RocmRelease::profile`], the
/// behaviours of its SDK and HIP runtime (docs/simulator-fidelity.md#the-ledger).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum RocmRelease {
    #[serde(rename = "7.0")]
    Rocm7_0,
    #[serde(rename = "7.1")]
    Rocm7_1,
    #[serde(rename = "7.2")]
    Rocm7_2,
    #[serde(rename = "7.13")]
    Rocm7_13,
    #[serde(rename = "7.14")]
    Rocm7_14,
    /// Formerly 7.15 (renamed by ROCm/rocm-systems#9444).
    #[serde(rename = "10.0")]
    Rocm10_0,
    #[serde(rename = "10.1")]
    Rocm10_1,
}

/// The default release: the one a plain `cargo test` runs; tests/releases/run.sh runs the
/// others (docs/simulator-fidelity.md#the-ledger).
pub const DEFAULT_ROCM: RocmRelease = RocmRelease::Rocm7_1;

/// The keys a release sets unless they are given explicitly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReleaseProfile {
    pub sdk_version: Version,
    pub stream_map: StreamMap,
    pub buffer_sync: BufferSync,
    pub sdma_threshold: u64,
    pub anytime_initialization: bool,
    pub finalization: Finalization,
    pub uuid_bytes: u8,
}

/// Another shape of one ledger row that the sources allow where no tree of the release pins
/// it: a `[machine]` overlay on top of the release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unpinned {
    /// The ledger row, as docs/simulator-fidelity.md names it.
    pub row: &'static str,
    /// The machine keys of the other shape, as TOML on one line.
    pub overlay: &'static str,
}

/// ROCclr's `GPU_FORCE_BLIT_COPY_SIZE` of 16 KiB (`rocclr/utils/flags.hpp`).
const BLIT_COPY_SIZE: u64 = 16 * 1024;

impl RocmRelease {
    pub const ALL: [RocmRelease; 7] = [
        RocmRelease::Rocm7_0,
        RocmRelease::Rocm7_1,
        RocmRelease::Rocm7_2,
        RocmRelease::Rocm7_13,
        RocmRelease::Rocm7_14,
        RocmRelease::Rocm10_0,
        RocmRelease::Rocm10_1,
    ];

    /// `"7.1"`, as the key spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            RocmRelease::Rocm7_0 => "7.0",
            RocmRelease::Rocm7_1 => "7.1",
            RocmRelease::Rocm7_2 => "7.2",
            RocmRelease::Rocm7_13 => "7.13",
            RocmRelease::Rocm7_14 => "7.14",
            RocmRelease::Rocm10_0 => "10.0",
            RocmRelease::Rocm10_1 => "10.1",
        }
    }

    /// The release's rocprofiler-sdk version (ledger row "SDK version").
    pub fn sdk_version(self) -> Version {
        match self {
            RocmRelease::Rocm7_0 => Version(1, 0, 0),
            RocmRelease::Rocm7_1 | RocmRelease::Rocm7_2 => Version(1, 1, 0),
            RocmRelease::Rocm7_13 => Version(1, 3, 0),
            RocmRelease::Rocm7_14 => Version(1, 3, 2),
            RocmRelease::Rocm10_0 => Version(1, 3, 5),
            RocmRelease::Rocm10_1 => Version(1, 4, 1),
        }
    }

    /// The release's stream map (ledger row "Stream ids").
    pub fn stream_map(self) -> StreamMap {
        match self {
            RocmRelease::Rocm7_0 => StreamMap::Sdk1_0,
            RocmRelease::Rocm7_1 | RocmRelease::Rocm7_2 | RocmRelease::Rocm7_13 => {
                StreamMap::Sdk1_1
            }
            _ => StreamMap::Newer,
        }
    }

    /// The release's buffer synchronisation (ledger row "Buffer syncer").
    pub fn buffer_sync(self) -> BufferSync {
        match self {
            RocmRelease::Rocm7_0 => BufferSync::None,
            RocmRelease::Rocm7_1 | RocmRelease::Rocm7_2 => BufferSync::PerBuffer,
            _ => BufferSync::PerHalf,
        }
    }

    /// The size up to which the release's HIP runtime runs a host<->device copy as the
    /// `__amd_rocclr_copyBuffer` shader blit (ledger row "Small copies").
    pub fn sdma_threshold(self) -> u64 {
        BLIT_COPY_SIZE
    }

    /// Whether a second forced tool is accepted after initialization (ledger row "Anytime
    /// initialization", ROCm/rocm-systems#5348).
    pub fn anytime_initialization(self) -> bool {
        self == RocmRelease::Rocm10_1
    }

    /// How the release's SDK finalizes at exit and on `SIGABRT` (ledger row "Finalization"):
    /// 10.1 on a worker thread with the abort flush [RN], 7.0 from `std::atexit` [F0], 7.1 to
    /// 10.0 unpinned and taken as 7.0 [U9].
    pub fn finalization(self) -> Finalization {
        match self {
            RocmRelease::Rocm10_1 => Finalization::WorkerThread,
            _ => Finalization::AtExit,
        }
    }

    /// Whether the release's SDK has HIP_EVENT tracing: buffer kind 38, one record per
    /// `hipEventRecord` / `hipStreamWaitEvent` barrier with its GPU time (ledger row "Tracing
    /// kinds", [RN]; ROCm/rocm-systems#10276). A layout of the release, not a key: 10.1 only.
    pub fn hip_event_tracing(self) -> bool {
        self == RocmRelease::Rocm10_1
    }

    pub fn profile(self) -> ReleaseProfile {
        ReleaseProfile {
            sdk_version: self.sdk_version(),
            stream_map: self.stream_map(),
            buffer_sync: self.buffer_sync(),
            sdma_threshold: self.sdma_threshold(),
            anytime_initialization: self.anytime_initialization(),
            finalization: self.finalization(),
            uuid_bytes: self.uuid_bytes(),
        }
    }

    /// The other shapes of the rows no tree of this release pins (the ledger's "unpinned"
    /// cells). The release's own values above are one shape; these are the rest.
    pub fn unpinned(self) -> &'static [Unpinned] {
        const fn shape(row: &'static str, overlay: &'static str) -> Unpinned {
            Unpinned { row, overlay }
        }
        const NO_BLIT: Unpinned = shape("Small copies", "sdma_threshold = 0");
        const UUID_16: Unpinned = shape("Agent struct", "uuid_bytes = 16");
        const PER_HALF: Unpinned = shape("Buffer syncer", "buffer_sync = \"per-half\"");
        const SIZE_INDEXED_STREAMS: Unpinned = shape("Stream ids", "stream_map = \"sdk-1.1\"");
        const ANYTIME: Unpinned = shape("Anytime initialization", "anytime_initialization = true");
        const WORKER_FINALIZATION: Unpinned =
            shape("Finalization", "finalization = \"worker-thread\"");
        // Which domains the ROCTx library feeds is pinned by no tree, on any release; it
        // depends on no other row, so its shapes run once, beside 7.1 (the default).
        const ROCTX_CORE: Unpinned = shape("ROCTx domains", "roctx_domains = \"core\"");
        const ROCTX_RANGE: Unpinned = shape("ROCTx domains", "roctx_domains = \"range\"");
        match self {
            RocmRelease::Rocm7_0 => &[NO_BLIT, UUID_16],
            RocmRelease::Rocm7_1 => &[WORKER_FINALIZATION, ROCTX_CORE, ROCTX_RANGE],
            RocmRelease::Rocm7_2 => &[PER_HALF, WORKER_FINALIZATION],
            RocmRelease::Rocm7_13 => &[WORKER_FINALIZATION],
            RocmRelease::Rocm7_14 => &[SIZE_INDEXED_STREAMS, ANYTIME, WORKER_FINALIZATION],
            RocmRelease::Rocm10_0 => &[ANYTIME, WORKER_FINALIZATION],
            RocmRelease::Rocm10_1 => &[],
        }
    }

    /// Bytes of `rocprofiler_uuid_t` (ledger row "Agent struct"): an 8-byte union on the 7.0
    /// branch (#390 is not in it), 16 bytes from 7.1; the agent struct is 296 bytes plus it.
    pub fn uuid_bytes(self) -> u8 {
        match self {
            RocmRelease::Rocm7_0 => 8,
            _ => 16,
        }
    }

    /// The library's `ROCPROFILER_CONTEXT_NONE.handle` (docs/sdk-facts.md#contexts).
    pub fn context_none(self) -> u64 {
        match self {
            RocmRelease::Rocm7_0 => u64::MAX,
            _ => 0,
        }
    }
}
