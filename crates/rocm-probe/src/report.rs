//! The report: what one run of the battery saw, normalised so that two runs of the same
//! libraries give the same text (no addresses, handles, thread ids or times: threads are
//! "main", "worker-1", "sdk-buffer-1"..., streams "null", "legacy", "per-thread", "stream#N" in
//! order of first appearance, agents "cpu0", "gpu0", arrivals as orderings against the
//! battery's marks), and the file that holds one or two runs plus their comparison.

use crate::battery::StepOutcome;
use crate::libs::{LibraryPair, Sdk};
use crate::tool::{Mark, Recording};
use rocprofiler_sdk_sys::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::ffi::c_char;

pub const FORMAT: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Library {
    pub path: String,
    pub version: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Libraries {
    /// "real" or "simulated".
    pub origin: String,
    pub hip: Library,
    pub sdk: Library,
    /// The machine keys (`ROCSIM_MACHINE`) the simulated run had (empty for real libraries).
    pub simulator_options: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct Step {
    pub name: String,
    pub skipped: Option<String>,
    /// HIP calls with their return codes.
    pub calls: Vec<String>,
    pub notes: Vec<String>,
    /// Callback order per thread: "KIND operation PHASE".
    pub callbacks: BTreeMap<String, Vec<String>>,
    /// HIP_STREAM callbacks: "thread: OPERATION stream id=N".
    pub stream_ids: Vec<String>,
    /// External-correlation requests: "thread: KIND operation".
    pub external_correlation_requests: Vec<String>,
    /// Buffer records per HIP call: "call: KIND operation agents bytes xCOUNT".
    pub records: Vec<String>,
    /// When the completion callbacks and the buffer records arrived, against the step's
    /// synchronize and the flush right after it.
    pub arrival: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Run {
    pub libraries: Libraries,
    /// `rocprofiler_configure`'s version argument and runtime version string.
    pub configure: String,
    pub hip_devices: i64,
    pub agents: Vec<String>,
    /// The GPU models: the distinct names (gfx targets) of the GPU agents, sorted.
    pub gpu_names: Vec<String>,
    /// Every SDK call the tool made, with its status name.
    pub sdk_statuses: Vec<String>,
    pub buffer_callback_threads: Vec<String>,
    pub steps: Vec<Step>,
    /// What became of the battery's process after it printed this run: [`EXIT_NORMAL`], or a
    /// crash at exit (the SDK's or HIP's teardown), which is a finding like any other field.
    #[serde(default = "exit_normal")]
    pub exit: String,
}

/// The `exit` of a battery process that exited with status 0.
pub const EXIT_NORMAL: &str = "exited normally";

fn exit_normal() -> String {
    EXIT_NORMAL.into()
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Finding {
    /// Where the runs differ: "steps.<step>.<field>" or a top-level field.
    pub key: String,
    pub a: String,
    pub b: String,
    /// The simulator's machine option or behaviour that would need to change.
    pub simulator: String,
}

/// The file `--out` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    pub probe_report: u32,
    pub real: Option<Run>,
    pub simulated: Option<Run>,
    /// `a` is the real run, `b` the simulated one.
    pub findings: Vec<Finding>,
    /// The ledger's open cells of the primary run's release, as that run shows them.
    #[serde(default)]
    pub ledger: Vec<LedgerCell>,
}

/// One cell of docs/simulator-fidelity.md's ledger as a run showed it (`ledger.rs`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LedgerCell {
    /// The ROCm release of the run's SDK version.
    pub release: String,
    /// The ledger row.
    pub row: String,
    /// What the run showed.
    pub observed: String,
}

/// The file `--compare-only A B --out` writes: the comparison alone (the runs are in A and B).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Comparison {
    pub probe_comparison: u32,
    /// The two report files, `a` first.
    pub a: String,
    pub b: String,
    pub findings: Vec<Finding>,
}

impl Report {
    /// The run a comparison uses: the real one when there is one.
    pub fn primary(&self) -> Option<&Run> {
        self.real.as_ref().or(self.simulated.as_ref())
    }
}

fn c_name(ptr: *const c_char) -> Option<String> {
    (!ptr.is_null()).then(|| {
        // SAFETY: the SDK returns null or a static C string; this one is not null.
        unsafe { std::ffi::CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into()
    })
}

struct Names<'a> {
    sdk: &'a Sdk,
    cache: HashMap<(bool, u32, i32), String>,
}

impl Names<'_> {
    fn callback_op(&mut self, kind: u32, op: i32) -> String {
        self.op(false, kind, op)
    }
    fn buffer_op(&mut self, kind: u32, op: i32) -> String {
        self.op(true, kind, op)
    }
    fn op(&mut self, buffer: bool, kind: u32, op: i32) -> String {
        // Operations whose numbers are fixed by the SDK's headers get our names, so that a
        // library spelling them differently does not turn every line into a finding. HIP API
        // operation numbers differ between releases: for those the name is the key.
        let fixed = match (buffer, kind) {
            (false, ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY)
            | (true, ROCPROFILER_BUFFER_TRACING_MEMORY_COPY) => copy_op(op),
            (false, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH)
            | (true, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH) => dispatch_op(op),
            (false, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM) => stream_op(op),
            _ => None,
        };
        if let Some(name) = fixed {
            return name.to_string();
        }
        let sdk = self.sdk;
        self.cache
            .entry((buffer, kind, op))
            .or_insert_with(|| {
                let mut name: *const c_char = std::ptr::null();
                let mut len = 0u64;
                // SAFETY: out-parameters are valid locals.
                let status = unsafe {
                    if buffer {
                        (sdk.buffer_operation_name)(kind, op, &mut name, &mut len)
                    } else {
                        (sdk.callback_operation_name)(kind, op, &mut name, &mut len)
                    }
                };
                match (status, c_name(name)) {
                    (ROCPROFILER_STATUS_SUCCESS, Some(n)) if !n.is_empty() => n,
                    _ => format!("op{op}"),
                }
            })
            .clone()
    }
}

fn copy_op(op: i32) -> Option<&'static str> {
    Some(match op {
        ROCPROFILER_MEMORY_COPY_NONE => "NONE",
        ROCPROFILER_MEMORY_COPY_HOST_TO_HOST => "HOST_TO_HOST",
        ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE => "HOST_TO_DEVICE",
        ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST => "DEVICE_TO_HOST",
        ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE => "DEVICE_TO_DEVICE",
        _ => return None,
    })
}

fn dispatch_op(op: i32) -> Option<&'static str> {
    Some(match op {
        ROCPROFILER_KERNEL_DISPATCH_NONE => "NONE",
        ROCPROFILER_KERNEL_DISPATCH_ENQUEUE => "ENQUEUE",
        ROCPROFILER_KERNEL_DISPATCH_COMPLETE => "COMPLETE",
        _ => return None,
    })
}

fn stream_op(op: i32) -> Option<&'static str> {
    Some(match op {
        ROCPROFILER_HIP_STREAM_NONE => "NONE",
        ROCPROFILER_HIP_STREAM_CREATE => "CREATE",
        ROCPROFILER_HIP_STREAM_DESTROY => "DESTROY",
        ROCPROFILER_HIP_STREAM_SET => "SET",
        _ => return None,
    })
}

pub fn status_name(sdk: &Sdk, status: rocprofiler_status_t) -> String {
    // SAFETY: rocprofiler_get_status_name accepts any value.
    c_name(unsafe { (sdk.status_name)(status) }).unwrap_or_else(|| format!("status {status}"))
}

fn callback_kind(kind: u32) -> String {
    match kind {
        ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API => "HIP_RUNTIME_API".into(),
        ROCPROFILER_CALLBACK_TRACING_HIP_STREAM => "HIP_STREAM".into(),
        ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH => "KERNEL_DISPATCH".into(),
        ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY => "MEMORY_COPY".into(),
        k => format!("callback kind {k}"),
    }
}

fn buffer_kind(kind: u32) -> String {
    match kind {
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API => "HIP_RUNTIME_API".into(),
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => "KERNEL_DISPATCH".into(),
        ROCPROFILER_BUFFER_TRACING_MEMORY_COPY => "MEMORY_COPY".into(),
        k => format!("buffer kind {k}"),
    }
}

/// A request kind and the callback kind whose operation names it uses.
fn request_kind(kind: u32) -> (String, u32) {
    match kind {
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API => (
            "HIP_RUNTIME_API".into(),
            ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
        ),
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH => (
            "KERNEL_DISPATCH".into(),
            ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
        ),
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY => (
            "MEMORY_COPY".into(),
            ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
        ),
        k => (format!("request kind {k}"), 0),
    }
}

fn phase(phase: u32) -> &'static str {
    match phase {
        ROCPROFILER_CALLBACK_PHASE_ENTER => "ENTER",
        ROCPROFILER_CALLBACK_PHASE_EXIT => "EXIT",
        _ => "NONE",
    }
}

/// Where `seq` falls among a step's marks: "before sync", "after sync", "after stopped", ...
fn when(seq: u64, step: usize, marks: &[Mark]) -> String {
    let mut last = "before the synchronize returned";
    for m in marks.iter().filter(|m| m.step == step) {
        if seq > m.seq {
            last = match m.what {
                "sync" => "after the synchronize returned, in the flush right after it",
                "stopped" => "after the contexts were stopped",
                "flushed" => "after the flush that followed the synchronize",
                other => other,
            };
        }
    }
    last.to_string()
}

pub struct RunInputs<'a> {
    pub libraries: &'a LibraryPair,
    pub sdk: &'a Sdk,
    pub sdk_version: (u32, u32, u32),
    pub hip_version: i32,
    pub hip_devices: i32,
    pub recording: Recording,
    pub steps: Vec<StepOutcome>,
}

/// The run's normalised text, built in stages: the libraries, the agents' labels, which step
/// and HIP call each correlation id belongs to, then each step's callbacks, requests and
/// records, and the SDK statuses.
pub fn build_run(input: RunInputs) -> Run {
    let RunInputs {
        libraries,
        sdk,
        sdk_version,
        hip_version,
        hip_devices,
        recording: rec,
        steps: outcomes,
    } = input;
    let mut names = Names {
        sdk,
        cache: HashMap::new(),
    };
    let agents = Agents::label(&rec.agents);
    let calls = Calls::of(&rec, &mut names);
    let mut steps = empty_steps(&outcomes);
    add_callbacks(&mut steps, &rec, &calls, &mut names);
    add_requests(&mut steps, &rec, &calls, &mut names);
    let unattributed = add_records(&mut steps, &rec, &calls, &mut names, &agents);
    finish_steps(&mut steps);
    Run {
        libraries: libraries_of(libraries, sdk_version, hip_version),
        configure: rec
            .configure
            .map(|(v, text)| format!("version {v}, runtime {text:?}"))
            .unwrap_or_else(|| "rocprofiler_configure was not called".into()),
        hip_devices: hip_devices.into(),
        agents: agents.lines,
        gpu_names: agents.gpu_names,
        sdk_statuses: sdk_statuses(sdk, &rec.statuses, unattributed),
        buffer_callback_threads: rec.buffer_threads,
        steps,
        exit: exit_normal(),
    }
}

/// The libraries' paths and versions, and the simulator's machine keys for a simulated run.
fn libraries_of(
    libraries: &LibraryPair,
    (a, b, c): (u32, u32, u32),
    hip_version: i32,
) -> Libraries {
    let simulator_options = crate::machine::machine_keys()
        .into_iter()
        .filter(|_| libraries.origin == crate::libs::Origin::Simulated)
        .map(|(key, value)| match value {
            toml::Value::String(text) => (key, text),
            other => (key, other.to_string()),
        })
        .collect();
    Libraries {
        origin: libraries.origin.name().into(),
        hip: Library {
            path: libraries.hip.display().to_string(),
            version: hip_version.to_string(),
        },
        sdk: Library {
            path: libraries.sdk.display().to_string(),
            version: format!("{a}.{b}.{c}"),
        },
        simulator_options,
    }
}

/// The agents as "cpu0", "gpu0", ... in the SDK's order.
struct Agents {
    labels: HashMap<u64, String>,
    /// One line per agent: its label and topology.
    lines: Vec<String>,
    /// The distinct GPU models, sorted.
    gpu_names: Vec<String>,
}

impl Agents {
    fn label(agents: &[(u64, u32, u32, i32, i32, u32, String)]) -> Agents {
        let mut labels = HashMap::new();
        let (mut lines, mut gpu_names) = (Vec::new(), Vec::new());
        let (mut cpus, mut gpus) = (0, 0);
        for (handle, ty, node, logical, type_id, vis, name) in agents {
            let label = match *ty {
                ROCPROFILER_AGENT_TYPE_CPU => {
                    cpus += 1;
                    format!("cpu{}", cpus - 1)
                }
                ROCPROFILER_AGENT_TYPE_GPU => {
                    gpus += 1;
                    format!("gpu{}", gpus - 1)
                }
                t => format!("agent-type{t}"),
            };
            lines.push(format!(
                "{label}: node {node}, logical node {logical}, logical type index {type_id}, \
                 visibility {vis:#x}"
            ));
            // The model is the machine's, not a behaviour: the GPU models go apart (the
            // compare names them as the simulated model), CPU names not at all.
            if *ty == ROCPROFILER_AGENT_TYPE_GPU && !gpu_names.contains(name) {
                gpu_names.push(name.clone());
            }
            labels.insert(*handle, label);
        }
        gpu_names.sort();
        Agents {
            labels,
            lines,
            gpu_names,
        }
    }

    fn of(&self, handle: u64) -> String {
        self.labels.get(&handle).cloned().unwrap_or_else(|| {
            if handle == 0 {
                "null-agent".into()
            } else {
                "unknown-agent".into()
            }
        })
    }
}

/// Which step and HIP function each internal correlation id belongs to.
struct Calls {
    step: HashMap<u64, usize>,
    function: HashMap<u64, String>,
}

impl Calls {
    fn of(rec: &Recording, names: &mut Names) -> Calls {
        let mut calls = Calls {
            step: HashMap::new(),
            function: HashMap::new(),
        };
        for cb in &rec.callbacks {
            if cb.kind == ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API
                && cb.phase == ROCPROFILER_CALLBACK_PHASE_ENTER
            {
                calls.step.entry(cb.internal).or_insert(cb.step);
                calls
                    .function
                    .entry(cb.internal)
                    .or_insert_with(|| names.callback_op(cb.kind, cb.op));
            }
        }
        for r in &rec.records {
            if r.record.kind() == ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API {
                let name = names.callback_op(
                    ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                    r.record.operation(),
                );
                calls.function.entry(r.record.internal()).or_insert(name);
            }
        }
        calls
    }

    /// The step of a correlation id; `fallback` (the step the recorder saw) when no HIP call
    /// has it.
    fn step_of(&self, internal: u64, fallback: usize) -> usize {
        *self.step.get(&internal).unwrap_or(&fallback)
    }
}

/// Stream labels in order of first appearance: the tracer's words for the `hipStream_t` values
/// HIP reserves, "stream#N" for the others.
#[derive(Default)]
struct StreamLabels(HashMap<u64, String>);

impl StreamLabels {
    fn of(&mut self, value: u64) -> String {
        let n = self.0.len();
        self.0
            .entry(value)
            .or_insert_with(|| match reserved_stream_word(value) {
                Some(word) => word.into(),
                None => format!("stream#{}", n + 1),
            })
            .clone()
    }
}

/// The word for a `hipStream_t` value HIP reserves: the tracer's, `StreamKind::label` in
/// `xla_rocm_tracer::event` (docs/xla-interface.md#stream-lanes). The probe cannot call it:
/// linking the tracer's library links the SDK, and the probe loads whichever SDK it is pointed
/// at; the test below holds the two equal.
fn reserved_stream_word(value: u64) -> Option<&'static str> {
    match value {
        0 => Some("null"),
        1 => Some("legacy"),
        2 => Some("per-thread"),
        _ => None,
    }
}

/// One report step per battery step, with its calls and notes.
fn empty_steps(outcomes: &[StepOutcome]) -> Vec<Step> {
    outcomes
        .iter()
        .map(|o| Step {
            name: o.name.clone(),
            skipped: o.skipped.clone(),
            calls: o.calls.clone(),
            notes: o.notes.clone(),
            ..Default::default()
        })
        .collect()
}

/// The callbacks in the order they were made: per thread, the HIP_STREAM ids, and when the
/// completion callbacks arrived.
fn add_callbacks(steps: &mut [Step], rec: &Recording, calls: &Calls, names: &mut Names) {
    let mut streams = StreamLabels::default();
    let mut callbacks = rec.callbacks.clone();
    callbacks.sort_by_key(|c| c.seq);
    for cb in &callbacks {
        let index = calls.step_of(cb.internal, cb.step);
        let step = &mut steps[index];
        let kind = callback_kind(cb.kind);
        let op = names.callback_op(cb.kind, cb.op);
        let mut line = format!("{kind} {op} {}", phase(cb.phase));
        if cb.external != 0 {
            line.push_str(&format!(" ext={}", cb.external));
        }
        if let Some((id, value)) = cb.stream {
            let label = streams.of(value);
            step.stream_ids.push(format!(
                "{}: {op} {} {label} id={id}",
                cb.thread,
                phase(cb.phase)
            ));
        }
        if cb.kind == ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH
            || cb.kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY
        {
            let at = when(cb.seq, index, &rec.marks);
            step.arrival
                .push(format!("callback {line} on {}: {at}", cb.thread));
        }
        step.callbacks
            .entry(cb.thread.clone())
            .or_default()
            .push(line);
    }
}

/// The external-correlation requests in the order they were made.
fn add_requests(steps: &mut [Step], rec: &Recording, calls: &Calls, names: &mut Names) {
    let mut requests = rec.requests.clone();
    requests.sort_by_key(|r| r.seq);
    for r in &requests {
        let (kind, cb_kind) = request_kind(r.kind);
        let op = names.callback_op(cb_kind, r.op);
        steps[calls.step_of(r.internal, r.step)]
            .external_correlation_requests
            .push(format!("{}: {kind} {op}", r.thread));
    }
}

/// The buffer records, one line per step, call and kind of record with their count (and a
/// copy's bytes), and when each device record arrived. Returns how many records belong to no
/// step.
fn add_records(
    steps: &mut [Step],
    rec: &Recording,
    calls: &Calls,
    names: &mut Names,
    agents: &Agents,
) -> usize {
    // (step, line) -> (count, copy bytes), in first-seen order.
    let mut groups: BTreeMap<(usize, String), (usize, Vec<String>)> = BTreeMap::new();
    let mut order: Vec<(usize, String)> = Vec::new();
    let mut records = rec.records.clone();
    records.sort_by_key(|r| r.seq);
    let mut unattributed = 0usize;
    for r in &records {
        let Some(step) = record_step(&r.record, steps.len(), calls) else {
            unattributed += 1;
            continue;
        };
        let (kind, op) = (
            buffer_kind(r.record.kind()),
            names.buffer_op(r.record.kind(), r.record.operation()),
        );
        let key = (step, record_line(&r.record, calls, &kind, &op, agents));
        let entry = groups.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            (0, Vec::new())
        });
        entry.0 += 1;
        if let Some((_, _, bytes)) = r
            .record
            .agents()
            .filter(|_| r.record.kind() == ROCPROFILER_BUFFER_TRACING_MEMORY_COPY)
        {
            entry.1.push(bytes.to_string());
        }
        if r.record.kind() != ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API {
            let at = when(r.seq, step, &rec.marks);
            steps[step].arrival.push(format!(
                "record {kind} {op} delivered on {}: {at}",
                r.thread
            ));
        }
    }
    for key in order {
        let (count, bytes) = &groups[&key];
        let mut line = key.1.clone();
        if !bytes.is_empty() {
            line.push_str(&format!(" bytes {}", bytes.join("+")));
        }
        line.push_str(&format!(" x{count}"));
        steps[key.0].records.push(line);
    }
    unattributed
}

/// A record's step: the one its external correlation id names (the battery answers each
/// request with its step), else its HIP call's.
fn record_step(record: &sdk_recorder::Record, steps: usize, calls: &Calls) -> Option<usize> {
    let external = record.external();
    if external > 0 && (external as usize) <= steps {
        Some(external as usize - 1)
    } else {
        calls.step.get(&record.internal()).copied()
    }
}

/// "call: KIND operation" and, for a device record, its agents.
fn record_line(
    record: &sdk_recorder::Record,
    calls: &Calls,
    kind: &str,
    op: &str,
    agents: &Agents,
) -> String {
    let call = calls
        .function
        .get(&record.internal())
        .cloned()
        .unwrap_or_else(|| "(no HIP call with this correlation id)".into());
    match (record.kind(), record.agents()) {
        (ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, Some((src, dst, _))) => {
            format!(
                "{call}: {kind} {op} {} -> {}",
                agents.of(src),
                agents.of(dst)
            )
        }
        (ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, Some((a, _, _))) => {
            format!("{call}: {kind} {op} on {}", agents.of(a))
        }
        _ => format!("{call}: {kind} {op}"),
    }
}

/// Drops the teardown step; sorts each step's records and arrivals.
fn finish_steps(steps: &mut Vec<Step>) {
    steps.retain(|s| s.name != "teardown");
    // Which records and arrivals a step has matters, not the order threads happened to
    // interleave in; callback order stays as seen, per thread.
    for step in steps {
        step.records.sort();
        step.arrival.sort();
    }
}

/// Distinct lines in first-seen order: how often the battery flushed is not the SDK's doing.
fn sdk_statuses(
    sdk: &Sdk,
    statuses: &[(String, rocprofiler_status_t)],
    unattributed: usize,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for (call, status) in statuses {
        let line = format!("{call}: {}", status_name(sdk, *status));
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    if unattributed > 0 {
        lines.push(format!("records with no battery step: {unattributed}"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    // The simulated SDK supplies the symbols the tracer's library links against.
    use rocprofiler_sdk_sim as _;
    use xla_rocm_tracer::event::StreamKind;

    #[test]
    fn reserved_stream_words_are_the_tracers() {
        for value in 0..4 {
            assert_eq!(
                reserved_stream_word(value),
                StreamKind::of_handle(value).label()
            );
        }
    }

    #[test]
    fn streams_are_labelled_in_order_of_first_appearance() {
        let mut labels = StreamLabels::default();
        let seen: Vec<String> = [0x7f00, 0, 0x7f00, 2, 0x7e00]
            .into_iter()
            .map(|v| labels.of(v))
            .collect();
        assert_eq!(
            seen,
            ["stream#1", "null", "stream#1", "per-thread", "stream#4"]
        );
    }
}
