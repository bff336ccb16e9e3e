//! `replay`: plays a scenario on the simulated GPU through the real tracer and collector, the
//! way XLA's `GpuTracer` drives them: enable with a fresh collector, run, disable, export.
//!
//! The simulated machine is fixed when the SDK initializes, which happens in the tracer's
//! load-time constructor, before `main` (it must: the SDK 1.0 stream map only knows streams
//! created after registration), and the tool has read the agents by then. So the machine
//! cannot be handed over in-process: it is read from `ROCSIM_MACHINE` and the real
//! visibility variables, and when the scenario's `[machine]` keys (and the clock) ask for
//! another one, `replay` runs itself again once with that environment (`Machine::env`).
//!
//! A scenario with `enable` / `disable` steps is traced in those sessions, each with a fresh
//! collector and a trace of its own: with one session the trace goes to `-o` as given, with
//! several, session `k` (from 1) goes to `<stem>.session<k>.xplane.pb` beside it, where
//! `<stem>` is the `-o` name without `.xplane.pb` (or without its extension). A session still
//! enabled when the scenario ends models a program that exits while tracing: the replay
//! finalizes the SDK as process exit does, and that session's trace holds what the tracer
//! delivered during finalization. A scenario without such steps is traced as one session
//! around the whole replay.
//!
//! By default the replay runs on the simulator's virtual clock (machine key `clock`): time,
//! thread ids, handles and the capture's wall time follow from the scenario and the seed,
//! so replaying a scenario twice writes the same bytes. `--real-clock` keeps the host clock.
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use rocprofiler_sdk_sim::machine::{machine, Machine};
use rocprofiler_sdk_sim::scenario::{self, ReplayHooks};
use xla_rocm_tracer::collector::{CaptureStart, Collector, CollectorOptions, GpuAgentInfo};
use xla_rocm_tracer::export::{ExportOptions, GroupBy, Lane};
use xla_rocm_tracer::tracer::annotation::{pop_annotation, push_annotation};
use xla_rocm_tracer::tracer::{Tracer, TracerOptions};

use crate::inspect::{self, plural};
use crate::replay_export::ReplayExport;
use crate::{interrupts, output};

/// Set in the re-executed child, so that a mismatch there is an error instead of a loop.
const REEXECUTED_VARIABLE: &str = "XLA_ROCM_TRACER_REPLAY_REEXEC";

/// Test hook: before this step (counted from 1 over all threads) the replay says
/// "test hook: paused before step N" on stderr and waits for Ctrl-C, so that the tests send
/// a real SIGINT mid-replay without racing a timer.
const PAUSE_AT_STEP_VARIABLE: &str = "XLA_ROCM_TRACER_TEST_PAUSE_AT_STEP";

/// A replay stopped by a stop signal (Ctrl-C, SIGTERM, SIGHUP): the tracer was disabled and
/// no trace was written.
#[derive(Debug)]
pub struct Interrupted {
    pub scenario: PathBuf,
    pub steps: u64,
    pub signal: i32,
}

impl Interrupted {
    /// 128 + the signal's number, as shells report a death by that signal.
    pub fn exit_status(&self) -> u8 {
        u8::try_from(128 + self.signal).unwrap_or(u8::MAX)
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted: the replay of {} stopped after {} ({}); the tracer was disabled \
             and no trace was written",
            self.scenario.display(),
            plural(self.steps, "step", "steps"),
            interrupts::describe(self.signal)
        )
    }
}

impl std::error::Error for Interrupted {}

/// Step boundaries: where Ctrl-C stops the replay and where progress is reported.
struct StepWatch {
    steps: AtomicU64,
    pause_at_step: Option<u64>,
    progress: Option<Mutex<Instant>>,
}

impl StepWatch {
    fn new(progress: bool) -> StepWatch {
        StepWatch {
            steps: AtomicU64::new(0),
            pause_at_step: std::env::var(PAUSE_AT_STEP_VARIABLE)
                .ok()
                .and_then(|value| value.trim().parse().ok()),
            progress: progress.then(|| Mutex::new(Instant::now())),
        }
    }

    fn before_step(&self) -> std::result::Result<(), String> {
        let step = self.steps.fetch_add(1, Ordering::Relaxed) + 1;
        if self.pause_at_step == Some(step) {
            eprintln!("test hook: paused before step {step}");
            while interrupts::received().is_none() {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        if interrupts::received().is_some() {
            // Not counted: this step was not run.
            self.steps.fetch_sub(1, Ordering::Relaxed);
            return Err("interrupted".to_owned());
        }
        if let Some(last) = &self.progress {
            let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
            if last.elapsed() >= Duration::from_secs(1) {
                eprintln!("  replaying: {} done", plural(step - 1, "step", "steps"));
                *last = Instant::now();
            }
        }
        Ok(())
    }

    fn steps(&self) -> u64 {
        self.steps.load(Ordering::Relaxed)
    }
}

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A scenario file (`scenarios/*.toml`).
    pub scenario: PathBuf,
    /// Where to write the `.xplane.pb` trace [default: `<scenario name>.xplane.pb` in the
    /// current directory]. Checked before the replay starts.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Report progress on stderr (the default when stderr is a terminal).
    #[arg(long)]
    pub progress: bool,
    /// Name lanes like XLA's CUPTI collector: "Stream #0(Kernel,MemcpyH2D)".
    #[arg(long)]
    pub cuda_style_lanes: bool,
    /// Run on the host's clock and thread ids instead of the simulator's virtual clock (the
    /// trace then differs from run to run).
    #[arg(long)]
    pub real_clock: bool,
    /// Device lanes per HIP stream (`stream`) or per HSA queue (`queue`, like rocprofv3's
    /// --group-by-queue) [default: `XLA_ROCM_TRACER_GROUP_BY` as on the XLA path, else
    /// `stream`].
    #[arg(long, value_name = "stream|queue", value_parser = parse_group_by)]
    pub group_by: Option<GroupBy>,
    /// Simulate this ROCm release (the machine key `rocm`: 7.0, 7.1, 7.2, 7.13, 7.14, 10.0 or
    /// 10.1), over the scenario's own `rocm`; the scenario's other `[machine]` keys still apply.
    #[arg(long, value_name = "RELEASE")]
    pub rocm: Option<String>,
}

/// `--group-by`, else `XLA_ROCM_TRACER_GROUP_BY` (read as the XLA path reads it, but a bad
/// value is an error here rather than a warning: a command can refuse before it runs).
fn group_by(flag: Option<GroupBy>) -> Result<GroupBy> {
    use xla_rocm_tracer::ffi::GROUP_BY_VARIABLE;
    if let Some(group_by) = flag {
        return Ok(group_by);
    }
    match std::env::var(GROUP_BY_VARIABLE) {
        Ok(value) if !value.trim().is_empty() => GroupBy::parse(&value).ok_or_else(|| {
            anyhow::anyhow!("{GROUP_BY_VARIABLE}={value:?} is not `stream` or `queue`")
        }),
        _ => Ok(GroupBy::default()),
    }
}

fn parse_group_by(text: &str) -> std::result::Result<GroupBy, String> {
    GroupBy::parse(text).ok_or_else(|| format!("expected `stream` or `queue`, got `{text}`"))
}

/// The wall time a virtual-clock capture starts at: this epoch (2025-01-01T00:00:00Z) plus the
/// virtual clock's reading, so it is as reproducible as every other timestamp.
const VIRTUAL_WALLTIME_EPOCH_NS: u64 = 1_735_689_600_000_000_000;

/// The machine the replay needs: this process's, with the scenario's `[machine]` keys, the
/// clock (virtual unless `--real-clock`) and the release of `--rocm`.
fn wanted_machine(
    scenario: &scenario::Scenario,
    real_clock: bool,
    rocm: Option<&str>,
) -> Result<Machine> {
    let mut keys = scenario.machine_keys.clone();
    let clock = if real_clock { "real" } else { "virtual" };
    keys.insert("clock".to_owned(), clock.into());
    if let Some(rocm) = rocm {
        keys.insert("rocm".to_owned(), rocm.into());
    }
    machine()
        .overlaid(&keys)
        .map_err(|e| anyhow::anyhow!("{}: [machine] {e}", scenario.file.display()))
}

/// Annotations around scenario steps go to the tracer's thread-local annotation stack, which
/// the HIP API callback reads on the same thread; `enable` / `disable` steps start and end
/// sessions, each delivering to a collector of its own.
struct TracerSessions {
    tracer: &'static Tracer,
    state: Mutex<SessionState>,
    /// The scenario's `[profiler]` table.
    profiler: scenario::ProfilerSpec,
    steps: StepWatch,
}

#[derive(Default)]
struct SessionState {
    running: Option<Arc<Collector>>,
    /// Ended sessions' collectors, in order.
    ended: Vec<Arc<Collector>>,
}

impl TracerSessions {
    fn new(tracer: &'static Tracer, steps: StepWatch) -> TracerSessions {
        TracerSessions {
            tracer,
            state: Mutex::default(),
            profiler: scenario::ProfilerSpec::default(),
            steps,
        }
    }

    fn start(&self) -> Result<()> {
        let tracer = self.tracer;
        let (collector_options, tracer_options) =
            session_options(&self.profiler, tracer.num_gpus());
        let collector = Arc::new(Collector::new(collector_options, capture_start()));
        collector.set_gpu_agents(tracer.gpu_agents().iter().map(GpuAgentInfo::from).collect());
        tracer
            .enable(tracer_options, collector.clone())
            .context("cannot enable the tracer")?;
        self.state().running = Some(collector);
        Ok(())
    }

    fn stop(&self) {
        self.tracer.disable();
        self.keep_running_session();
    }

    /// Moves the running session's collector to the ended ones, with its scope-range tree.
    fn keep_running_session(&self) {
        let mut state = self.state();
        if let Some(collector) = state.running.take() {
            collector
                .set_scope_range_id_tree(self.tracer.annotation_map().take_scope_range_id_tree());
            state.ended.push(collector);
        }
    }

    fn state(&self) -> MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn is_running(&self) -> bool {
        self.state().running.is_some()
    }
}

impl ReplayHooks for TracerSessions {
    fn push_annotation(&self, name: &str) {
        push_annotation(name);
    }
    fn pop_annotation(&self) {
        pop_annotation();
    }
    fn enable_tracing(&self) -> std::result::Result<(), String> {
        self.start().map_err(|error| format!("{error:#}"))
    }
    fn disable_tracing(&self) {
        self.stop();
    }
    fn before_step(&self) -> std::result::Result<(), String> {
        self.steps.before_step()
    }
}

/// The collector and tracer options of a session: the defaults XLA uses, with what the
/// scenario's `[profiler]` table sets.
fn session_options(
    profiler: &scenario::ProfilerSpec,
    num_gpus: u32,
) -> (CollectorOptions, TracerOptions) {
    let mut collector = CollectorOptions {
        num_gpus,
        ..CollectorOptions::default()
    };
    let mut tracer = TracerOptions::default();
    if let Some(cap) = profiler.max_callback_api_events {
        collector.max_callback_api_events = cap;
    }
    if let Some(cap) = profiler.max_activity_api_events {
        collector.max_activity_api_events = cap;
    }
    if let Some(cap) = profiler.max_annotation_strings {
        collector.max_annotation_strings = cap;
        tracer.max_annotation_strings = cap;
    }
    if let Some(ms) = profiler.disable_wait_ms {
        tracer.disable_wait = std::time::Duration::from_millis(ms);
    }
    (collector, tracer)
}

/// Where session `number` (from 1) of `count` is written, given `-o output`.
pub fn session_output(output: &Path, number: usize, count: usize) -> PathBuf {
    if count <= 1 {
        return output.to_path_buf();
    }
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = match name.strip_suffix(".xplane.pb") {
        Some(stem) => stem.to_owned(),
        None => output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or(name),
    };
    output.with_file_name(format!("{stem}.session{number}.xplane.pb"))
}

fn describe_env(env: &[(&'static str, String)]) -> String {
    env.iter()
        .map(|(name, value)| format!("{name}='{}'", value.trim().replace('\n', ", ")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs this command again with the scenario's machine variables; exits with its status.
fn reexecute_with(env: &[(&'static str, String)]) -> Result<()> {
    let executable =
        std::env::current_exe().context("cannot find the xla-rocm-tracer executable")?;
    let mut command = std::process::Command::new(&executable);
    command
        .args(std::env::args_os().skip(1))
        .envs(env.iter().map(|(name, value)| (name, value)))
        .env(REEXECUTED_VARIABLE, "1");
    // However this process ends (a second stop signal, a SIGKILL), the child gets SIGTERM
    // (interrupts.rs): while writing, it removes its temporary file and ends at once; while
    // running steps, it stops at the next step boundary. Otherwise an orphan would go on
    // running and holding the caller's pipes open.
    let parent = std::process::id();
    // SAFETY: only async-signal-safe calls between fork and exec (prctl, getppid).
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have ended before the line above took effect.
            if u32::try_from(libc::getppid()).ok() != Some(parent) {
                return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
            }
            Ok(())
        });
    }
    let mut child = command.spawn().with_context(|| {
        format!(
            "cannot re-run {} with {}",
            executable.display(),
            describe_env(env)
        )
    })?;
    // A Ctrl-C at a terminal reaches the child too (same process group); a stop signal sent
    // to this process alone is passed on, once, so that the child stops as it would.
    let _graceful = interrupts::graceful();
    let mut forwarded = false;
    let status = loop {
        if let Some(status) = child.try_wait().context("cannot wait for the replay")? {
            break status;
        }
        if let (false, Some(signal)) = (forwarded, interrupts::received()) {
            forwarded = true;
            if let Ok(pid) = libc::pid_t::try_from(child.id()) {
                // SAFETY: kill() has no memory-safety preconditions; `pid` is our own child,
                // not yet reaped (try_wait above returned None).
                unsafe {
                    libc::kill(pid, signal);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if !status.success() {
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}

fn wall_clock_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos() as u64)
        .unwrap_or(0)
}

/// The capture start: the host's wall time, or under the virtual clock one derived from it.
fn capture_start() -> CaptureStart {
    use rocprofiler_sdk_sim::machine::ClockMode;
    let gputime_ns = Tracer::timestamp();
    let walltime_ns = match machine().clock {
        ClockMode::Virtual => VIRTUAL_WALLTIME_EPOCH_NS + gputime_ns,
        ClockMode::Real => wall_clock_ns(),
    };
    CaptureStart {
        walltime_ns,
        gputime_ns,
    }
}

/// `replay`'s default output: `<scenario stem>.xplane.pb` in the current directory.
pub fn default_output(scenario: &Path) -> PathBuf {
    let stem = scenario
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "replay".to_owned());
    PathBuf::from(format!("{stem}.xplane.pb"))
}

/// A scenario error on one line (the TOML parser's own messages span several).
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run(args: ReplayArgs) -> Result<()> {
    let path = &args.scenario;
    let group_by = group_by(args.group_by)?;
    let scenario =
        scenario::load(path).map_err(|error| anyhow::anyhow!(one_line(&error.to_string())))?;
    // Outputs are checked before anything runs: a replay must not run for minutes and then
    // find that it cannot write its trace.
    let output = args.output.clone().unwrap_or_else(|| default_output(path));
    let session_count = (scenario.sessions as usize).max(1);
    let outputs: Vec<PathBuf> = (1..=session_count)
        .map(|number| session_output(&output, number, session_count))
        .collect();
    let inputs = [output::Input {
        what: "the scenario",
        path,
    }];
    let outputs = outputs
        .iter()
        .map(|file| output::check(file, &inputs))
        .collect::<Result<Vec<_>>>()?;

    let wanted = wanted_machine(&scenario, args.real_clock, args.rocm.as_deref())?;
    if wanted != *machine() {
        let env = wanted.env();
        if std::env::var_os(REEXECUTED_VARIABLE).is_some() {
            bail!(
                "{}: the scenario needs a simulated machine with {} but this process could not get it",
                path.display(),
                describe_env(&env)
            );
        }
        return reexecute_with(&env);
    }

    let tracer = Tracer::get();
    if let Some(error) = tracer.init_error() {
        bail!("the tracer is unavailable: {error}");
    }
    // Under the virtual clock, time passes only through the simulator: `disable()`'s wait for
    // records in flight sleeps on it (a real sleep under the real clock).
    xla_rocm_tracer::tracer::set_wait_sleeper(rocprofiler_sdk_sim::driver::host_sleep);
    let progress = args.progress || std::io::stderr().is_terminal();
    let mut sessions = TracerSessions::new(tracer, StepWatch::new(progress));
    sessions.profiler = scenario.profiler.clone();
    if progress {
        eprintln!("replaying {} (Ctrl-C stops it)", path.display());
    }
    // From here to the end of the replay, a stop signal stops it at a step boundary.
    let graceful = interrupts::graceful();
    let whole_replay = scenario.sessions == 0;
    if whole_replay {
        sessions.start()?;
    }
    let replayed = scenario::replay(&scenario, &sessions);
    let mut exited_while_tracing = false;
    if whole_replay || replayed.is_err() {
        sessions.stop();
    } else if sessions.is_running() {
        // The program ends while tracing: the SDK finalizes as at process exit, and the
        // tracer's finalize delivers what its buffer held to the running session.
        rocprofiler_sdk_sim::finalize_as_at_exit();
        sessions.keep_running_session();
        exited_while_tracing = true;
    }
    // From here on a stop signal ends the process (removing a temporary file being written);
    // one that came before is seen here.
    drop(graceful);
    if let Some(signal) = interrupts::received() {
        // Chosen: nothing is written. A trace cut at an arbitrary step is easy to take for a
        // whole one; the tracer is disabled (above), so the SDK delivers nothing further.
        return Err(Interrupted {
            scenario: path.clone(),
            steps: sessions.steps.steps(),
            signal,
        }
        .into());
    }
    let summary =
        replayed.map_err(|error| anyhow::anyhow!("{}: replay failed: {error}", path.display()))?;
    if progress {
        eprintln!(
            "replayed {}",
            plural(sessions.steps.steps(), "step", "steps")
        );
    }

    let options = ExportOptions {
        cuda_style_line_names: args.cuda_style_lanes,
        group_by,
    };
    // One session at a time: its collector's events are dropped once its trace is written and
    // summarized, so a long replay never holds two copies of a trace. The traces are written
    // before anything is printed: a reader that stops early (`| head`) must not cost the trace.
    let collectors = std::mem::take(&mut sessions.state().ended);
    let count = collectors.len();
    let mut totals = inspect::DeviceTotals::default();
    let mut sections = Vec::with_capacity(count);
    for (index, (collector, output)) in collectors.into_iter().zip(&outputs).enumerate() {
        // The session's export streams into the file and the summary at once: no plane is
        // built as a message. What is kept for the report is each plane without its lines.
        // Kernels, copies and memsets are counted as the trace shows them (device planes of
        // every session), so that the summary and the trace agree.
        let mut kept = None;
        output.write(|out| {
            let mut export = ReplayExport::new(out);
            let lanes = collector.export_into_sink(Tracer::timestamp(), &options, &mut export);
            let size = export.file.finish()?;
            kept = Some((export.summary.finish(), lanes, size));
            Ok(())
        })?;
        let Some(((space, summaries), lanes, size)) = kept else {
            bail!("the export of {} wrote nothing", output.shown().display());
        };
        drop(collector);
        totals.add_summaries(&summaries);
        let number = index + 1;
        let mut title = format!("replay of {}", path.display());
        if !whole_replay {
            title.push_str(&format!(", session {number} of {count}"));
            if exited_while_tracing && number == count {
                title.push_str(" (still enabled at exit)");
            }
        }
        let mut section = inspect::render_summarized(&space, &summaries, &title);
        section.push_str(&scenario_stream_lines(&summary, &lanes));
        section.push_str(&format!(
            "\nwrote {} ({})\n",
            output.shown().display(),
            inspect::format_bytes(size)
        ));
        sections.push(section);
    }

    let copy_calls: u64 = summary.copies.values().sum();
    let mut asked = Vec::new();
    for (kind, count) in &summary.copies {
        asked.push(format!("{kind:?} {count}"));
    }
    let mut copies = plural(copy_calls, "copy call", "copy calls");
    if !asked.is_empty() {
        copies.push_str(&format!(
            " ({}; {})",
            asked.join(", "),
            inspect::format_bytes(summary.bytes_copied)
        ));
    }
    let mut report = format!(
        "replayed {}: {}, {}, {}\n",
        path.display(),
        plural(summary.api_calls, "HIP call", "HIP calls"),
        copies,
        plural(summary.annotations, "annotated step", "annotated steps")
    );
    // A same-GPU device-to-device copy runs as a blit kernel, whose event carries the copy's
    // size and memory kinds: it is counted as the copy (docs/xla-interface.md#copy-apis).
    report.push_str(&format!("the trace shows {}\n\n", totals.describe()));
    report.push_str(&sections.join("\n"));
    // A trace written to standard output keeps it to itself: the summary goes to stderr.
    if outputs.iter().any(output::Output::is_stdout) {
        eprint!("{report}");
    } else {
        print!("{report}");
    }
    Ok(())
}

/// `Stream #0 = compute (GPU 0)` for each stream lane of the trace that is a scenario stream
/// (matched by SDK stream id), so a reader can map lanes back to the scenario's names; the
/// null and other reserved streams are named by their lane label already.
pub fn scenario_stream_lines(summary: &scenario::ReplaySummary, lanes: &[Lane]) -> String {
    let mut out = String::new();
    for lane in lanes {
        let Some(stream_id) = lane.stream_id else {
            continue;
        };
        let declared = summary
            .streams
            .iter()
            .find(|stream| stream.sdk_stream_id == Some(stream_id));
        if let Some(stream) = declared {
            if out.is_empty() {
                out.push_str("\nscenario streams:\n");
            }
            out.push_str(&format!(
                "  GPU {} Stream #{} = {}\n",
                lane.device_ordinal,
                lane.lane,
                inspect::printable(&stream.name)
            ));
        }
    }
    out
}
