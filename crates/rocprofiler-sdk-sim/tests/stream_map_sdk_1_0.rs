//! The size-indexed HIP_STREAM stream maps (`hip/stream.cpp`) of rocprofiler-sdk 1.0.0 (ROCm
//! 7.0, `stream_map = "sdk-1.0"`) and 1.1.0 to 1.3.0 (ROCm 7.1 to 7.13, `"sdk-1.1"`, the
//! simulator's default): streams enter the map when an active HIP_STREAM callback context sees
//! their creation, with id = map size + offset; DESTROY keeps the entry; CREATE fires after a
//! failed create. A SET or DESTROY on a value the map lacks aborts the process under 1.0.0 and
//! adds it to the map from 1.1.0 (ROCm/rocm-systems#1488 on the 7.1 branch); 1.0.0 also aborts
//! on `hipStreamLegacy` and `hipStreamPerThread`, which 1.1.0 looks up as the null stream
//! (#343).
//! Behaviours that end the process, or change process-wide state (the null stream's id), run in
//! a child process.
use sim::driver;
use sim::machine::StreamMap;
use sim_test_kit::child;
use sim_test_kit::recording::*;

/// In the parent: runs `test` in a child with `env` and asserts that it was killed by SIGABRT
/// after printing `stderr_needle` and the SDK's `std::out_of_range`; returns false. In the
/// child: returns true.
fn aborts_in_child(test: &str, env: &[(&str, &str)], stderr_needle: &str) -> bool {
    child::aborts_in_child(test, env, &[stderr_needle, "std::out_of_range"])
}

/// Stops or starts the recording tool's HIP_STREAM context (the utility context).
fn stream_context_active(active: bool) {
    let context = sys::rocprofiler_context_id_t {
        handle: setup().utility,
    };
    // SAFETY: plain calls on a context handle the SDK created (it validates handles).
    let status = unsafe {
        if active {
            sys::rocprofiler_start_context(context)
        } else {
            sys::rocprofiler_stop_context(context)
        }
    };
    check(status);
}

fn stream_events(from: usize, op: i32) -> Vec<(u64, u64)> {
    REC.events.lock().unwrap()[from..]
        .iter()
        .filter_map(|e| match e {
            Event::Callback {
                kind,
                op: o,
                stream: Some(s),
                ..
            } if *kind == sys::ROCPROFILER_CALLBACK_TRACING_HIP_STREAM && *o == op => Some(*s),
            _ => None,
        })
        .collect()
}

const ROCM_7_0: (&str, &str) = ("ROCSIM_MACHINE", "rocm = \"7.0\"");

#[test]
fn the_default_release_7_1_has_the_sdk_1_1_map() {
    assert_eq!(
        sim::machine::machine().sdk_version,
        sim::machine::Version(1, 1, 0)
    );
    assert_eq!(sim::machine::machine().stream_map, StreamMap::Sdk1_1);
}

/// SDK 1.1.0 (#343): the special handles are the null stream, id 0, in their SETs.
#[test]
fn sdk_1_1_maps_the_special_streams_to_the_null_stream() {
    if !child::in_child("sdk_1_1_maps_the_special_streams_to_the_null_stream", &[]) {
        return;
    }
    setup();
    let from = event_count();
    let launch = kernel("_Z11per_thread1v");
    driver::launch_kernel(driver::STREAM_PER_THREAD, &launch).unwrap();
    driver::stream_synchronize(driver::STREAM_LEGACY).unwrap();
    let sets = stream_events(from, sys::ROCPROFILER_HIP_STREAM_SET);
    assert!(sets.len() >= 2, "{sets:?}");
    assert!(sets.iter().all(|&(id, _)| id == 0), "{sets:?}");
    assert_eq!(driver::sdk_stream_id(driver::STREAM_PER_THREAD).unwrap(), 0);
}

#[test]
fn a_set_on_hip_stream_per_thread_aborts_under_sdk_1_0() {
    if !aborts_in_child(
        "a_set_on_hip_stream_per_thread_aborts_under_sdk_1_0",
        &[ROCM_7_0],
        "hipStreamPerThread",
    ) {
        return;
    }
    setup();
    let launch = kernel("_Z10per_threadv");
    let _ = driver::launch_kernel(driver::STREAM_PER_THREAD, &launch);
    unreachable!("the SET on hipStreamPerThread must end the process");
}

#[test]
fn a_set_on_hip_stream_legacy_aborts_under_sdk_1_0() {
    if !aborts_in_child(
        "a_set_on_hip_stream_legacy_aborts_under_sdk_1_0",
        &[ROCM_7_0],
        "hipStreamLegacy",
    ) {
        return;
    }
    setup();
    let _ = driver::stream_synchronize(driver::STREAM_LEGACY);
    unreachable!("the SET on hipStreamLegacy must end the process");
}

#[test]
fn a_stream_created_while_no_stream_context_was_active_aborts_on_its_first_set() {
    if !aborts_in_child(
        "a_stream_created_while_no_stream_context_was_active_aborts_on_its_first_set",
        &[ROCM_7_0],
        "never saw",
    ) {
        return;
    }
    setup();
    let launch = kernel("_Z4latev");
    stream_context_active(false);
    let stream = driver::stream_create().unwrap();
    // Without an active HIP_STREAM context, SETs do not look the stream up.
    driver::launch_kernel(stream, &launch).unwrap();
    driver::launch_kernel(driver::STREAM_PER_THREAD, &launch).unwrap();
    stream_context_active(true);
    let _ = driver::launch_kernel(stream, &launch);
    unreachable!("the SET on an unmapped stream must end the process");
}

#[test]
fn destroying_a_stream_the_map_never_saw_aborts() {
    if !aborts_in_child(
        "destroying_a_stream_the_map_never_saw_aborts",
        &[ROCM_7_0],
        "HIP_STREAM DESTROY",
    ) {
        return;
    }
    setup();
    stream_context_active(false);
    let stream = driver::stream_create().unwrap();
    stream_context_active(true);
    let _ = driver::stream_destroy(stream);
    unreachable!("the DESTROY of an unmapped stream must end the process");
}

/// From SDK 1.1.0: a stream created while no HIP_STREAM context was active enters the map at
/// its first traced SET, with the next size-based id and no CREATE; a DESTROY of another such
/// stream does the same.
#[test]
fn a_stream_the_map_never_saw_enters_it_at_its_first_set_or_destroy() {
    if !child::in_child(
        "a_stream_the_map_never_saw_enters_it_at_its_first_set_or_destroy",
        &[],
    ) {
        return;
    }
    setup();
    let launch = kernel("_Z4lazyv");
    stream_context_active(false);
    let unseen = driver::stream_create().unwrap();
    let other = driver::stream_create().unwrap();
    stream_context_active(true);
    let from = event_count();
    driver::launch_kernel(unseen, &launch).unwrap();
    driver::stream_destroy(other).unwrap();
    assert!(stream_events(from, sys::ROCPROFILER_HIP_STREAM_CREATE).is_empty());
    assert_eq!(
        stream_events(from, sys::ROCPROFILER_HIP_STREAM_SET),
        [(1, unseen), (1, unseen)],
        "the null stream is 0, so the map's size is 1"
    );
    assert_eq!(
        stream_events(from, sys::ROCPROFILER_HIP_STREAM_DESTROY),
        [(2, other)]
    );
    assert_eq!(driver::sdk_stream_id(unseen).unwrap(), 1);
}

#[test]
fn create_registers_only_under_an_active_context_and_destroy_keeps_the_entry() {
    if !child::in_child(
        "create_registers_only_under_an_active_context_and_destroy_keeps_the_entry",
        &[ROCM_7_0],
    ) {
        return;
    }
    setup();
    let launch = kernel("_Z4keepv");
    let from = event_count();
    let a = driver::stream_create().unwrap();
    let b = driver::stream_create().unwrap();
    let created = stream_events(from, sys::ROCPROFILER_HIP_STREAM_CREATE);
    assert_eq!(created, [(1, a), (2, b)], "map size + offset: dense ids");
    assert_eq!(driver::sdk_stream_id(a).unwrap(), 1);
    assert_eq!(
        driver::sdk_stream_id(driver::STREAM_LEGACY),
        Err(sim::SimError::UnknownStream(driver::STREAM_LEGACY))
    );
    assert_eq!(
        driver::sdk_stream_id(driver::STREAM_PER_THREAD),
        Err(sim::SimError::UnknownStream(driver::STREAM_PER_THREAD))
    );

    let from = event_count();
    driver::stream_destroy(b).unwrap();
    assert_eq!(
        stream_events(from, sys::ROCPROFILER_HIP_STREAM_DESTROY),
        [(2, b)]
    );
    // The allocator hands b's address to the next stream. Created while no HIP_STREAM context
    // was active, the new stream is not added to the map, but b's entry is still there: its
    // SETs carry b's old id instead of aborting.
    stream_context_active(false);
    let from = event_count();
    let reused = driver::stream_create().unwrap();
    assert_eq!(reused, b);
    assert!(stream_events(from, sys::ROCPROFILER_HIP_STREAM_CREATE).is_empty());
    stream_context_active(true);
    let from = event_count();
    driver::launch_kernel(reused, &launch).unwrap();
    assert_eq!(
        stream_events(from, sys::ROCPROFILER_HIP_STREAM_SET),
        [(2, b), (2, b)]
    );
    // A traced creation at an address the map already has gets a new id: map size + offset.
    driver::stream_destroy(reused).unwrap();
    let from = event_count();
    let again = driver::stream_create().unwrap();
    assert_eq!(again, b);
    assert_eq!(
        stream_events(from, sys::ROCPROFILER_HIP_STREAM_CREATE),
        [(3, b)]
    );
    let c = driver::stream_create().unwrap();
    assert_eq!(driver::sdk_stream_id(c).unwrap(), 4);
}

#[test]
fn create_fires_after_a_failed_create_and_can_move_the_null_stream() {
    if !child::in_child(
        "create_fires_after_a_failed_create_and_can_move_the_null_stream",
        &[],
    ) {
        return;
    }
    setup();
    let op = driver::hip_operation("hipStreamCreateWithFlags").unwrap();
    let from = event_count();
    // A null hipStream_t*: CREATE carries the empty payload.
    driver::stream_create_failed(op, None).unwrap();
    assert_eq!(
        stream_events(from, sys::ROCPROFILER_HIP_STREAM_CREATE),
        [(0, 0)]
    );
    // *stream still holds the null stream: the SDK adds it again under a new id.
    let from = event_count();
    driver::stream_create_failed(op, Some(driver::NULL_STREAM)).unwrap();
    let created = stream_events(from, sys::ROCPROFILER_HIP_STREAM_CREATE);
    assert_eq!(created.len(), 1);
    let (moved, value) = created[0];
    assert_eq!(value, 0);
    assert_ne!(moved, 0, "the null stream lost id 0");
    let from = event_count();
    driver::stream_synchronize(driver::NULL_STREAM).unwrap();
    assert_eq!(
        stream_events(from, sys::ROCPROFILER_HIP_STREAM_SET),
        [(moved, 0), (moved, 0)]
    );
}

#[test]
fn a_later_release_gets_the_newer_map() {
    if !child::in_child(
        "a_later_release_gets_the_newer_map",
        &[("ROCSIM_MACHINE", "rocm = \"10.0\"")],
    ) {
        return;
    }
    assert_eq!(sim::machine::machine().stream_map, StreamMap::Newer);
    setup();
    let launch = kernel("_Z5newerv");
    driver::launch_kernel(driver::STREAM_PER_THREAD, &launch).unwrap();
    driver::stream_synchronize(driver::STREAM_LEGACY).unwrap();
    assert_eq!(driver::sdk_stream_id(driver::STREAM_LEGACY).unwrap(), 0);
}

#[test]
fn an_explicit_stream_map_overrides_the_release() {
    if !child::in_child(
        "an_explicit_stream_map_overrides_the_release",
        &[(
            "ROCSIM_MACHINE",
            "rocm = \"7.14\", stream_map = \"sdk-1.0\"",
        )],
    ) {
        return;
    }
    assert_eq!(sim::machine::machine().stream_map, StreamMap::Sdk1_0);
    assert_eq!(
        sim::machine::machine().sdk_version,
        sim::machine::Version(1, 3, 2)
    );
}

#[test]
fn a_scenario_that_needs_the_newer_map_asks_for_it_and_is_refused_under_sdk_1_1() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/multi_thread.toml");
    let s = sim::scenario::load(path).unwrap();
    assert_eq!(s.machine.stream_map, StreamMap::Newer);
    assert_eq!(
        s.machine_env(),
        [(
            "ROCSIM_MACHINE",
            "gpus = 1\nstream_map = \"newer\"\n".to_owned()
        )]
    );
    // Replaying it here would abort on its first per_thread SET: replay refuses instead.
    let error = sim::scenario::replay(&s, &()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("with stream_map = \"newer\" but this process has stream_map = \"sdk-1.1\""),
        "{error}"
    );
}

/// A scenario step on `legacy` under the SDK 1.0 map still aborts as the SDK does, and the
/// message names the scenario line and the `rocm` key that models a later SDK.
#[test]
fn a_scenario_on_the_legacy_stream_aborts_naming_its_line_and_the_fix() {
    if !child::aborts_in_child(
        "a_scenario_on_the_legacy_stream_aborts_naming_its_line_and_the_fix",
        &[ROCM_7_0],
        &[
            "hipStreamLegacy",
            "such a stream at legacy.toml:4:36",
            "add rocm = \"7.1\" (or later) to its [machine]",
        ],
    ) {
        return;
    }
    setup();
    let text = "[[code_object]]\nkernels = { k = \"_Z1kv\" }\n[[thread]]\nsteps = [ { launch = \"k\", stream = \"legacy\" } ]\n";
    let s = sim::scenario::parse_str(text, "legacy.toml").unwrap();
    let _ = sim::scenario::replay(&s, &());
    unreachable!("the SET on hipStreamLegacy must end the process");
}
