//! A large seeded workload stays a small file and replays in bounded memory: `random` steps
//! and repeats are expanded one step at a time while the replay runs, never into a list.
use sim::scenario;
use sim_test_kit::{child, sim};

const THREADS: usize = 16;
const PER_THREAD: u64 = 10_000;

/// 16 threads, each 10k random launches on its own stream.
fn workload() -> String {
    let mut text =
        String::from("[[code_object]]\nkernels = { k = \"_Z1kv\", g = \"_Z1gv\" }\n[streams]\n");
    for t in 0..THREADS {
        text.push_str(&format!("s{t} = {{ device = 0 }}\n"));
    }
    for t in 0..THREADS {
        text.push_str(&format!(
            "[[thread]]\nsteps = [ {{ random = {{ seed = {t}, count = {PER_THREAD}, \
             streams = [\"s{t}\"], kernels = [\"k\", \"g\"], duration_us = [1, 20] }} }} ]\n"
        ));
    }
    text
}

/// This process's resident and peak resident memory, in KiB.
fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap()
    };
    (field("VmRSS:"), field("VmHWM:"))
}

#[test]
fn a_160k_dispatch_scenario_is_a_small_file_and_replays_in_bounded_memory() {
    // Its own process: the peak resident memory is this replay's alone.
    if !child::in_child(
        "a_160k_dispatch_scenario_is_a_small_file_and_replays_in_bounded_memory",
        &[("ROCSIM_MACHINE", "clock = \"virtual\"")],
    ) {
        return;
    }
    let text = workload();
    assert!(text.len() < 4096, "{} bytes", text.len());
    let s = scenario::parse_str(&text, "big.toml").unwrap();
    // Warm up the simulated runtime (code objects, threads) with a small replay first.
    let small = text.replace(&format!("count = {PER_THREAD}"), "count = 100");
    let warm = scenario::replay(&scenario::parse_str(&small, "small.toml").unwrap(), &()).unwrap();
    assert_eq!(warm.kernels, 1600);
    let (before, _) = memory_kib();
    let summary = scenario::replay(&s, &()).unwrap();
    let (_, peak) = memory_kib();
    assert_eq!(summary.kernels, THREADS as u64 * PER_THREAD);
    let grown_kib = peak.saturating_sub(before);
    println!("peak grew by {grown_kib} KiB over {before} KiB");
    // The 160k steps as a list would take about 17 MiB (some 110 bytes a step); generated one
    // at a time they take nothing measurable (about 60 KiB here in a debug build).
    assert!(grown_kib < 8 * 1024, "peak grew by {grown_kib} KiB");
}

/// 200k launches of 50 us kernels on one stream, with no synchronize until the end: the host
/// issues them far faster than the GPU runs them.
const BACKLOG_LAUNCHES: u64 = 200_000;

#[test]
fn launches_onto_a_full_queue_wait_so_a_backlog_stays_bounded() {
    // Its own process: the peak resident memory is this replay's alone.
    if !child::in_child(
        "launches_onto_a_full_queue_wait_so_a_backlog_stays_bounded",
        &[(
            "ROCSIM_MACHINE",
            "clock = \"virtual\"\naql_queue_packets = 1024",
        )],
    ) {
        return;
    }
    let text = format!(
        "[[code_object]]\nkernels = {{ k = \"_Z1kv\" }}\n[streams]\ns = {{ device = 0 }}\n\
         [[thread]]\nsteps = [ {{ repeat = {BACKLOG_LAUNCHES}, steps = [ \
         {{ launch = \"k\", stream = \"s\", duration_us = 50 }} ] }} ]\n"
    );
    let s = scenario::parse_str(&text, "backlog.toml").unwrap();
    let small = text.replace(&BACKLOG_LAUNCHES.to_string(), "100");
    scenario::replay(&scenario::parse_str(&small, "small.toml").unwrap(), &()).unwrap();
    let (before, _) = memory_kib();
    let summary = scenario::replay(&s, &()).unwrap();
    let (_, peak) = memory_kib();
    assert_eq!(summary.kernels, BACKLOG_LAUNCHES);
    let grown_kib = peak.saturating_sub(before);
    println!("peak grew by {grown_kib} KiB over {before} KiB");
    // Each launch waiting in the simulated GPU holds its completion (a few hundred bytes):
    // the whole backlog would be tens of MiB; 1024 packets' worth is well under a MiB.
    assert!(grown_kib < 8 * 1024, "peak grew by {grown_kib} KiB");
}

#[test]
fn a_full_queue_under_indirect_dispatch_holds_back_the_worker_without_hanging() {
    if !child::in_child(
        "a_full_queue_under_indirect_dispatch_holds_back_the_worker_without_hanging",
        &[(
            "ROCSIM_MACHINE",
            "clock = \"virtual\"\ndirect_dispatch = false\naql_queue_packets = 4",
        )],
    ) {
        return;
    }
    let text = "[[code_object]]\nkernels = { k = \"_Z1kv\" }\n[streams]\ns = { device = 0 }\n\
                [[thread]]\nsteps = [ { repeat = 2000, steps = [ \
                { launch = \"k\", stream = \"s\", duration_us = 50 } ] }, { sync_stream = \"s\" } ]\n";
    let summary =
        scenario::replay(&scenario::parse_str(text, "worker.toml").unwrap(), &()).unwrap();
    assert_eq!(summary.kernels, 2000);
}
