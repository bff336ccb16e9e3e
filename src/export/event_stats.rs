//! The stats of one exported event, with XLA's names, order and string formats
//! (`CreateXEvent`, docs/xla-interface.md#event-stats).
use std::collections::HashSet;

use super::annotation::parse_annotation_stack;
use super::plane_builder::PlaneBuilder;
use super::plane_names::{
    KERNEL_DETAILS_STAT, MEMALLOC_DETAILS_STAT, MEMCPY_DETAILS_STAT, MEMFREE_DETAILS_STAT,
    MEMSET_DETAILS_STAT,
};
use super::xplane_proto::XStat;
use crate::event::{
    EventDetails, EventSource, EventType, KernelDetails, MemAllocDetails, MemcpyDetails,
    MemsetDetails, RocmTracerEvent,
};

/// XLA's `ToXStat(kernel_info, occupancy_pct)`; grid is printed in blocks (work-items divided
/// by the workgroup size, 0 for a zero workgroup), and the string starts with a space.
pub fn kernel_details_string(kernel: &KernelDetails, occupancy_pct: f64) -> String {
    let blocks = |grid: u32, workgroup: u32| grid.checked_div(workgroup).unwrap_or(0);
    format!(
        " grid:{},{},{} block:{},{},{} private_mem:{} group_mem:{} occ_pct:{}",
        blocks(kernel.grid_x, kernel.workgroup_x),
        blocks(kernel.grid_y, kernel.workgroup_y),
        blocks(kernel.grid_z, kernel.workgroup_z),
        kernel.workgroup_x,
        kernel.workgroup_y,
        kernel.workgroup_z,
        kernel.private_segment_size,
        kernel.group_segment_size,
        occupancy_pct,
    )
}

/// The memory kind is always "Unknown" (docs/xla-interface.md#xla-edge-20); `dest` is the destination agent
/// handle truncated to 32 bits, as XLA stores it (docs/xla-interface.md#xla-edge-7).
pub fn memcpy_details_string(memcpy: &MemcpyDetails) -> String {
    format!(
        "kind:Unknown size:{} dest:{} async:{}",
        memcpy.num_bytes,
        memcpy.destination,
        u8::from(memcpy.is_async)
    )
}

/// A same-GPU copy HIP ran as a blit kernel: both sides are device memory, which is known
/// here, so the memory kinds are written the way CUPTI's details write them (`kind_src` /
/// `kind_dst`), and readers can tell a device-to-device copy (docs/xla-interface.md#copy-apis).
pub(crate) fn blit_copy_details_string(memcpy: &MemcpyDetails) -> String {
    format!(
        "kind_src:device kind_dst:device size:{} dest:{} async:{}",
        memcpy.num_bytes,
        memcpy.destination,
        u8::from(memcpy.is_async)
    )
}

pub fn memalloc_details_string(memalloc: &MemAllocDetails) -> String {
    format!("kind:Unknown num_bytes:{}", memalloc.num_bytes)
}

pub fn memset_details_string(memset: &MemsetDetails) -> String {
    format!(
        "kind:Unknown num_bytes:{} async:{}",
        memset.num_bytes,
        u8::from(memset.is_async)
    )
}

/// XLA reads the details union whatever it holds; absent details read as zeros here.
fn kernel_details(event: &RocmTracerEvent) -> KernelDetails {
    match event.details {
        EventDetails::Kernel(details) => details,
        _ => KernelDetails::default(),
    }
}

fn memcpy_details(event: &RocmTracerEvent) -> MemcpyDetails {
    match event.details {
        EventDetails::Memcpy(details) => details,
        _ => MemcpyDetails::default(),
    }
}

fn memalloc_details(event: &RocmTracerEvent) -> MemAllocDetails {
    match event.details {
        EventDetails::MemAlloc(details) => details,
        _ => MemAllocDetails::default(),
    }
}

fn memset_details(event: &RocmTracerEvent) -> MemsetDetails {
    match event.details {
        EventDetails::Memset(details) => details,
        _ => MemsetDetails::default(),
    }
}

/// The stats in XLA's order. `device_ordinal` is the `device_id` value of API events: XLA
/// writes the raw agent handle there (docs/xla-interface.md#xla-edge-19); this writes the plane ordinal, as
/// the CUPTI collector writes the CUDA ordinal, so host events point at their device plane.
pub(crate) fn event_stats(
    plane: &mut PlaneBuilder,
    event: &RocmTracerEvent,
    device_ordinal: u32,
) -> Vec<XStat> {
    let mut stats = Vec::new();
    // A copy the CPU did has no device to point at.
    if event.source == EventSource::ApiCallback
        && event.device_id != RocmTracerEvent::INVALID_DEVICE_ID
    {
        stats.push(plane.uint64_stat("device_id", u64::from(device_ordinal)));
    }
    if event.correlation_id != RocmTracerEvent::INVALID_CORRELATION_ID {
        stats.push(plane.uint64_stat("correlation_id", event.correlation_id));
    }
    if event.scope_range_id != 0 {
        stats.push(plane.int64_stat("scope_range_id", event.scope_range_id));
    }
    if let Some(range) = event
        .roctx_range
        .as_deref()
        .filter(|range| !range.is_empty())
    {
        stats.push(plane.ref_stat("nvtx_range", range));
    }
    match event.event_type {
        // A blit kernel that did a copy call carries the copy's size (see the collector's join).
        EventType::Kernel if event.source == EventSource::Activity => {
            if let EventDetails::Memcpy(copy) = &event.details {
                let details = blit_copy_details_string(copy);
                stats.push(plane.ref_stat(MEMCPY_DETAILS_STAT, &details));
            } else {
                let details = kernel_details_string(&kernel_details(event), 0.0);
                stats.push(plane.ref_stat(KERNEL_DETAILS_STAT, &details));
            }
        }
        // XLA lists these four; a P2P copy gets no details.
        EventType::MemcpyH2D
        | EventType::MemcpyD2H
        | EventType::MemcpyD2D
        | EventType::MemcpyOther => {
            let details = memcpy_details_string(&memcpy_details(event));
            stats.push(plane.ref_stat(MEMCPY_DETAILS_STAT, &details));
        }
        EventType::MemoryAlloc => {
            let details = memalloc_details_string(&memalloc_details(event));
            stats.push(plane.ref_stat(MEMALLOC_DETAILS_STAT, &details));
        }
        EventType::MemoryFree => {
            let details = memalloc_details_string(&memalloc_details(event));
            stats.push(plane.ref_stat(MEMFREE_DETAILS_STAT, &details));
        }
        EventType::Memset => {
            let details = memset_details_string(&memset_details(event));
            stats.push(plane.ref_stat(MEMSET_DETAILS_STAT, &details));
        }
        _ => {}
    }
    if let Some(annotation) = event.annotation.as_deref() {
        let stack = parse_annotation_stack(annotation);
        if let Some(outermost) = stack.first() {
            stats.push(plane.ref_stat("tf_op", outermost.name));
        }
        // The innermost level wins when several levels carry the same key.
        let mut seen_keys = HashSet::new();
        for level in stack.iter().rev() {
            for &(key, value) in &level.metadata {
                if seen_keys.insert(key) {
                    stats.push(plane.parsed_stat(key, value));
                }
            }
        }
    }
    stats
}
