//! Checks the trace `tests/hip/hip_host_program.cc` captured (tests/hip/run.sh runs this):
//! lanes, kernel names, copies and correlation ids, as XLA's trace viewer would show them.
//!
//! The program's activity, by stream: H2D stream: two host-to-device copies; compute stream:
//! `vector_add`, `scale`, then a graph of two `scale` nodes; D2H stream: one device-to-host
//! copy; null stream (no stream argument): `hipMemcpy` device-to-host.

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
use xla_rocm_tracer::export::{read_xspace_file, XPlane};
// The tracer library references the SDK's symbols; the simulated SDK provides them.
use rocprofiler_sdk_sim as _;

#[derive(Debug, Clone)]
struct Event {
    name: String,
    stats: BTreeMap<String, String>,
}

impl Event {
    fn correlation_id(&self) -> Option<&str> {
        self.stats.get("correlation_id").map(String::as_str)
    }
    fn is_kernel(&self) -> bool {
        self.stats.contains_key("kernel_details")
    }
    fn is_memcpy(&self) -> bool {
        self.stats.contains_key("memcpy_details")
    }
}

/// Lines of a plane by name, with their events resolved to names and stats.
fn lines(plane: &XPlane) -> BTreeMap<String, Vec<Event>> {
    let stat_name = |id: i64| {
        plane
            .stat_metadata
            .get(&id)
            .map(|m| m.name.clone())
            .unwrap_or_default()
    };
    plane
        .lines
        .iter()
        .map(|line| {
            let events = line
                .events
                .iter()
                .map(|e| Event {
                    name: plane
                        .event_metadata
                        .get(&e.metadata_id)
                        .map(|m| m.name.clone())
                        .unwrap_or_default(),
                    stats: e
                        .stats
                        .iter()
                        .map(|s| {
                            let value = match &s.value {
                                Some(Value::DoubleValue(v)) => v.to_string(),
                                Some(Value::Uint64Value(v)) => v.to_string(),
                                Some(Value::Int64Value(v)) => v.to_string(),
                                Some(Value::StrValue(v)) => v.clone(),
                                Some(Value::BytesValue(v)) => format!("{v:?}"),
                                Some(Value::RefValue(v)) => stat_name(*v as i64),
                                None => String::new(),
                            };
                            (stat_name(s.metadata_id), value)
                        })
                        .collect(),
                })
                .collect();
            (line.name.clone(), events)
        })
        .collect()
}

fn check(path: &str) -> Result<(), String> {
    let space = read_xspace_file(path).map_err(|e| format!("{path}: {e}"))?;
    let plane = |name: &str| {
        space
            .planes
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("no plane {name:?} in {path}"))
    };
    let gpu = lines(plane("/device:GPU:0")?);
    let host = lines(plane("/host:ROCTRACER")?);

    // Host API calls by correlation id.
    let mut api_by_correlation = BTreeMap::new();
    for events in host.values() {
        for e in events {
            if let Some(id) = e.correlation_id() {
                api_by_correlation.insert(id.to_owned(), e.name.clone());
            }
        }
    }
    let api_of = |e: &Event| -> Result<String, String> {
        let id = e
            .correlation_id()
            .ok_or(format!("{} has no correlation_id", e.name))?;
        api_by_correlation.get(id).cloned().ok_or(format!(
            "{} (correlation {id}) has no HIP API event",
            e.name
        ))
    };

    // Lanes.
    let kernel_lanes: Vec<_> = gpu
        .iter()
        .filter(|(_, events)| {
            events
                .iter()
                .any(|e| e.is_kernel() && !e.name.starts_with("__amd_rocclr"))
        })
        .collect();
    if kernel_lanes.len() != 1 {
        return Err(format!(
            "kernels of the compute stream on {} lanes",
            kernel_lanes.len()
        ));
    }
    let (compute_lane, compute) = kernel_lanes[0];
    let names: Vec<&str> = compute
        .iter()
        .filter(|e| e.is_kernel())
        .map(|e| e.name.as_str())
        .collect();
    let count = |prefix: &str| names.iter().filter(|n| n.starts_with(prefix)).count();
    if count("vector_add(") != 1 || count("scale(") != 3 || names.len() != 4 {
        return Err(format!("compute lane {compute_lane:?} kernels: {names:?}"));
    }
    if compute.iter().any(Event::is_memcpy) {
        return Err(format!("copies on the compute lane {compute_lane:?}"));
    }

    // Correlation: launches and the graph.
    let mut graph_ids = BTreeSet::new();
    let mut graph_kernels = 0;
    for e in compute.iter().filter(|e| e.is_kernel()) {
        match api_of(e)?.as_str() {
            "hipLaunchKernel" => {}
            "hipGraphLaunch" => {
                graph_kernels += 1;
                graph_ids.insert(e.correlation_id().unwrap_or_default().to_owned());
            }
            other => return Err(format!("kernel {} correlated to {other}", e.name)),
        }
    }
    if graph_kernels != 2 || graph_ids.len() != 1 {
        return Err(format!(
            "graph kernels {graph_kernels} under ids {graph_ids:?}"
        ));
    }

    // Copies: which lane and which API call each one belongs to.
    let mut copy_lanes: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (lane, events) in &gpu {
        for e in events.iter().filter(|e| e.is_memcpy()) {
            copy_lanes
                .entry(lane.clone())
                .or_default()
                .push((e.name.clone(), api_of(e)?));
        }
    }
    let lanes_with = |api: &str| -> Vec<(String, usize)> {
        copy_lanes
            .iter()
            .map(|(lane, copies)| {
                (
                    lane.clone(),
                    copies.iter().filter(|(_, a)| a == api).count(),
                )
            })
            .filter(|(_, n)| *n > 0)
            .collect()
    };
    let async_lanes = lanes_with("hipMemcpyAsync");
    let sync_lanes = lanes_with("hipMemcpy");
    // Two H2D copies on one lane, one D2H copy on another; the synchronous copy on a third.
    let mut async_counts: Vec<usize> = async_lanes.iter().map(|(_, n)| *n).collect();
    async_counts.sort();
    if async_counts != [1, 2] {
        return Err(format!("hipMemcpyAsync copies per lane: {async_lanes:?}"));
    }
    if sync_lanes.len() != 1 || sync_lanes[0].1 != 1 {
        return Err(format!("hipMemcpy copies per lane: {sync_lanes:?}"));
    }
    let all_copy_lanes: BTreeSet<&String> = async_lanes
        .iter()
        .chain(&sync_lanes)
        .map(|(l, _)| l)
        .collect();
    if all_copy_lanes.len() != 3 || all_copy_lanes.contains(compute_lane) {
        return Err(format!(
            "copy lanes {all_copy_lanes:?}, compute lane {compute_lane:?}"
        ));
    }
    for lane in all_copy_lanes.iter().chain([&compute_lane]) {
        if !lane.starts_with("Stream #") {
            return Err(format!("lane name {lane:?} is not XLA's \"Stream #N\""));
        }
    }

    println!("trace ok: compute lane {compute_lane:?} with {names:?}; copy lanes {copy_lanes:?}");
    Ok(())
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: check_hip_trace TRACE.xplane.pb");
        return ExitCode::from(2);
    };
    match check(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("check_hip_trace: {problem}");
            ExitCode::FAILURE
        }
    }
}
