//! Graph nodes (docs/xla-interface.md#graph-nodes), end to end: `scenarios/graphs.toml`, two
//! threads each launching a command buffer's graph three times, replayed through the
//! simulator, the tracer and the collector. On releases with HIP_GRAPH tracing (7.14, 10.1)
//! every kernel carries its executable's id as `cuda_graph_id` and its node's ordinal as
//! `graph_node_id`, taken in the external-correlation request; on 7.1 the ordinal comes from
//! the launch's dispatch order and no executable id is given. In both, each kernel keeps its
//! launch's annotation and its stream, and `inspect` reports the graph nodes.
// The library calls the SDK; the simulator supplies its symbols to this test binary.
use rocprofiler_sdk_sim as _;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
use xla_rocm_tracer::export::{read_xspace_file, XSpace};

fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"));
    command
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .env_remove("ROCSIM_MACHINE");
    command
}

fn replay(rocm: &str) -> (XSpace, String) {
    let output = std::env::temp_dir().join(format!(
        "graph-nodes-{}-{rocm}.xplane.pb",
        std::process::id()
    ));
    let result = bin()
        .args(["replay", "scenarios/graphs.toml", "--rocm", rocm, "-o"])
        .arg(&output)
        .output()
        .expect("run xla-rocm-tracer replay");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let inspect = bin()
        .arg("inspect")
        .arg(&output)
        .output()
        .expect("run xla-rocm-tracer inspect");
    assert!(inspect.status.success());
    let space = read_xspace_file(&output).unwrap();
    std::fs::remove_file(&output).ok();
    (space, String::from_utf8(inspect.stdout).unwrap())
}

/// One kernel on the GPU plane as the test reads it.
#[derive(Debug)]
struct Kernel {
    lane: String,
    name: String,
    start_ps: i64,
    graph_id: Option<u64>,
    node: Option<u64>,
    tf_op: Option<String>,
}

fn kernels(space: &XSpace) -> Vec<Kernel> {
    let plane = space
        .planes
        .iter()
        .find(|plane| plane.name == "/device:GPU:0")
        .expect("a GPU plane");
    let stat_name = |id: i64| plane.stat_metadata[&id].name.as_str();
    let mut out = Vec::new();
    for line in &plane.lines {
        for event in &line.events {
            let mut kernel = Kernel {
                lane: line.name.clone(),
                name: plane.event_metadata[&event.metadata_id].name.clone(),
                start_ps: match event.data {
                    Some(xla_rocm_tracer::export::xplane_proto::x_event::Data::OffsetPs(at)) => at,
                    _ => 0,
                },
                graph_id: None,
                node: None,
                tf_op: None,
            };
            for stat in &event.stats {
                match (stat_name(stat.metadata_id), &stat.value) {
                    ("cuda_graph_id", Some(Value::Uint64Value(id))) => kernel.graph_id = Some(*id),
                    ("graph_node_id", Some(Value::Uint64Value(node))) => kernel.node = Some(*node),
                    ("tf_op", Some(Value::RefValue(id))) => {
                        kernel.tf_op = Some(plane.stat_metadata[&(*id as i64)].name.clone())
                    }
                    _ => {}
                }
            }
            out.push(kernel);
        }
    }
    out
}

/// The scenario's graphs: their kernels' short names in node order (the scenario's code
/// object names them so).
const LEFT: [&str; 3] = ["Cijk_", "loop_add_fusion", "input_reduce_fusion"];
const RIGHT: [&str; 2] = ["loop_multiply_fusion", "Cijk_"];

/// Checks the nodes of every lane: three launches of one graph, each node with its ordinal
/// and its launch's annotation; returns the executable id per lane (`None`: not given).
fn check_nodes(space: &XSpace) -> BTreeMap<String, Option<u64>> {
    let mut by_lane: BTreeMap<String, Vec<Kernel>> = BTreeMap::new();
    for kernel in kernels(space) {
        by_lane.entry(kernel.lane.clone()).or_default().push(kernel);
    }
    assert_eq!(
        by_lane.len(),
        2,
        "one lane per thread's stream: {by_lane:#?}"
    );
    let mut graph_ids = BTreeMap::new();
    for (lane, mut kernels) in by_lane {
        kernels.sort_by_key(|kernel| kernel.start_ps);
        let (graph, side): (&[&str], &str) = if kernels[0].name.starts_with(LEFT[0]) {
            (&LEFT, "left")
        } else {
            (&RIGHT, "right")
        };
        assert_eq!(kernels.len(), 3 * graph.len(), "{lane}: {kernels:#?}");
        for (position, kernel) in kernels.iter().enumerate() {
            let ordinal = position % graph.len();
            let launch = position / graph.len();
            assert!(kernel.name.starts_with(graph[ordinal]), "{kernel:?}");
            assert_eq!(kernel.node, Some(ordinal as u64), "{lane}: {kernel:?}");
            assert_eq!(
                kernel.tf_op.as_deref(),
                Some(format!("command_buffer_{side}_{launch}").as_str()),
                "the launch's annotation on every node: {kernel:?}"
            );
        }
        let ids: BTreeSet<Option<u64>> = kernels.iter().map(|kernel| kernel.graph_id).collect();
        assert_eq!(ids.len(), 1, "one executable per lane: {kernels:#?}");
        graph_ids.insert(lane, ids.into_iter().next().unwrap());
    }
    graph_ids
}

#[test]
fn releases_with_hip_graph_give_each_kernel_its_executable_and_node() {
    for rocm in ["7.14", "10.1"] {
        let (space, inspect) = replay(rocm);
        let ids = check_nodes(&space);
        let ids: BTreeSet<u64> = ids
            .values()
            .map(|id| id.unwrap_or_else(|| panic!("{rocm}: an executable id on every node")))
            .collect();
        // The SDK numbers executables from 1, in the order of their first launch.
        assert_eq!(ids, BTreeSet::from([1, 2]), "{rocm}");
        assert!(
            inspect.contains("graph nodes: 15 (graph_node_id); graphs (cuda_graph_id): 1, 2"),
            "{rocm}: {inspect}"
        );
    }
}

#[test]
fn older_releases_number_nodes_by_dispatch_order() {
    let (space, inspect) = replay("7.1");
    let ids = check_nodes(&space);
    assert!(ids.values().all(Option::is_none), "{ids:?}");
    assert!(
        inspect.contains("graph nodes: 15 (graph_node_id); graphs (cuda_graph_id): not known"),
        "{inspect}"
    );
}
