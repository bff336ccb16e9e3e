//! The 64-byte AMDHSA kernel descriptor (`kernel_descriptor_t`, code object v3 and later) a
//! `<kernel>.kd` symbol points to, and the resources it declares. The layout is a public fact
//! of the AMDGPU ABI (LLVM AMDGPUUsage, "Kernel Descriptor"):
//!
//! | offset | field |
//! |---|---|
//! | 0  | group_segment_fixed_size (u32): static LDS bytes per work-group |
//! | 4  | private_segment_fixed_size (u32): scratch bytes per work-item |
//! | 8  | kernarg_size (u32) |
//! | 16 | kernel_code_entry_byte_offset (i64) |
//! | 44 | compute_pgm_rsrc3 (u32): on gfx90a/gfx94x/gfx950 bits 0..5 are ACCUM_OFFSET |
//! | 48 | compute_pgm_rsrc1 (u32): bits 0..5 granulated VGPRs, 6..9 granulated SGPRs |
//! | 52 | compute_pgm_rsrc2 (u32) |
//! | 56 | kernel_code_properties (u16) |

use crate::error::{HipError, HIP_ERROR_INVALID_IMAGE};

pub const SIZE: usize = 64;

/// What a kernel's descriptor declares, as the SDK's kernel-symbol payload reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelResources {
    pub kernarg_segment_size: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
}

/// `EF_AMDGPU_MACH` values (`e_flags & 0xff`) of the targets with one VGPR file shared by
/// architectural and accumulation VGPRs, split at ACCUM_OFFSET: gfx90a, gfx940, gfx941,
/// gfx942, gfx950.
const UNIFIED_VGPR_MACHS: [u32; 5] = [0x3f, 0x40, 0x4b, 0x4c, 0x4f];

fn u32_at(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]])
}

/// Decodes a descriptor of a code object for `mach` (`e_flags & 0xff`). Register counts are
/// what the hardware allocates: the granulated counts of `compute_pgm_rsrc1`.
pub fn decode(descriptor: &[u8], mach: u32) -> Result<KernelResources, HipError> {
    if descriptor.len() < SIZE {
        return Err(HipError(HIP_ERROR_INVALID_IMAGE));
    }
    let rsrc1 = u32_at(descriptor, 48);
    let rsrc3 = u32_at(descriptor, 44);
    let vgpr_blocks = (rsrc1 & 0x3f) + 1;
    let granulated_sgprs = (rsrc1 >> 6) & 0xf;
    let (arch_vgpr_count, accum_vgpr_count) = if UNIFIED_VGPR_MACHS.contains(&mach) {
        // Granule of 8 over the unified file; architectural VGPRs end at ACCUM_OFFSET.
        let total = vgpr_blocks * 8;
        let accum_offset = ((rsrc3 & 0x3f) + 1) * 4;
        let arch = accum_offset.min(total);
        (arch, total - arch)
    } else {
        (vgpr_blocks * 4, 0)
    };
    Ok(KernelResources {
        group_segment_size: u32_at(descriptor, 0),
        private_segment_size: u32_at(descriptor, 4),
        kernarg_segment_size: u32_at(descriptor, 8),
        // The SDK's reading on gfx9 (`code_object.cpp` @ 1b1610fc): pairs of 8-register
        // blocks, so a 16-register granule (docs/simulator-fidelity.md, row "Kernel symbols").
        sgpr_count: (granulated_sgprs / 2 + 1) * 16,
        arch_vgpr_count,
        accum_vgpr_count,
    })
}

/// Builds a descriptor declaring these resources (for tests building a real-shaped ELF).
#[cfg(test)]
pub fn encode(
    group_segment_size: u32,
    private_segment_size: u32,
    kernarg_size: u32,
    vgpr_blocks: u32,
    sgpr_blocks: u32,
    accum_offset_blocks: u32,
) -> [u8; SIZE] {
    let mut d = [0u8; SIZE];
    d[0..4].copy_from_slice(&group_segment_size.to_le_bytes());
    d[4..8].copy_from_slice(&private_segment_size.to_le_bytes());
    d[8..12].copy_from_slice(&kernarg_size.to_le_bytes());
    d[16..24].copy_from_slice(&256i64.to_le_bytes());
    d[44..48].copy_from_slice(&(accum_offset_blocks - 1).to_le_bytes());
    let rsrc1 = (vgpr_blocks - 1) | ((sgpr_blocks - 1) << 6);
    d[48..52].copy_from_slice(&rsrc1.to_le_bytes());
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx942_splits_the_unified_file_at_accum_offset() {
        // 16 granules of 8 = 128 VGPRs, arch up to 96 (24 granules of 4), 4 SGPR granules.
        let d = encode(8192, 16, 280, 16, 4, 24);
        let r = decode(&d, 0x4c).unwrap();
        assert_eq!(
            r,
            KernelResources {
                kernarg_segment_size: 280,
                group_segment_size: 8192,
                private_segment_size: 16,
                sgpr_count: 32,
                arch_vgpr_count: 96,
                accum_vgpr_count: 32,
            }
        );
        // gfx908-style targets: granule 4, no accumulation split in the descriptor.
        let r = decode(&d, 0x30).unwrap();
        assert_eq!((r.arch_vgpr_count, r.accum_vgpr_count), (64, 0));
        assert!(decode(&d[..63], 0x4c).is_err());
        // SGPRs as the SDK reports them: 5 blocks of 8 (40 registers) read as 48.
        let d = encode(0, 0, 24, 2, 5, 4);
        assert_eq!(decode(&d, 0x4c).unwrap().sgpr_count, 48);
    }
}
