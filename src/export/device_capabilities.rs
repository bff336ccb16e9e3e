//! Plane-level device capability stats from agent data, never from HIP (openxla/xla#40199;
//! docs/xla-interface.md#device-capabilities).
use super::plane_builder::PlaneBuilder;
use super::plane_names::DEVICE_VENDOR_AMD;
use crate::collector::GpuAgentInfo;

pub(crate) fn add_device_capabilities(plane: &mut PlaneBuilder, agent: &GpuAgentInfo) {
    let vendor = plane.str_stat("device_vendor", DEVICE_VENDOR_AMD);
    plane.add_plane_stat(vendor);
    if agent.max_engine_clock_mhz != 0 {
        // XLA writes the clock as a signed stat (an int64_t in `GetDeviceCapabilities`) and
        // readers look for that type (docs/xla-interface.md#device-capabilities).
        let clock_khz =
            plane.int64_stat("clock_rate", i64::from(agent.max_engine_clock_mhz) * 1000);
        plane.add_plane_stat(clock_khz);
    }
    // As XLA does, a capability the agent does not report (zero) is left out rather than
    // written as 0.
    if agent.cu_count != 0 {
        let cores = plane.uint64_stat("core_count", u64::from(agent.cu_count));
        plane.add_plane_stat(cores);
    }
    // XLA's order: bandwidth, then size.
    if agent.memory_bandwidth_bytes_per_second != 0 {
        let bandwidth =
            plane.uint64_stat("memory_bandwidth", agent.memory_bandwidth_bytes_per_second);
        plane.add_plane_stat(bandwidth);
    }
    if agent.memory_size_bytes != 0 {
        let memory = plane.uint64_stat("memory_size", agent.memory_size_bytes);
        plane.add_plane_stat(memory);
    }
    // gfx_target_version is major*10000 + minor*100 + stepping, e.g. 90402 for gfx942.
    let major = (agent.gfx_target_version / 10000) % 100;
    let minor = (agent.gfx_target_version / 100) % 100;
    if major != 0 {
        let stat = plane.uint64_stat("compute_cap_major", u64::from(major));
        plane.add_plane_stat(stat);
    }
    if minor != 0 {
        let stat = plane.uint64_stat("compute_cap_minor", u64::from(minor));
        plane.add_plane_stat(stat);
    }
    if !agent.name.is_empty() {
        let name = plane.str_stat("gpu_device_name", &agent.name);
        plane.add_plane_stat(name);
    }
}

/// A plane holding only `agent`'s capability stats, for callers that write them into a plane
/// of their own (the C++ `PerDeviceCollector::GetDeviceCapabilities`).
pub fn device_capabilities_plane(agent: &GpuAgentInfo) -> super::XPlane {
    let mut plane = PlaneBuilder::new(0, "");
    add_device_capabilities(&mut plane, agent);
    plane.finish()
}
