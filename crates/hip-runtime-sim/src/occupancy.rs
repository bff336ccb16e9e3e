//! Occupancy answers for the simulated gfx942 (what `rocm_collector.cc` asks through
//! `hipOccupancyMaxActiveBlocksPerMultiprocessor` / `hipOccupancyMaxPotentialBlockSize`).
//! A wavefront-and-LDS model: blocks per CU are limited by resident threads (rounded up to
//! whole wavefronts), the per-CU block limit and shared memory. Registers are not modelled.

use crate::device_props::{
    COMPUTE_UNITS, MAX_BLOCKS_PER_CU, MAX_THREADS_PER_BLOCK, MAX_THREADS_PER_CU,
    SHARED_MEM_PER_BLOCK, WARP_SIZE,
};

/// Blocks of `block_size` threads that fit on one CU; `None` for an impossible block.
pub fn max_active_blocks_per_cu(block_size: i32, dyn_shared_bytes: usize) -> Option<i32> {
    if block_size <= 0
        || block_size > MAX_THREADS_PER_BLOCK
        || dyn_shared_bytes > SHARED_MEM_PER_BLOCK
    {
        return None;
    }
    let waves = (block_size + WARP_SIZE - 1) / WARP_SIZE;
    let by_threads = MAX_THREADS_PER_CU / (waves * WARP_SIZE);
    let by_lds = SHARED_MEM_PER_BLOCK
        .checked_div(dyn_shared_bytes)
        .map_or(i32::MAX, |n| i32::try_from(n).unwrap_or(i32::MAX));
    Some(by_threads.min(by_lds).min(MAX_BLOCKS_PER_CU))
}

/// (min grid size for full occupancy, block size) maximising resident threads per CU; ties go
/// to the larger block. `block_size_limit` 0 means no limit.
pub fn max_potential_block_size(
    dyn_shared_bytes: usize,
    block_size_limit: i32,
) -> Option<(i32, i32)> {
    if block_size_limit < 0 {
        return None;
    }
    let limit = if block_size_limit == 0 {
        MAX_THREADS_PER_BLOCK
    } else {
        block_size_limit.min(MAX_THREADS_PER_BLOCK)
    };
    let mut best: Option<(i32, i32, i32)> = None; // (resident threads, block size, blocks per CU)
    let mut size = WARP_SIZE.min(limit);
    while size <= limit {
        if let Some(blocks) = max_active_blocks_per_cu(size, dyn_shared_bytes) {
            let resident = blocks * size;
            if best.is_none_or(|(r, _, _)| resident >= r) && blocks > 0 {
                best = Some((resident, size, blocks));
            }
        }
        size += WARP_SIZE;
    }
    best.map(|(_, size, blocks)| (blocks * COMPUTE_UNITS, size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_limited_by_threads_lds_and_block_cap() {
        assert_eq!(max_active_blocks_per_cu(256, 0), Some(8));
        assert_eq!(max_active_blocks_per_cu(1024, 0), Some(2));
        // 100 threads occupy two wavefronts.
        assert_eq!(max_active_blocks_per_cu(100, 0), Some(16));
        assert_eq!(max_active_blocks_per_cu(64, 0), Some(MAX_BLOCKS_PER_CU));
        assert_eq!(max_active_blocks_per_cu(256, 32 * 1024), Some(2));
        assert_eq!(max_active_blocks_per_cu(0, 0), None);
        assert_eq!(max_active_blocks_per_cu(2048, 0), None);
        assert_eq!(max_active_blocks_per_cu(64, 1 << 20), None);
    }

    #[test]
    fn potential_block_size_fills_the_device() {
        assert_eq!(
            max_potential_block_size(0, 0),
            Some((2 * COMPUTE_UNITS, 1024))
        );
        assert_eq!(
            max_potential_block_size(0, 256),
            Some((8 * COMPUTE_UNITS, 256))
        );
        assert_eq!(max_potential_block_size(0, -1), None);
    }
}
