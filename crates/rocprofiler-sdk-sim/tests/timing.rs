//! Device timing as the application sees it: kernel records that arrive after a synchronize
//! (kernel_record_lag_us) and the virtual clock (clock, seed). Tests that
//! need another machine run in a child process; the virtual clock makes their assertions
//! about "not yet pushed" exact instead of a race with the host's timing.
use sim::driver::{self, CopyKind};
use sim::machine::{machine, ClockMode};
use sim_test_kit::child;
use sim_test_kit::recording::*;

fn now() -> u64 {
    let mut t = 0;
    // SAFETY: `t` is a live local for the SDK to write.
    check(unsafe { sys::rocprofiler_get_timestamp(&mut t) });
    t
}

/// Whether the recording tool saw the completion callback of correlation id `corr`: COMPLETE
/// for a kernel, EXIT for a copy.
fn completed(corr: u64) -> bool {
    REC.events.lock().unwrap().iter().any(|e| {
        matches!(e, Event::Callback { kind, op, phase, internal, .. }
            if *internal == corr
                && ((*kind == sys::ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH
                    && *op == sys::ROCPROFILER_KERNEL_DISPATCH_COMPLETE)
                    || (*kind == sys::ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY
                        && *phase == sys::ROCPROFILER_CALLBACK_PHASE_EXIT)))
    })
}

#[test]
fn the_default_machine_lags_kernel_records_on_the_real_clock() {
    if std::env::var_os("ROCSIM_MACHINE").is_some() {
        return;
    }
    // A real MI300X's async signal handler wakes some tens of microseconds after the barrier
    // packet released the application; zero would be kinder than the SDK.
    assert_eq!(machine().kernel_record_lag_us, [20, 200]);
    assert_eq!(machine().clock, ClockMode::Real);
}

#[test]
fn kernel_records_arrive_after_synchronize_and_copies_before() {
    if !child::in_child(
        "kernel_records_arrive_after_synchronize_and_copies_before",
        &[(
            "ROCSIM_MACHINE",
            "clock = \"virtual\", kernel_record_lag_us = [500, 500]",
        )],
    ) {
        return;
    }
    setup();
    assert_eq!(machine().kernel_record_lag_us, [500, 500]);
    let launch = kernel("_Z6laggedv");
    let stream = driver::stream_create().unwrap();
    let kernel_corr = driver::launch_kernel(stream, &launch).unwrap();
    let copy = sim_test_kit::copy(CopyKind::DeviceToHost, 1 << 20, 5_000);
    let copy_corr = driver::memcpy_async(stream, &copy).unwrap();
    driver::stream_synchronize(stream).unwrap();
    // hipStreamSynchronize returned when the device finished: the copy's record (pushed
    // before HIP's signal is released) is there, the kernel's (500 us later) is not.
    assert!(
        completed(copy_corr),
        "the copy completes before the synchronize"
    );
    assert!(
        !completed(kernel_corr),
        "the kernel's COMPLETE must still be pending after hipStreamSynchronize"
    );
    driver::device_synchronize().unwrap();
    assert!(
        !completed(kernel_corr),
        "hipDeviceSynchronize does not wait for records either"
    );
    // wait_idle (not a HIP call) waits for every record.
    drain();
    assert!(completed(kernel_corr));
    let kernel = records_for(kernel_corr)
        .into_iter()
        .find_map(|r| match r {
            Record::Kernel(k) => Some(k),
            _ => None,
        })
        .expect("the kernel record after wait_idle");
    assert!(
        now() >= kernel.end_timestamp + 500_000,
        "the record was pushed one lag after the kernel ended"
    );
    // The copy record's timestamps are before the synchronize returned.
    let copy_record = records_for(copy_corr)
        .into_iter()
        .find_map(|r| match r {
            Record::Copy(c) => Some(c),
            _ => None,
        })
        .expect("the copy record");
    assert!(copy_record.start_timestamp >= kernel.end_timestamp);
}

/// One wake of the signal handler thread handles every completion it can see (ROCR's
/// `AsyncEventsLoop` checks the remaining signals before sleeping): a copy's completion also
/// pushes the record of a kernel that ended at least the lag's minimum earlier, long before
/// that kernel's own lag is up, but not that of a kernel that ended just before.
#[test]
fn a_wake_of_the_signal_thread_pushes_every_kernel_record_it_can_see() {
    if !child::in_child(
        "a_wake_of_the_signal_thread_pushes_every_kernel_record_it_can_see",
        &[(
            "ROCSIM_MACHINE",
            "clock = \"virtual\", seed = 3, kernel_record_lag_us = [10, 100000]",
        )],
    ) {
        return;
    }
    setup();
    let [early, copied, late] = [(); 3].map(|_| driver::stream_create().unwrap());
    let early_corr = driver::launch_kernel(
        early,
        &driver::KernelLaunch {
            duration_ns: 1_000,
            ..kernel("_Z5earlyv")
        },
    )
    .unwrap();
    let copy = sim_test_kit::copy(CopyKind::DeviceToHost, 1 << 20, 50_000);
    let copy_corr = driver::memcpy_async(copied, &copy).unwrap();
    // Ends a few microseconds before the copy: not yet visible to the handler.
    let late_corr = driver::launch_kernel(
        late,
        &driver::KernelLaunch {
            duration_ns: 45_000,
            ..kernel("_Z4latev")
        },
    )
    .unwrap();
    driver::stream_synchronize(copied).unwrap();
    assert!(
        completed(copy_corr),
        "the copy completes before the synchronize"
    );
    assert!(
        completed(early_corr),
        "the copy's wake also handles the kernel that ended 50 us earlier"
    );
    assert!(
        !completed(late_corr),
        "a kernel that ended less than the minimum lag before the wake waits for a later one"
    );
    drain();
    assert!(completed(late_corr));
    assert!(completed(early_corr));
}

#[test]
fn a_zero_lag_pushes_kernel_records_before_synchronize_returns() {
    if !child::in_child(
        "a_zero_lag_pushes_kernel_records_before_synchronize_returns",
        &[("ROCSIM_MACHINE", "kernel_record_lag_us = [0, 0]")],
    ) {
        return;
    }
    setup();
    let launch = kernel("_Z7no_lagv");
    let stream = driver::stream_create().unwrap();
    let corr = driver::launch_kernel(stream, &launch).unwrap();
    driver::stream_synchronize(stream).unwrap();
    assert!(completed(corr));
}

#[test]
fn virtual_time_moves_only_with_hip_calls() {
    if !child::in_child(
        "virtual_time_moves_only_with_hip_calls",
        &[("ROCSIM_MACHINE", "clock = \"virtual\"")],
    ) {
        return;
    }
    setup();
    assert_eq!(machine().clock, ClockMode::Virtual);
    let malloc = driver::hip_operation("hipMalloc").unwrap();
    driver::api_call(malloc, None).unwrap();
    let t0 = now();
    std::thread::sleep(std::time::Duration::from_millis(2));
    assert_eq!(
        now(),
        t0,
        "reading the clock, or host time passing, does not move it"
    );
    let corr = driver::api_call(malloc, None).unwrap();
    assert_eq!(now(), t0 + 1_000, "a HIP call costs 1 us of virtual time");
    drain();
    let api = records_for(corr)
        .into_iter()
        .find_map(|r| match r {
            Record::Api(a) => Some(a),
            _ => None,
        })
        .unwrap();
    assert_eq!((api.start_timestamp, api.end_timestamp), (t0, t0 + 1_000));
    // Thread ids are small virtual numbers, not the host's.
    let me = tid();
    assert!((4_000..6_000).contains(&me), "virtual tid {me}");
    assert_eq!(api.thread_id, me);
    // A kernel runs on the modelled schedule: 2 us launch latency, then its duration.
    let launch = kernel("_Z7virtualv");
    let start = now();
    let corr = driver::launch_kernel(driver::NULL_STREAM, &launch).unwrap();
    driver::device_synchronize().unwrap();
    drain();
    let k = records_for(corr)
        .into_iter()
        .find_map(|r| match r {
            Record::Kernel(k) => Some(k),
            _ => None,
        })
        .unwrap();
    assert_eq!(k.start_timestamp, start + 2_000);
    assert_eq!(k.end_timestamp, k.start_timestamp + launch.duration_ns);
}

/// Child of [`virtual_clock_replays_repeat_exactly`]: replays `scenarios/multi_thread.toml` on
/// the virtual clock and prints everything the tool saw, one `TRACE` line per item.
#[test]
fn replay_and_print_the_trace() {
    if !child::is_child("replay_and_print_the_trace") {
        return;
    }
    setup();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/multi_thread.toml");
    let scenario = sim::scenario::load(path).unwrap();
    sim::scenario::replay(&scenario, &()).unwrap();
    drain();
    for agent in REC.agents.lock().unwrap().iter() {
        println!("TRACE agent {agent:?}");
    }
    for event in REC.events.lock().unwrap().iter() {
        println!("TRACE {event:?}");
    }
    for record in REC.records.lock().unwrap().iter() {
        let line = match record {
            Record::Api(a) => format!(
                "api op={} corr={} tid={} {}..{}",
                a.operation,
                a.correlation_id.internal,
                a.thread_id,
                a.start_timestamp,
                a.end_timestamp
            ),
            Record::Kernel(k) => format!(
                "kernel corr={} tid={} {}..{} agent={} queue={} kernel={} dispatch={}",
                k.correlation_id.internal,
                k.thread_id,
                k.start_timestamp,
                k.end_timestamp,
                k.dispatch_info.agent_id.handle,
                k.dispatch_info.queue_id.handle,
                k.dispatch_info.kernel_id,
                k.dispatch_info.dispatch_id
            ),
            Record::Copy(c) => format!(
                "copy op={} corr={} tid={} {}..{} {}->{} bytes={}",
                c.operation,
                c.correlation_id.internal,
                c.thread_id,
                c.start_timestamp,
                c.end_timestamp,
                c.src_agent_id.handle,
                c.dst_agent_id.handle,
                c.bytes
            ),
        };
        println!("TRACE {line} external={}", record.external());
    }
    println!("TRACE end {}", now());
}

fn traced_replay() -> Vec<String> {
    // The scenario's own machine (it uses the per-thread and legacy streams, so it asks for the
    // newer SDKs' stream map), on the virtual clock.
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/multi_thread.toml");
    let mut scenario = sim::scenario::load(path).unwrap();
    scenario
        .machine_keys
        .insert("clock".into(), "virtual".into());
    let output = child::output(
        "replay_and_print_the_trace",
        child::command("replay_and_print_the_trace").envs(scenario.machine_env()),
    )
    .unwrap();
    child::assert_passed("replay_and_print_the_trace", &output)
        .lines()
        .filter(|l| l.starts_with("TRACE "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn virtual_clock_replays_repeat_exactly() {
    if child::is_any_child() {
        return;
    }
    let first = traced_replay();
    let second = traced_replay();
    // Callbacks of 4 threads, kernel, copy and API records, all with times and thread ids.
    assert!(first.len() > 100, "{first:#?}");
    assert!(first.iter().any(|l| l.starts_with("TRACE kernel")));
    if let Some((i, (a, b))) = first
        .iter()
        .zip(&second)
        .enumerate()
        .find(|(_, (a, b))| a != b)
    {
        panic!("replays differ at line {i}:\n  {a}\n  {b}");
    }
    assert_eq!(first.len(), second.len());
}

#[test]
fn virtual_replay_threads_take_turns_by_local_time() {
    if !child::in_child(
        "virtual_replay_threads_take_turns_by_local_time",
        &[("ROCSIM_MACHINE", "clock = \"virtual\"")],
    ) {
        return;
    }
    setup();
    let text = r#"[machine]
gpus = 1
[[code_object]]
kernels = { k = "_Z5turnsv" }
[streams]
s = { device = 0 }
[[thread]]
name = "sleeper"
steps = [{ sleep_us = 100 }, { api = "hipFree" }]
[[thread]]
name = "busy"
steps = [{ api = "hipMalloc" }, { api = "hipMalloc" }]
"#;
    let scenario = sim::scenario::parse_str(text, "turns.toml").unwrap();
    let from = REC.records.lock().unwrap().len();
    let start = now();
    sim::scenario::replay(&scenario, &()).unwrap();
    drain();
    let calls: Vec<(i32, u64, u64)> = REC.records.lock().unwrap()[from..]
        .iter()
        .filter_map(|r| match r {
            Record::Api(a) => Some((a.operation, a.thread_id, a.start_timestamp)),
            _ => None,
        })
        .collect();
    let malloc = driver::hip_operation("hipMalloc").unwrap();
    let free = driver::hip_operation("hipFree").unwrap();
    let steps: Vec<_> = calls
        .iter()
        .filter(|(op, _, _)| [malloc, free].contains(op))
        .copied()
        .collect();
    // Creating the stream (hipSetDevice, hipStreamCreate, hipSetDevice) took 3 us; then the
    // sleeping thread (4001) sleeps 100 us of virtual time while the busy one (4002) makes
    // both its calls, and runs at exactly its wake-up time.
    let t0 = start + 3_000;
    assert_eq!(
        steps,
        vec![
            (malloc, 4002, t0),
            (malloc, 4002, t0 + 1_000),
            (free, 4001, t0 + 100_000),
        ]
    );
}
