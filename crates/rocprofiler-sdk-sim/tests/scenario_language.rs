//! The scenario language's SET windows, stream lifecycle, creating threads, seeded random
//! steps and limits: each replayed under the recording tool, or refused with the key, file
//! and line.
use sim::scenario::{self, ScenarioError, Step};
use sim_test_kit::recording::*;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

const HEAD: &str = r#"[[code_object]]
kernels = { k = "_Z1kv" }
[streams]
a = { device = 0 }
b = { device = 0 }
"#;

fn error_of(text: &str) -> ScenarioError {
    scenario::parse_str(text, "bad.toml").expect_err("must be rejected")
}

#[track_caller]
fn assert_error(text: &str, line: usize, needle: &str) {
    let e = error_of(text);
    let shown = e.to_string();
    assert_eq!(e.line, line, "{shown}");
    assert!(shown.starts_with(&format!("bad.toml:{line}:")), "{shown}");
    assert!(
        shown.contains(needle),
        "`{shown}` should mention `{needle}`"
    );
}

/// `HEAD` plus one thread with `steps` (its first step is on line 8).
fn one_thread(steps: &str) -> String {
    format!("{HEAD}[[thread]]\nsteps = [\n{steps}\n]\n")
}

/// HIP_STREAM callbacks since `from`: (operation, phase, stream id, stream value, tid).
fn stream_events(from: usize) -> Vec<(i32, u32, u64, u64, u64)> {
    REC.events.lock().unwrap()[from..]
        .iter()
        .filter_map(|e| match e {
            Event::Callback {
                kind,
                op,
                phase,
                stream: Some((id, value)),
                record_tid,
                ..
            } if *kind == sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM => {
                Some((*op, *phase, *id, *value, *record_tid))
            }
            _ => None,
        })
        .collect()
}

/// Kernel records since `from`, in call order.
fn kernels_since(from: usize) -> Vec<Record> {
    let mut kernels: Vec<_> = REC.records.lock().unwrap()[from..]
        .iter()
        .filter(|r| matches!(r, Record::Kernel(_)))
        .copied()
        .collect();
    kernels.sort_by_key(|k| k.internal());
    kernels
}

/// Replays `text` under the recording tool: (summary, first event index, first record index).
fn replay(text: &str) -> (scenario::ReplaySummary, usize, usize) {
    setup();
    let s = scenario::parse_str(text, "test.toml").unwrap();
    let events = event_count();
    let records = REC.records.lock().unwrap().len();
    let summary = scenario::replay(&s, &()).unwrap();
    drain();
    (summary, events, records)
}

#[test]
fn set_windows_nest_and_hold_their_stream_for_calls_without_one() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // hipMemset has no stream argument: its fill kernel is attributed to the stream on top of
    // the tool's thread-local stack, which the windows set.
    let text = one_thread(
        "  { set_enter = \"a\" },\n  { memset = 64 },\n  { set_enter = \"b\" },\n  \
         { memset = 64 },\n  { set_exit = true },\n  { memset = 64 },\n  { set_exit = true },\n  \
         { memset = 64 },",
    );
    let (summary, events, records) = replay(&text);
    assert_eq!(summary.memsets, 4);
    let sets: Vec<_> = stream_events(events)
        .into_iter()
        .filter(|e| e.0 == sys::ROCPROFILER_HIP_STREAM_SET)
        .collect();
    let ids: Vec<(u32, u64)> = sets.iter().map(|e| (e.1, e.2)).collect();
    let (a, b) = (ids[0].1, ids[1].1);
    assert_ne!(a, b);
    assert_ne!(a, 0);
    assert_eq!(
        ids,
        [(ENTER, a), (ENTER, b), (EXIT, b), (EXIT, a)],
        "windows nest like the SDK wrapper's frames"
    );
    let streams: Vec<u64> = kernels_since(records)
        .iter()
        .map(|k| k.external())
        .collect();
    assert_eq!(streams, [a, b, a, 0]);
}

#[test]
fn a_window_left_open_never_gets_its_exit() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let text = one_thread("  { set_enter = \"b\" },\n  { launch = \"k\" },");
    let (summary, events, records) = replay(&text);
    assert_eq!(summary.kernels, 1);
    let sets: Vec<_> = stream_events(events)
        .into_iter()
        .filter(|e| e.0 == sys::ROCPROFILER_HIP_STREAM_SET)
        .map(|e| e.1)
        .collect();
    // The launch on the null stream has its own balanced window inside the open one.
    assert_eq!(sets, [ENTER, ENTER, EXIT]);
    let kernels = kernels_since(records);
    assert_eq!(kernels[0].external(), 0, "the launch's own SET is on top");
}

#[test]
fn unbalanced_and_misplaced_windows_are_refused_with_the_line() {
    assert_error(
        &one_thread("  { set_exit = true },"),
        8,
        "set_exit with no SET window open on this thread",
    );
    // Windows are per thread: another thread's open window does not count.
    let two = format!(
        "{HEAD}[[thread]]\nsteps = [ {{ set_enter = \"a\" }} ]\n[[thread]]\nsteps = [ {{ set_exit = true }} ]\n"
    );
    assert_error(&two, 9, "no SET window open on this thread");
    assert_error(
        &one_thread("  { set_enter = \"a\" },\n  { repeat = 2, steps = [ { set_exit = true } ] },"),
        9,
        "cannot close more SET windows than it opens",
    );
    assert_error(
        &one_thread("  { set_enter = \"zz\" },"),
        8,
        "unknown stream `zz`",
    );
    // Opening windows in a repeat nests them; closing them all is fine.
    let nested = one_thread(
        "  { repeat = 3, steps = [ { set_enter = \"a\" } ] },\n  \
         { repeat = 3, steps = [ { set_enter = \"b\" }, { set_exit = true } ] },\n  \
         { set_exit = true },\n  { set_exit = true },\n  { set_exit = true },",
    );
    scenario::parse_str(&nested, "ok.toml").unwrap();
}

#[test]
fn stream_destroy_destroys_and_a_later_create_reuses_the_handle() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let text = format!(
        "{HEAD}t = {{ device = 0 }}\n[[thread]]\nsteps = [\n  {{ launch = \"k\", stream = \"a\" }},\n  \
         {{ api = \"hipStreamDestroy\", stream = \"a\" }},\n  {{ create_stream = \"t\" }},\n  \
         {{ launch = \"k\", stream = \"t\" }},\n]\n"
    );
    let s = scenario::parse_str(&text, "t.toml").unwrap();
    assert!(s
        .streams
        .iter()
        .any(|x| x.name == "t" && x.creator == scenario::StreamCreator::Step));
    let (_, events, records) = replay(&text);
    let lifecycle: Vec<_> = stream_events(events)
        .into_iter()
        .filter(|e| e.0 != sys::ROCPROFILER_HIP_STREAM_SET)
        .collect();
    // a and b created at the start, a destroyed, t created on a's freed address.
    let ops: Vec<i32> = lifecycle.iter().map(|e| e.0).collect();
    assert_eq!(
        ops,
        [
            sys::ROCPROFILER_HIP_STREAM_CREATE,
            sys::ROCPROFILER_HIP_STREAM_CREATE,
            sys::ROCPROFILER_HIP_STREAM_DESTROY,
            sys::ROCPROFILER_HIP_STREAM_CREATE
        ]
    );
    let (a_id, a_value) = (lifecycle[0].2, lifecycle[0].3);
    assert_eq!((lifecycle[2].2, lifecycle[2].3), (a_id, a_value));
    let (t_id, t_value) = (lifecycle[3].2, lifecycle[3].3);
    assert_eq!(
        t_value, a_value,
        "HIP's allocator hands the freed handle out again"
    );
    assert_ne!(t_id, a_id, "a reused address gets a new SDK id");
    let streams: Vec<u64> = kernels_since(records)
        .iter()
        .map(|k| k.external())
        .collect();
    assert_eq!(streams, [a_id, t_id]);
}

#[test]
fn lifecycle_misuse_names_the_step() {
    let destroyed = one_thread(
        "  { api = \"hipStreamDestroy\", stream = \"a\" },\n  { launch = \"k\", stream = \"a\" },",
    );
    assert_error(
        &destroyed,
        9,
        "stream `a` was destroyed (hipStreamDestroy at line 8)",
    );
    assert_error(
        &one_thread("  { api = \"hipStreamDestroy\", stream = \"a\" },\n  { api = \"hipStreamDestroy\", stream = \"a\" },"),
        9,
        "was destroyed",
    );
    // A stream whose first lifecycle step creates it exists only from that step on.
    assert_error(
        &one_thread("  { create_stream = \"a\" },\n  { create_stream = \"a\" },"),
        9,
        "exists already",
    );
    assert_error(
        &one_thread("  { api = \"hipStreamDestroy\" },"),
        8,
        "hipStreamDestroy needs `stream`",
    );
    assert_error(
        &one_thread("  { api = \"hipStreamDestroy\", stream = \"null\" },"),
        8,
        "cannot be destroyed",
    );
    assert_error(
        &one_thread("  { api = \"hipStreamCreate\" },"),
        8,
        "create_stream",
    );
    assert_error(
        &one_thread(
            "  { repeat = 2, steps = [ { api = \"hipStreamDestroy\", stream = \"a\" } ] },",
        ),
        8,
        "must leave its streams as it found them",
    );
    let other_thread = format!(
        "{HEAD}[[thread]]\nsteps = [ {{ api = \"hipStreamDestroy\", stream = \"a\" }} ]\n\
         [[thread]]\nsteps = [ {{ launch = \"k\", stream = \"a\" }} ]\n"
    );
    assert_error(&other_thread, 9, "only that thread may use it");
    let wrong_device = "[machine]\ngpus = 2\n[streams]\nx = { device = 1 }\n[[thread]]\nsteps = [ { create_stream = \"x\" } ]\n";
    assert_error(wrong_device, 6, "add `set_device = 1` before");
    let before_create = "[streams]\nx = { device = 0 }\n[[thread]]\nsteps = [ { sync_stream = \"x\" }, { create_stream = \"x\" } ]\n";
    assert_error(before_create, 4, "does not exist yet");
    let unknown_thread = "[streams]\nx = { device = 0, thread = \"nobody\" }\n[[thread]]\nsteps = [ { sync_device = true } ]\n";
    assert_error(unknown_thread, 2, "unknown thread `nobody`");
}

#[test]
fn a_stream_created_by_a_thread_fires_create_on_that_thread() {
    if !sim_test_kit::child::in_child(
        "a_stream_created_by_a_thread_fires_create_on_that_thread",
        &[("ROCSIM_MACHINE", "gpus = 2")],
    ) {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let text = String::from(
        "[machine]\ngpus = 2\n[[code_object]]\nkernels = { k = \"_Z1kv\" }\n[[code_object]]\ndevice = 1\n\
         kernels = { k = \"_Z1kv\" }\n[streams]\nm = { device = 0 }\n\
         w = { device = 1, thread = \"worker\" }\n\
         [[thread]]\nname = \"main\"\nsteps = [ { launch = \"k\", stream = \"w\" } ]\n\
         [[thread]]\nname = \"worker\"\nsteps = [ { launch = \"k\", stream = \"w\" } ]\n"
    );
    let (_, events, _) = replay(&text);
    let creates: Vec<_> = stream_events(events)
        .into_iter()
        .filter(|e| e.0 == sys::ROCPROFILER_HIP_STREAM_CREATE)
        .collect();
    assert_eq!(creates.len(), 2);
    assert_eq!(creates[0].4, tid(), "m: by the replaying thread");
    let worker = REC.events.lock().unwrap()[events..]
        .iter()
        .filter_map(|e| match e {
            Event::Callback {
                kind, record_tid, ..
            } if *kind == sys::ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API => Some(*record_tid),
            _ => None,
        })
        .filter(|&t| t != tid())
        .collect::<Vec<_>>();
    assert_ne!(creates[1].4, tid(), "w: by the worker thread");
    assert!(worker.contains(&creates[1].4));
    // The worker switched to device 1 to create it and back: its hipSetDevice calls.
    let set_devices = REC.events.lock().unwrap()[events..]
        .iter()
        .filter(|e| {
            e.shape() == api(sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice, ENTER)
                && matches!(e, Event::Callback { record_tid, .. } if *record_tid == creates[1].4)
        })
        .count();
    assert_eq!(set_devices, 2);
}

const RANDOM: &str = r#"[[code_object]]
kernels = { k = "_Z1kv", g = "_Z1gv" }
[streams]
a = { device = 0 }
b = { device = 0 }
[[thread]]
steps = [ { random = { seed = SEED, count = 200, streams = ["a", "b", "null"], kernels = ["k", "g"], copies = ["h2d", "d2h"], bytes = [4096, 1048576], duration_us = [1, 50], weights = { launch = 6, memcpy = 3, memset = 1 } } } ]
"#;

fn random_steps(seed: u64) -> Vec<String> {
    let s = scenario::parse_str(&RANDOM.replace("SEED", &seed.to_string()), "r.toml").unwrap();
    let Step::Random(spec) = &s.threads[0].steps[0] else {
        panic!("not a random step")
    };
    spec.steps().map(|step| format!("{step:?}")).collect()
}

#[test]
fn random_steps_expand_the_same_for_the_same_seed() {
    let first = random_steps(7);
    assert_eq!(first.len(), 200);
    assert_eq!(first, random_steps(7));
    assert_ne!(first, random_steps(8));
    let launches = first.iter().filter(|s| s.starts_with("Launch")).count();
    let copies = first.iter().filter(|s| s.starts_with("Memcpy")).count();
    let memsets = first.iter().filter(|s| s.starts_with("Memset")).count();
    assert_eq!(launches + copies + memsets, 200);
    // Weights 6:3:1, with room for chance.
    assert!((90..150).contains(&launches), "{launches}");
    assert!((30..90).contains(&copies), "{copies}");
    assert!((5..40).contains(&memsets), "{memsets}");
    for stream in ["Named(\"a\")", "Named(\"b\")", "Null"] {
        assert!(
            first.iter().any(|s| s.contains(stream)),
            "{stream} never drawn"
        );
    }
    // The expansion is pinned: ChaCha8 keyed by the seed, fixed draw order. A change here
    // changes every seeded workload.
    let pinned: Vec<&str> = first[..6]
        .iter()
        .map(|s| s.split([' ', '{']).next().unwrap())
        .collect();
    assert_eq!(pinned, PINNED_SEED_7);
}

const PINNED_SEED_7: [&str; 6] = ["Launch", "Launch", "Memset", "Launch", "Launch", "Launch"];

#[test]
fn a_random_step_replays_its_count() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (summary, _, records) = replay(&RANDOM.replace("SEED", "7"));
    let first = random_steps(7);
    let launches = first.iter().filter(|s| s.starts_with("Launch")).count() as u64;
    let copies = first.iter().filter(|s| s.starts_with("Memcpy")).count() as u64;
    let memsets = first.iter().filter(|s| s.starts_with("Memset")).count() as u64;
    assert_eq!(summary.kernels, launches + memsets);
    assert_eq!(summary.memsets, memsets);
    assert_eq!(summary.copies.values().sum::<u64>(), copies);
    // Copies of up to 16 KiB are `__amd_rocclr_copyBuffer` blits: kernels, not launches.
    let names = REC.kernel_names.lock().unwrap().clone();
    let not_copies = kernels_since(records)
        .iter()
        .filter(|r| {
            matches!(r, Record::Kernel(k)
                if names[&k.dispatch_info.kernel_id] != sim::driver::BLIT_COPY_KERNEL)
        })
        .count();
    assert_eq!(not_copies as u64, launches + memsets);
}

#[test]
fn a_random_step_in_a_repeat_continues_its_sequence() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let text = one_thread(
        "  { repeat = 3, steps = [ { random = { seed = 5, count = 4, streams = [\"a\"], \
         kernels = [\"k\"], duration_us = [1, 1000] } }, { sync_device = true } ] },",
    );
    let s = scenario::parse_str(&text, "r.toml").unwrap();
    let Step::Group { steps, .. } = &s.threads[0].steps[0] else {
        panic!("not a group")
    };
    let Step::Random(spec) = &steps[0] else {
        panic!("not a random step")
    };
    let mut draws = spec.draws();
    let expected: Vec<u64> = (0..12)
        .map(|_| match draws.next_step(spec) {
            Step::Launch { node, .. } => node.duration_ns,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_ne!(expected[..4], expected[4..8], "not the first run again");
    let (summary, _, records) = replay(&text);
    assert_eq!(summary.kernels, 12);
    let durations: Vec<u64> = kernels_since(records)
        .iter()
        .map(|k| match k {
            Record::Kernel(k) => k.end_timestamp - k.start_timestamp,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(durations, expected);
}

#[test]
fn random_misuse_names_the_line() {
    let random = |fields: &str| one_thread(&format!("  {{ random = {{ seed = 1, {fields} }} }},"));
    assert_error(
        &random("count = 0, kernels = [\"k\"]"),
        8,
        "count must be >= 1",
    );
    assert_error(&random("count = 5"), 8, "nothing to generate");
    assert_error(
        &random("count = 5, kernels = [\"nope\"]"),
        8,
        "unknown kernel `nope`",
    );
    assert_error(
        &random("count = 5, copies = [\"h2d\"]"),
        8,
        "need `bytes = [min, max]`",
    );
    assert_error(
        &random("count = 5, copies = [\"h2d\"], bytes = [10, 1]"),
        8,
        "must be [min, max]",
    );
    assert_error(
        &random("count = 5, kernels = [\"k\"], streams = [\"zz\"]"),
        8,
        "unknown stream `zz`",
    );
    assert_error(
        &random("count = 5, kernels = [\"k\"], weights = { memcpy = 1 }"),
        8,
        "a memcpy weight needs `copies`",
    );
}

#[test]
fn limits_refuse_absurd_values_with_the_key_and_line() {
    // 10^4 x 10^5 launches.
    assert_error(
        &one_thread("  { repeat = 10000, steps = [ { repeat = 100000, steps = [ { launch = \"k\" } ] } ] },"),
        8,
        "repeat = 10000: the group runs 1000000000 steps, more than the limit of 100000000",
    );
    assert_error(
        &one_thread("  { random = { seed = 1, count = 1000000000000, kernels = [\"k\"] } },"),
        8,
        "count = 1000000000000 is more than the limit",
    );
    // Under the limit per thread, over it in total.
    let threads = format!(
        "{HEAD}[[thread]]\nsteps = [ {{ repeat = 60000000, steps = [ {{ launch = \"k\" }} ] }} ]\n\
         [[thread]]\nsteps = [ {{ repeat = 60000000, steps = [ {{ launch = \"k\" }} ] }} ]\n"
    );
    assert_error(&threads, 8, "the scenario runs 120000000 steps");
    assert_error(
        &one_thread("  { memcpy = \"h2d\", bytes = 2199023255552 },"),
        8,
        "bytes = 2199023255552 is too large: at most 1099511627776 (1 TiB)",
    );
    assert_error(
        &one_thread("  { memset = 2199023255552 },"),
        8,
        "memset = 2199023255552 is too large",
    );
    assert_error(
        &one_thread("  { memcpy = \"h2d\", bytes = 18446744073709551615 },"),
        8,
        "bytes = 18446744073709551615 is too large",
    );
    assert_error(
        &one_thread("  { memcpy = \"h2d\", bytes = 9223372036854775807 },"),
        8,
        "bytes = 9223372036854775807 is too large",
    );
    assert_error(
        &one_thread("  { launch = \"k\", duration_us = 1e300 },"),
        8,
        "duration_us = 1e300 is too large: at most 3600000000 µs (one hour)",
    );
    assert_error(
        &one_thread("  { launch = \"k\", duration_us = 1e12 },"),
        8,
        "duration_us = 1e12 is too large",
    );
    assert_error(
        &one_thread("  { launch = \"k\", duration_us = -1.0 },"),
        8,
        "duration_us = -1 must be a non-negative number",
    );
    assert_error(
        &one_thread("  { launch = \"k\", duration_us = nan },"),
        8,
        "duration_us must be a number",
    );
    assert_error(
        &one_thread("  { memcpy = \"d2h\", bytes = 64, duration_us = inf },"),
        8,
        "duration_us = inf is too large",
    );
    assert_error(
        &one_thread("  { sleep_us = 3600000001 },"),
        8,
        "sleep_us = 3600000001 is too large",
    );
    assert_error(
        &one_thread("  { random = { seed = 1, count = 3, copies = [\"h2d\"], bytes = [1, 2199023255552] } },"),
        8,
        "bytes = 2199023255552 is too large",
    );
    assert_error(
        "[profiler]\ndisable_wait_ms = 3600001\n[[thread]]\nsteps = [ { sync_device = true } ]\n",
        2,
        "disable_wait_ms = 3600001 is too large",
    );
    // One hour exactly is allowed.
    scenario::parse_str(
        &one_thread("  { launch = \"k\", duration_us = 3600000000 },"),
        "ok.toml",
    )
    .unwrap();
}

#[test]
fn an_empty_scenario_is_an_error_that_says_so() {
    for text in ["", "[machine]\ngpus = 1\n", HEAD] {
        let e = error_of(text);
        assert_eq!(
            e.to_string(),
            "bad.toml: the scenario has no steps: add a [[thread]] with `steps`"
        );
    }
}

#[test]
fn a_file_beyond_4_mib_is_refused_before_parsing() {
    let step = "  { sync_device = true },\n";
    let text = one_thread(&step.repeat((4 << 20) / step.len() + 1));
    let e = error_of(&text);
    assert_eq!(e.line, 0);
    assert!(
        e.to_string()
            .starts_with("bad.toml: the file is too large ("),
        "{e}"
    );
}

#[test]
fn the_profiler_table_is_read() {
    let text = format!(
        "[profiler]\nmax_callback_api_events = 10\nmax_activity_api_events = 20\n\
         max_annotation_strings = 30\ndisable_wait_ms = 40\n{}",
        one_thread("  { launch = \"k\" },")
    );
    let s = scenario::parse_str(&text, "p.toml").unwrap();
    assert_eq!(
        s.profiler,
        scenario::ProfilerSpec {
            max_callback_api_events: Some(10),
            max_activity_api_events: Some(20),
            max_annotation_strings: Some(30),
            disable_wait_ms: Some(40),
        }
    );
    assert_error("[profiler]\nmax_events = 1\n", 2, "max_events");
}

#[test]
fn a_window_sends_its_exit_to_the_contexts_that_got_its_enter() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let ids = setup();
    let utility = sys::rocprofiler_context_id_t {
        handle: ids.utility,
    };
    let stream = sim::driver::stream_create().unwrap();
    let events = event_count();
    // Entered while the HIP_STREAM context runs, closed after it stopped: the EXIT still comes
    // (the SDK's wrapper collected the context before ENTER).
    let window = sim::driver::stream_window_enter(stream).unwrap();
    // SAFETY: a context the recording tool registered.
    check(unsafe { sys::rocprofiler_stop_context(utility) });
    sim::driver::stream_window_exit(window);
    // Entered while it is stopped, closed after it started again: neither callback.
    let window = sim::driver::stream_window_enter(stream).unwrap();
    // SAFETY: as above.
    check(unsafe { sys::rocprofiler_start_context(utility) });
    sim::driver::stream_window_exit(window);
    let sets: Vec<u32> = stream_events(events)
        .into_iter()
        .filter(|e| e.0 == sys::ROCPROFILER_HIP_STREAM_SET && e.3 == stream)
        .map(|e| e.1)
        .collect();
    assert_eq!(sets, [ENTER, EXIT]);
    sim::driver::stream_destroy(stream).unwrap();
}

#[test]
fn random_with_an_empty_stream_list_is_an_error() {
    let text = "[[code_object]]\nkernels = { k = \"_Z1kv\" }\n[[thread]]\nsteps = [\n  { random = { seed = 1, count = 3, kernels = [\"k\"], streams = [] } },\n]\n";
    assert_error(text, 5, "`streams = []` names no stream");
    // Omitted, it is the null stream.
    scenario::parse_str(&text.replace(", streams = []", ""), "ok.toml").unwrap();
}

/// `steps` groups nest at most 32 deep, with a clear message past it, also where the TOML
/// parser itself gives up.
#[test]
fn steps_nest_at_most_32_deep() {
    let nested = |depth: usize| {
        let mut steps = "{ sync_device = true }".to_owned();
        for _ in 0..depth {
            steps = format!("{{ steps = [ {steps} ] }}");
        }
        format!("[[thread]]\nsteps = [ {steps} ]\n")
    };
    scenario::parse_str(&nested(32), "ok.toml").unwrap();
    assert_error(&nested(33), 2, "`steps` groups nest at most 32 deep");
    assert_error(&nested(60), 2, "`steps` groups nest at most 32 deep");
}

/// A step's unknown key is refused at its line with the keys a step has; the check holds
/// inside nested groups too.
#[test]
fn a_step_with_an_unknown_key_is_refused_at_its_line() {
    let text = "[[thread]]\nsteps = [\n  { sync_device = true },\n  { steps = [\n    { sync_devic = true },\n  ] },\n]\n";
    assert_error(
        text,
        5,
        "unknown field `sync_devic`, expected one of `launch`, `graph`",
    );
}
