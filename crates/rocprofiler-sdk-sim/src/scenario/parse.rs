//! TOML -> [`Scenario`]: serde with spans for syntax and shape, then a validation pass that
//! resolves names and reports the line of the offending step or field.
use super::error::ScenarioError;
use super::model::*;
use crate::driver::{CopyKind, HostMemory};
use crate::machine::Machine;
use serde::Deserialize;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    /// `[machine]`: keys of [`Machine`], each checked at its own line.
    #[serde(default)]
    machine: BTreeMap<Spanned<String>, toml::Value>,
    #[serde(default)]
    code_object: Vec<Spanned<RawCodeObject>>,
    #[serde(default)]
    streams: BTreeMap<Spanned<String>, Spanned<RawStream>>,
    #[serde(default)]
    thread: Vec<Spanned<RawThread>>,
    profiler: Option<RawProfiler>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfiler {
    max_callback_api_events: Option<u64>,
    max_activity_api_events: Option<u64>,
    max_annotation_strings: Option<u64>,
    disable_wait_ms: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRandom {
    seed: u64,
    count: u64,
    streams: Option<Vec<Spanned<String>>>,
    kernels: Option<Vec<Spanned<String>>>,
    copies: Option<Vec<Spanned<String>>>,
    bytes: Option<[u64; 2]>,
    duration_us: Option<[f64; 2]>,
    weights: Option<RawWeights>,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWeights {
    launch: Option<u32>,
    memcpy: Option<u32>,
    memset: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCodeObject {
    device: Option<Spanned<u32>>,
    kernels: BTreeMap<Spanned<String>, Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStream {
    device: Option<Spanned<u32>>,
    queue: Option<String>,
    /// The scenario thread that creates the stream.
    thread: Option<Spanned<String>>,
    roctx_name: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawThread {
    name: Option<String>,
    steps: Vec<StepAt>,
}

/// A step and where it is. Boxed: serde's and the TOML reader's generic frames hold a
/// `Spanned<RawStep>` by value, some 1.5 KB, several times for every level of `steps` groups;
/// boxed, the stack a 32-deep scenario needs to parse halves (about 750 KiB in a debug build,
/// 250 KiB in a release one).
type StepAt = Spanned<Box<RawStep>>;

/// Declares [`RawStep`] with a hand-written `Deserialize` that reads each key in a function
/// of its own. The derived one keeps every field's temporaries in one frame (some 36 KB in a
/// debug build), and nested `steps` groups recurse through that frame: 32 groups then outgrow
/// a 2 MiB thread stack. Same rules as the derive with `deny_unknown_fields`: every field
/// optional, unknown and repeated keys refused with serde's messages.
macro_rules! raw_step {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        #[derive(Default)]
        struct RawStep {
            $($(#[$doc])* $field: $ty,)*
        }

        impl<'de> Deserialize<'de> for RawStep {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$(stringify!($field)),*];
                struct StepVisitor;
                impl<'de> serde::de::Visitor<'de> for StepVisitor {
                    type Value = RawStep;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a step table")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<RawStep, A::Error> {
                        let mut step = RawStep::default();
                        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                            // One result for every arm: a `?` per arm is a slot per arm.
                            let read = match key.as_ref() {
                                $(stringify!($field) => {
                                    read_field(&mut map, &mut step.$field, stringify!($field))
                                })*
                                other => Err(serde::de::Error::unknown_field(other, FIELDS)),
                            };
                            read?;
                        }
                        Ok(step)
                    }
                }
                deserializer.deserialize_struct("RawStep", FIELDS, StepVisitor)
            }
        }
    };
}

/// Reads the value of `name` into `slot`, refusing a second one.
#[inline(never)]
fn read_field<'de, A: serde::de::MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(serde::de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

raw_step! {
    // actions (exactly one per step)
    launch: Option<Spanned<String>>,
    graph: Option<Vec<Spanned<RawNode>>>,
    memcpy: Option<Spanned<String>>,
    memset: Option<u64>,
    sync_stream: Option<Spanned<String>>,
    sync_device: Option<bool>,
    set_device: Option<Spanned<u32>>,
    sleep_us: Option<u64>,
    bind: Option<Spanned<String>>,
    api: Option<Spanned<String>>,
    steps: Option<RawGroup>,
    enable: Option<bool>,
    disable: Option<bool>,
    set_enter: Option<Spanned<String>>,
    set_exit: Option<bool>,
    create_stream: Option<Spanned<String>>,
    random: Option<RawRandom>,
    roctx_push: Option<String>,
    roctx_pop: Option<bool>,
    roctx_mark: Option<String>,
    // modifiers
    stream: Option<Spanned<String>>,
    module: Option<bool>,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    duration_us: Option<f64>,
    private_segment_size: Option<u32>,
    group_segment_size: Option<u32>,
    bytes: Option<u64>,
    src_device: Option<Spanned<u32>>,
    dst_device: Option<Spanned<u32>>,
    host: Option<Spanned<String>>,
    queue: Option<String>,
    annotate: Option<String>,
    repeat: Option<u32>,
}

/// A step's `steps = [...]`: a group. Each group holds the frames of the steps around it on
/// the parsing thread's stack (some 8 KB a level in a release build, 16 KB in a debug one),
/// and the TOML parser lets a file nest some 120 groups (its limits on a header's dotted path
/// and on inline nesting apply separately), so the depth is counted here, as groups are read,
/// and a group past [`MAX_GROUP_DEPTH`] is refused before its steps are: checked after
/// parsing, the nesting would already have overflowed the stack of the caller's thread.
struct RawGroup(Vec<StepAt>);

thread_local! {
    /// Groups around the step being read on this thread (only while a scenario parses).
    static GROUP_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// One level of [`GROUP_DEPTH`] while a group is read; dropping it, also on an error or an
/// unwind, gives the level back.
struct GroupLevel;

impl GroupLevel {
    fn enter() -> Result<GroupLevel, String> {
        GROUP_DEPTH.with(|depth| {
            if depth.get() >= MAX_GROUP_DEPTH {
                return Err(format!(
                    "`steps` groups nest at most {MAX_GROUP_DEPTH} deep"
                ));
            }
            depth.set(depth.get() + 1);
            Ok(GroupLevel)
        })
    }
}

impl Drop for GroupLevel {
    fn drop(&mut self) {
        GROUP_DEPTH.with(|depth| depth.set(depth.get() - 1));
    }
}

impl<'de> Deserialize<'de> for RawGroup {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let _level = GroupLevel::enter().map_err(serde::de::Error::custom)?;
        Vec::deserialize(deserializer).map(RawGroup)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
    kernel: Spanned<String>,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    duration_us: Option<f64>,
    private_segment_size: Option<u32>,
    group_segment_size: Option<u32>,
}

/// Maps byte offsets to 1-based line and column.
struct Locator<'a> {
    text: &'a str,
    file: &'a Path,
}

impl Locator<'_> {
    fn error(&self, span: Range<usize>, message: impl Into<String>) -> ScenarioError {
        let offset = span.start.min(self.text.len());
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ScenarioError {
            file: self.file.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }
}

/// Scenario threads: below the virtual clock's reserved thread ids (`clock::SIGNAL_THREAD_TID`).
const MAX_THREADS: usize = 256;
/// How deep `steps` groups nest, counted as the text is read ([`RawGroup`]). The TOML parser
/// stops at 80 levels of inline arrays and tables (an inline group is two) and at 80 keys in a
/// header's path, and either error names this limit too.
pub(super) const MAX_GROUP_DEPTH: u32 = 32;
/// Levels of tables and arrays a scenario nests (`nesting`, read before the TOML parser): 2 per
/// `steps` group and 16 for the thread, its step list and the deepest step's own values
/// (`graph = [{ grid = [...] }]` is 3).
const MAX_NESTING: u32 = 2 * MAX_GROUP_DEPTH + 16;
const RESERVED_STREAMS: [&str; 3] = ["null", "legacy", "per_thread"];
const ACTIONS: &str = "launch, graph, memcpy, memset, sync_stream, sync_device, set_device, \
     sleep_us, bind, api, steps, enable, disable, set_enter, set_exit, create_stream, random, \
     roctx_push, roctx_pop, roctx_mark";
const DEFAULT_KERNEL_NS: u64 = 10_000;

// Limits: a scenario asking for more is refused at the key's line, before anything runs.
/// Steps a scenario runs in total, counting every repetition, every generated `random` step
/// and every graph node.
pub(super) const MAX_TOTAL_STEPS: u128 = 100_000_000;
/// Bytes of one copy or memset: 1 TiB.
pub(super) const MAX_BYTES: u64 = 1 << 40;
/// Durations (`duration_us`, `sleep_us`): one hour, in µs.
pub(super) const MAX_DURATION_US: u64 = 3_600_000_000;
/// `[profiler] disable_wait_ms`: one hour.
const MAX_DISABLE_WAIT_MS: u64 = 3_600_000;

/// `key = bytes` within [`MAX_BYTES`].
fn byte_count(key: &str, bytes: u64) -> Result<u64, String> {
    if bytes > MAX_BYTES {
        return Err(format!(
            "{key} = {bytes} is too large: at most {MAX_BYTES} (1 TiB)"
        ));
    }
    Ok(bytes)
}

/// Scenario text: 4 MiB (some 80,000 explicit steps). Parsing holds the file's syntax tree and
/// raw steps, about 47 bytes of peak memory per byte of text (a 4 MiB file peaks near
/// 200 MiB; `tests/scenario_parse_memory.rs`), and a longer list is what `repeat` groups and
/// `random` steps say in a few lines.
pub(super) const MAX_FILE_BYTES: usize = 4 << 20;

pub(super) fn too_big(file: &Path, bytes: u64) -> ScenarioError {
    ScenarioError {
        file: file.to_path_buf(),
        line: 0,
        column: 0,
        message: format!(
            "the file is too large ({bytes} bytes, at most {MAX_FILE_BYTES}): say long step \
             lists with `repeat` groups and `random` steps"
        ),
    }
}

pub(super) fn parse(text: &str, file: &Path) -> Result<Scenario, ScenarioError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(too_big(file, text.len() as u64));
    }
    let at = Locator { text, file };
    if let Some(offset) = super::nesting::too_deep(text, MAX_NESTING) {
        return Err(at.error(
            offset..offset,
            format!(
                "tables and arrays nest more than {MAX_NESTING} deep here (a `steps` group is \
                 two: `steps` groups nest at most {MAX_GROUP_DEPTH} deep)"
            ),
        ));
    }
    let raw: RawScenario = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let mut message = e.message().trim().to_owned();
        if message.contains("recursion") {
            message += &format!(" (`steps` groups nest at most {MAX_GROUP_DEPTH} deep)");
        }
        at.error(span, message)
    })?;
    Validator::new(&at, raw)?.finish()
}

struct Validator<'a> {
    at: &'a Locator<'a>,
    machine: Machine,
    /// The keys `[machine]` sets.
    machine_keys: toml::Table,
    /// `file:line:column` of the first step on the `legacy` or `per_thread` stream.
    special_stream: RefCell<Option<String>>,
    /// GPUs left to HIP by the visibility keys; step devices count these.
    hip_devices: u32,
    /// alias -> devices it is loaded on
    kernels: HashMap<String, HashSet<u32>>,
    streams: HashMap<String, u32>,
    raw: Option<RawScenario>,
    code_objects: Vec<CodeObjectSpec>,
    stream_specs: Vec<StreamSpec>,
    sessions: RefCell<SessionSteps>,
    /// Streams with `create_stream` or `hipStreamDestroy` steps -> the thread that has them.
    owners: HashMap<String, usize>,
    flow: RefCell<Flow>,
}

/// What the steps validated so far leave behind on the thread being validated.
#[derive(Default, Clone, PartialEq, Eq)]
struct Flow {
    /// SET windows open.
    windows: u32,
    /// For streams with lifecycle steps: `None` while the stream exists, else why it does not
    /// (the line of the destroy, or 0 before its `create_stream`).
    gone: BTreeMap<String, Option<usize>>,
}

/// The `create_stream` steps (`true`) and `hipStreamDestroy` steps (`false`) in `steps`, in
/// order, with the stream's name and the span of its name.
fn lifecycle_steps(steps: &[StepAt], out: &mut Vec<(String, bool, Range<usize>)>) {
    for step in steps {
        let raw = step.get_ref();
        if let Some(name) = &raw.create_stream {
            out.push((name.get_ref().clone(), true, name.span()));
        }
        if let (Some(api), Some(stream)) = (&raw.api, &raw.stream) {
            if api.get_ref() == "hipStreamDestroy" {
                out.push((stream.get_ref().clone(), false, stream.span()));
            }
        }
        if let Some(RawGroup(inner)) = &raw.steps {
            lifecycle_steps(inner, out);
        }
    }
}

/// Where the `enable` / `disable` steps seen so far leave the scenario: they must all be in
/// one thread, outside groups, alternating and starting with `enable`.
#[derive(Default)]
struct SessionSteps {
    /// The thread being validated (index, name).
    thread: (usize, String),
    /// Nesting depth of `steps` groups at the step being validated.
    group_depth: u32,
    /// The thread that has the session steps.
    owner: Option<(usize, String)>,
    open: bool,
    count: u32,
}

/// A duration in µs (`key` names it in errors) as ns, within [`MAX_DURATION_US`].
fn ns(key: &str, us: Option<f64>, default_ns: u64) -> Result<u64, String> {
    match us {
        None => Ok(default_ns),
        Some(v) if v.is_nan() => Err(format!("{key} must be a number, not nan")),
        Some(v) if v < 0.0 => Err(format!("{key} = {v} must be a non-negative number")),
        Some(v) if v > MAX_DURATION_US as f64 => Err(format!(
            "{key} = {v:e} is too large: at most {MAX_DURATION_US} µs (one hour)"
        )),
        Some(v) => Ok((v * 1000.0).round() as u64),
    }
}

/// Steps one step runs (graph nodes and generated steps each count; repeats multiply).
fn weight(step: &Step) -> u128 {
    match step {
        Step::Graph { nodes, .. } => nodes.len() as u128,
        Step::Random(spec) => u128::from(spec.count),
        Step::Group { repeat, steps, .. } => {
            u128::from(*repeat) * steps.iter().map(weight).sum::<u128>()
        }
        _ => 1,
    }
}

/// The HIP functions that create a stream: a `create_stream` step, not an `api` step.
const STREAM_CREATE_FUNCTIONS: [&str; 4] = [
    "hipStreamCreate",
    "hipStreamCreateWithFlags",
    "hipStreamCreateWithPriority",
    "hipExtStreamCreateWithCUMask",
];

/// `[machine]` over the default machine, each key checked alone so that an error names its
/// line; a visibility list must name a GPU (omit the key to show all).
fn machine(
    at: &Locator,
    keys: &BTreeMap<Spanned<String>, toml::Value>,
) -> Result<(Machine, toml::Table), ScenarioError> {
    let mut table = toml::Table::new();
    for (key, value) in keys {
        let one = toml::Table::from_iter([(key.get_ref().clone(), value.clone())]);
        Machine::default().overlaid(&one).map_err(|e| {
            match e.contains(key.get_ref().as_str()) {
                true => at.error(key.span(), format!("[machine] {e}")),
                false => at.error(key.span(), format!("[machine] {}: {e}", key.get_ref())),
            }
        })?;
        if key.get_ref().ends_with("visible_devices")
            && value.as_str().is_some_and(|v| v.trim().is_empty())
        {
            return Err(at.error(
                key.span(),
                "a visibility list must name at least one GPU (omit the key to show all)",
            ));
        }
        table.insert(key.get_ref().clone(), value.clone());
    }
    let machine = Machine::default()
        .overlaid(&table)
        .map_err(|e| at.error(0..0, format!("[machine] {e}")))?;
    Ok((machine, table))
}

impl<'a> Validator<'a> {
    fn new(at: &'a Locator<'a>, raw: RawScenario) -> Result<Self, ScenarioError> {
        let (machine, machine_keys) = machine(at, &raw.machine)?;
        let hip_devices =
            crate::agents::hip_device_order(machine.gpus, &machine.visibility()).len() as u32;
        if hip_devices == 0 {
            let span = raw
                .machine
                .keys()
                .find(|k| k.get_ref().ends_with("visible_devices"))
                .map_or(0..0, |k| k.span());
            return Err(at.error(span, "the visibility lists leave no GPU to HIP"));
        }
        let mut v = Validator {
            at,
            machine,
            machine_keys,
            special_stream: RefCell::default(),
            hip_devices,
            kernels: HashMap::new(),
            streams: HashMap::new(),
            raw: None,
            code_objects: Vec::new(),
            stream_specs: Vec::new(),
            sessions: RefCell::default(),
            owners: HashMap::new(),
            flow: RefCell::default(),
        };
        let thread_names: Vec<String> = raw
            .thread
            .iter()
            .enumerate()
            .map(|(i, t)| {
                t.get_ref()
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("thread{i}"))
            })
            .collect();
        // Which thread owns each stream's lifecycle steps, and which streams only exist from a
        // `create_stream` step on (their first lifecycle step creates them).
        let mut created_by_step = HashSet::new();
        for (index, thread) in raw.thread.iter().enumerate() {
            let mut steps = Vec::new();
            lifecycle_steps(&thread.get_ref().steps, &mut steps);
            for (name, create, span) in steps {
                match v.owners.get(&name) {
                    None => {
                        v.owners.insert(name.clone(), index);
                        if create {
                            created_by_step.insert(name);
                        }
                    }
                    Some(&owner) if owner != index => {
                        return Err(at.error(
                            span,
                            format!(
                                "stream `{name}` is created or destroyed by steps of threads `{}` \
                                 and `{}`: one thread must own a stream's `create_stream` and \
                                 `hipStreamDestroy` steps",
                                thread_names[owner], thread_names[index]
                            ),
                        ))
                    }
                    Some(_) => {}
                }
            }
        }
        for co in &raw.code_object {
            let device = v.device(co.get_ref().device.as_ref())?;
            let mut kernels = Vec::new();
            for (alias, symbol) in &co.get_ref().kernels {
                if symbol.get_ref().is_empty() || symbol.get_ref().contains('\0') {
                    return Err(at.error(
                        symbol.span(),
                        "kernel symbol must be a non-empty string without NUL",
                    ));
                }
                let devices = v.kernels.entry(alias.get_ref().clone()).or_default();
                if !devices.insert(device) {
                    return Err(at.error(
                        alias.span(),
                        format!(
                            "kernel `{}` is already loaded on device {device}",
                            alias.get_ref()
                        ),
                    ));
                }
                kernels.push((alias.get_ref().clone(), symbol.get_ref().clone()));
            }
            v.code_objects.push(CodeObjectSpec { device, kernels });
        }
        for (name, stream) in &raw.streams {
            if RESERVED_STREAMS.contains(&name.get_ref().as_str()) {
                return Err(at.error(
                    name.span(),
                    format!(
                        "stream name `{}` is reserved ({})",
                        name.get_ref(),
                        RESERVED_STREAMS.join(", ")
                    ),
                ));
            }
            let device = v.device(stream.get_ref().device.as_ref())?;
            let roctx_name = roctx_stream_name(at, stream.get_ref().roctx_name.as_ref())?;
            v.streams.insert(name.get_ref().clone(), device);
            let creator = v.stream_creator(
                name.get_ref(),
                stream.get_ref().thread.as_ref(),
                &thread_names,
                &created_by_step,
            )?;
            v.stream_specs.push(StreamSpec {
                name: name.get_ref().clone(),
                device,
                queue: stream.get_ref().queue.clone(),
                creator,
                roctx_name,
            });
        }
        // Streams are created in order of appearance in the file (their SDK ids follow it).
        v.stream_specs.sort_by_key(|s| {
            raw.streams
                .keys()
                .find(|k| *k.get_ref() == s.name)
                .map_or(0, |k| k.span().start)
        });
        v.raw = Some(raw);
        Ok(v)
    }

    /// Who creates stream `name` (its `thread` key, its `create_stream` steps).
    fn stream_creator(
        &self,
        name: &str,
        thread: Option<&Spanned<String>>,
        thread_names: &[String],
        created_by_step: &HashSet<String>,
    ) -> Result<StreamCreator, ScenarioError> {
        let owner = self.owners.get(name).copied();
        let by_step = created_by_step.contains(name);
        let Some(thread) = thread else {
            return Ok(if by_step {
                StreamCreator::Step
            } else {
                StreamCreator::Main
            });
        };
        let Some(index) = thread_names.iter().position(|n| n == thread.get_ref()) else {
            return Err(self.at.error(
                thread.span(),
                format!(
                    "unknown thread `{}` (known: {})",
                    thread.get_ref(),
                    thread_names.join(", ")
                ),
            ));
        };
        if let Some(owner) = owner.filter(|&o| o != index) {
            return Err(self.at.error(
                thread.span(),
                format!(
                    "stream `{name}` is created by thread `{}` but its `create_stream` / \
                     `hipStreamDestroy` steps are in thread `{}`",
                    thread.get_ref(),
                    thread_names[owner]
                ),
            ));
        }
        Ok(if by_step {
            StreamCreator::Step
        } else {
            StreamCreator::ThreadStart(index)
        })
    }

    fn device(&self, device: Option<&Spanned<u32>>) -> Result<u32, ScenarioError> {
        match device {
            None => Ok(0),
            Some(d) if *d.get_ref() < self.hip_devices => Ok(*d.get_ref()),
            Some(d) if self.hip_devices < self.machine.gpus => Err(self.at.error(
                d.span(),
                format!(
                    "device {} does not exist: HIP sees {} of the machine's {} GPU(s) \
                     ([machine] hip_visible_devices / rocr_visible_devices)",
                    d.get_ref(),
                    self.hip_devices,
                    self.machine.gpus
                ),
            )),
            Some(d) => Err(self.at.error(
                d.span(),
                format!(
                    "device {} does not exist: the machine has {} GPU(s) ([machine] gpus)",
                    d.get_ref(),
                    self.machine.gpus
                ),
            )),
        }
    }

    fn finish(mut self) -> Result<Scenario, ScenarioError> {
        let raw = self
            .raw
            .take()
            .unwrap_or_else(|| unreachable!("set in new"));
        let mut threads = Vec::new();
        let mut total_steps: u128 = 0;
        let initial_gone: BTreeMap<String, Option<usize>> = self
            .owners
            .keys()
            .map(|name| {
                let by_step = self
                    .stream_specs
                    .iter()
                    .any(|s| s.name == *name && s.creator == StreamCreator::Step);
                (name.clone(), by_step.then_some(0))
            })
            .collect();
        if raw.thread.is_empty() {
            return Err(ScenarioError {
                file: self.at.file.to_path_buf(),
                line: 0,
                column: 0,
                message: "the scenario has no steps: add a [[thread]] with `steps`".into(),
            });
        }
        for (index, thread) in raw.thread.into_iter().enumerate() {
            let span = thread.span();
            if index >= MAX_THREADS {
                // Each thread is an OS thread, and the virtual clock numbers them in a fixed
                // range of thread ids.
                return Err(self.at.error(
                    span,
                    format!("a scenario has at most {MAX_THREADS} threads"),
                ));
            }
            let thread = thread.into_inner();
            let name = thread.name.unwrap_or_else(|| format!("thread{index}"));
            self.sessions.borrow_mut().thread = (index, name.clone());
            *self.flow.borrow_mut() = Flow {
                windows: 0,
                gone: initial_gone.clone(),
            };
            let mut device = 0;
            let steps = self.steps(thread.steps, &mut device)?;
            if steps.is_empty() {
                return Err(self.at.error(span, format!("thread `{name}` has no steps")));
            }
            total_steps += steps.iter().map(weight).sum::<u128>();
            if total_steps > MAX_TOTAL_STEPS {
                return Err(self.at.error(
                    span,
                    format!(
                        "the scenario runs {total_steps} steps up to thread `{name}` (repeats \
                         and `random` counts multiplied out), more than the limit of \
                         {MAX_TOTAL_STEPS}"
                    ),
                ));
            }
            threads.push(ThreadSpec { name, steps });
        }
        let profiler = self.profiler(raw.profiler.as_ref())?;
        Ok(Scenario {
            profiler,
            sessions: self.sessions.borrow().count,
            file: self.at.file.to_path_buf(),
            machine: self.machine,
            machine_keys: self.machine_keys,
            special_stream: self.special_stream.take(),
            code_objects: self.code_objects,
            streams: self.stream_specs,
            threads,
        })
    }

    /// Checks one `enable` (`true`) or `disable` step against the ones before it.
    fn session_step(&self, enable: bool) -> Result<(), String> {
        let mut sessions = self.sessions.borrow_mut();
        let word = if enable { "enable" } else { "disable" };
        if sessions.group_depth > 0 {
            return Err(format!("`{word}` cannot be inside a `steps` group"));
        }
        let thread = sessions.thread.clone();
        match &sessions.owner {
            Some(owner) if owner.0 != thread.0 => {
                return Err(format!(
                    "`enable` and `disable` steps must all be in one thread (thread `{}` has them)",
                    owner.1
                ))
            }
            _ => sessions.owner = Some(thread),
        }
        match (enable, sessions.open) {
            (true, true) => Err("`enable` while a session is enabled (disable it first)".into()),
            (false, false) => Err("`disable` without an enabled session".into()),
            (true, false) => {
                sessions.open = true;
                sessions.count += 1;
                Ok(())
            }
            (false, true) => {
                sessions.open = false;
                Ok(())
            }
        }
    }

    fn steps(&self, raw: Vec<StepAt>, device: &mut u32) -> Result<Vec<Step>, ScenarioError> {
        raw.into_iter().map(|s| self.step(s, device)).collect()
    }

    /// Resolves a stream name; returns the reference and the device its work runs on.
    fn stream(
        &self,
        name: &Spanned<String>,
        device: u32,
    ) -> Result<(StreamRef, u32), ScenarioError> {
        match name.get_ref().as_str() {
            "null" => Ok((StreamRef::Null, device)),
            special @ ("legacy" | "per_thread") => {
                let mut first = self.special_stream.borrow_mut();
                if first.is_none() {
                    let at = self.at.error(name.span(), "");
                    *first = Some(format!("{}:{}:{}", at.file.display(), at.line, at.column));
                }
                let stream = match special {
                    "legacy" => StreamRef::Legacy,
                    _ => StreamRef::PerThread,
                };
                Ok((stream, device))
            }
            other => match self.streams.get(other) {
                Some(d) => {
                    self.check_exists(other, name.span())?;
                    Ok((StreamRef::Named(other.to_owned()), *d))
                }
                None => {
                    let mut known: Vec<_> = self.streams.keys().map(String::as_str).collect();
                    known.sort();
                    known.extend(RESERVED_STREAMS);
                    Err(self.at.error(
                        name.span(),
                        format!("unknown stream `{other}` (known: {})", known.join(", ")),
                    ))
                }
            },
        }
    }

    /// For a stream with lifecycle steps: errors unless this thread owns them and the stream
    /// exists at this step.
    fn check_exists(&self, name: &str, span: Range<usize>) -> Result<(), ScenarioError> {
        let Some(&owner) = self.owners.get(name) else {
            return Ok(());
        };
        let thread = self.sessions.borrow().thread.0;
        if owner != thread {
            return Err(self.at.error(
                span,
                format!(
                    "stream `{name}` is created or destroyed by steps of another thread, so \
                     only that thread may use it (scenario threads do not wait for each \
                     other: a use here would race with its create or destroy)"
                ),
            ));
        }
        match self.flow.borrow().gone.get(name) {
            Some(Some(0)) => Err(self.at.error(
                span,
                format!("stream `{name}` does not exist yet: its `create_stream` step comes later"),
            )),
            Some(Some(line)) => Err(self.at.error(
                span,
                format!("stream `{name}` was destroyed (hipStreamDestroy at line {line})"),
            )),
            _ => Ok(()),
        }
    }

    fn node(
        &self,
        kernel: &Spanned<String>,
        device: u32,
        parts: NodeParts,
        span: Range<usize>,
    ) -> Result<GraphNode, ScenarioError> {
        match self.kernels.get(kernel.get_ref()) {
            None => {
                let mut known: Vec<_> = self.kernels.keys().map(String::as_str).collect();
                known.sort();
                return Err(self.at.error(
                    kernel.span(),
                    format!(
                        "unknown kernel `{}` (known: {})",
                        kernel.get_ref(),
                        known.join(", ")
                    ),
                ));
            }
            Some(devices) if !devices.contains(&device) => {
                return Err(self.at.error(
                    kernel.span(),
                    format!(
                        "kernel `{}` is not loaded on device {device}",
                        kernel.get_ref()
                    ),
                ))
            }
            Some(_) => {}
        }
        let duration_ns = ns("duration_us", parts.duration_us, DEFAULT_KERNEL_NS)
            .map_err(|m| self.at.error(span.clone(), m))?;
        let grid = parts.grid.unwrap_or([256, 1, 1]);
        let block = parts.block.unwrap_or([256, 1, 1]);
        if grid.contains(&0) || block.contains(&0) {
            return Err(self.at.error(span, "grid and block sizes must be >= 1"));
        }
        Ok(GraphNode {
            kernel: kernel.get_ref().clone(),
            grid,
            block,
            private_segment_size: parts.private_segment_size.unwrap_or(0),
            group_segment_size: parts.group_segment_size.unwrap_or(0),
            duration_ns,
        })
    }

    /// The `[profiler]` table.
    fn profiler(&self, raw: Option<&RawProfiler>) -> Result<ProfilerSpec, ScenarioError> {
        let Some(p) = raw else {
            return Ok(ProfilerSpec::default());
        };
        if let Some(wait) = &p.disable_wait_ms {
            if *wait.get_ref() > MAX_DISABLE_WAIT_MS {
                return Err(self.at.error(
                    wait.span(),
                    format!(
                        "disable_wait_ms = {} is too large: at most {MAX_DISABLE_WAIT_MS} (one hour)",
                        wait.get_ref()
                    ),
                ));
            }
        }
        Ok(ProfilerSpec {
            max_callback_api_events: p.max_callback_api_events,
            max_activity_api_events: p.max_activity_api_events,
            max_annotation_strings: p.max_annotation_strings,
            disable_wait_ms: p.disable_wait_ms.as_ref().map(|w| *w.get_ref()),
        })
    }

    /// One step: exactly one action, with the modifiers that action takes.
    fn step(&self, raw: StepAt, device: &mut u32) -> Result<Step, ScenarioError> {
        let span = raw.span();
        let mut s = raw.into_inner();
        self.check_shape(&s, &span)?;
        let err = |message: String| self.at.error(span.clone(), message);
        let on = *device;
        if let Some(kernel) = &s.launch {
            let (stream, on) = self.stream_or_null(&s.stream, on)?;
            let parts = NodeParts {
                grid: s.grid,
                block: s.block,
                duration_us: s.duration_us,
                private_segment_size: s.private_segment_size,
                group_segment_size: s.group_segment_size,
            };
            let node = self.node(kernel, on, parts, span.clone())?;
            let module = s.module.unwrap_or(false);
            return Ok(Step::Launch {
                stream,
                node,
                module,
            });
        }
        if let Some(nodes) = s.graph.take() {
            return self.graph_step(nodes, &s.stream, on, &err);
        }
        if let Some(direction) = &s.memcpy {
            return self.memcpy_step(direction, &s, on, &err);
        }
        if let Some(bytes) = s.memset {
            let bytes = byte_count("memset", bytes).map_err(err)?;
            let duration_ns =
                ns("duration_us", s.duration_us, default_memset_ns(bytes)).map_err(err)?;
            return Ok(Step::Memset {
                stream: self.optional_stream(&s.stream, on)?,
                bytes,
                duration_ns,
            });
        }
        if let Some(name) = &s.sync_stream {
            return Ok(Step::SyncStream(self.stream(name, on)?.0));
        }
        if let Some(d) = &s.set_device {
            *device = self.device(Some(d))?;
            return Ok(Step::SetDevice(*device));
        }
        if let Some(us) = s.sleep_us {
            if us > MAX_DURATION_US {
                return Err(err(format!(
                    "sleep_us = {us} is too large: at most {MAX_DURATION_US} µs (one hour)"
                )));
            }
            let ns = us.saturating_mul(1000);
            return Ok(Step::Sleep { ns });
        }
        if let Some(name) = &s.bind {
            let queue = s
                .queue
                .take()
                .ok_or_else(|| err("bind needs `queue`".into()))?;
            let stream = self.stream(name, on)?.0;
            return Ok(Step::Bind { stream, queue });
        }
        if let Some(name) = &s.api {
            return self.api_step(name, &s.stream, on, &err);
        }
        if let Some(name) = &s.set_enter {
            let (stream, _) = self.stream(name, on)?;
            self.flow.borrow_mut().windows += 1;
            return Ok(Step::SetEnter(stream));
        }
        if let Some(name) = &s.create_stream {
            return self.create_step(name, on);
        }
        if let Some(message) = s.roctx_push.take() {
            return roctx_message(&message)
                .map(|()| Step::RoctxPush(message))
                .map_err(err);
        }
        if let Some(message) = s.roctx_mark.take() {
            return roctx_message(&message)
                .map(|()| Step::RoctxMark(message))
                .map_err(err);
        }
        match s.roctx_pop {
            Some(false) => return Err(err("roctx_pop must be true".into())),
            // A pop without a push is allowed: ROCTx returns -1 and the SDK still traces it.
            Some(true) => return Ok(Step::RoctxPop),
            None => {}
        }
        if let Some(random) = s.random.take() {
            let spec = self.random(random, on).map_err(err)?;
            return Ok(Step::Random(Box::new(spec)));
        }
        for (key, flag) in [
            ("sync_device", s.sync_device),
            ("set_exit", s.set_exit),
            ("enable", s.enable),
            ("disable", s.disable),
        ] {
            match flag {
                Some(false) => return Err(err(format!("{key} must be true"))),
                Some(true) => return self.flag_step(key).map_err(err),
                None => {}
            }
        }
        let steps = s.steps.take().map(|group| group.0).unwrap_or_default();
        self.group_step(steps, s.repeat, s.annotate.take(), device, &err)
    }

    /// Exactly one action per step, and modifiers only where their action takes them.
    fn check_shape(&self, s: &RawStep, span: &Range<usize>) -> Result<(), ScenarioError> {
        let actions: Vec<&str> = [
            ("launch", s.launch.is_some()),
            ("graph", s.graph.is_some()),
            ("memcpy", s.memcpy.is_some()),
            ("memset", s.memset.is_some()),
            ("sync_stream", s.sync_stream.is_some()),
            ("sync_device", s.sync_device.is_some()),
            ("set_device", s.set_device.is_some()),
            ("sleep_us", s.sleep_us.is_some()),
            ("bind", s.bind.is_some()),
            ("api", s.api.is_some()),
            ("steps", s.steps.is_some()),
            ("enable", s.enable.is_some()),
            ("disable", s.disable.is_some()),
            ("set_enter", s.set_enter.is_some()),
            ("set_exit", s.set_exit.is_some()),
            ("create_stream", s.create_stream.is_some()),
            ("random", s.random.is_some()),
            ("roctx_push", s.roctx_push.is_some()),
            ("roctx_pop", s.roctx_pop.is_some()),
            ("roctx_mark", s.roctx_mark.is_some()),
        ]
        .into_iter()
        .filter(|(_, present)| *present)
        .map(|(name, _)| name)
        .collect();
        let message = match actions.len() {
            0 => format!("step has no action (expected one of: {ACTIONS})"),
            1 => String::new(),
            _ => format!(
                "step has several actions ({}); split it",
                actions.join(", ")
            ),
        };
        if !message.is_empty() {
            return Err(self.at.error(span.clone(), message));
        }
        if let (Some(host), None) = (&s.host, &s.memcpy) {
            return Err(self
                .at
                .error(host.span(), "`host` applies to memcpy steps only"));
        }
        if (s.annotate.is_some() || s.repeat.is_some()) && s.steps.is_none() {
            return Err(self
                .at
                .error(span.clone(), "`annotate` and `repeat` need a `steps` list"));
        }
        Ok(())
    }

    /// `stream = "..."` or, without it, the null stream; with the device the work runs on.
    fn stream_or_null(
        &self,
        name: &Option<Spanned<String>>,
        device: u32,
    ) -> Result<(StreamRef, u32), ScenarioError> {
        match name {
            Some(n) => self.stream(n, device),
            None => Ok((StreamRef::Null, device)),
        }
    }

    /// `stream = "..."` where its absence means the call takes no stream.
    fn optional_stream(
        &self,
        name: &Option<Spanned<String>>,
        device: u32,
    ) -> Result<Option<StreamRef>, ScenarioError> {
        name.as_ref()
            .map(|n| self.stream(n, device).map(|(stream, _)| stream))
            .transpose()
    }

    fn graph_step(
        &self,
        nodes: Vec<Spanned<RawNode>>,
        stream: &Option<Spanned<String>>,
        device: u32,
        err: &dyn Fn(String) -> ScenarioError,
    ) -> Result<Step, ScenarioError> {
        let (stream, on) = self.stream_or_null(stream, device)?;
        if nodes.is_empty() {
            return Err(err("graph needs at least one kernel".into()));
        }
        let nodes = nodes
            .into_iter()
            .map(|n| {
                let nspan = n.span();
                let n = n.into_inner();
                let parts = NodeParts {
                    grid: n.grid,
                    block: n.block,
                    duration_us: n.duration_us,
                    private_segment_size: n.private_segment_size,
                    group_segment_size: n.group_segment_size,
                };
                self.node(&n.kernel, on, parts, nspan)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Step::Graph { stream, nodes })
    }

    fn memcpy_step(
        &self,
        direction: &Spanned<String>,
        s: &RawStep,
        device: u32,
        err: &dyn Fn(String) -> ScenarioError,
    ) -> Result<Step, ScenarioError> {
        let kind = match direction.get_ref().as_str() {
            "h2d" => CopyKind::HostToDevice,
            "d2h" => CopyKind::DeviceToHost,
            "d2d" => CopyKind::DeviceToDevice,
            "h2h" => CopyKind::HostToHost,
            other => {
                return Err(self.at.error(
                    direction.span(),
                    format!("unknown copy direction `{other}` (expected h2d, d2h, d2d, h2h)"),
                ))
            }
        };
        let bytes = s.bytes.ok_or_else(|| err("memcpy needs `bytes`".into()))?;
        let bytes = byte_count("bytes", bytes).map_err(err)?;
        let device_of = |d: &Option<Spanned<u32>>| d.as_ref().map(|d| self.device(Some(d)));
        let duration_ns = ns("duration_us", s.duration_us, default_copy_ns(bytes)).map_err(err)?;
        let host = match s.host.as_ref().map(|h| (h.get_ref().as_str(), h.span())) {
            None | Some(("pinned", _)) => HostMemory::Pinned,
            Some(("pageable", _)) => HostMemory::Pageable,
            Some((other, span)) => {
                return Err(self.at.error(
                    span,
                    format!("unknown host memory `{other}` (expected pinned, pageable)"),
                ))
            }
        };
        Ok(Step::Memcpy {
            host,
            stream: self.optional_stream(&s.stream, device)?,
            kind,
            bytes,
            src_device: device_of(&s.src_device).transpose()?,
            dst_device: device_of(&s.dst_device).transpose()?,
            duration_ns,
        })
    }

    /// `api = "hipX"`: any HIP function by name, except the ones with steps of their own.
    fn api_step(
        &self,
        name: &Spanned<String>,
        stream: &Option<Spanned<String>>,
        device: u32,
        err: &dyn Fn(String) -> ScenarioError,
    ) -> Result<Step, ScenarioError> {
        if STREAM_CREATE_FUNCTIONS.contains(&name.get_ref().as_str()) {
            return Err(self.at.error(
                name.span(),
                format!(
                    "`api = \"{}\"` would create no stream: declare the stream in [streams] \
                     and create it with a `create_stream` step",
                    name.get_ref()
                ),
            ));
        }
        if name.get_ref() == "hipStreamDestroy" {
            return self.destroy_step(stream.as_ref(), err, device);
        }
        let op = crate::driver::hip_operation(name.get_ref()).ok_or_else(|| {
            self.at.error(
                name.span(),
                format!("unknown HIP runtime function `{}`", name.get_ref()),
            )
        })?;
        let stream = self.optional_stream(stream, device)?;
        Ok(Step::Api { op, stream })
    }

    /// The steps that are one `key = true`.
    fn flag_step(&self, key: &str) -> Result<Step, String> {
        match key {
            "sync_device" => Ok(Step::SyncDevice),
            "enable" => self.session_step(true).map(|()| Step::Enable),
            "disable" => self.session_step(false).map(|()| Step::Disable),
            _ => {
                let mut flow = self.flow.borrow_mut();
                if flow.windows == 0 {
                    return Err("set_exit with no SET window open on this thread: the SDK \
                                fires SET EXIT only after the SET ENTER of the same call, on \
                                the same thread"
                        .into());
                }
                flow.windows -= 1;
                Ok(Step::SetExit)
            }
        }
    }

    /// `steps = [...]` with `repeat` and `annotate`.
    fn group_step(
        &self,
        steps: Vec<StepAt>,
        repeat: Option<u32>,
        annotate: Option<String>,
        device: &mut u32,
        err: &dyn Fn(String) -> ScenarioError,
    ) -> Result<Step, ScenarioError> {
        let repeat = repeat.unwrap_or(1);
        if repeat == 0 {
            return Err(err("repeat must be >= 1".into()));
        }
        if steps.is_empty() {
            return Err(err("`steps` is empty".into()));
        }
        self.sessions.borrow_mut().group_depth += 1;
        let before = self.flow.borrow().clone();
        let steps = self.steps(steps, device);
        self.sessions.borrow_mut().group_depth -= 1;
        let steps = steps?;
        if repeat > 1 {
            self.repeatable(&before, repeat).map_err(err)?;
        }
        let group = Step::Group {
            annotate,
            repeat,
            steps,
        };
        let total = weight(&group);
        if total > MAX_TOTAL_STEPS {
            return Err(err(format!(
                "repeat = {repeat}: the group runs {total} steps, more than the limit of \
                 {MAX_TOTAL_STEPS} steps per scenario"
            )));
        }
        Ok(group)
    }

    /// A repeated group's iterations must each find what the first found, or the second
    /// would, e.g., destroy a destroyed stream. Each iteration leaves the SET windows it
    /// opened open for the next.
    fn repeatable(&self, before: &Flow, repeat: u32) -> Result<(), String> {
        let mut after = self.flow.borrow_mut();
        if after.windows < before.windows {
            return Err("a repeated group cannot close more SET windows than it opens".into());
        }
        after.windows = before
            .windows
            .saturating_add(repeat.saturating_mul(after.windows - before.windows));
        if after
            .gone
            .iter()
            .zip(&before.gone)
            .any(|(a, b)| a.1.is_some() != b.1.is_some())
        {
            return Err("a repeated group must leave its streams as it found them \
                        (create what it destroys, or destroy what it creates)"
                .into());
        }
        Ok(())
    }
}

impl Validator<'_> {
    /// `create_stream = "name"`: the stream must be declared, not exist now, and be on the
    /// thread's current device (hipStreamCreate creates on it).
    fn create_step(&self, name: &Spanned<String>, device: u32) -> Result<Step, ScenarioError> {
        let Some(&on) = self.streams.get(name.get_ref()) else {
            let mut known: Vec<_> = self.streams.keys().map(String::as_str).collect();
            known.sort();
            return Err(self.at.error(
                name.span(),
                format!(
                    "create_stream: unknown stream `{}` (declare it in [streams]; known: {})",
                    name.get_ref(),
                    known.join(", ")
                ),
            ));
        };
        let mut flow = self.flow.borrow_mut();
        if let Some(None) = flow.gone.get(name.get_ref()) {
            return Err(self.at.error(
                name.span(),
                format!(
                    "create_stream: stream `{}` exists already (destroy it first)",
                    name.get_ref()
                ),
            ));
        }
        if on != device {
            return Err(self.at.error(
                name.span(),
                format!(
                    "create_stream: stream `{}` is declared on device {on} but this thread's \
                     current device here is {device} (hipStreamCreate creates on the current \
                     device: add `set_device = {on}` before)",
                    name.get_ref()
                ),
            ));
        }
        flow.gone.insert(name.get_ref().clone(), None);
        Ok(Step::CreateStream(name.get_ref().clone()))
    }

    /// `api = "hipStreamDestroy", stream = "name"`.
    fn destroy_step(
        &self,
        stream: Option<&Spanned<String>>,
        err: &dyn Fn(String) -> ScenarioError,
        device: u32,
    ) -> Result<Step, ScenarioError> {
        let Some(name) = stream else {
            return Err(err("hipStreamDestroy needs `stream`".into()));
        };
        if RESERVED_STREAMS.contains(&name.get_ref().as_str()) {
            return Err(self.at.error(
                name.span(),
                format!(
                    "stream `{}` cannot be destroyed (only declared streams can)",
                    name.get_ref()
                ),
            ));
        }
        let (stream, _) = self.stream(name, device)?;
        let line = self.at.error(name.span(), "").line;
        self.flow
            .borrow_mut()
            .gone
            .insert(name.get_ref().clone(), Some(line));
        Ok(Step::DestroyStream(stream))
    }

    /// A `random = { ... }` step.
    fn random(&self, r: RawRandom, device: u32) -> Result<RandomSpec, String> {
        if r.count == 0 {
            return Err("random: count must be >= 1".into());
        }
        if u128::from(r.count) > MAX_TOTAL_STEPS {
            return Err(format!(
                "random: count = {} is more than the limit of {MAX_TOTAL_STEPS} steps per scenario",
                r.count
            ));
        }
        if r.streams.as_ref().is_some_and(Vec::is_empty) {
            return Err(
                "random: `streams = []` names no stream (omit it for the null stream)".into(),
            );
        }
        let names = r.streams.unwrap_or_default();
        let mut streams = Vec::new();
        let mut devices = Vec::new();
        for name in &names {
            let (stream, on) = self.stream(name, device).map_err(|e| e.message)?;
            streams.push(stream);
            devices.push(on);
        }
        if streams.is_empty() {
            streams.push(StreamRef::Null);
            devices.push(device);
        }
        let mut kernels = Vec::new();
        for kernel in r.kernels.unwrap_or_default() {
            for &on in &devices {
                self.node(
                    &kernel,
                    on,
                    NodeParts {
                        grid: r.grid,
                        block: r.block,
                        duration_us: None,
                        private_segment_size: None,
                        group_segment_size: None,
                    },
                    kernel.span(),
                )
                .map_err(|e| format!("random: {}", e.message))?;
            }
            kernels.push(kernel.into_inner());
        }
        let mut copies = Vec::new();
        for direction in r.copies.unwrap_or_default() {
            copies.push(match direction.get_ref().as_str() {
                "h2d" => CopyKind::HostToDevice,
                "d2h" => CopyKind::DeviceToHost,
                "d2d" => CopyKind::DeviceToDevice,
                "h2h" => CopyKind::HostToHost,
                other => {
                    return Err(format!(
                        "random: unknown copy direction `{other}` (expected h2d, d2h, d2d, h2h)"
                    ))
                }
            });
        }
        let weights = r.weights.as_ref();
        let weight = |w: Option<u32>, default: bool| u64::from(w.unwrap_or(u32::from(default)));
        let weights = [
            weight(weights.and_then(|w| w.launch), !kernels.is_empty()),
            weight(weights.and_then(|w| w.memcpy), !copies.is_empty()),
            weight(weights.and_then(|w| w.memset), false),
        ];
        if weights[0] > 0 && kernels.is_empty() {
            return Err("random: a launch weight needs `kernels`".into());
        }
        if weights[1] > 0 && copies.is_empty() {
            return Err("random: a memcpy weight needs `copies`".into());
        }
        if weights.iter().sum::<u64>() == 0 {
            return Err(
                "random: nothing to generate (give `kernels`, `copies` or a memset weight)".into(),
            );
        }
        let bytes = match r.bytes {
            Some([lo, hi]) => {
                byte_count("random: bytes", hi)?;
                if lo > hi {
                    return Err(format!("random: bytes = [{lo}, {hi}] must be [min, max]"));
                }
                [lo, hi]
            }
            None if weights[1] + weights[2] > 0 => {
                return Err("random: copies and memsets need `bytes = [min, max]`".into())
            }
            None => [0, 0],
        };
        let kernel_ns = match r.duration_us {
            Some([lo, hi]) => {
                let lo = ns("random: duration_us", Some(lo), 0)?;
                let hi = ns("random: duration_us", Some(hi), 0)?;
                if lo > hi {
                    return Err("random: duration_us must be [min, max]".into());
                }
                [lo, hi]
            }
            None => [DEFAULT_KERNEL_NS, DEFAULT_KERNEL_NS],
        };
        Ok(RandomSpec {
            seed: r.seed,
            count: r.count,
            streams,
            kernels,
            copies,
            bytes,
            kernel_ns,
            weights,
            grid: r.grid.unwrap_or([256, 1, 1]),
            block: r.block.unwrap_or([256, 1, 1]),
        })
    }
}

struct NodeParts {
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    duration_us: Option<f64>,
    private_segment_size: Option<u32>,
    group_segment_size: Option<u32>,
}

/// Longest `roctx_name` a scenario may give a stream, in bytes.
const MAX_ROCTX_NAME_BYTES: usize = 256;

/// A stream's `roctx_name`: non-empty, no NUL (it travels as a C string), at most
/// [`MAX_ROCTX_NAME_BYTES`].
fn roctx_stream_name(
    at: &Locator<'_>,
    name: Option<&Spanned<String>>,
) -> Result<Option<String>, ScenarioError> {
    let Some(name) = name else { return Ok(None) };
    let text = name.get_ref();
    let problem = if text.is_empty() {
        Some("`roctx_name` must not be empty".to_owned())
    } else if text.contains('\0') {
        Some("`roctx_name` must not contain a NUL character".to_owned())
    } else if text.len() > MAX_ROCTX_NAME_BYTES {
        Some(format!(
            "`roctx_name` is {} bytes long; at most {MAX_ROCTX_NAME_BYTES} are allowed",
            text.len()
        ))
    } else {
        None
    };
    match problem {
        Some(message) => Err(at.error(name.span(), message)),
        None => Ok(Some(text.clone())),
    }
}

/// A `roctx_push` / `roctx_mark` message: it travels as a C string, so no NUL.
fn roctx_message(message: &str) -> Result<(), String> {
    if message.contains('\0') {
        return Err("a ROCTx message must not contain a NUL character".to_owned());
    }
    Ok(())
}
