//! Stream waits as flows (docs/xla-interface.md#stream-waits), end to end: a scenario's
//! `hipEventRecord` / `hipStreamWaitEvent` pairs replayed through the simulator, the tracer and
//! the collector become, in the XSpace, pairs of zero-length events whose `flow` stats share
//! an id, `out` (2) on the recording lane and `in` (1) on the waiting one, in XFlow's encoding
//! (direction in bits 0-1, id from bit 2, category 0 in bits 58-63).
// The library calls the SDK; the simulator supplies its symbols to this test binary.
use rocprofiler_sdk_sim as _;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
use xla_rocm_tracer::export::{read_xspace_file, XSpace};

fn replay(scenario: &str) -> XSpace {
    let output = std::env::temp_dir().join(format!(
        "wait-flows-{}-{}.xplane.pb",
        std::process::id(),
        scenario.replace('/', "_"),
    ));
    let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(["replay", scenario, "-o", output.to_str().unwrap()])
        .env_remove("ROCSIM_MACHINE")
        .output()
        .expect("run xla-rocm-tracer replay");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let space = read_xspace_file(&output).unwrap();
    std::fs::remove_file(&output).ok();
    space
}

/// One end of a flow as the XSpace holds it.
#[derive(Debug, Clone, PartialEq)]
struct FlowEnd {
    plane: String,
    line: String,
    event: String,
    direction: u64,
    /// Start time in ps (wall clock).
    at_ps: i128,
}

/// Every event with a `flow` stat, by flow id.
fn flows(space: &XSpace) -> BTreeMap<u64, Vec<FlowEnd>> {
    let mut flows: BTreeMap<u64, Vec<FlowEnd>> = BTreeMap::new();
    for plane in &space.planes {
        for line in &plane.lines {
            for event in &line.events {
                for stat in &event.stats {
                    if plane.stat_metadata[&stat.metadata_id].name != "flow" {
                        continue;
                    }
                    let Some(Value::Uint64Value(value)) = stat.value else {
                        panic!("a flow stat is a uint64: {stat:?}");
                    };
                    assert_eq!(value >> 58, 0, "category generic");
                    let at_ps = match event.data {
                        Some(xla_rocm_tracer::export::xplane_proto::x_event::Data::OffsetPs(
                            offset,
                        )) => offset,
                        ref other => panic!("an offset, not {other:?}"),
                    };
                    assert_eq!(event.duration_ps, 0, "a flow's end is an instant");
                    flows
                        .entry((value >> 2) & ((1 << 56) - 1))
                        .or_default()
                        .push(FlowEnd {
                            plane: plane.name.clone(),
                            line: line.name.clone(),
                            event: plane.event_metadata[&event.metadata_id].name.clone(),
                            direction: value & 0b11,
                            at_ps: i128::from(line.timestamp_ns) * 1000 + i128::from(at_ps),
                        });
                }
            }
        }
    }
    flows
}

/// (plane, line) of the flow's start and of its end; checks the pair's shape.
fn ends(flow: &[FlowEnd]) -> ((String, String), (String, String)) {
    assert_eq!(flow.len(), 2, "one start and one end: {flow:?}");
    let start = flow
        .iter()
        .find(|end| end.direction == 2)
        .expect("an out end");
    let end = flow
        .iter()
        .find(|end| end.direction == 1)
        .expect("an in end");
    assert_eq!(start.event, "hipEventRecord");
    assert_eq!(end.event, "hipStreamWaitEvent");
    assert!(
        end.at_ps >= start.at_ps,
        "the wait held the stream back: {flow:?}"
    );
    (
        (start.plane.clone(), start.line.clone()),
        (end.plane.clone(), end.line.clone()),
    )
}

fn lane(plane: &str, line: &str) -> (String, String) {
    (plane.to_owned(), line.to_owned())
}

#[test]
fn jax_matmul_waits_are_two_flows_between_its_copy_lanes_and_compute() {
    let flows = flows(&replay("scenarios/jax_matmul.toml"));
    let pairs: Vec<_> = flows.values().map(|flow| ends(flow)).collect();
    let gpu = "/device:GPU:0";
    assert_eq!(
        pairs,
        vec![
            (lane(gpu, "Stream #0"), lane(gpu, "Stream #1")),
            (lane(gpu, "Stream #1"), lane(gpu, "Stream #2")),
        ],
        "H2D -> compute, then compute -> D2H: {flows:?}"
    );
}

#[test]
fn waits_across_gpus_are_flows_between_their_planes() {
    let flows = flows(&replay("scenarios/cross_device_wait.toml"));
    let pairs: Vec<_> = flows.values().map(|flow| ends(flow)).collect();
    let (gpu0, gpu1) = ("/device:GPU:0", "/device:GPU:1");
    assert_eq!(
        pairs,
        vec![
            (lane(gpu0, "Stream #0"), lane(gpu1, "Stream #0")),
            (lane(gpu1, "Stream #0"), lane(gpu0, "Stream #1")),
        ],
        "{flows:?}"
    );
}
