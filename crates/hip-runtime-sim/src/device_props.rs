//! The simulated GPU as `hipGetDevicePropertiesR0600` describes it: an MI300X-like gfx942, the
//! same machine the simulated SDK's agents describe (cu_count 304, 2100 MHz engine clock,
//! 1300 MHz memory clock, 8192-bit bus, 192 GiB frame buffer).

use crate::abi::HipDevicePropR0600;
use std::ffi::c_char;

pub const COMPUTE_UNITS: i32 = 304;
pub const WARP_SIZE: i32 = 64;
pub const MAX_THREADS_PER_BLOCK: i32 = 1024;
pub const MAX_THREADS_PER_CU: i32 = 2048;
pub const MAX_BLOCKS_PER_CU: i32 = 32;
pub const SHARED_MEM_PER_BLOCK: usize = 64 * 1024;
pub const TOTAL_GLOBAL_MEM: usize = 192 << 30;

/// hipDeviceArch_t bits 0..=16 all set: gfx942 has every listed feature.
const ALL_ARCH_FEATURES: u32 = (1 << 17) - 1;

fn copy_c_string(dst: &mut [c_char], src: &str) {
    let len = src.len().min(dst.len() - 1);
    for (d, s) in dst.iter_mut().zip(&src.as_bytes()[..len]) {
        *d = *s as c_char;
    }
    dst[len] = 0;
}

/// The text of a NUL-terminated `char` array field (up to its NUL or its end).
pub fn c_string(field: &[c_char]) -> String {
    let bytes: Vec<u8> = field
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

pub fn device_properties(device: u32) -> HipDevicePropR0600 {
    let mut p = HipDevicePropR0600::zeroed();
    copy_c_string(&mut p.name, "AMD Instinct MI300X");
    copy_c_string(&mut p.gcnArchName, "gfx942:sramecc+:xnack-");
    for (i, b) in p.uuid.bytes.iter_mut().enumerate() {
        *b = (0x40 + i as u8 + device as u8) as c_char;
    }
    p.totalGlobalMem = TOTAL_GLOBAL_MEM;
    p.sharedMemPerBlock = SHARED_MEM_PER_BLOCK;
    p.regsPerBlock = 512 * 128;
    p.warpSize = WARP_SIZE;
    p.memPitch = i32::MAX as usize;
    p.maxThreadsPerBlock = MAX_THREADS_PER_BLOCK;
    p.maxThreadsDim = [1024, 1024, 1024];
    p.maxGridSize = [i32::MAX, 65536, 65536];
    p.clockRate = 2_100_000;
    p.totalConstMem = i32::MAX as usize;
    p.major = 9;
    p.minor = 4;
    p.textureAlignment = 256;
    p.texturePitchAlignment = 256;
    p.multiProcessorCount = COMPUTE_UNITS;
    p.canMapHostMemory = 1;
    p.surfaceAlignment = 256;
    p.concurrentKernels = 1;
    p.ECCEnabled = 1;
    p.pciBusID = 0x0c + 0x10 * device as i32;
    p.pciDomainID = 0;
    p.asyncEngineCount = 2;
    p.unifiedAddressing = 1;
    p.memoryClockRate = 1_300_000;
    p.memoryBusWidth = 8192;
    p.l2CacheSize = 4 << 20;
    p.maxThreadsPerMultiProcessor = MAX_THREADS_PER_CU;
    p.sharedMemPerMultiprocessor = SHARED_MEM_PER_BLOCK;
    p.regsPerMultiprocessor = 512 * 128;
    p.managedMemory = 1;
    p.isMultiGpuBoard = 0;
    p.streamPrioritiesSupported = 1;
    p.cooperativeLaunch = 1;
    p.cooperativeMultiDeviceLaunch = 1;
    p.sharedMemPerBlockOptin = SHARED_MEM_PER_BLOCK;
    p.maxBlocksPerMultiProcessor = MAX_BLOCKS_PER_CU;
    p.hostRegisterSupported = 1;
    p.memoryPoolsSupported = 1;
    p.maxSharedMemoryPerMultiProcessor = SHARED_MEM_PER_BLOCK;
    p.clockInstructionRate = 100_000;
    p.arch = ALL_ARCH_FEATURES;
    p.isLargeBar = 1;
    p.asicRevision = 1;
    p
}
