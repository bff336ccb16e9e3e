//! Event and plane stats with XLA's names, order and formats (docs/xla-interface.md#event-stats, #device-capabilities, #scope-range-tree).
mod collector_support;

use std::sync::Arc;

use collector_support::*;
use xla_rocm_tracer::event::{
    EventDetails, EventType, KernelDetails, MemAllocDetails, MemcpyDetails, MemoryKind,
    MemsetDetails, RocmTracerEvent,
};
use xla_rocm_tracer::export::{
    kernel_details_string, memalloc_details_string, memcpy_details_string, memset_details_string,
    xplane_proto::x_event, KernelDevice,
};
use xla_rocm_tracer::sink::EventSink;

#[test]
fn detail_strings_have_xlas_exact_formats() {
    let kernel = KernelDetails {
        private_segment_size: 32,
        group_segment_size: 65536,
        workgroup_x: 256,
        workgroup_y: 1,
        workgroup_z: 0,
        grid_x: 4096,
        grid_y: 16,
        grid_z: 7,
        arch_vgpr_count: 61,
        accum_vgpr_count: 64,
        sgpr_count: 48,
        static_group_segment_size: 16384,
    };
    // Without a device: the larger register file, no occupancy.
    assert_eq!(
        kernel_details_string(&kernel, None),
        "regs:64 static_shared:16384 dynamic_shared:49152 grid:16,16,0 block:256,1,0 \
         private_mem:32"
    );
    // On gfx942: arch VGPRs aligned to 4 then the AGPRs (128), and the occupancy: 4 waves per
    // SIMD by VGPRs, but 64 KiB of LDS fits one 4-wave group per CU: 4 of 32 slots.
    let gfx942 = KernelDevice {
        gfx_target_version: 90402,
        cu_count: 304,
    };
    assert_eq!(
        kernel_details_string(&kernel, Some(gfx942)),
        "regs:128 static_shared:16384 dynamic_shared:49152 grid:16,16,0 block:256,1,0 \
         private_mem:32 occ_pct:12.5"
    );
    // A symbol that claims more static LDS than the dispatch has: no dynamic part.
    let odd = KernelDetails {
        static_group_segment_size: 70000,
        ..kernel
    };
    assert!(kernel_details_string(&odd, None).contains("static_shared:70000 dynamic_shared:0 "));
    // CUDA's form (XLA's CUPTI collector; the reference trace's `kind_src:pinned
    // kind_dst:device size:4194304 dest:0 async:1`).
    let copy = MemcpyDetails {
        num_bytes: 4194304,
        destination: 0,
        is_async: true,
        src_kind: MemoryKind::Pinned,
        dst_kind: MemoryKind::Device,
        ..MemcpyDetails::default()
    };
    assert_eq!(
        memcpy_details_string(&copy),
        "kind_src:pinned kind_dst:device size:4194304 dest:0 async:1"
    );
    let to_managed = MemcpyDetails {
        destination: 1,
        is_async: false,
        src_kind: MemoryKind::Pageable,
        dst_kind: MemoryKind::Managed,
        ..copy
    };
    assert_eq!(
        memcpy_details_string(&to_managed),
        "kind_src:pageable kind_dst:managed size:4194304 dest:1 async:0"
    );
    assert_eq!(
        memalloc_details_string(&MemAllocDetails { num_bytes: 5 }),
        "kind:Unknown num_bytes:5"
    );
    assert_eq!(
        memset_details_string(&MemsetDetails {
            num_bytes: 9,
            is_async: false
        }),
        "kind:device num_bytes:9 async:0"
    );
}

#[test]
fn stats_come_in_xlas_order_with_annotation_metadata() {
    let collector = collector(1);
    let annotation: Arc<str> = Arc::from(
        "jit_matmul#program_id=12,hlo_op=outer#::dot.3#hlo_op=dot.3,flops=1.5e9,name=big#",
    );
    let mut call = api(11, 3, 2_000_000, "hipLaunchKernel");
    call.annotation = Some(annotation.clone());
    call.scope_range_id = 42;
    let mut dispatch = kernel(11, AGENT0, 5, 2_010_000, "gemm");
    dispatch.annotation = Some(annotation);
    dispatch.scope_range_id = 42;
    dispatch.roctx_range = Some(Arc::from("range"));
    collector.add_events(&mut vec![call, dispatch]);
    let space = export(&collector);

    let gpu = plane(&space, "/device:GPU:0");
    let event = &gpu.lines[0].events[0];
    assert_eq!(
        stat_names(gpu, event),
        [
            "correlation_id",
            "scope_range_id",
            "nvtx_range",
            "kernel_details",
            "tf_op",
            "hlo_op",
            "flops",
            "name",
            "program_id"
        ]
    );
    let value = |name| stat(gpu, &event.stats, name);
    assert_eq!(value("scope_range_id").as_deref(), Some("i64:42"));
    assert_eq!(
        value("tf_op").as_deref(),
        Some("ref:jit_matmul"),
        "the outermost annotation"
    );
    assert_eq!(
        value("hlo_op").as_deref(),
        Some("ref:dot.3"),
        "the innermost level wins"
    );
    assert_eq!(value("flops").as_deref(), Some("double:1500000000"));
    assert_eq!(value("program_id").as_deref(), Some("i64:12"));
    assert_eq!(value("nvtx_range").as_deref(), Some("ref:range"));

    let host = plane(&space, "/host:ROCTRACER");
    let api_event = &host.lines[0].events[0];
    let names = stat_names(host, api_event);
    assert_eq!(
        &names[..3],
        ["device_id", "correlation_id", "scope_range_id"]
    );
    assert!(
        !names.contains(&"kernel_details"),
        "kernel details only on activities"
    );
}

#[test]
fn memory_operation_stats_use_xlas_names() {
    let collector = collector(1);
    let mut events = Vec::new();
    let cases = [
        (
            EventType::MemoryAlloc,
            EventDetails::MemAlloc(MemAllocDetails { num_bytes: 100 }),
            "memalloc_details",
            "ref:kind:Unknown num_bytes:100",
        ),
        (
            EventType::MemoryFree,
            EventDetails::MemAlloc(MemAllocDetails { num_bytes: 200 }),
            "MemFree_details",
            "ref:kind:Unknown num_bytes:200",
        ),
        (
            EventType::Memset,
            EventDetails::Memset(MemsetDetails {
                num_bytes: 300,
                is_async: true,
            }),
            "Memset_details",
            "ref:kind:device num_bytes:300 async:1",
        ),
    ];
    for (index, (event_type, details, _, _)) in cases.iter().enumerate() {
        let id = index as u64 + 1;
        let mut call = api(id, 1, 2_000_000, "hipCall");
        call.event_type = *event_type;
        call.details = *details;
        let activity = RocmTracerEvent {
            event_type: *event_type,
            details: *details,
            ..kernel(id, AGENT0, 0, 2_000_000 + id * 200_000, event_type.name())
        };
        events.extend([call, activity]);
    }
    collector.add_events(&mut events);
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    for (event, (_, _, stat_name, expected)) in gpu.lines[0].events.iter().zip(&cases) {
        assert_eq!(
            stat(gpu, &event.stats, stat_name).as_deref(),
            Some(*expected)
        );
    }
}

#[test]
fn times_are_offsets_from_the_gpu_start_on_wall_clock_lines() {
    let collector = collector(1);
    let mut late = kernel(2, AGENT0, 0, GPU_END - 1_000, "ends_after_export");
    late.end_time_ns = GPU_END + 1;
    let mut early = kernel(3, AGENT0, 0, GPU_START - 1, "starts_before_capture");
    early.end_time_ns = GPU_START + 10;
    collector.add_events(&mut vec![
        api(1, 1, 2_000_000, "hipLaunchKernel"),
        kernel(1, AGENT0, 0, 2_500_000, "inside"),
        api(2, 1, 2_000_000, "hipLaunchKernel"),
        late,
        api(3, 1, 2_000_000, "hipLaunchKernel"),
        early,
    ]);
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    let line = &gpu.lines[0];
    assert_eq!(line.timestamp_ns, WALL_START as i64);
    assert_eq!(event_names(gpu, line), ["inside"]);
    assert_eq!(
        line.events[0].data,
        Some(x_event::Data::OffsetPs(
            (2_500_000 - GPU_START as i64) * 1000
        ))
    );
    assert_eq!(line.events[0].duration_ps, 150_000 * 1000);
    assert_eq!(
        plane(&space, "/host:ROCTRACER").lines[0].timestamp_ns,
        WALL_START as i64
    );
    assert!(space
        .warnings
        .iter()
        .any(|w| w == "Dropped 2 events: outside the capture's time window"));
}

#[test]
fn an_unknown_export_time_keeps_the_events() {
    let collector = collector(1);
    let mut late = kernel(1, AGENT0, 0, GPU_END - 1_000, "ends_after_export");
    late.end_time_ns = GPU_END + 1;
    collector.add_events(&mut vec![api(1, 1, 2_000_000, "hipLaunchKernel"), late]);
    // 0 is what Tracer::timestamp() (and XLA's GetTimestamp) return when the SDK clock fails.
    let space = collector.export(0, &xla_rocm_tracer::export::ExportOptions::default());
    let gpu = plane(&space, "/device:GPU:0");
    assert_eq!(event_names(gpu, &gpu.lines[0]), ["ends_after_export"]);
    assert!(!space.warnings.iter().any(|w| w.contains("time window")));
}

#[test]
fn device_capabilities_and_scope_range_tree() {
    let collector = collector(1);
    collector.set_scope_range_id_tree([(5, 1), (7, 5)]);
    let space = export(&collector);
    let gpu = plane(&space, "/device:GPU:0");
    let names: Vec<_> = gpu
        .stats
        .iter()
        .map(|s| gpu.stat_metadata[&s.metadata_id].name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "device_vendor",
            "clock_rate",
            "core_count",
            "memory_bandwidth",
            "memory_size",
            "compute_cap_major",
            "compute_cap_minor",
            "gpu_device_name"
        ]
    );
    let value = |name| stat(gpu, &gpu.stats, name);
    assert_eq!(value("device_vendor").as_deref(), Some("str:AMD"));
    // Signed, as XLA writes it.
    assert_eq!(value("clock_rate").as_deref(), Some("i64:2100000"));
    assert_eq!(value("core_count").as_deref(), Some("u64:304"));
    assert_eq!(value("compute_cap_major").as_deref(), Some("u64:9"));
    assert_eq!(value("compute_cap_minor").as_deref(), Some("u64:4"));
    assert_eq!(
        value("memory_bandwidth").as_deref(),
        Some("u64:2662400000000")
    );

    let tree = plane(&space, "/host:__ScopeRangeCallStack__");
    assert_eq!(tree.id, 0, "XLA leaves the scope-range plane at id 0");
    let edges: Vec<_> = tree
        .stats
        .iter()
        .map(|s| (s.metadata_id, s.value.clone()))
        .collect();
    use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
    assert_eq!(
        edges,
        [
            (5, Some(Value::Int64Value(1))),
            (7, Some(Value::Int64Value(5)))
        ]
    );
}
