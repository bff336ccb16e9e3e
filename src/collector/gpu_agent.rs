//! What the collector needs to know about one GPU agent: enough to map event device ids to
//! plane numbers and to write the device capability stats (xla-rocm-tracer.md §6.6).

/// One GPU agent as reported by rocprofiler-sdk, reduced to plain values. The tracer fills it
/// from `rocprofiler_agent_v0_t`; the position in the list given to
/// [`super::Collector::set_gpu_agents`] is the device ordinal (`/device:GPU:<ordinal>`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuAgentInfo {
    /// `agent.id.handle`; events carry it (truncated to 32 bits) as `device_id`.
    pub handle: u64,
    /// `agent.name`, e.g. "gfx942".
    pub name: String,
    /// `agent.cu_count`.
    pub cu_count: u32,
    /// `agent.max_engine_clk_fcompute`, in MHz; 0 when unknown.
    pub max_engine_clock_mhz: u32,
    /// `agent.gfx_target_version`, e.g. 90402; 0 when unknown.
    pub gfx_target_version: u32,
    /// Sum of the frame-buffer memory banks' sizes, see [`GpuAgentInfo::memory_size_from_banks`].
    pub memory_size_bytes: u64,
    /// See [`GpuAgentInfo::memory_bandwidth`].
    pub memory_bandwidth_bytes_per_second: u64,
}

use rocprofiler_sdk_sys as sys;

const FRAME_BUFFER_HEAP_TYPES: [u32; 2] = [
    sys::HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC,
    sys::HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE,
];

/// One `mem_banks[]` entry of an agent, as far as capabilities go.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MemoryBank {
    pub heap_type: u32,
    pub size_in_bytes: u64,
    pub mem_clk_max_mhz: u32,
    pub width_bits: u32,
}

impl GpuAgentInfo {
    /// XLA's `memory_size`: the frame-buffer banks' sizes summed.
    pub fn memory_size_from_banks(banks: &[MemoryBank]) -> u64 {
        banks
            .iter()
            .filter(|bank| FRAME_BUFFER_HEAP_TYPES.contains(&bank.heap_type))
            .fold(0u64, |sum, bank| sum.saturating_add(bank.size_in_bytes))
    }

    /// XLA's `memory_bandwidth`: `2 * mem_clk_max(MHz) * 1e6 * width / 8` (double data rate)
    /// from the first frame-buffer bank, or 0 without one.
    pub fn memory_bandwidth(banks: &[MemoryBank]) -> u64 {
        banks
            .iter()
            .find(|bank| FRAME_BUFFER_HEAP_TYPES.contains(&bank.heap_type))
            .map(|bank| bandwidth(bank.mem_clk_max_mhz, bank.width_bits))
            .unwrap_or(0)
    }
}

/// `2 * clock(MHz) * 1e6 * width / 8` bytes per second, computed in 128 bits and saturated,
/// so a garbage clock or width from the SDK cannot overflow.
pub fn bandwidth(mem_clk_max_mhz: u32, width_bits: u32) -> u64 {
    let bytes = 2 * u128::from(mem_clk_max_mhz) * 1_000_000 * u128::from(width_bits) / 8;
    u64::try_from(bytes).unwrap_or(u64::MAX)
}

impl From<&crate::tracer::agents::AgentInfo> for GpuAgentInfo {
    fn from(agent: &crate::tracer::agents::AgentInfo) -> GpuAgentInfo {
        GpuAgentInfo {
            handle: agent.handle,
            name: agent.name.clone(),
            cu_count: agent.cu_count,
            max_engine_clock_mhz: agent.max_engine_clk_fcompute,
            gfx_target_version: agent.gfx_target_version,
            memory_size_bytes: agent.memory_size_bytes,
            // `AgentInfo` already reduced the banks to the first frame-buffer bank's clock and width.
            memory_bandwidth_bytes_per_second: bandwidth(
                agent.mem_clk_max_mhz,
                agent.mem_width_bits,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_is_xlas_formula_and_saturates() {
        // MI300X-like: 1300 MHz, 8192-bit interface.
        assert_eq!(bandwidth(1300, 8192), 2_662_400_000_000);
        assert_eq!(bandwidth(u32::MAX, u32::MAX), u64::MAX);
        assert_eq!(bandwidth(0, 8192), 0);
    }
}
