//! Theoretical occupancy of a kernel dispatch: the model the newer XLA computes from the
//! device's target and the kernel's registers, LDS and workgroup size (openxla/xla#47468,
//! wired by #47469; docs/xla-interface.md#kernel-resources-and-occupancy). The one place
//! the rule is written; the formula is XLA's, the code is ours.
//!
//! Only the target version (which picks a table of per-target constants) and the CU count come
//! from the agent: like XLA, the agent's own wave and LDS properties are not inputs.
use crate::event::KernelDetails;

/// Per-target constants of the model.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct TargetConstants {
    max_waves_per_simd: u32,
    simd_per_cu: u32,
    wave_front_size: u32,
    total_vgprs: u32,
    vgpr_granule: u32,
    arch_vgpr_granule: u32,
    lds_per_cu: u32,
    lds_granule: u32,
    total_sgprs: u32,
    sgpr_granule: u32,
    sgpr_trap_reserve: u32,
    max_barriers: u32,
    sgpr_limited: bool,
    /// Arch and accumulation VGPRs share one register file (gfx90a and later).
    unified_vgpr_file: bool,
}

/// gfx90a, gfx94x and gfx95x share all but their LDS.
const GFX90A: TargetConstants = TargetConstants {
    max_waves_per_simd: 8,
    simd_per_cu: 4,
    wave_front_size: 64,
    total_vgprs: 512,
    vgpr_granule: 8,
    arch_vgpr_granule: 4,
    lds_per_cu: 65536,
    lds_granule: 512,
    total_sgprs: 800,
    sgpr_granule: 16,
    sgpr_trap_reserve: 0,
    max_barriers: 16,
    sgpr_limited: true,
    unified_vgpr_file: true,
};

/// The constants of a `gfx_target_version` (major * 10000 + minor * 100 + stepping); `None`
/// outside gfx9, which the model does not cover.
fn target_constants(gfx_target_version: u32) -> Option<TargetConstants> {
    let major = (gfx_target_version / 10000) % 100;
    let minor = (gfx_target_version / 100) % 100;
    let stepping = gfx_target_version % 100;
    match (major, minor, stepping) {
        (9, 0, 10) | (9, 4, _) => Some(GFX90A),
        (9, 5, _) => Some(TargetConstants {
            lds_per_cu: 163840,
            lds_granule: 1280,
            ..GFX90A
        }),
        // Other gfx9 targets: an approximation (separate VGPR file, ten waves per SIMD).
        (9, _, _) => Some(TargetConstants {
            max_waves_per_simd: 10,
            total_vgprs: 256,
            vgpr_granule: 4,
            unified_vgpr_file: false,
            ..GFX90A
        }),
        _ => None,
    }
}

fn align_up(value: u32, granule: u32) -> u32 {
    value.div_ceil(granule).saturating_mul(granule)
}

/// The VGPRs a work-item holds: on a unified register file the arch VGPRs, aligned, then the
/// AGPRs; otherwise the larger of the two files.
fn unified_vgpr_count(target: &TargetConstants, arch: u32, accum: u32) -> u32 {
    if target.unified_vgpr_file && accum != 0 {
        align_up(arch, target.arch_vgpr_granule).saturating_add(accum)
    } else {
        arch.max(accum)
    }
}

/// The `regs:` figure of `kernel_details`: the unified count when the device's target is
/// known, else the larger register file.
pub(crate) fn registers_per_work_item(kernel: &KernelDetails, gfx_target_version: u32) -> u32 {
    match target_constants(gfx_target_version) {
        Some(target) => {
            unified_vgpr_count(&target, kernel.arch_vgpr_count, kernel.accum_vgpr_count)
        }
        None => kernel.arch_vgpr_count.max(kernel.accum_vgpr_count),
    }
}

/// What the model says about one dispatch.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Occupancy {
    /// Resident work-items per CU as a percentage of the CU's wave slots times the wave size.
    pub percent: f64,
    /// The smallest grid (in workgroups) that fills every CU: workgroups per CU times CUs
    /// (0 without a CU count).
    pub min_grid_size: u32,
}

/// The theoretical occupancy of `kernel` on a device of `gfx_target_version` with `cu_count`
/// CUs; `None` when it cannot be modelled (unknown target, no workgroup, no register counts,
/// a workgroup larger than a CU, registers that do not fit).
pub(crate) fn occupancy(
    kernel: &KernelDetails,
    gfx_target_version: u32,
    cu_count: u32,
) -> Option<Occupancy> {
    let target = target_constants(gfx_target_version)?;
    let block_size = match kernel.workgroup_x {
        0 => 0,
        x => x
            .saturating_mul(kernel.workgroup_y.max(1))
            .saturating_mul(kernel.workgroup_z.max(1)),
    };
    let (arch, accum) = (kernel.arch_vgpr_count, kernel.accum_vgpr_count);
    if block_size == 0 || (arch == 0 && accum == 0) {
        return None;
    }
    let slots = target.max_waves_per_simd * target.simd_per_cu;
    let waves_per_group = block_size.div_ceil(target.wave_front_size);
    if waves_per_group == 0 || waves_per_group > slots {
        return None;
    }
    let vgprs = unified_vgpr_count(&target, arch, accum);
    if target.unified_vgpr_file && accum != 0 && !vgprs.is_multiple_of(target.arch_vgpr_granule) {
        return None;
    }
    let max_waves = target.max_waves_per_simd;
    let waves_by_vgprs = if vgprs < target.vgpr_granule {
        max_waves
    } else {
        (target.total_vgprs / align_up(vgprs, target.vgpr_granule)).clamp(1, max_waves)
    };
    let waves_by_sgprs = if target.sgpr_limited && kernel.sgpr_count != 0 {
        let per_wave = align_up(kernel.sgpr_count, target.sgpr_granule)
            .saturating_add(target.sgpr_trap_reserve);
        (target.total_sgprs / per_wave).clamp(1, max_waves)
    } else {
        max_waves
    };
    let groups_by_vgprs = waves_by_vgprs * target.simd_per_cu / waves_per_group;
    let groups_by_sgprs = waves_by_sgprs * target.simd_per_cu / waves_per_group;
    if groups_by_vgprs == 0 || groups_by_sgprs == 0 {
        return None;
    }
    // The dispatch's LDS: static and dynamic.
    let lds = kernel.group_segment_size;
    let groups_by_lds = if lds == 0 {
        u32::MAX
    } else {
        (target.lds_per_cu / align_up(lds, target.lds_granule)).max(1)
    };
    let groups_by_slots = slots / waves_per_group;
    let groups_by_barriers = if waves_per_group == 1 {
        slots
    } else {
        groups_by_slots.min(target.max_barriers)
    };
    let groups = groups_by_vgprs
        .min(groups_by_sgprs)
        .min(groups_by_lds)
        .min(groups_by_slots)
        .min(groups_by_barriers);
    let percent = 100.0 * f64::from(groups) * f64::from(block_size)
        / (f64::from(slots) * f64::from(target.wave_front_size));
    Some(Occupancy {
        percent,
        min_grid_size: groups.saturating_mul(cu_count),
    })
}

/// A double as `absl::StrCat` writes it (`%g` with six significant digits): `37.5`, `100`,
/// `33.3333`.
pub(crate) fn format_like_strcat(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let exponent = value.abs().log10().floor() as i32;
    if !(-4..6).contains(&exponent) {
        return format!("{value:e}");
    }
    let decimals = (5 - exponent).max(0) as usize;
    let fixed = format!("{value:.decimals$}");
    if fixed.contains('.') {
        fixed.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        fixed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GFX942: u32 = 90402;

    fn kernel(block: u32, arch: u32, accum: u32, sgpr: u32, lds: u32) -> KernelDetails {
        KernelDetails {
            workgroup_x: block,
            workgroup_y: 1,
            workgroup_z: 1,
            grid_x: block * 1024,
            arch_vgpr_count: arch,
            accum_vgpr_count: accum,
            sgpr_count: sgpr,
            group_segment_size: lds,
            ..KernelDetails::default()
        }
    }

    #[test]
    fn targets_are_decoded_from_the_version() {
        assert_eq!(target_constants(90010), Some(GFX90A), "gfx90a");
        assert_eq!(target_constants(GFX942), Some(GFX90A));
        assert_eq!(
            target_constants(90500).unwrap().lds_per_cu,
            163840,
            "gfx950"
        );
        let generic = target_constants(90008).unwrap();
        assert_eq!((generic.max_waves_per_simd, generic.total_vgprs), (10, 256));
        assert!(!generic.unified_vgpr_file);
        assert_eq!(target_constants(110000), None, "gfx11 is not modelled");
        assert_eq!(target_constants(0), None);
    }

    #[test]
    fn agprs_follow_the_aligned_arch_vgprs_on_a_unified_file() {
        let target = GFX90A;
        assert_eq!(unified_vgpr_count(&target, 61, 64), 128);
        assert_eq!(unified_vgpr_count(&target, 61, 0), 61);
        let generic = target_constants(90008).unwrap();
        assert_eq!(unified_vgpr_count(&generic, 61, 64), 64);
    }

    #[test]
    fn few_registers_fill_the_cu() {
        // 256 work-items = 4 waves; 64 VGPRs allow 8 waves per SIMD = 8 groups per CU.
        let occ = occupancy(&kernel(256, 64, 0, 32, 0), GFX942, 304).unwrap();
        assert_eq!(occ.percent, 100.0);
        assert_eq!(occ.min_grid_size, 8 * 304);
    }

    #[test]
    fn vgprs_limit_the_waves() {
        // 128 VGPRs: 512 / 128 = 4 waves per SIMD = 16 waves per CU = 4 groups of 4 waves.
        let occ = occupancy(&kernel(256, 128, 0, 32, 0), GFX942, 0).unwrap();
        assert_eq!(occ.percent, 50.0);
        assert_eq!(occ.min_grid_size, 0, "no CU count, no grid size");
        // AGPRs count on the unified file: 61 -> 64, + 64 = 128.
        let occ = occupancy(&kernel(256, 61, 64, 32, 0), GFX942, 1).unwrap();
        assert_eq!(occ.percent, 50.0);
    }

    #[test]
    fn lds_limits_the_groups() {
        // 24 KiB per group: 65536 / 24576 = 2 groups of 4 waves = 8 of 32 slots.
        let occ = occupancy(&kernel(256, 32, 0, 32, 24576), GFX942, 1).unwrap();
        assert_eq!(occ.percent, 25.0);
        // gfx950 has 160 KiB: 6 groups.
        let occ = occupancy(&kernel(256, 32, 0, 32, 24576), 90500, 1).unwrap();
        assert_eq!(occ.percent, 75.0);
    }

    #[test]
    fn single_wave_groups_are_bound_by_barriers_only_past_one_wave() {
        // 64 work-items: one wave per group, 32 groups.
        let occ = occupancy(&kernel(64, 32, 0, 32, 0), GFX942, 1).unwrap();
        assert_eq!(occ.percent, 100.0);
        // 128 work-items: two waves, at most 16 barriers (groups) = all 32 slots.
        let occ = occupancy(&kernel(128, 32, 0, 32, 0), GFX942, 1).unwrap();
        assert_eq!(occ.percent, 100.0);
        // 100 work-items in 2 waves: threads, not waves, count.
        let occ = occupancy(&kernel(100, 32, 0, 32, 0), GFX942, 1).unwrap();
        assert_eq!(format_like_strcat(occ.percent), "78.125");
    }

    #[test]
    fn what_cannot_be_modelled_gives_nothing() {
        assert_eq!(occupancy(&kernel(256, 64, 0, 32, 0), 110000, 1), None);
        assert_eq!(occupancy(&kernel(0, 64, 0, 32, 0), GFX942, 1), None);
        assert_eq!(occupancy(&kernel(256, 0, 0, 32, 0), GFX942, 1), None);
        assert_eq!(
            occupancy(&kernel(4096, 64, 0, 32, 0), GFX942, 1),
            None,
            "64 waves"
        );
        assert_eq!(
            occupancy(&kernel(256, 64, 3, 32, 0), GFX942, 1),
            None,
            "odd AGPRs"
        );
        // 512 VGPRs: one wave per SIMD, 4 per CU, but a group needs 16.
        assert_eq!(occupancy(&kernel(1024, 512, 0, 32, 0), GFX942, 1), None);
    }

    #[test]
    fn doubles_print_as_strcat_prints_them() {
        assert_eq!(format_like_strcat(100.0), "100");
        assert_eq!(format_like_strcat(37.5), "37.5");
        assert_eq!(format_like_strcat(100.0 / 3.0), "33.3333");
        assert_eq!(format_like_strcat(0.0), "0");
        assert_eq!(format_like_strcat(9.999999), "10");
    }
}
