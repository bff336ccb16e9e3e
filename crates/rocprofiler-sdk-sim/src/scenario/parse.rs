//! TOML -> [`Scenario`]: serde with spans for syntax and shape, then a validation pass that
//! resolves names and reports the line of the offending step or field.
use super::error::ScenarioError;
use super::model::*;
use crate::driver::{CopyKind, HostMemory};
use crate::machine::{StreamMap, VisibilityEnv};
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    machine: Option<RawMachine>,
    #[serde(default)]
    code_object: Vec<Spanned<RawCodeObject>>,
    #[serde(default)]
    streams: BTreeMap<Spanned<String>, Spanned<RawStream>>,
    #[serde(default)]
    thread: Vec<Spanned<RawThread>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMachine {
    gpus: Option<Spanned<u32>>,
    stream_map: Option<Spanned<String>>,
    cpus: Option<Spanned<u32>>,
    hip_visible_devices: Option<Spanned<String>>,
    rocr_visible_devices: Option<Spanned<String>>,
    sdma_threshold: Option<Spanned<i64>>,
    large_bar_h2d_max: Option<Spanned<i64>>,
    large_bar_d2h_max: Option<Spanned<i64>>,
    pageable_chunk: Option<Spanned<i64>>,
    h2h_record: Option<bool>,
    direct_dispatch: Option<bool>,
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
    roctx_name: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawThread {
    name: Option<String>,
    steps: Vec<Spanned<RawStep>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawStep {
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
    steps: Option<Vec<Spanned<RawStep>>>,
    enable: Option<bool>,
    disable: Option<bool>,
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

const RESERVED_STREAMS: [&str; 3] = ["null", "legacy", "per_thread"];
const ACTIONS: &str = "launch, graph, memcpy, memset, sync_stream, sync_device, set_device, \
     sleep_us, bind, api, steps, enable, disable";
const DEFAULT_KERNEL_NS: u64 = 10_000;
/// Default copy speed when a copy has no duration: ~50 GB/s, i.e. 50 bytes per ns.
const DEFAULT_COPY_BYTES_PER_NS: u64 = 50;

pub(super) fn parse(text: &str, file: &Path) -> Result<Scenario, ScenarioError> {
    let at = Locator { text, file };
    let raw: RawScenario = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        at.error(span, e.message().trim().to_owned())
    })?;
    Validator::new(&at, raw)?.finish()
}

struct Validator<'a> {
    at: &'a Locator<'a>,
    gpus: u32,
    /// GPUs left to HIP by the visibility keys; step devices count these.
    hip_devices: u32,
    stream_map: Option<StreamMap>,
    cpus: Option<u32>,
    visibility: VisibilityEnv,
    /// alias -> devices it is loaded on
    kernels: HashMap<String, HashSet<u32>>,
    streams: HashMap<String, u32>,
    raw: Option<RawScenario>,
    code_objects: Vec<CodeObjectSpec>,
    stream_specs: Vec<StreamSpec>,
    sessions: RefCell<SessionSteps>,
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

fn ns(us: Option<f64>, default_ns: u64) -> Option<u64> {
    match us {
        None => Some(default_ns),
        Some(v) if (0.0..1e12).contains(&v) => Some((v * 1000.0).round() as u64),
        Some(_) => None,
    }
}

impl<'a> Validator<'a> {
    fn new(at: &'a Locator<'a>, raw: RawScenario) -> Result<Self, ScenarioError> {
        let gpus = match raw.machine.as_ref().and_then(|m| m.gpus.as_ref()) {
            None => 1,
            Some(g) if (1..=crate::machine::MAX_GPUS).contains(g.get_ref()) => *g.get_ref(),
            Some(g) => {
                return Err(at.error(
                    g.span(),
                    format!("gpus must be 1..={}", crate::machine::MAX_GPUS),
                ))
            }
        };
        let machine = raw.machine.as_ref();
        let stream_map = match machine.and_then(|m| m.stream_map.as_ref()) {
            None => None,
            Some(text) => Some(StreamMap::parse(text.get_ref()).ok_or_else(|| {
                at.error(text.span(), "stream_map must be \"sdk-1.0\" or \"newer\"")
            })?),
        };
        let cpus = match machine.and_then(|m| m.cpus.as_ref()) {
            None => None,
            Some(c) if (1..=crate::machine::MAX_CPUS).contains(c.get_ref()) => Some(*c.get_ref()),
            Some(c) => {
                return Err(at.error(
                    c.span(),
                    format!("cpus must be 1..={}", crate::machine::MAX_CPUS),
                ))
            }
        };
        let list = |key: Option<&Spanned<String>>| -> Result<Option<String>, ScenarioError> {
            match key {
                None => Ok(None),
                Some(text) if text.get_ref().trim().is_empty() => Err(at.error(
                    text.span(),
                    "a visibility list must name at least one GPU (omit the key to show all)",
                )),
                Some(text) => Ok(Some(text.get_ref().clone())),
            }
        };
        let visibility = VisibilityEnv {
            hip_visible_devices: list(machine.and_then(|m| m.hip_visible_devices.as_ref()))?,
            rocr_visible_devices: list(machine.and_then(|m| m.rocr_visible_devices.as_ref()))?,
            ..VisibilityEnv::default()
        };
        let hip_devices = crate::agents::hip_device_order(gpus, &visibility).len() as u32;
        if hip_devices == 0 {
            let span = machine
                .and_then(|m| {
                    m.hip_visible_devices
                        .as_ref()
                        .or(m.rocr_visible_devices.as_ref())
                })
                .map_or(0..0, |s| s.span());
            return Err(at.error(span, "the visibility lists leave no GPU to HIP"));
        }
        let mut v = Validator {
            at,
            gpus,
            hip_devices,
            stream_map,
            cpus,
            visibility,
            kernels: HashMap::new(),
            streams: HashMap::new(),
            raw: None,
            code_objects: Vec::new(),
            stream_specs: Vec::new(),
            sessions: RefCell::default(),
        };
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
            v.stream_specs.push(StreamSpec {
                name: name.get_ref().clone(),
                device,
                queue: stream.get_ref().queue.clone(),
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

    fn device(&self, device: Option<&Spanned<u32>>) -> Result<u32, ScenarioError> {
        match device {
            None => Ok(0),
            Some(d) if *d.get_ref() < self.hip_devices => Ok(*d.get_ref()),
            Some(d) if self.hip_devices < self.gpus => Err(self.at.error(
                d.span(),
                format!(
                    "device {} does not exist: HIP sees {} of the machine's {} GPU(s) \
                     ([machine] hip_visible_devices / rocr_visible_devices)",
                    d.get_ref(),
                    self.hip_devices,
                    self.gpus
                ),
            )),
            Some(d) => Err(self.at.error(
                d.span(),
                format!(
                    "device {} does not exist: the machine has {} GPU(s) ([machine] gpus)",
                    d.get_ref(),
                    self.gpus
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
            let mut device = 0;
            let steps = self.steps(thread.steps, &mut device)?;
            if steps.is_empty() {
                return Err(self.at.error(span, format!("thread `{name}` has no steps")));
            }
            threads.push(ThreadSpec { name, steps });
        }
        let copies = self.copy_model(raw.machine.as_ref())?;
        Ok(Scenario {
            sessions: self.sessions.borrow().count,
            copies,
            file: self.at.file.to_path_buf(),
            gpus: self.gpus,
            code_objects: self.code_objects,
            streams: self.stream_specs,
            threads,
            stream_map: self.stream_map,
            cpus: self.cpus,
            visibility: self.visibility,
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

    fn steps(
        &self,
        raw: Vec<Spanned<RawStep>>,
        device: &mut u32,
    ) -> Result<Vec<Step>, ScenarioError> {
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
            "legacy" => Ok((StreamRef::Legacy, device)),
            "per_thread" => Ok((StreamRef::PerThread, device)),
            other => match self.streams.get(other) {
                Some(d) => Ok((StreamRef::Named(other.to_owned()), *d)),
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
        let duration_ns = ns(parts.duration_us, DEFAULT_KERNEL_NS).ok_or_else(|| {
            self.at
                .error(span.clone(), "duration_us must be a non-negative number")
        })?;
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

    /// The copy thresholds of `[machine]`: byte counts, 0 turning a path off.
    fn copy_model(&self, machine: Option<&RawMachine>) -> Result<CopyModelSpec, ScenarioError> {
        let Some(m) = machine else {
            return Ok(CopyModelSpec::default());
        };
        let bytes = |key: &str, v: &Option<Spanned<i64>>| -> Result<Option<u64>, ScenarioError> {
            match v {
                None => Ok(None),
                Some(v) => u64::try_from(*v.get_ref()).map(Some).map_err(|_| {
                    self.at
                        .error(v.span(), format!("{key} must be a byte count (0 or more)"))
                }),
            }
        };
        Ok(CopyModelSpec {
            sdma_threshold: bytes("sdma_threshold", &m.sdma_threshold)?,
            large_bar_h2d_max: bytes("large_bar_h2d_max", &m.large_bar_h2d_max)?,
            large_bar_d2h_max: bytes("large_bar_d2h_max", &m.large_bar_d2h_max)?,
            pageable_chunk: bytes("pageable_chunk", &m.pageable_chunk)?,
            h2h_record: m.h2h_record,
            direct_dispatch: m.direct_dispatch,
        })
    }

    fn step(&self, raw: Spanned<RawStep>, device: &mut u32) -> Result<Step, ScenarioError> {
        let span = raw.span();
        let s = raw.into_inner();
        let err = |message: String| self.at.error(span.clone(), message);
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
        ]
        .into_iter()
        .filter(|(_, present)| *present)
        .map(|(name, _)| name)
        .collect();
        match actions.len() {
            0 => {
                return Err(err(format!(
                    "step has no action (expected one of: {ACTIONS})"
                )))
            }
            1 => {}
            _ => {
                return Err(err(format!(
                    "step has several actions ({}); split it",
                    actions.join(", ")
                )))
            }
        }
        if let (Some(host), None) = (&s.host, &s.memcpy) {
            return Err(self
                .at
                .error(host.span(), "`host` applies to memcpy steps only"));
        }
        if (s.annotate.is_some() || s.repeat.is_some()) && s.steps.is_none() {
            return Err(err("`annotate` and `repeat` need a `steps` list".into()));
        }
        let stream_of =
            |name: &Option<Spanned<String>>| -> Result<(StreamRef, u32), ScenarioError> {
                match name {
                    Some(n) => self.stream(n, *device),
                    None => Ok((StreamRef::Null, *device)),
                }
            };
        let parts = NodeParts {
            grid: s.grid,
            block: s.block,
            duration_us: s.duration_us,
            private_segment_size: s.private_segment_size,
            group_segment_size: s.group_segment_size,
        };
        if let Some(kernel) = &s.launch {
            let (stream, on) = stream_of(&s.stream)?;
            let node = self.node(kernel, on, parts, span.clone())?;
            return Ok(Step::Launch {
                stream,
                node,
                module: s.module.unwrap_or(false),
            });
        }
        if let Some(nodes) = s.graph {
            let (stream, on) = stream_of(&s.stream)?;
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
            return Ok(Step::Graph { stream, nodes });
        }
        if let Some(direction) = &s.memcpy {
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
            let stream = match &s.stream {
                Some(n) => Some(self.stream(n, *device)?.0),
                None => None,
            };
            let src_device = s
                .src_device
                .as_ref()
                .map(|d| self.device(Some(d)))
                .transpose()?;
            let dst_device = s
                .dst_device
                .as_ref()
                .map(|d| self.device(Some(d)))
                .transpose()?;
            let default = (bytes / DEFAULT_COPY_BYTES_PER_NS).max(2_000);
            let duration_ns = ns(s.duration_us, default)
                .ok_or_else(|| err("duration_us must be a non-negative number".into()))?;
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
            return Ok(Step::Memcpy {
                host,
                stream,
                kind,
                bytes,
                src_device,
                dst_device,
                duration_ns,
            });
        }
        if let Some(bytes) = s.memset {
            let stream = match &s.stream {
                Some(n) => Some(self.stream(n, *device)?.0),
                None => None,
            };
            let default = (bytes / (4 * DEFAULT_COPY_BYTES_PER_NS)).max(2_000);
            let duration_ns = ns(s.duration_us, default)
                .ok_or_else(|| err("duration_us must be a non-negative number".into()))?;
            return Ok(Step::Memset {
                stream,
                bytes,
                duration_ns,
            });
        }
        if let Some(name) = &s.sync_stream {
            return Ok(Step::SyncStream(self.stream(name, *device)?.0));
        }
        if let Some(sync) = s.sync_device {
            if !sync {
                return Err(err("sync_device must be true".into()));
            }
            return Ok(Step::SyncDevice);
        }
        if let Some(d) = &s.set_device {
            *device = self.device(Some(d))?;
            return Ok(Step::SetDevice(*device));
        }
        if let Some(us) = s.sleep_us {
            return Ok(Step::Sleep {
                ns: us.saturating_mul(1000),
            });
        }
        if let Some(name) = &s.bind {
            let queue = s.queue.ok_or_else(|| err("bind needs `queue`".into()))?;
            return Ok(Step::Bind {
                stream: self.stream(name, *device)?.0,
                queue,
            });
        }
        if let Some(name) = &s.api {
            let op = crate::driver::hip_operation(name.get_ref()).ok_or_else(|| {
                self.at.error(
                    name.span(),
                    format!("unknown HIP runtime function `{}`", name.get_ref()),
                )
            })?;
            let stream = match &s.stream {
                Some(n) => Some(self.stream(n, *device)?.0),
                None => None,
            };
            return Ok(Step::Api { op, stream });
        }
        if let Some(enable) = s.enable {
            if !enable {
                return Err(err("enable must be true".into()));
            }
            self.session_step(true).map_err(err)?;
            return Ok(Step::Enable);
        }
        if let Some(disable) = s.disable {
            if !disable {
                return Err(err("disable must be true".into()));
            }
            self.session_step(false).map_err(err)?;
            return Ok(Step::Disable);
        }
        let steps = s.steps.unwrap_or_default();
        let repeat = s.repeat.unwrap_or(1);
        if repeat == 0 {
            return Err(err("repeat must be >= 1".into()));
        }
        if steps.is_empty() {
            return Err(err("`steps` is empty".into()));
        }
        self.sessions.borrow_mut().group_depth += 1;
        let steps = self.steps(steps, device);
        self.sessions.borrow_mut().group_depth -= 1;
        let steps = steps?;
        Ok(Step::Group {
            annotate: s.annotate,
            repeat,
            steps,
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
