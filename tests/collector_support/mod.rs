//! Event builders and XSpace queries shared by the collector and export tests.
#![allow(dead_code)]
use std::sync::Arc;

// The library calls the SDK; the simulator supplies its symbols to the test binaries.
use rocprofiler_sdk_sim as _;

use xla_rocm_tracer::collector::{CaptureStart, Collector, CollectorOptions, GpuAgentInfo};
use xla_rocm_tracer::event::{
    EventDetails, EventDomain, EventSource, EventType, KernelDetails, MemcpyDetails,
    RocmTracerEvent,
};
use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
use xla_rocm_tracer::export::{ExportOptions, XEvent, XLine, XPlane, XSpace};

pub const WALL_START: u64 = 1_700_000_000_000_000_000;
pub const GPU_START: u64 = 1_000_000;
pub const GPU_END: u64 = 9_000_000;
pub const AGENT0: u64 = 0x1a2b;
pub const AGENT1: u64 = 0x1a2c;

pub fn start() -> CaptureStart {
    CaptureStart {
        walltime_ns: WALL_START,
        gputime_ns: GPU_START,
    }
}

pub fn agent(handle: u64, name: &str) -> GpuAgentInfo {
    GpuAgentInfo {
        handle,
        name: name.to_owned(),
        cu_count: 304,
        max_engine_clock_mhz: 2100,
        gfx_target_version: 90402,
        memory_size_bytes: 192 << 30,
        memory_bandwidth_bytes_per_second: 2 * 1300 * 1_000_000 * 8192 / 8,
    }
}

pub fn collector(num_gpus: u32) -> Collector {
    let collector = Collector::new(
        CollectorOptions {
            num_gpus,
            ..CollectorOptions::default()
        },
        start(),
    );
    let agents = [AGENT0, AGENT1].iter().take(num_gpus as usize);
    collector.set_gpu_agents(agents.map(|&handle| agent(handle, "gfx942")).collect());
    collector
}

pub fn api(correlation_id: u64, thread_id: u64, start: u64, name: &str) -> RocmTracerEvent {
    RocmTracerEvent {
        event_type: EventType::Kernel,
        source: EventSource::ApiCallback,
        domain: EventDomain::HipApi,
        name: Arc::from(name),
        start_time_ns: start,
        end_time_ns: start + 5_000,
        correlation_id,
        thread_id,
        ..RocmTracerEvent::default()
    }
}

pub fn kernel_details(grid_x: u32, workgroup_x: u32) -> KernelDetails {
    KernelDetails {
        private_segment_size: 16,
        group_segment_size: 4096,
        workgroup_x,
        workgroup_y: 1,
        workgroup_z: 1,
        grid_x,
        grid_y: 2,
        grid_z: 1,
        ..KernelDetails::default()
    }
}

pub fn kernel(
    correlation_id: u64,
    device: u64,
    stream: u64,
    start: u64,
    name: &str,
) -> RocmTracerEvent {
    RocmTracerEvent {
        event_type: EventType::Kernel,
        source: EventSource::Activity,
        domain: EventDomain::HipOps,
        name: Arc::from(name),
        start_time_ns: start,
        end_time_ns: start + 150_000,
        device_id: device as u32,
        correlation_id,
        thread_id: 77,
        stream_id: stream,
        queue_id: 0xdead_0000,
        details: EventDetails::Kernel(kernel_details(256 * 64, 256)),
        ..RocmTracerEvent::default()
    }
}

pub fn memcpy(
    correlation_id: u64,
    event_type: EventType,
    device: u64,
    stream: u64,
    start: u64,
    bytes: u64,
) -> RocmTracerEvent {
    RocmTracerEvent {
        event_type,
        source: EventSource::Activity,
        domain: EventDomain::HipOps,
        name: Arc::from(event_type.name()),
        start_time_ns: start,
        end_time_ns: start + 20_000,
        device_id: device as u32,
        correlation_id,
        thread_id: 77,
        stream_id: stream,
        details: EventDetails::Memcpy(MemcpyDetails {
            num_bytes: bytes,
            destination: device as u32,
            is_async: false,
            ..MemcpyDetails::default()
        }),
        ..RocmTracerEvent::default()
    }
}

/// An API event typed like the tracer types copy APIs (MemcpyOther).
pub fn copy_api(correlation_id: u64, thread_id: u64, start: u64) -> RocmTracerEvent {
    RocmTracerEvent {
        event_type: EventType::MemcpyOther,
        ..api(correlation_id, thread_id, start, "hipMemcpyAsync")
    }
}

pub fn export(collector: &Collector) -> XSpace {
    collector.export(GPU_END, &ExportOptions::default())
}

pub fn plane<'a>(space: &'a XSpace, name: &str) -> &'a XPlane {
    space
        .planes
        .iter()
        .find(|plane| plane.name == name)
        .unwrap_or_else(|| panic!("no plane {name}; planes: {:?}", plane_names(space)))
}

pub fn plane_names(space: &XSpace) -> Vec<&str> {
    space
        .planes
        .iter()
        .map(|plane| plane.name.as_str())
        .collect()
}

pub fn line_names(plane: &XPlane) -> Vec<&str> {
    plane.lines.iter().map(|line| line.name.as_str()).collect()
}

pub fn line<'a>(plane: &'a XPlane, name: &str) -> &'a XLine {
    plane
        .lines
        .iter()
        .find(|line| line.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no line {name} on {}; lines: {:?}",
                plane.name,
                line_names(plane)
            )
        })
}

pub fn event_name<'a>(plane: &'a XPlane, event: &XEvent) -> &'a str {
    &plane.event_metadata[&event.metadata_id].name
}

pub fn event_names<'a>(plane: &'a XPlane, line: &XLine) -> Vec<&'a str> {
    line.events
        .iter()
        .map(|event| event_name(plane, event))
        .collect()
}

/// Stat names of an event, in order.
pub fn stat_names<'a>(plane: &'a XPlane, event: &XEvent) -> Vec<&'a str> {
    event
        .stats
        .iter()
        .map(|stat| plane.stat_metadata[&stat.metadata_id].name.as_str())
        .collect()
}

/// A stat's value as text; ref values are resolved to the referenced metadata name.
pub fn stat(
    plane: &XPlane,
    stats: &[xla_rocm_tracer::export::XStat],
    name: &str,
) -> Option<String> {
    let stat = stats.iter().find(|stat| {
        plane
            .stat_metadata
            .get(&stat.metadata_id)
            .map(|m| m.name.as_str())
            == Some(name)
    })?;
    Some(match stat.value.as_ref()? {
        Value::DoubleValue(v) => format!("double:{v}"),
        Value::Uint64Value(v) => format!("u64:{v}"),
        Value::Int64Value(v) => format!("i64:{v}"),
        Value::StrValue(v) => format!("str:{v}"),
        Value::BytesValue(v) => format!("bytes:{}", v.len()),
        Value::RefValue(id) => format!("ref:{}", plane.stat_metadata[&(*id as i64)].name),
    })
}

pub fn all_events(plane: &XPlane) -> impl Iterator<Item = &XEvent> {
    plane.lines.iter().flat_map(|line| line.events.iter())
}
