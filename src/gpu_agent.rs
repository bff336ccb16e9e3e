//! One GPU agent reduced to what the collector and the export need: its handle (to number
//! devices) and the device capability stats, computed here and nowhere else from the SDK's
//! agent fields (docs/sdk-facts.md, "Agents").

/// One GPU agent as reported by rocprofiler-sdk, reduced to plain values
/// ([`GpuAgentInfo::from_sdk`]); the position in the list given to
/// [`crate::collector::Collector::set_gpu_agents`] is the device ordinal (`/device:GPU:<ordinal>`).
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
    /// The capability values of an SDK agent.
    ///
    /// # Safety
    /// `agent.name` is null or NUL-terminated, and `agent.mem_banks` is null or points to
    /// `agent.mem_banks_count` banks, all valid for the call.
    pub unsafe fn from_sdk(agent: &sys::rocprofiler_agent_v0_t) -> GpuAgentInfo {
        let banks: Vec<MemoryBank> = if agent.mem_banks.is_null() || agent.mem_banks_count == 0 {
            Vec::new()
        } else {
            // SAFETY: per this function's contract.
            unsafe { std::slice::from_raw_parts(agent.mem_banks, agent.mem_banks_count as usize) }
                .iter()
                .map(|bank| MemoryBank {
                    heap_type: bank.heap_type,
                    size_in_bytes: bank.size_in_bytes,
                    mem_clk_max_mhz: bank.mem_clk_max,
                    width_bits: bank.width,
                })
                .collect()
        };
        let name = if agent.name.is_null() {
            String::new()
        } else {
            // SAFETY: per this function's contract.
            unsafe { std::ffi::CStr::from_ptr(agent.name) }
                .to_string_lossy()
                .into_owned()
        };
        GpuAgentInfo {
            handle: agent.id.handle,
            name,
            cu_count: agent.cu_count,
            max_engine_clock_mhz: agent.max_engine_clk_fcompute,
            gfx_target_version: agent.gfx_target_version,
            memory_size_bytes: GpuAgentInfo::memory_size_from_banks(&banks),
            memory_bandwidth_bytes_per_second: GpuAgentInfo::memory_bandwidth(&banks),
        }
    }

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
