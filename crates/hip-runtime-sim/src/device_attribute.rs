//! `hipDeviceGetAttribute`: HIP's `hipDeviceAttribute_t` numbering (ROCm's
//! `hip_runtime_api.h`: the CUDA-compatible block from 0, the AMD-specific block from 10000)
//! answered from the device properties, so both queries describe one MI300X.

use crate::abi::HipDevicePropR0600;

/// `hipDeviceAttribute_t` values the simulator answers (ROCm 6.3 .. 7.x numbering).
pub mod id {
    pub const ECC_ENABLED: i32 = 0;
    pub const ASYNC_ENGINE_COUNT: i32 = 2;
    pub const CAN_MAP_HOST_MEMORY: i32 = 3;
    pub const CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: i32 = 4;
    pub const CLOCK_RATE: i32 = 5;
    pub const COMPUTE_MODE: i32 = 6;
    pub const CONCURRENT_KERNELS: i32 = 8;
    pub const CONCURRENT_MANAGED_ACCESS: i32 = 9;
    pub const COOPERATIVE_LAUNCH: i32 = 10;
    pub const COOPERATIVE_MULTI_DEVICE_LAUNCH: i32 = 11;
    pub const DEVICE_OVERLAP: i32 = 12;
    pub const INTEGRATED: i32 = 16;
    pub const IS_MULTI_GPU_BOARD: i32 = 17;
    pub const L2_CACHE_SIZE: i32 = 19;
    pub const COMPUTE_CAPABILITY_MAJOR: i32 = 23;
    pub const MANAGED_MEMORY: i32 = 24;
    pub const MAX_BLOCKS_PER_MULTIPROCESSOR: i32 = 25;
    pub const MAX_BLOCK_DIM_X: i32 = 26;
    pub const MAX_BLOCK_DIM_Y: i32 = 27;
    pub const MAX_BLOCK_DIM_Z: i32 = 28;
    pub const MAX_GRID_DIM_X: i32 = 29;
    pub const MAX_GRID_DIM_Y: i32 = 30;
    pub const MAX_GRID_DIM_Z: i32 = 31;
    pub const MAX_THREADS_PER_BLOCK: i32 = 56;
    pub const MAX_THREADS_PER_MULTIPROCESSOR: i32 = 57;
    pub const MAX_PITCH: i32 = 58;
    pub const MEMORY_BUS_WIDTH: i32 = 59;
    pub const MEMORY_CLOCK_RATE: i32 = 60;
    pub const COMPUTE_CAPABILITY_MINOR: i32 = 61;
    pub const MULTIPROCESSOR_COUNT: i32 = 63;
    pub const PCI_BUS_ID: i32 = 67;
    pub const PCI_DEVICE_ID: i32 = 68;
    pub const PCI_DOMAIN_ID: i32 = 69;
    pub const MAX_REGISTERS_PER_BLOCK: i32 = 71;
    pub const MAX_REGISTERS_PER_MULTIPROCESSOR: i32 = 72;
    pub const MAX_SHARED_MEMORY_PER_BLOCK: i32 = 74;
    pub const SHARED_MEM_PER_BLOCK_OPTIN: i32 = 75;
    pub const SHARED_MEM_PER_MULTIPROCESSOR: i32 = 76;
    pub const STREAM_PRIORITIES_SUPPORTED: i32 = 78;
    pub const TEXTURE_ALIGNMENT: i32 = 81;
    pub const TOTAL_CONSTANT_MEMORY: i32 = 83;
    pub const TOTAL_GLOBAL_MEM: i32 = 84;
    pub const UNIFIED_ADDRESSING: i32 = 85;
    pub const WARP_SIZE: i32 = 87;
    pub const MEMORY_POOLS_SUPPORTED: i32 = 88;
    pub const VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: i32 = 89;
    pub const HOST_REGISTER_SUPPORTED: i32 = 90;
    pub const CLOCK_INSTRUCTION_RATE: i32 = 10000;
    pub const MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: i32 = 10002;
    pub const IS_LARGE_BAR: i32 = 10011;
    pub const ASIC_REVISION: i32 = 10012;
    pub const CAN_USE_STREAM_WAIT_VALUE: i32 = 10013;
    pub const IMAGE_SUPPORT: i32 = 10014;
    pub const PHYSICAL_MULTIPROCESSOR_COUNT: i32 = 10015;
    pub const FINE_GRAIN_SUPPORT: i32 = 10016;
    pub const WALL_CLOCK_RATE: i32 = 10017;
    pub const NUMBER_OF_XCCS: i32 = 10018;
    pub const MAX_AVAILABLE_VGPRS_PER_THREAD: i32 = 10019;
}

/// MI300X facts that `hipDeviceProp_tR0600` has no field for.
const XCC_COUNT: i32 = 8;
const WALL_CLOCK_KHZ: i32 = 100_000;
const VGPRS_PER_THREAD: i32 = 512;

fn clamp(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The attribute's value for the device `p` describes; `None` for a number HIP does not define
/// or the simulator does not answer (HIP: `hipErrorInvalidValue`).
pub fn value(attribute: i32, p: &HipDevicePropR0600) -> Option<i32> {
    use id::*;
    Some(match attribute {
        ECC_ENABLED => p.ECCEnabled,
        ASYNC_ENGINE_COUNT => p.asyncEngineCount,
        CAN_MAP_HOST_MEMORY => p.canMapHostMemory,
        CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM => p.canUseHostPointerForRegisteredMem,
        CLOCK_RATE => p.clockRate,
        COMPUTE_MODE => p.computeMode,
        CONCURRENT_KERNELS => p.concurrentKernels,
        CONCURRENT_MANAGED_ACCESS => p.concurrentManagedAccess,
        COOPERATIVE_LAUNCH => p.cooperativeLaunch,
        COOPERATIVE_MULTI_DEVICE_LAUNCH => p.cooperativeMultiDeviceLaunch,
        DEVICE_OVERLAP => p.deviceOverlap,
        INTEGRATED => p.integrated,
        IS_MULTI_GPU_BOARD => p.isMultiGpuBoard,
        L2_CACHE_SIZE => p.l2CacheSize,
        COMPUTE_CAPABILITY_MAJOR => p.major,
        MANAGED_MEMORY => p.managedMemory,
        MAX_BLOCKS_PER_MULTIPROCESSOR => p.maxBlocksPerMultiProcessor,
        MAX_BLOCK_DIM_X => p.maxThreadsDim[0],
        MAX_BLOCK_DIM_Y => p.maxThreadsDim[1],
        MAX_BLOCK_DIM_Z => p.maxThreadsDim[2],
        MAX_GRID_DIM_X => p.maxGridSize[0],
        MAX_GRID_DIM_Y => p.maxGridSize[1],
        MAX_GRID_DIM_Z => p.maxGridSize[2],
        MAX_THREADS_PER_BLOCK => p.maxThreadsPerBlock,
        MAX_THREADS_PER_MULTIPROCESSOR => p.maxThreadsPerMultiProcessor,
        MAX_PITCH => clamp(p.memPitch),
        MEMORY_BUS_WIDTH => p.memoryBusWidth,
        MEMORY_CLOCK_RATE => p.memoryClockRate,
        COMPUTE_CAPABILITY_MINOR => p.minor,
        MULTIPROCESSOR_COUNT => p.multiProcessorCount,
        PCI_BUS_ID => p.pciBusID,
        PCI_DEVICE_ID => p.pciDeviceID,
        PCI_DOMAIN_ID => p.pciDomainID,
        MAX_REGISTERS_PER_BLOCK => p.regsPerBlock,
        MAX_REGISTERS_PER_MULTIPROCESSOR => p.regsPerMultiprocessor,
        MAX_SHARED_MEMORY_PER_BLOCK => clamp(p.sharedMemPerBlock),
        SHARED_MEM_PER_BLOCK_OPTIN => clamp(p.sharedMemPerBlockOptin),
        SHARED_MEM_PER_MULTIPROCESSOR => clamp(p.sharedMemPerMultiprocessor),
        STREAM_PRIORITIES_SUPPORTED => p.streamPrioritiesSupported,
        TEXTURE_ALIGNMENT => clamp(p.textureAlignment),
        TOTAL_CONSTANT_MEMORY => clamp(p.totalConstMem),
        TOTAL_GLOBAL_MEM => clamp(p.totalGlobalMem),
        UNIFIED_ADDRESSING => p.unifiedAddressing,
        WARP_SIZE => p.warpSize,
        MEMORY_POOLS_SUPPORTED => p.memoryPoolsSupported,
        VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED => 0,
        HOST_REGISTER_SUPPORTED => p.hostRegisterSupported,
        CLOCK_INSTRUCTION_RATE => p.clockInstructionRate,
        MAX_SHARED_MEMORY_PER_MULTIPROCESSOR => clamp(p.maxSharedMemoryPerMultiProcessor),
        IS_LARGE_BAR => p.isLargeBar,
        ASIC_REVISION => p.asicRevision,
        CAN_USE_STREAM_WAIT_VALUE => 1,
        IMAGE_SUPPORT => 0,
        PHYSICAL_MULTIPROCESSOR_COUNT => p.multiProcessorCount,
        FINE_GRAIN_SUPPORT => 1,
        WALL_CLOCK_RATE => WALL_CLOCK_KHZ,
        NUMBER_OF_XCCS => XCC_COUNT,
        MAX_AVAILABLE_VGPRS_PER_THREAD => VGPRS_PER_THREAD,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device_props::device_properties;

    #[test]
    fn answers_what_xla_queries_as_an_mi300x() {
        let p = device_properties(0);
        let v = |a| value(a, &p).unwrap();
        assert_eq!(v(id::WARP_SIZE), 64);
        assert_eq!(v(id::MULTIPROCESSOR_COUNT), 304);
        assert_eq!(v(id::MAX_SHARED_MEMORY_PER_BLOCK), 64 * 1024);
        assert_eq!(v(id::MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), 64 * 1024);
        assert_eq!(v(id::MAX_THREADS_PER_MULTIPROCESSOR), 2048);
        assert_eq!(v(id::MAX_REGISTERS_PER_BLOCK), 512 * 128);
        assert_eq!(v(id::MAX_GRID_DIM_X), i32::MAX);
        assert_eq!(v(id::ECC_ENABLED), 1);
        assert_eq!(
            (
                v(id::COMPUTE_CAPABILITY_MAJOR),
                v(id::COMPUTE_CAPABILITY_MINOR)
            ),
            (9, 4)
        );
        // 192 GiB does not fit the int HIP writes.
        assert_eq!(v(id::TOTAL_GLOBAL_MEM), i32::MAX);
        // Unused and undefined numbers are refused.
        assert_eq!(value(64, &p), None);
        assert_eq!(value(9999, &p), None);
        assert_eq!(value(-1, &p), None);
    }
}
