//! Stream waits as flows (docs/xla-interface.md#stream-waits), end to end: a scenario's
//! `hipEventRecord` / `hipStreamWaitEvent` pairs replayed through the simulator, the tracer and
//! the collector become, in the XSpace, pairs of events whose `flow` stats share an id, `out`
//! (2) on the recording lane and `in` (1) on the waiting one, in XFlow's encoding (direction
//! in bits 0-1, id from bit 2, category 0 in bits 58-63). Zero-length, except under a release
//! with HIP_EVENT tracing (10.1), where each end takes its barrier's GPU time.
// The library calls the SDK; the simulator supplies its symbols to this test binary.
use rocprofiler_sdk_sim as _;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use xla_rocm_tracer::export::xplane_proto::x_stat::Value;
use xla_rocm_tracer::export::{read_xspace_file, XSpace};

fn replay(scenario: &str) -> XSpace {
    replay_on(scenario, None)
}

/// `scenario` replayed, on `rocm` (`--rocm`) if given, else its own release.
fn replay_on(scenario: &str, rocm: Option<&str>) -> XSpace {
    // Tests run at once, some replaying the same scenario: one file per replay.
    static REPLAYS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let output = std::env::temp_dir().join(format!(
        "wait-flows-{}-{}-{}-{}.xplane.pb",
        std::process::id(),
        scenario.replace('/', "_"),
        rocm.unwrap_or("own"),
        REPLAYS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
    ));
    let mut args = vec!["replay", scenario, "-o", output.to_str().unwrap()];
    if let Some(rocm) = rocm {
        args.extend(["--rocm", rocm]);
    }
    let result = Command::new(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(&args)
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
    duration_ps: i64,
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
                    flows
                        .entry((value >> 2) & ((1 << 56) - 1))
                        .or_default()
                        .push(FlowEnd {
                            plane: plane.name.clone(),
                            line: line.name.clone(),
                            event: plane.event_metadata[&event.metadata_id].name.clone(),
                            direction: value & 0b11,
                            at_ps: i128::from(line.timestamp_ns) * 1000 + i128::from(at_ps),
                            duration_ps: event.duration_ps,
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
        end.at_ps + i128::from(end.duration_ps) >= start.at_ps,
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
    for end in flows.values().flatten() {
        assert_eq!(end.duration_ps, 0, "a flow's end is an instant: {end:?}");
    }
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

/// Every event of `plane`'s line `line`: (name, start in ps, duration in ps), in time order.
fn lane_events(space: &XSpace, plane: &str, line: &str) -> Vec<(String, i128, i64)> {
    let plane = space.planes.iter().find(|p| p.name == plane).unwrap();
    let line = plane.lines.iter().find(|l| l.name == line).unwrap();
    let mut events: Vec<_> = line
        .events
        .iter()
        .map(|event| {
            let Some(xla_rocm_tracer::export::xplane_proto::x_event::Data::OffsetPs(offset)) =
                event.data
            else {
                panic!("an offset: {event:?}");
            };
            (
                plane.event_metadata[&event.metadata_id].name.clone(),
                i128::from(line.timestamp_ns) * 1000 + i128::from(offset),
                event.duration_ps,
            )
        })
        .collect();
    events.sort_by_key(|&(_, start, _)| start);
    events
}

/// Under 10.1 (HIP_EVENT tracing) each of jax_matmul's two waits spans its barrier on the
/// waiting lane: from when the waiting queue reached it (before the recorded work ended: both
/// waits really wait) to when the recorded work completed, which is where the record's end
/// sits; the waiting stream's next work starts after it. Under 7.14 (no HIP_EVENT) the same
/// replay keeps every end zero-length, the wait's at the waiting work's start.
#[test]
fn under_10_1_a_wait_spans_its_barrier_on_the_waiting_lane() {
    let gpu = "/device:GPU:0";
    let space = replay_on("scenarios/jax_matmul.toml", Some("10.1"));
    let by_id = flows(&space);
    let waits: Vec<(FlowEnd, FlowEnd)> = by_id
        .values()
        .map(|flow| {
            ends(flow);
            let out = flow.iter().find(|end| end.direction == 2).unwrap().clone();
            let wait = flow.iter().find(|end| end.direction == 1).unwrap().clone();
            (out, wait)
        })
        .collect();
    assert_eq!(waits.len(), 2, "{by_id:?}");
    // (recording lane, its recorded work, waiting lane, its first work after the wait)
    let expected = [
        ("Stream #0", "MemcpyH2D", "Stream #1"),
        ("Stream #1", "slice_fusion", "Stream #2"),
    ];
    for ((record, wait), (record_lane, recorded_name, wait_lane)) in waits.iter().zip(expected) {
        assert_eq!(
            (record.line.as_str(), wait.line.as_str()),
            (record_lane, wait_lane)
        );
        assert_eq!(wait.plane, gpu);
        // The recorded work and when it ended.
        let recording = lane_events(&space, gpu, record_lane);
        let recorded = recording
            .iter()
            .rfind(|(name, ..)| name.contains(recorded_name))
            .unwrap_or_else(|| panic!("{recorded_name} on {record_lane}: {recording:?}"));
        let recorded_end = recorded.1 + i128::from(recorded.2);
        assert!(
            wait.duration_ps > 0,
            "the wait really waited, so its barrier has a span: {wait:?}"
        );
        let wait_end = wait.at_ps + i128::from(wait.duration_ps);
        assert_eq!(
            wait_end, recorded_end,
            "the barrier ends when the recorded work completed: {wait:?} {recorded:?}"
        );
        assert!(wait.at_ps < recorded_end, "{wait:?} {recorded:?}");
        assert_eq!(
            (record.at_ps, record.duration_ps),
            (recorded_end, 0),
            "the record's barrier ran as the recorded work ended: {record:?}"
        );
        // The waiting lane's next work starts after the barrier.
        let waiting = lane_events(&space, gpu, wait_lane);
        let next = waiting
            .iter()
            .find(|(name, start, _)| name != "hipStreamWaitEvent" && *start >= wait.at_ps)
            .unwrap_or_else(|| panic!("work after the wait on {wait_lane}: {waiting:?}"));
        assert!(next.1 >= wait_end, "{next:?} after {wait:?}");
    }

    let older = flows(&replay_on("scenarios/jax_matmul.toml", Some("7.14")));
    assert_eq!(older.len(), 2);
    for end in older.values().flatten() {
        assert_eq!(end.duration_ps, 0, "no HIP_EVENT before 10.1: {end:?}");
    }
}

/// The spans change nothing else: the 10.1 replay is byte-identical from run to run.
#[test]
fn the_10_1_replay_with_wait_spans_is_the_same_every_run() {
    let first = replay_on("scenarios/jax_matmul.toml", Some("10.1"));
    let second = replay_on("scenarios/jax_matmul.toml", Some("10.1"));
    assert_eq!(first, second);
}
