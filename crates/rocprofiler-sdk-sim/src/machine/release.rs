//! The ROCm releases the simulator models and what each one sets unless a key is given
//! (docs/simulator-fidelity.md#releases): its SDK version, stream map, buffer
//! synchronisation, small-copy path and struct layouts.
use super::{BufferSync, SmallCopies, StreamMap, Version};
use serde::{Deserialize, Serialize};

/// A ROCm release: its rocprofiler-sdk layouts and, through [`RocmRelease::profile`], the
/// behaviours of its SDK and HIP runtime (docs/simulator-fidelity.md#releases).
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
}

/// The default release: 7.1, the harshest still supported (docs/simulator-fidelity.md#releases).
pub const DEFAULT_ROCM: RocmRelease = RocmRelease::Rocm7_1;

/// The keys a release sets unless they are given explicitly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReleaseProfile {
    pub sdk_version: Version,
    pub stream_map: StreamMap,
    pub buffer_sync: BufferSync,
    pub small_copies: SmallCopies,
}

impl RocmRelease {
    pub const ALL: [RocmRelease; 5] = [
        RocmRelease::Rocm7_0,
        RocmRelease::Rocm7_1,
        RocmRelease::Rocm7_2,
        RocmRelease::Rocm7_13,
        RocmRelease::Rocm7_14,
    ];

    /// `"7.1"`, as the key spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            RocmRelease::Rocm7_0 => "7.0",
            RocmRelease::Rocm7_1 => "7.1",
            RocmRelease::Rocm7_2 => "7.2",
            RocmRelease::Rocm7_13 => "7.13",
            RocmRelease::Rocm7_14 => "7.14",
        }
    }

    /// The release's rocprofiler-sdk version (the SDK's CHANGELOG.md: 1.0.0 for 7.0, 1.1.0 for
    /// 7.1 and 7.2, 1.3.0 for 7.13, 1.3.2 for 7.14).
    pub fn sdk_version(self) -> Version {
        match self {
            RocmRelease::Rocm7_0 => Version(1, 0, 0),
            RocmRelease::Rocm7_1 | RocmRelease::Rocm7_2 => Version(1, 1, 0),
            RocmRelease::Rocm7_13 => Version(1, 3, 0),
            RocmRelease::Rocm7_14 => Version(1, 3, 2),
        }
    }

    /// The release's stream map (`hip/stream.cpp` history: #343 in 1.1.0, #6276 and #7713
    /// in the 2026 trees).
    pub fn stream_map(self) -> StreamMap {
        match self {
            RocmRelease::Rocm7_0 => StreamMap::Sdk1_0,
            RocmRelease::Rocm7_1 | RocmRelease::Rocm7_2 => StreamMap::Sdk1_1,
            RocmRelease::Rocm7_13 | RocmRelease::Rocm7_14 => StreamMap::Newer,
        }
    }

    /// The release's buffer synchronisation (`buffer.hpp` history: none in 7.0, one syncer
    /// per buffer from #529, one per half from ROCm/rocm-systems#2334).
    pub fn buffer_sync(self) -> BufferSync {
        match self {
            RocmRelease::Rocm7_0 => BufferSync::None,
            RocmRelease::Rocm7_1 | RocmRelease::Rocm7_2 => BufferSync::PerBuffer,
            RocmRelease::Rocm7_13 | RocmRelease::Rocm7_14 => BufferSync::PerHalf,
        }
    }

    /// The release's HIP runtime path for small host<->device copies (CLR `rocblit.cpp`:
    /// shader blits from ROCm/rocm-systems#6232, May 2026).
    pub fn small_copies(self) -> SmallCopies {
        match self {
            RocmRelease::Rocm7_0 | RocmRelease::Rocm7_1 | RocmRelease::Rocm7_2 => {
                SmallCopies::D2dRecord
            }
            RocmRelease::Rocm7_13 | RocmRelease::Rocm7_14 => SmallCopies::BlitKernel,
        }
    }

    pub fn profile(self) -> ReleaseProfile {
        ReleaseProfile {
            sdk_version: self.sdk_version(),
            stream_map: self.stream_map(),
            buffer_sync: self.buffer_sync(),
            small_copies: self.small_copies(),
        }
    }

    /// `sizeof(rocprofiler_agent_v0_t)` in this release (docs/sdk-facts.md#version-hazards).
    pub fn agent_struct_size(self) -> usize {
        match self {
            RocmRelease::Rocm7_0 => 304,
            _ => 312,
        }
    }

    /// Bytes of `rocprofiler_uuid_t` (an 8-byte union up to 7.0, 16 bytes from 7.1).
    pub fn uuid_size(self) -> usize {
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
