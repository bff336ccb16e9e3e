//! The stats of one exported event, with XLA's names, order and string formats
//! (`CreateXEvent`, docs/xla-interface.md#event-stats).
use std::collections::HashSet;

use super::annotation::parse_annotation_stack;
use super::details_input::DetailsInput;
use super::occupancy::{format_like_strcat, occupancy, registers_per_work_item};
use super::plane_builder::{PerEventStat, PlaneBuilder};
use super::plane_names::{
    CUDA_GRAPH_ID_STAT, GRAPH_NODE_ID_STAT, KERNEL_DETAILS_STAT, MEMALLOC_DETAILS_STAT,
    MEMCPY_DETAILS_STAT, MEMFREE_DETAILS_STAT, MEMSET_DETAILS_STAT,
};
use super::xplane_proto::{x_stat, XStat};

/// XLA's `kTheoreticalOccupancyPct` and `kOccupancyMinGridSize` stats.
const THEORETICAL_OCCUPANCY_STAT: &str = "theoretical_occupancy_pct";
const OCCUPANCY_MIN_GRID_SIZE_STAT: &str = "occupancy_min_grid_size";
/// XLA's `kNVTXRange`: the ROCTx label, a ref stat as XLA writes it.
const NVTX_RANGE_STAT: &str = "nvtx_range";
use crate::event::{
    EventDetails, EventSource, EventType, KernelDetails, MemAllocDetails, MemcpyDetails,
    MemsetDetails, RocmTracerEvent,
};

/// The device a kernel ran on, as far as the occupancy model needs it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelDevice {
    /// The agent's `gfx_target_version` (0: unknown).
    pub gfx_target_version: u32,
    pub cu_count: u32,
}

/// The newer XLA's `ToXStat(kernel_info, regs, occupancy)` (openxla/xla#47469): registers,
/// static and dynamic LDS, grid in blocks (work-items divided by the workgroup size, 0 for a
/// zero workgroup), block, scratch, and ` occ_pct:` only when the occupancy model answered.
/// The keys are the ones xprof's kernel-stats parser reads
/// (docs/xla-interface.md#kernel-resources-and-occupancy).
pub fn kernel_details_string(kernel: &KernelDetails, device: Option<KernelDevice>) -> String {
    let blocks = |grid: u32, workgroup: u32| grid.checked_div(workgroup).unwrap_or(0);
    let device = device.unwrap_or_default();
    let mut details = format!(
        "regs:{} static_shared:{} dynamic_shared:{} grid:{},{},{} block:{},{},{} private_mem:{}",
        registers_per_work_item(kernel, device.gfx_target_version),
        kernel.static_group_segment_size,
        kernel.dynamic_group_segment_size(),
        blocks(kernel.grid_x, kernel.workgroup_x),
        blocks(kernel.grid_y, kernel.workgroup_y),
        blocks(kernel.grid_z, kernel.workgroup_z),
        kernel.workgroup_x,
        kernel.workgroup_y,
        kernel.workgroup_z,
        kernel.private_segment_size,
    );
    if let Some(occupancy) = occupancy(kernel, device.gfx_target_version, device.cu_count) {
        details.push_str(" occ_pct:");
        details.push_str(&format_like_strcat(occupancy.percent));
    }
    details
}

/// CUDA's form, as XLA's CUPTI collector writes it (`kind_src:pinned kind_dst:device
/// size:4194304 dest:0 async:1`): the memory kind of each side from the HIP call's pointers,
/// `dest` the destination GPU's ordinal (the collector numbers it as the planes), `async` 1
/// for HIP's `...Async` copy functions. One form for every copy, the ones HIP ran as blit
/// kernels included (docs/xla-interface.md#copy-details).
pub fn memcpy_details_string(memcpy: &MemcpyDetails) -> String {
    format!(
        "kind_src:{} kind_dst:{} size:{} dest:{} async:{}",
        memcpy.src_kind.name(),
        memcpy.dst_kind.name(),
        memcpy.num_bytes,
        memcpy.destination,
        u8::from(memcpy.is_async)
    )
}

pub fn memalloc_details_string(memalloc: &MemAllocDetails) -> String {
    format!("kind:Unknown num_bytes:{}", memalloc.num_bytes)
}

/// CUDA's form: HIP's memset functions fill device memory, `kind:device` (XLA's ROCm branch
/// `clchong/rocm-collector-event-fidelity` writes the same).
pub fn memset_details_string(memset: &MemsetDetails) -> String {
    format!(
        "kind:device num_bytes:{} async:{}",
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

/// Appends the stats of `event` to `stats`, in XLA's order. `device_ordinal` is the `device_id` value of API events: XLA
/// writes the raw agent handle there (docs/xla-interface.md#xla-edge-19); this writes the plane ordinal, as
/// the CUPTI collector writes the CUDA ordinal, so host events point at their device plane.
pub(crate) fn event_stats(
    plane: &mut PlaneBuilder,
    event: &RocmTracerEvent,
    device_ordinal: u32,
    device: Option<KernelDevice>,
    stats: &mut Vec<XStat>,
) {
    // A copy the CPU did has no device to point at.
    if event.source == EventSource::ApiCallback
        && event.device_id != RocmTracerEvent::INVALID_DEVICE_ID
    {
        stats.push(XStat {
            metadata_id: plane.per_event_stat_id(PerEventStat::Device),
            value: Some(x_stat::Value::Uint64Value(u64::from(device_ordinal))),
        });
    }
    if event.correlation_id != RocmTracerEvent::INVALID_CORRELATION_ID {
        stats.push(XStat {
            metadata_id: plane.per_event_stat_id(PerEventStat::Correlation),
            value: Some(x_stat::Value::Uint64Value(event.correlation_id)),
        });
    }
    if event.scope_range_id != 0 {
        stats.push(XStat {
            metadata_id: plane.per_event_stat_id(PerEventStat::ScopeRange),
            value: Some(x_stat::Value::Int64Value(event.scope_range_id)),
        });
    }
    // A ROCTx range or mark is named by its label; other events carry the innermost label
    // active at their HIP call.
    let nvtx_range = if event.event_type == EventType::Generic {
        Some(&*event.name)
    } else {
        event.roctx_range.as_deref()
    };
    if let Some(range) = nvtx_range.filter(|range| !range.is_empty()) {
        stats.push(plane.ref_stat(NVTX_RANGE_STAT, range));
    }
    match event.event_type {
        // A blit kernel of a copy call whose direction is unknown (`hipMemcpyDefault`) stays
        // a kernel but carries the copy's details (see the collector's join).
        EventType::Kernel
            if event.source == EventSource::Activity
                && matches!(event.details, EventDetails::Memcpy(_)) =>
        {
            copy_stats(plane, &memcpy_details(event), stats);
        }
        EventType::Kernel if event.source == EventSource::Activity => {
            let kernel = kernel_details(event);
            let device = device.unwrap_or_default();
            let input = DetailsInput::Kernel {
                fields: kernel.to_array(),
                gfx_target_version: device.gfx_target_version,
                cu_count: device.cu_count,
            };
            memoized_details(plane, input, stats, |plane, stats| {
                kernel_stats(plane, &kernel, device, stats)
            });
        }
        // XLA's CUPTI collector lists these five.
        EventType::MemcpyH2D
        | EventType::MemcpyD2H
        | EventType::MemcpyD2D
        | EventType::MemcpyP2P
        | EventType::MemcpyOther => copy_stats(plane, &memcpy_details(event), stats),
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
    graph_stats(plane, event, stats);
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
}

/// A graph node's stats (docs/xla-interface.md#graph-nodes): the executable's id as
/// `cuda_graph_id`, the stat XLA's CUPTI collector puts on every node of a graph traced node
/// by node, and the node's ordinal in its launch as `graph_node_id` (the schema has no node
/// stat). Not `cuda_graph_exec_id`: xprof takes an event with that stat for a whole graph's
/// execution, not for one of its kernels.
fn graph_stats(plane: &mut PlaneBuilder, event: &RocmTracerEvent, stats: &mut Vec<XStat>) {
    let Some(node) = event
        .graph
        .filter(|_| event.source == EventSource::Activity)
    else {
        return;
    };
    if node.exec_id != 0 {
        stats.push(plane.stat(CUDA_GRAPH_ID_STAT, x_stat::Value::Uint64Value(node.exec_id)));
    }
    stats.push(plane.stat(
        GRAPH_NODE_ID_STAT,
        x_stat::Value::Uint64Value(u64::from(node.ordinal)),
    ));
}

/// A copy's `memcpy_details`, made once per plane for equal details.
fn copy_stats(plane: &mut PlaneBuilder, copy: &MemcpyDetails, stats: &mut Vec<XStat>) {
    let input = DetailsInput::Copy {
        num_bytes: copy.num_bytes,
        destination: copy.destination,
        is_async: copy.is_async,
        src_kind: copy.src_kind,
        dst_kind: copy.dst_kind,
    };
    memoized_details(plane, input, stats, |plane, stats| {
        let details = memcpy_details_string(copy);
        stats.push(plane.ref_stat(MEMCPY_DETAILS_STAT, &details));
    });
}

/// Appends the details stats of `input` to `stats`: made by `make` the first time the plane
/// sees `input`, copied after. The stats of one input hold no strings but metadata
/// references, so a copy is the same stats, and no metadata id is handed out twice.
fn memoized_details(
    plane: &mut PlaneBuilder,
    input: DetailsInput,
    stats: &mut Vec<XStat>,
    make: impl FnOnce(&mut PlaneBuilder, &mut Vec<XStat>),
) {
    if let Some(known) = plane.details_stats(&input) {
        stats.extend_from_slice(known);
        return;
    }
    let first = stats.len();
    make(plane, stats);
    plane.remember_details_stats(input, stats[first..].to_vec());
}

/// A kernel's details string and, when the occupancy model answers, its occupancy stats.
fn kernel_stats(
    plane: &mut PlaneBuilder,
    kernel: &KernelDetails,
    device: KernelDevice,
    stats: &mut Vec<XStat>,
) {
    let details = kernel_details_string(kernel, Some(device));
    stats.push(plane.ref_stat(KERNEL_DETAILS_STAT, &details));
    if let Some(occupancy) = occupancy(kernel, device.gfx_target_version, device.cu_count) {
        stats.push(plane.stat(
            THEORETICAL_OCCUPANCY_STAT,
            x_stat::Value::DoubleValue(occupancy.percent),
        ));
        if occupancy.min_grid_size > 0 {
            stats.push(plane.int64_stat(
                OCCUPANCY_MIN_GRID_SIZE_STAT,
                i64::from(occupancy.min_grid_size),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(grid_x: u32, correlation_id: u64) -> RocmTracerEvent {
        RocmTracerEvent {
            event_type: EventType::Kernel,
            source: EventSource::Activity,
            correlation_id,
            details: EventDetails::Kernel(KernelDetails {
                workgroup_x: 256,
                workgroup_y: 1,
                workgroup_z: 1,
                grid_x,
                grid_y: 1,
                grid_z: 1,
                arch_vgpr_count: 32,
                ..KernelDetails::default()
            }),
            ..RocmTracerEvent::default()
        }
    }

    /// The stats each event gets from a fresh plane: what the memo must reproduce.
    fn fresh_stats(event: &RocmTracerEvent, device: KernelDevice) -> Vec<(String, String)> {
        let mut plane = PlaneBuilder::new(1, "fresh");
        let mut stats = Vec::new();
        event_stats(&mut plane, event, 0, Some(device), &mut stats);
        named(&plane.finish(), &stats)
    }

    /// Stats by metadata name, ref values read as their names, so two planes compare.
    fn named(plane: &super::super::xplane_proto::XPlane, stats: &[XStat]) -> Vec<(String, String)> {
        let name = |id: i64| plane.stat_metadata[&id].name.clone();
        stats
            .iter()
            .map(|stat| {
                let value = match &stat.value {
                    Some(x_stat::Value::RefValue(id)) => name(*id as i64),
                    other => format!("{other:?}"),
                };
                (name(stat.metadata_id), value)
            })
            .collect()
    }

    #[test]
    fn events_on_one_plane_get_the_details_of_their_own_inputs() {
        let gfx942 = KernelDevice {
            gfx_target_version: 90402,
            cu_count: 304,
        };
        let events = [
            (kernel(65536, 1), gfx942),
            (kernel(65536, 2), gfx942),
            (kernel(512, 3), gfx942),
            (kernel(65536, 4), KernelDevice::default()),
            (kernel(65536, 5), gfx942),
        ];
        let mut plane = PlaneBuilder::new(1, "shared");
        let stats: Vec<Vec<XStat>> = events
            .iter()
            .map(|(event, device)| {
                let mut stats = Vec::new();
                event_stats(&mut plane, event, 0, Some(*device), &mut stats);
                stats
            })
            .collect();
        let plane = plane.finish();
        for ((event, device), stats) in events.iter().zip(&stats) {
            assert_eq!(named(&plane, stats), fresh_stats(event, *device));
        }
        // One details string per distinct input, each made once.
        let details: Vec<_> = plane
            .stat_metadata
            .values()
            .filter(|metadata| metadata.name.starts_with("regs:"))
            .collect();
        assert_eq!(details.len(), 3);
        assert!(named(&plane, &stats[0])
            .iter()
            .any(|(name, _)| name == "theoretical_occupancy_pct"));
    }
}
