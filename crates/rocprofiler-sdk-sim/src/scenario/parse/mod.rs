//! TOML -> [`Scenario`] (format: `SCENARIOS.md` beside the crate's Cargo.toml): serde with
//! spans for syntax and shape ([`raw`]), then a validation pass that resolves names and
//! reports the line of the offending step or field, one file per table of the format:
//! [`machine`] (`[machine]`), [`code_objects`] (`[[code_object]]`), [`streams`] (`[streams]`
//! and stream names in steps), [`lifecycle`] (`create_stream` / `hipStreamDestroy` steps and
//! who owns them), [`profiler`] (`[profiler]`), [`threads`] (`[[thread]]`, sessions),
//! [`steps`] (a step's shape, groups, flags), [`work`] (launches, graphs, copies, memsets)
//! and [`random`] (`random = { ... }` steps). This file holds the limits, the entry point and
//! the [`Validator`] that the table files extend. The limits and messages are the format's
//! (SCENARIOS.md "Errors"); what a scenario makes the simulator reproduce is
//! docs/simulator-fidelity.md's.
mod code_objects;
mod lifecycle;
mod machine;
mod profiler;
mod random;
mod raw;
mod steps;
mod streams;
mod threads;
mod work;

use super::error::ScenarioError;
use super::model::{CodeObjectSpec, Scenario, StreamSpec};
use crate::machine::Machine;
use raw::RawScenario;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

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

/// How deep `steps` groups nest, counted as the text is read ([`RawGroup`]). The TOML parser
/// stops at 80 levels of inline arrays and tables (an inline group is two) and at 80 keys in a
/// header's path, and either error names this limit too.
pub(super) const MAX_GROUP_DEPTH: u32 = 32;
/// Levels of tables and arrays a scenario nests (`nesting`, read before the TOML parser): 2 per
/// `steps` group and 16 for the thread, its step list and the deepest step's own values
/// (`graph = [{ grid = [...] }]` is 3).
const MAX_NESTING: u32 = 2 * MAX_GROUP_DEPTH + 16;

// Limits: a scenario asking for more is refused at the key's line, before anything runs.
/// Steps a scenario runs in total, counting every repetition, every generated `random` step
/// and every graph node.
pub(super) const MAX_TOTAL_STEPS: u128 = 100_000_000;
/// Bytes of one copy or memset: 1 TiB.
pub(super) const MAX_BYTES: u64 = 1 << 40;
/// Durations (`duration_us`, `sleep_us`): one hour, in µs.
pub(super) const MAX_DURATION_US: u64 = 3_600_000_000;

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
    sessions: RefCell<threads::SessionSteps>,
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

impl<'a> Validator<'a> {
    /// Validates the tables the steps refer to (`[machine]`, `[[code_object]]`, `[streams]`);
    /// [`Validator::finish`] then validates the threads and their steps.
    fn new(at: &'a Locator<'a>, raw: RawScenario) -> Result<Self, ScenarioError> {
        let (machine, machine_keys) = machine::machine(at, &raw.machine)?;
        let hip_devices = machine::hip_devices(at, &raw.machine, &machine)?;
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
        let thread_names = threads::thread_names(&raw.thread);
        let created_by_step = v.lifecycle_owners(&raw.thread, &thread_names)?;
        v.load_code_objects(&raw.code_object)?;
        v.declare_streams(&raw.streams, &thread_names, &created_by_step)?;
        v.raw = Some(raw);
        Ok(v)
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
}

#[cfg(test)]
fn parsed(text: &str) -> Scenario {
    parse(text, Path::new("t.toml")).unwrap_or_else(|e| panic!("refused: {e}"))
}

/// The error for `text`, as `line:column: message`.
#[cfg(test)]
fn refused(text: &str) -> String {
    match parse(text, Path::new("t.toml")) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => format!("{}:{}: {}", e.line, e.column, e.message),
    }
}

/// A one-thread scenario around `steps` (the body of a `steps = [...]` list).
#[cfg(test)]
fn with_steps(tables: &str, steps: &str) -> String {
    format!("{tables}\n[[thread]]\nsteps = [\n{steps}\n]\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_size_limit_is_refused_before_parsing() {
        let text = " ".repeat(MAX_FILE_BYTES + 1);
        let e = parse(&text, Path::new("big.toml")).unwrap_err();
        assert_eq!((e.line, e.column), (0, 0));
        assert!(
            e.message.starts_with("the file is too large ("),
            "{}",
            e.message
        );
    }

    #[test]
    fn nesting_past_the_limit_names_the_group_limit() {
        let text = format!("x = {}{}", "[".repeat(100), "]".repeat(100));
        let message = refused(&text);
        assert!(
            message.contains("tables and arrays nest more than 80 deep here"),
            "{message}"
        );
        assert!(message.contains("nest at most 32 deep"), "{message}");
    }

    #[test]
    fn toml_syntax_and_unknown_tables_are_located() {
        assert!(refused("[[thread]\n").starts_with("1:"));
        let message = refused("[machines]\ngpus = 1\n");
        assert!(
            message.starts_with("1:2: unknown field `machines`"),
            "{message}"
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let at = Locator {
            text: "a\nbc\nd",
            file: Path::new("f.toml"),
        };
        let e = at.error(4..5, "here");
        assert_eq!((e.line, e.column, e.message.as_str()), (2, 3, "here"));
        assert_eq!(at.error(99..99, "").line, 3, "past the end: the last line");
    }

    #[test]
    fn durations_are_microseconds_within_an_hour() {
        assert_eq!(ns("d", None, 7), Ok(7));
        assert_eq!(ns("d", Some(1.5), 0), Ok(1500));
        assert_eq!(
            ns("d", Some(f64::NAN), 0),
            Err("d must be a number, not nan".into())
        );
        assert_eq!(
            ns("d", Some(-1.0), 0),
            Err("d = -1 must be a non-negative number".into())
        );
        assert_eq!(
            ns("d", Some(4e9), 0),
            Err("d = 4e9 is too large: at most 3600000000 µs (one hour)".into())
        );
    }

    #[test]
    fn byte_counts_stop_at_one_tebibyte() {
        assert_eq!(byte_count("bytes", MAX_BYTES), Ok(MAX_BYTES));
        assert_eq!(
            byte_count("bytes", MAX_BYTES + 1),
            Err(format!(
                "bytes = {} is too large: at most {MAX_BYTES} (1 TiB)",
                MAX_BYTES + 1
            ))
        );
    }

    #[test]
    fn step_devices_must_exist_for_hip() {
        let message = refused(&with_steps("", "{ set_device = 1 }"));
        assert!(
            message.ends_with("device 1 does not exist: the machine has 1 GPU(s) ([machine] gpus)"),
            "{message}"
        );
        let message = refused(&with_steps(
            "[machine]\ngpus = 2\nhip_visible_devices = \"1\"",
            "{ set_device = 1 }",
        ));
        assert!(
            message.contains("device 1 does not exist: HIP sees 1 of the machine's 2 GPU(s)"),
            "{message}"
        );
        let s = parsed(&with_steps("[machine]\ngpus = 2", "{ set_device = 1 }"));
        assert!(matches!(
            s.threads[0].steps[..],
            [super::super::model::Step::SetDevice(1)]
        ));
    }
}
