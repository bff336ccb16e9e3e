//! Scenario files: bad files get errors naming file, line and problem (and nothing panics);
//! `scenarios/jax_matmul.toml` and `multi_thread.toml` parse and replay under the recording
//! tool with the records XLA's tracer needs.
use sim::driver::CopyKind;
use sim::scenario::{self, ReplayHooks, ScenarioError};
use sim_test_kit::child;
use sim_test_kit::recording::*;
use std::path::PathBuf;
use std::sync::Mutex;

fn repo_scenario(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name)
}

fn error_of(text: &str) -> ScenarioError {
    scenario::parse_str(text, "bad.toml").expect_err("must be rejected")
}

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

const GOOD_HEAD: &str = r#"[machine]
gpus = 1
[[code_object]]
kernels = { k = "_Z1kv" }
[streams]
s = { device = 0 }
"#;

#[test]
fn toml_syntax_errors_name_the_line() {
    assert_error("[machine]\ngpus = 1\n[streams\n", 3, "");
    assert_error("[machine]\ngpus = \"two\"\n", 2, "");
}

#[test]
fn unknown_fields_and_wrong_types_name_the_line() {
    assert_error("[machine]\ngpus = 1\ncolor = \"red\"\n", 3, "color");
    let text =
        format!("{GOOD_HEAD}[[thread]]\nsteps = [\n  {{ launch = \"k\", strem = \"s\" }},\n]\n");
    assert_error(&text, 9, "strem");
}

#[test]
fn semantic_errors_name_the_line_and_problem() {
    let thread = |steps: &str| format!("{GOOD_HEAD}[[thread]]\nsteps = [\n{steps}\n]\n");
    assert_error(
        &thread("  { launch = \"k\", stream = \"s\" },\n  { launch = \"k\", stream = \"nope\" },"),
        10,
        "unknown stream `nope`",
    );
    assert_error(
        &thread("  { launch = \"missing\", stream = \"s\" },"),
        9,
        "unknown kernel `missing`",
    );
    assert_error(
        &thread("  { set_device = 3 },"),
        9,
        "device 3 does not exist",
    );
    assert_error(
        &thread("  { memcpy = \"sideways\", bytes = 4 },"),
        9,
        "unknown copy direction `sideways`",
    );
    assert_error(
        &thread("  { memcpy = \"h2d\" },"),
        9,
        "memcpy needs `bytes`",
    );
    assert_error(
        &thread("  { launch = \"k\", memset = 4 },"),
        9,
        "several actions",
    );
    assert_error(&thread("  { stream = \"s\" },"), 9, "no action");
    assert_error(
        &thread("  { api = \"hipNotAFunction\" },"),
        9,
        "unknown HIP runtime function",
    );
    assert_error(
        &thread("  { annotate = \"x\", repeat = 0, steps = [ { sync_device = true } ] },"),
        9,
        "repeat must be >= 1",
    );
    assert_error(
        &thread("  { launch = \"k\", duration_us = -5.0 },"),
        9,
        "duration_us",
    );
    assert_error("[streams]\nnull = { device = 0 }\n", 2, "reserved");
    assert_error(
        "[machine]\ngpus = 1\n[streams]\nx = { device = 1 }\n",
        4,
        "device 1 does not exist",
    );
}

#[test]
fn more_threads_than_the_virtual_clock_numbers_are_refused() {
    let thread = "[[thread]]\nsteps = [ { launch = \"k\" } ]\n";
    let at_limit = format!("{GOOD_HEAD}{}", thread.repeat(256));
    scenario::parse_str(&at_limit, "ok.toml").expect("256 threads are allowed");
    let over = format!("{GOOD_HEAD}{}", thread.repeat(257));
    // GOOD_HEAD has 6 lines and each thread 2: the 257th starts on line 6 + 2 * 256 + 1.
    assert_error(&over, 6 + 2 * 256 + 1, "at most 256 threads");
}

#[test]
fn unreadable_files_name_the_file() {
    let e = scenario::load("/nonexistent/dir/missing.toml").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("/nonexistent/dir/missing.toml: cannot read"),
        "{e}"
    );
}

#[test]
fn bad_files_on_disk_report_their_path() {
    let dir = std::env::temp_dir().join(format!("rocsim-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("broken.toml");
    std::fs::write(
        &path,
        format!("{GOOD_HEAD}[[thread]]\nsteps = [ {{ launch = \"k\", stream = \"t\" }} ]\n"),
    )
    .unwrap();
    let e = scenario::load(&path).unwrap_err();
    assert_eq!(e.file, path);
    assert_eq!((e.line, e.column), (8, 36), "points at the stream name");
    assert!(e.to_string().contains("unknown stream `t`"));
}

#[test]
fn arbitrary_garbage_never_panics() {
    let samples = [
        "",
        "\u{0}",
        "[[thread]]",
        "[[thread]]\nsteps = []",
        "streams = 5",
        "[[code_object]]\nkernels = { a = \"\" }",
        "[[thread]]\nsteps = [{ graph = [] }]",
        "[machine]\ngpus = 0",
        "[machine]\ngpus = 99999999999",
    ];
    for text in samples {
        let _ = scenario::parse_str(text, "fuzz.toml");
    }
    let jax = std::fs::read_to_string(repo_scenario("jax_matmul.toml")).unwrap();
    for cut in (0..jax.len()).step_by(97) {
        if jax.is_char_boundary(cut) {
            let _ = scenario::parse_str(&jax[..cut], "cut.toml");
        }
    }
}

#[derive(Default)]
struct Annotations(Mutex<Vec<(u64, String)>>, Mutex<u64>);
impl ReplayHooks for Annotations {
    fn push_annotation(&self, name: &str) {
        self.0.lock().unwrap().push((tid(), name.to_owned()));
    }
    fn pop_annotation(&self) {
        *self.1.lock().unwrap() += 1;
    }
}

static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn jax_matmul_parses_and_replays_with_xla_shaped_records() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    setup();
    let s = scenario::load(repo_scenario("jax_matmul.toml")).unwrap();
    assert_eq!(s.machine.gpus, 1);
    assert_eq!(
        s.streams
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["compute", "h2d", "d2h"]
    );
    let hooks = Annotations::default();
    let records_before = REC.records.lock().unwrap().len();
    let summary = scenario::replay(&s, &hooks).unwrap();
    drain();
    assert_eq!(summary.kernels, 13);
    assert_eq!(summary.copies.get(&CopyKind::HostToDevice), Some(&1));
    assert_eq!(summary.copies.get(&CopyKind::DeviceToHost), Some(&1));
    assert_eq!(summary.bytes_copied, 4194304 + 128);
    assert_eq!(summary.annotations, 10);
    let names: Vec<String> = hooks
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|(_, n)| n.clone())
        .collect();
    assert_eq!(
        names,
        (0..10)
            .map(|i| format!("matmul_step_{i}"))
            .collect::<Vec<_>>()
    );
    assert_eq!(*hooks.1.lock().unwrap(), 10);

    let records = REC.records.lock().unwrap()[records_before..].to_vec();
    let kernel_names = REC.kernel_names.lock().unwrap().clone();
    let kernels: Vec<_> = records
        .iter()
        .filter_map(|r| {
            if let Record::Kernel(k) = r {
                Some(*k)
            } else {
                None
            }
        })
        .collect();
    let matmuls: Vec<_> = kernels
        .iter()
        .filter(|k| kernel_names[&k.dispatch_info.kernel_id].starts_with("Cijk_Alik_Bljk_BBS_BH"))
        .collect();
    assert_eq!(matmuls.len(), 10);
    // The three lanes: compute (id 1 of this replay's streams), h2d, d2h, attributed through the
    // external correlation id the recording tool set from its HIP_STREAM stack.
    // SAFETY: the external correlation id is a user-data union of plain 64-bit values.
    let compute = unsafe { matmuls[0].correlation_id.external.value };
    assert!(matmuls
        .iter()
        // SAFETY: as above.
        .all(|k| unsafe { k.correlation_id.external.value } == compute));
    assert!(matmuls.iter().all(
        |k| k.dispatch_info.grid_size.x == 65536 && k.dispatch_info.group_segment_size == 32768
    ));
    let copies: Vec<_> = records
        .iter()
        .filter_map(|r| {
            if let Record::Copy(c) = r {
                Some(*c)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(copies.len(), 1);
    let h2d = copies[0];
    assert_eq!(
        (h2d.operation, h2d.bytes),
        (sys::ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, 4194304)
    );
    // The 128-byte read-back is below the runtime's blit threshold (16 KiB): HIP runs it as
    // the shader blit `__amd_rocclr_copyBuffer`, which the SDK records as a kernel dispatch
    // (docs/simulator-fidelity.md, the ledger's "Small host<->device copies").
    let blits: Vec<_> = kernels
        .iter()
        .filter(|k| kernel_names[&k.dispatch_info.kernel_id] == sim::driver::BLIT_COPY_KERNEL)
        .collect();
    assert_eq!(blits.len(), 1, "the read-back");
    let lanes = [
        compute,
        // SAFETY: the external correlation id is a user-data union of plain 64-bit values.
        unsafe { h2d.correlation_id.external.value },
        // SAFETY: as above.
        unsafe { blits[0].correlation_id.external.value },
    ];
    assert!(
        lanes[0] > 0 && lanes[1] == lanes[0] + 1 && lanes[2] == lanes[0] + 2,
        "{lanes:?}"
    );
    // GEMMs on one stream run back to back (182 us each).
    let mut spans: Vec<_> = matmuls
        .iter()
        .map(|k| (k.start_timestamp, k.end_timestamp))
        .collect();
    spans.sort();
    assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0));
    assert!(spans.iter().all(|(s, e)| e - s == 182_000));
    assert!(kernel_names
        .values()
        .any(|n| n == "_ZN15stream_executor3gpu12_GLOBAL__N_123MakeBatchPointersKernelEPcmmPPv"));
    // hipModuleLaunchKernel API records join the GEMM records by correlation id.
    for k in &matmuls {
        assert!(records.iter().any(|r| matches!(r, Record::Api(a)
            if a.correlation_id.internal == k.correlation_id.internal && a.operation == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel)));
    }
}

#[test]
fn multi_thread_scenario_shares_and_moves_queues() {
    // The scenario's per_thread and legacy streams need the newer SDKs' stream map (its
    // [machine] stream_map); SDK 1.0.0 aborts on them.
    if !child::in_child(
        "multi_thread_scenario_shares_and_moves_queues",
        &[("ROCSIM_MACHINE", "stream_map = \"newer\"")],
    ) {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    setup();
    let s = scenario::load(repo_scenario("multi_thread.toml")).unwrap();
    assert_eq!(s.threads.len(), 4);
    let records_before = REC.records.lock().unwrap().len();
    let summary = scenario::replay(&s, &()).unwrap();
    drain();
    assert_eq!(summary.graph_launches, 1);
    assert_eq!(summary.memsets, 5);
    let records = REC.records.lock().unwrap()[records_before..].to_vec();
    let kernels: Vec<_> = records
        .iter()
        .filter_map(|r| {
            if let Record::Kernel(k) = r {
                Some(*k)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        kernels.len() as u64,
        summary.kernels + 3,
        "the same-GPU D2D copy and the two small read-backs are blit kernels"
    );
    // Streams a and b share a queue; d moved from its own queue onto it.
    let by_stream = |ext: u64| -> std::collections::BTreeSet<u64> {
        kernels
            .iter()
            // SAFETY: the external correlation id is a user-data union of plain 64-bit values.
            .filter(|k| unsafe { k.correlation_id.external.value } == ext)
            .map(|k| k.dispatch_info.queue_id.handle)
            .collect()
    };
    let ids: Vec<u64> = kernels
        .iter()
        // SAFETY: the external correlation id is a user-data union of plain 64-bit values.
        .map(|k| unsafe { k.correlation_id.external.value })
        .collect();
    let first = *ids.iter().filter(|i| **i != 0).min().unwrap();
    let (a, b, c, d) = (
        by_stream(first),
        by_stream(first + 1),
        by_stream(first + 2),
        by_stream(first + 3),
    );
    assert_eq!(a.len(), 1);
    assert_eq!(a, b, "a and b share q0");
    assert_ne!(a, c);
    assert_eq!(d.len(), 2, "d ran on two queues");
    assert!(d.is_superset(&a), "d moved onto q0");
    // The synchronous 4 KiB hipMemcpy has no SET, so its blit is attributed to stream 0.
    let names = REC.kernel_names.lock().unwrap().clone();
    assert!(kernels.iter().any(|k| names[&k.dispatch_info.kernel_id]
        == sim::driver::BLIT_COPY_KERNEL
        // SAFETY: the external correlation id is a user-data union of plain 64-bit values.
        && unsafe { k.correlation_id.external.value } == 0));
}

#[test]
fn memset_without_a_stream_is_a_blocking_hip_memset_with_no_set() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    setup();
    let text = format!(
        "{GOOD_HEAD}[[thread]]\nsteps = [\n  {{ memset = 4096, duration_us = 30 }},\n  {{ memset = 4096, stream = \"s\" }},\n]\n"
    );
    let s = scenario::parse_str(&text, "memset.toml").unwrap();
    let records_before = REC.records.lock().unwrap().len();
    let events_before = event_count();
    let summary = scenario::replay(&s, &()).unwrap();
    drain();
    assert_eq!((summary.memsets, summary.kernels), (2, 2));
    let records = REC.records.lock().unwrap()[records_before..].to_vec();
    let memset_calls: Vec<(i32, u64)> = records
        .iter()
        .filter_map(|r| match r {
            Record::Api(a)
                if a.operation == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset
                    || a.operation == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync =>
            {
                Some((a.operation, a.correlation_id.internal))
            }
            _ => None,
        })
        .collect();
    let ops: Vec<i32> = memset_calls.iter().map(|c| c.0).collect();
    assert_eq!(
        ops,
        [
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset,
            sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync
        ]
    );
    // Both are fill-kernel dispatches; the sync one lasted its 30 us.
    for (op, corr) in &memset_calls {
        let kernel = records
            .iter()
            .find_map(|r| match r {
                Record::Kernel(k) if k.correlation_id.internal == *corr => Some(*k),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no dispatch for op {op}"));
        if *op == sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipMemset {
            assert_eq!(kernel.end_timestamp - kernel.start_timestamp, 30_000);
        }
    }
    // Exactly one SET ENTER: the hipMemsetAsync's.
    let sets = REC.events.lock().unwrap()[events_before..]
        .iter()
        .filter(|e| e.shape() == SET_ENTER)
        .count();
    assert_eq!(sets, 1);
}

#[test]
fn enable_and_disable_steps_count_sessions_and_misuse_names_the_line() {
    let thread = |steps: &str| format!("{GOOD_HEAD}[[thread]]\nsteps = [\n{steps}\n]\n");
    let good = scenario::parse_str(
        &thread(
            "  { enable = true },\n  { launch = \"k\", stream = \"s\" },\n  { disable = true },\n  \
             { enable = true },\n  { launch = \"k\", stream = \"s\" },",
        ),
        "good.toml",
    )
    .unwrap();
    assert_eq!(good.sessions, 2);
    assert!(matches!(good.threads[0].steps[0], scenario::Step::Enable));
    assert!(matches!(good.threads[0].steps[2], scenario::Step::Disable));
    let none = scenario::parse_str(&thread("  { launch = \"k\", stream = \"s\" },"), "x.toml");
    assert_eq!(none.unwrap().sessions, 0);

    assert_error(
        &thread("  { disable = true },"),
        9,
        "`disable` without an enabled session",
    );
    assert_error(
        &thread("  { enable = true },\n  { enable = true },"),
        10,
        "`enable` while a session is enabled",
    );
    assert_error(&thread("  { enable = false },"), 9, "enable must be true");
    assert_error(&thread("  { disable = false },"), 9, "disable must be true");
    assert_error(
        &thread("  { enable = true, launch = \"k\" },"),
        9,
        "several actions",
    );
    assert_error(
        &thread("  { steps = [ { enable = true } ], repeat = 2 },"),
        9,
        "cannot be inside a `steps` group",
    );
    let two_threads = format!(
        "{GOOD_HEAD}[[thread]]\nname = \"a\"\nsteps = [ {{ enable = true }} ]\n\
         [[thread]]\nname = \"b\"\nsteps = [ {{ disable = true }} ]\n"
    );
    assert_error(
        &two_threads,
        12,
        "must all be in one thread (thread `a` has them)",
    );
}

#[test]
fn roctx_stream_names_parse_and_bad_ones_name_the_line() {
    let good = scenario::parse_str(
        "[streams]\nh2d = { device = 0, roctx_name = \"copies in\" }\nplain = { device = 0 }\n\
         [[thread]]\nsteps = [ { sync_device = true } ]\n",
        "names.toml",
    )
    .unwrap();
    let names: Vec<(&str, Option<&str>)> = good
        .streams
        .iter()
        .map(|s| (s.name.as_str(), s.roctx_name.as_deref()))
        .collect();
    assert_eq!(names, [("h2d", Some("copies in")), ("plain", None)]);
    let bad = |value: &str| {
        format!("[streams]\ns = {{ device = 0, roctx_name = {value} }}\n[[thread]]\nsteps = []\n")
    };
    assert_error(&bad("\"\""), 2, "must not be empty");
    assert_error(&bad("\"a\\u0000b\""), 2, "NUL");
    assert_error(&bad(&format!("\"{}\"", "x".repeat(300))), 2, "at most 256");
    assert_error(&bad("7"), 2, "");
}

#[test]
fn replay_names_streams_and_reports_each_declared_stream() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    setup();
    let s = scenario::load(repo_scenario("named_streams.toml")).unwrap();
    let summary = scenario::replay(&s, &()).unwrap();
    drain();
    let streams: Vec<(&str, u32, Option<&str>, bool)> = summary
        .streams
        .iter()
        .map(|r| {
            (
                r.name.as_str(),
                r.device,
                r.roctx_name.as_deref(),
                r.handle != 0,
            )
        })
        .collect();
    assert_eq!(
        streams,
        [
            ("compute", 0, Some("compute"), true),
            ("h2d", 0, Some("h2d"), true),
            ("spare", 0, None, true),
        ]
    );
    let ids: Vec<Option<u64>> = summary.streams.iter().map(|r| r.sdk_stream_id).collect();
    for (id, stream) in ids.iter().zip(&summary.streams) {
        assert_eq!(
            *id,
            sim::driver::sdk_stream_id(stream.handle).ok(),
            "{}",
            stream.name
        );
    }
}
