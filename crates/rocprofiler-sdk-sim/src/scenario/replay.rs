//! Replaying a [`Scenario`] through the driver: one OS thread per scenario thread, started
//! together; annotations are reported to [`ReplayHooks`] on the issuing thread.
//!
//! Under the virtual clock (`clock = "virtual"`) the threads stay real OS threads (their
//! thread-local state, such as a tracer's annotation stack, depends on it) but take turns: one
//! step at a time, always the thread with the smallest local virtual time (ties: the earlier
//! thread in the file). A sleep moves only the sleeping thread's local time, so the others run
//! meanwhile; every other step starts no earlier than the thread's local time and leaves it
//! at the virtual time the step ended. So a replay's trace depends only on the scenario and
//! `seed`.
use super::error::ReplayError;
use super::model::RandomSpec;
use super::model::*;
use super::random::RandomDraws;
use crate::hip::driver::{self, Copy, CopyCall, CopyKind, HipStream, KernelId, KernelLaunch};
use crate::SimError;
use parking_lot::{Condvar, Mutex};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::sync::Barrier;

/// Where a tracer's annotation source plugs in. Called on the thread issuing the steps.
pub trait ReplayHooks: Sync {
    fn push_annotation(&self, _name: &str) {}
    fn pop_annotation(&self) {}
    /// An `enable` step: start a profiling session. An error ends the replay.
    fn enable_tracing(&self) -> Result<(), String> {
        Ok(())
    }
    /// A `disable` step: end the running profiling session.
    fn disable_tracing(&self) {}
    /// Before each step of a scenario thread: an error stops the replay at this step boundary
    /// with that error (a command's Ctrl-C). Also where a long replay can report progress.
    fn before_step(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Hooks that do nothing.
impl ReplayHooks for () {}

/// What a replay did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplaySummary {
    /// HIP runtime calls made (including stream creation and the final synchronizes).
    pub api_calls: u64,
    /// Kernel dispatches, counting every graph node, blit memsets and same-GPU D2D copies.
    pub kernels: u64,
    pub graph_launches: u64,
    pub memsets: u64,
    /// Copies by direction.
    pub copies: BTreeMap<CopyKind, u64>,
    pub bytes_copied: u64,
    pub annotations: u64,
    /// The scenario's `[streams]`, in creation order.
    pub streams: Vec<ReplayedStream>,
}

/// One stream the replay created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayedStream {
    /// Its name in the scenario.
    pub name: String,
    pub device: u32,
    /// The `hipStream_t` value.
    pub handle: u64,
    /// The SDK stream id it had when created (`None` if the SDK's map lacked it).
    pub sdk_stream_id: Option<u64>,
    /// The name given with `roctxNameHipStream`.
    pub roctx_name: Option<String>,
}

impl ReplaySummary {
    fn merge(&mut self, other: &ReplaySummary) {
        self.api_calls += other.api_calls;
        self.kernels += other.kernels;
        self.graph_launches += other.graph_launches;
        self.memsets += other.memsets;
        for (kind, n) in &other.copies {
            *self.copies.entry(*kind).or_insert(0) += n;
        }
        self.bytes_copied += other.bytes_copied;
        self.annotations += other.annotations;
    }
}

struct World {
    /// Device -> kernel alias -> id (looked up by `&str`, without a key to build per launch).
    kernels: HashMap<u32, HashMap<String, KernelId>>,
    /// name -> (hipStream_t, device) of the streams that exist now (`create_stream` and
    /// `hipStreamDestroy` steps change it while threads run).
    streams: Mutex<HashMap<String, (HipStream, u32)>>,
    queues: HashMap<String, u64>,
    /// Declared stream -> the named HSA queue it starts on.
    stream_queues: HashMap<String, u64>,
    /// Declared stream -> its `roctx_name`, for streams the scenario threads create.
    stream_roctx_names: HashMap<String, String>,
    /// The streams the scenario threads created, for `ReplaySummary::streams`.
    created_by_threads: Mutex<Vec<ReplayedStream>>,
}

/// Fake HSA queue addresses for named queues.
const NAMED_QUEUE_BASE: u64 = 0x7d00_0000_0000;

impl World {
    fn stream(&self, r: &StreamRef) -> HipStream {
        match r {
            StreamRef::Null => driver::NULL_STREAM,
            StreamRef::Legacy => driver::STREAM_LEGACY,
            StreamRef::PerThread => driver::STREAM_PER_THREAD,
            StreamRef::Named(name) => self.streams.lock()[name].0,
        }
    }

    /// `hipStreamCreate` of declared stream `name` on the calling thread and its current
    /// device, with its queue binding; the stream then exists for later steps.
    fn create_stream(&self, name: &str, device: u32) -> Result<(), SimError> {
        let stream = driver::stream_create()?;
        if let Some(&queue) = self.stream_queues.get(name) {
            driver::bind_stream_to_queue(stream, queue)?;
        }
        let roctx_name = self.stream_roctx_names.get(name).cloned();
        if let Some(roctx_name) = &roctx_name {
            driver::roctx_name_hip_stream(stream, roctx_name)?;
        }
        self.created_by_threads.lock().push(ReplayedStream {
            name: name.to_owned(),
            device,
            handle: stream,
            sdk_stream_id: driver::sdk_stream_id(stream).ok(),
            roctx_name,
        });
        self.streams
            .lock()
            .insert(name.to_owned(), (stream, device));
        Ok(())
    }

    fn queue(&mut self, name: &str) -> u64 {
        let next = NAMED_QUEUE_BASE + 0x1000 * (self.queues.len() as u64 + 1);
        *self.queues.entry(name.to_owned()).or_insert(next)
    }
}

fn sim(context: &str, e: SimError) -> ReplayError {
    ReplayError(format!("{context}: {e}"))
}

/// The process's machine must be the scenario's: every key `[machine]` sets, except that more
/// GPUs than asked for are fine, and visibility is checked by the HIP devices it leaves.
fn check_machine(scenario: &Scenario) -> Result<(), ReplayError> {
    let have = crate::machine::machine();
    let mut wanted = have
        .overlaid(&scenario.machine_keys)
        .map_err(|e| ReplayError(format!("{}: [machine] {e}", scenario.file.display())))?;
    wanted.gpus = wanted.gpus.max(have.gpus);
    wanted
        .hip_visible_devices
        .clone_from(&have.hip_visible_devices);
    wanted
        .rocr_visible_devices
        .clone_from(&have.rocr_visible_devices);
    wanted
        .cuda_visible_devices
        .clone_from(&have.cuda_visible_devices);
    wanted
        .gpu_device_ordinal
        .clone_from(&have.gpu_device_ordinal);
    if wanted == *have {
        return Ok(());
    }
    let table = |m: &crate::machine::Machine| toml::Table::try_from(m).unwrap_or_default();
    let (want, got) = (table(&wanted), table(have));
    let keys: Vec<&String> = want
        .keys()
        .filter(|k| got.get(*k) != want.get(*k))
        .collect();
    let show = |t: &toml::Table| {
        let shown: Vec<String> = keys
            .iter()
            .map(|k| {
                t.get(*k)
                    .map_or(format!("{k} unset"), |v| format!("{k} = {v}"))
            })
            .collect();
        shown.join(", ")
    };
    let env: Vec<String> = scenario
        .machine_env()
        .iter()
        .map(|(name, value)| format!("{name}='{}'", value.trim().replace('\n', ", ")))
        .collect();
    Err(ReplayError(format!(
        "{} needs a simulated machine with {} but this process has {} (start it with {})",
        scenario.file.display(),
        show(&want),
        show(&got),
        env.join(" ")
    )))
}

/// Runs the scenario; returns when every thread finished and all device work of every GPU
/// completed and was pushed into buffers.
pub fn replay(scenario: &Scenario, hooks: &dyn ReplayHooks) -> Result<ReplaySummary, ReplayError> {
    check_machine(scenario)?;
    *crate::hip::streams::SCENARIO_HINT.lock() = scenario.special_stream.as_ref().map(|at| {
        format!(
            " The scenario uses such a stream at {at}: add rocm = \"7.1\" (or later) to its \
             [machine] to model an SDK that maps it."
        )
    });
    let hip_have = driver::device_count();
    if scenario.hip_devices() > hip_have {
        return Err(ReplayError(format!(
            "{} needs {} HIP device(s) but this process's HIP sees {hip_have} \
             (HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES)",
            scenario.file.display(),
            scenario.hip_devices()
        )));
    }
    let mut summary = ReplaySummary::default();
    let mut world = World {
        kernels: HashMap::default(),
        streams: Mutex::new(HashMap::default()),
        queues: HashMap::default(),
        stream_queues: HashMap::default(),
        stream_roctx_names: HashMap::default(),
        created_by_threads: Mutex::new(Vec::new()),
    };
    for co in &scenario.code_objects {
        let symbols: Vec<&str> = co.kernels.iter().map(|(_, s)| s.as_str()).collect();
        let (_, ids) = driver::load_code_object(co.device, &symbols)
            .map_err(|e| sim("loading a code object", e))?;
        for ((alias, _), id) in co.kernels.iter().zip(ids) {
            world
                .kernels
                .entry(co.device)
                .or_default()
                .insert(alias.clone(), id);
        }
    }
    let restore = driver::current_device();
    for spec in scenario
        .streams
        .iter()
        .filter(|s| s.creator == StreamCreator::Main)
    {
        let context = format!("creating stream `{}`", spec.name);
        driver::set_device(spec.device).map_err(|e| sim(&context, e))?;
        let stream = driver::stream_create().map_err(|e| sim(&context, e))?;
        summary.api_calls += 2;
        if let Some(queue) = &spec.queue {
            let queue = world.queue(queue);
            driver::bind_stream_to_queue(stream, queue).map_err(|e| sim(&context, e))?;
        }
        name_stream(spec, stream, &context)?;
        summary.streams.push(ReplayedStream {
            name: spec.name.clone(),
            device: spec.device,
            handle: stream,
            sdk_stream_id: driver::sdk_stream_id(stream).ok(),
            roctx_name: spec.roctx_name.clone(),
        });
        world
            .streams
            .get_mut()
            .insert(spec.name.clone(), (stream, spec.device));
    }
    // Streams created by scenario threads get their named queues' handles now, in file order.
    for spec in &scenario.streams {
        if let (StreamCreator::ThreadStart(_) | StreamCreator::Step, Some(queue)) =
            (spec.creator, &spec.queue)
        {
            let handle = world.queue(queue);
            world.stream_queues.insert(spec.name.clone(), handle);
        }
        if let (StreamCreator::ThreadStart(_) | StreamCreator::Step, Some(roctx_name)) =
            (spec.creator, &spec.roctx_name)
        {
            world
                .stream_roctx_names
                .insert(spec.name.clone(), roctx_name.clone());
        }
    }
    driver::set_device(restore).map_err(|e| sim("restoring the device", e))?;
    summary.api_calls += 1;

    // Named queues used by `bind` steps get their handles up front, so threads share them.
    fn collect_queues(steps: &[Step], out: &mut Vec<String>) {
        for step in steps {
            match step {
                Step::Bind { queue, .. } => out.push(queue.clone()),
                Step::Group { steps, .. } => collect_queues(steps, out),
                _ => {}
            }
        }
    }
    let mut names = Vec::new();
    for thread in &scenario.threads {
        collect_queues(&thread.steps, &mut names);
    }
    for name in names {
        world.queue(&name);
    }

    let world = &world;
    let creation = Creation::default();
    let creation = &creation;
    let barrier = Barrier::new(scenario.threads.len());
    let turns = crate::time::clock::is_virtual().then(|| Turns::new(scenario.threads.len()));
    let turns = turns.as_ref();
    let results: Vec<Result<ReplaySummary, ReplayError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = scenario
            .threads
            .iter()
            .enumerate()
            .map(|(index, thread)| {
                let barrier = &barrier;
                std::thread::Builder::new()
                    .name(format!("scenario-{}", thread.name))
                    .spawn_scoped(scope, move || {
                        crate::time::clock::name_thread(index);
                        let gate = Gate { turns, index };
                        let mut out = ReplaySummary::default();
                        let created =
                            creation.create_own(world, &scenario.streams, index, &mut out);
                        barrier.wait();
                        created?;
                        let mut local = Local::default();
                        let result = run_steps(
                            world,
                            hooks,
                            &gate,
                            &thread.name,
                            &thread.steps,
                            &mut out,
                            &mut local,
                        );
                        // Windows left open get no SET EXIT: their calls never returned.
                        drop(local);
                        drop(gate);
                        result.map(|()| out)
                    })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err(ReplayError("a scenario thread panicked".into()))),
                Err(e) => Err(ReplayError(format!("cannot spawn a scenario thread: {e}"))),
            })
            .collect()
    });
    // The thread whose stream creation failed says why; the others only that it did.
    if let Some(Err(e)) = results
        .iter()
        .find(|r| matches!(r, Err(e) if e.0 != ANOTHER_CREATION_FAILED))
    {
        return Err(e.clone());
    }
    for result in results {
        summary.merge(&result?);
    }
    // Threads create concurrently: list their streams in SDK id order, which follows creation.
    let mut created = std::mem::take(&mut *world.created_by_threads.lock());
    created.sort_by_key(|stream| (stream.sdk_stream_id, stream.handle));
    summary.streams.extend(created);
    for device in 0..scenario.hip_devices() {
        driver::set_device(device).map_err(|e| sim("final synchronize", e))?;
        driver::device_synchronize().map_err(|e| sim("final synchronize", e))?;
        summary.api_calls += 2;
    }
    driver::set_device(restore).map_err(|e| sim("restoring the device", e))?;
    summary.api_calls += 1;
    driver::wait_idle();
    Ok(summary)
}

fn launch_of(world: &World, node: &GraphNode, device: u32) -> KernelLaunch {
    KernelLaunch {
        kernel: world.kernels[&device][node.kernel.as_str()],
        grid: node.grid,
        block: node.block,
        private_segment_size: node.private_segment_size,
        group_segment_size: node.group_segment_size,
        duration_ns: node.duration_ns,
    }
}

/// The device a stream's work runs on, as the driver sees it.
fn device_of(world: &World, stream: &StreamRef) -> Result<u32, SimError> {
    match stream {
        StreamRef::Named(name) => Ok(world.streams.lock()[name].1),
        _ => Ok(driver::current_device()),
    }
}

/// What one scenario thread carries from step to step.
#[derive(Default)]
struct Local {
    /// Its open SET windows, innermost last.
    windows: Vec<driver::StreamWindow>,
    /// Where each of its `random` steps' sequence has got to, by the step's address (steps
    /// stay in place for the whole replay).
    draws: HashMap<*const RandomSpec, RandomDraws>,
    /// The annotation being built for a repeat (reused: no allocation per repeat).
    annotation: String,
}

/// `name` with every `{i}` replaced by `i`, written into `out`.
fn expand_annotation(name: &str, i: u32, out: &mut String) {
    use std::fmt::Write;
    out.clear();
    for (index, piece) in name.split("{i}").enumerate() {
        if index > 0 {
            let _ = write!(out, "{i}");
        }
        out.push_str(piece);
    }
}

const ANOTHER_CREATION_FAILED: &str = "another thread failed to create its stream";

/// Streams that scenario threads create at their start: one at a time, in `[streams]` order,
/// before any thread runs its first step.
#[derive(Default)]
struct Creation {
    /// How many of the streams created at thread start exist, and whether a creation failed.
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl Creation {
    /// Creates thread `index`'s streams in their turn, then waits until every thread's are
    /// created.
    fn create_own(
        &self,
        world: &World,
        specs: &[StreamSpec],
        index: usize,
        out: &mut ReplaySummary,
    ) -> Result<(), ReplayError> {
        // The streams created at thread start, in file order; `state.0` counts those done.
        let order: Vec<&StreamSpec> = specs
            .iter()
            .filter(|s| matches!(s.creator, StreamCreator::ThreadStart(_)))
            .collect();
        let failed = || ReplayError(ANOTHER_CREATION_FAILED.into());
        let mut state = self.state.lock();
        for (turn, spec) in order.iter().enumerate() {
            if spec.creator != StreamCreator::ThreadStart(index) {
                continue;
            }
            while !state.1 && state.0 != turn {
                self.changed.wait(&mut state);
            }
            if state.1 {
                return Err(failed());
            }
            let result = create_at_thread_start(world, spec, out);
            state.0 = turn + 1;
            state.1 |= result.is_err();
            self.changed.notify_all();
            result?;
        }
        while !state.1 && state.0 < order.len() {
            self.changed.wait(&mut state);
        }
        if state.1 {
            return Err(failed());
        }
        Ok(())
    }
}

/// `hipStreamCreate` on the calling thread, on the stream's device (switching to it and back
/// with `hipSetDevice` when the thread's current device differs).
fn create_at_thread_start(
    world: &World,
    spec: &StreamSpec,
    out: &mut ReplaySummary,
) -> Result<(), ReplayError> {
    let context = format!("creating stream `{}`", spec.name);
    let fail = |e: SimError| sim(&context, e);
    let current = driver::current_device();
    if current != spec.device {
        driver::set_device(spec.device).map_err(fail)?;
        out.api_calls += 1;
    }
    world.create_stream(&spec.name, spec.device).map_err(fail)?;
    out.api_calls += 1;
    if current != spec.device {
        driver::set_device(current).map_err(fail)?;
        out.api_calls += 1;
    }
    Ok(())
}

/// The virtual-clock scheduler: whose turn it is, and each thread's local virtual time.
struct Turns {
    state: Mutex<TurnState>,
    /// One per thread, so that a turn wakes only the thread whose turn it is (waking all of
    /// them after every step made a 16-thread replay mostly context switches).
    turn_of: Vec<Condvar>,
}

struct TurnState {
    local_ns: Vec<u64>,
    finished: Vec<bool>,
    turn: Option<usize>,
}

impl Turns {
    fn new(threads: usize) -> Turns {
        let mut state = TurnState {
            local_ns: vec![crate::time::clock::now_ns(); threads],
            finished: vec![false; threads],
            turn: None,
        };
        state.pick();
        Turns {
            state: Mutex::new(state),
            turn_of: (0..threads).map(|_| Condvar::new()).collect(),
        }
    }
}

impl Turns {
    /// Wakes the thread whose turn it now is.
    fn wake(&self, state: &TurnState) {
        if let Some(turn) = state.turn {
            self.turn_of[turn].notify_one();
        }
    }
}

impl TurnState {
    /// The unfinished thread with the smallest local time, ties by index.
    fn pick(&mut self) {
        self.turn = (0..self.local_ns.len())
            .filter(|&i| !self.finished[i])
            .min_by_key(|&i| (self.local_ns[i], i));
    }
}

/// One scenario thread's place in the [`Turns`] (none under the real clock). Dropping it
/// ends the thread's turns, also when a step failed.
struct Gate<'a> {
    turns: Option<&'a Turns>,
    index: usize,
}

impl Gate<'_> {
    /// Waits for this thread's turn; virtual time moves to its local time.
    fn before_step(&self) {
        if let Some(turns) = self.turns {
            let local = {
                let mut state = turns.state.lock();
                while state.turn != Some(self.index) {
                    turns.turn_of[self.index].wait(&mut state);
                }
                state.local_ns[self.index]
            };
            crate::engine::signal::advance_to(local);
        }
    }

    /// Ends the turn; the thread's local time is now, plus `sleep_ns` if the step slept.
    fn after_step(&self, sleep_ns: u64) {
        match self.turns {
            Some(turns) => {
                let mut state = turns.state.lock();
                state.local_ns[self.index] = crate::time::clock::now_ns().saturating_add(sleep_ns);
                state.pick();
                turns.wake(&state);
            }
            None if sleep_ns > 0 => crate::engine::signal::sleep_ns(sleep_ns),
            None => {}
        }
    }
}

impl Drop for Gate<'_> {
    fn drop(&mut self) {
        if let Some(turns) = self.turns {
            let mut state = turns.state.lock();
            state.finished[self.index] = true;
            state.pick();
            turns.wake(&state);
        }
    }
}

fn run_steps(
    world: &World,
    hooks: &dyn ReplayHooks,
    gate: &Gate,
    thread: &str,
    steps: &[Step],
    out: &mut ReplaySummary,
    local: &mut Local,
) -> Result<(), ReplayError> {
    for step in steps {
        hooks.before_step().map_err(ReplayError)?;
        let context = || format!("thread `{thread}`, step {step:?}");
        let fail = |e: SimError| ReplayError(format!("{}: {e}", context()));
        if let Step::Sleep { ns } = step {
            gate.before_step();
            gate.after_step(*ns);
            continue;
        }
        let leaf = !matches!(step, Step::Group { .. } | Step::Random(_));
        if leaf {
            gate.before_step();
        }
        let result = run_step(world, hooks, gate, thread, step, out, local, &fail);
        if leaf {
            gate.after_step(0);
        }
        result?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_step(
    world: &World,
    hooks: &dyn ReplayHooks,
    gate: &Gate,
    thread: &str,
    step: &Step,
    out: &mut ReplaySummary,
    local: &mut Local,
    fail: &dyn Fn(SimError) -> ReplayError,
) -> Result<(), ReplayError> {
    {
        match step {
            Step::SetDevice(d) => {
                driver::set_device(*d).map_err(fail)?;
                out.api_calls += 1;
            }
            Step::Launch {
                stream,
                node,
                module,
            } => {
                let device = device_of(world, stream).map_err(fail)?;
                let launch = launch_of(world, node, device);
                let s = world.stream(stream);
                if *module {
                    driver::module_launch_kernel(s, &launch).map_err(fail)?;
                } else {
                    driver::launch_kernel(s, &launch).map_err(fail)?;
                }
                out.api_calls += 1;
                out.kernels += 1;
            }
            Step::Graph { stream, nodes } => {
                let device = device_of(world, stream).map_err(fail)?;
                let launches: Vec<_> = nodes.iter().map(|n| launch_of(world, n, device)).collect();
                driver::graph_launch(world.stream(stream), &launches).map_err(fail)?;
                out.api_calls += 1;
                out.graph_launches += 1;
                out.kernels += launches.len() as u64;
            }
            Step::Memcpy {
                stream,
                kind,
                bytes,
                src_device,
                dst_device,
                duration_ns,
                host,
            } => {
                let copy = Copy {
                    kind: *kind,
                    bytes: *bytes,
                    src_device: *src_device,
                    dst_device: *dst_device,
                    duration_ns: *duration_ns,
                };
                let call = CopyCall {
                    host: *host,
                    ..CopyCall::default()
                };
                match stream {
                    Some(s) => {
                        driver::memcpy_async_with(world.stream(s), &copy, &call).map_err(fail)?
                    }
                    None => driver::memcpy_sync_with(&copy, &call).map_err(fail)?,
                };
                out.api_calls += 1;
                *out.copies.entry(*kind).or_insert(0) += 1;
                out.bytes_copied += bytes;
            }
            Step::Memset {
                stream,
                bytes,
                duration_ns,
            } => {
                match stream {
                    Some(s) => driver::memset_async(world.stream(s), *bytes, *duration_ns),
                    None => driver::memset_sync(*bytes, *duration_ns),
                }
                .map_err(fail)?;
                out.api_calls += 1;
                out.memsets += 1;
                out.kernels += 1;
            }
            Step::SyncStream(stream) => {
                driver::stream_synchronize(world.stream(stream)).map_err(fail)?;
                out.api_calls += 1;
            }
            Step::SyncDevice => {
                driver::device_synchronize().map_err(fail)?;
                out.api_calls += 1;
            }
            Step::Sleep { .. } => {}
            // Not HIP calls: no API call is counted.
            Step::RoctxPush(message) => {
                driver::roctx_range_push(message).map_err(fail)?;
            }
            Step::RoctxPop => {
                driver::roctx_range_pop();
            }
            Step::RoctxMark(message) => driver::roctx_mark(message).map_err(fail)?,
            Step::Enable => hooks
                .enable_tracing()
                .map_err(|e| ReplayError(format!("thread `{thread}`: enable: {e}")))?,
            Step::Disable => hooks.disable_tracing(),
            Step::Bind { stream, queue } => {
                driver::bind_stream_to_queue(world.stream(stream), world.queues[queue])
                    .map_err(fail)?;
            }
            Step::SetEnter(stream) => {
                let window = driver::stream_window_enter(world.stream(stream)).map_err(fail)?;
                local.windows.push(window);
            }
            Step::SetExit => {
                // Validation guarantees an open window.
                if let Some(window) = local.windows.pop() {
                    driver::stream_window_exit(window);
                }
            }
            Step::CreateStream(name) => {
                world
                    .create_stream(name, driver::current_device())
                    .map_err(fail)?;
                out.api_calls += 1;
            }
            Step::DestroyStream(stream) => {
                driver::stream_destroy(world.stream(stream)).map_err(fail)?;
                if let StreamRef::Named(name) = stream {
                    world.streams.lock().remove(name);
                }
                out.api_calls += 1;
            }
            Step::Random(spec) => {
                // One generated step at a time: a count of any size holds one step. A run
                // continues the sequence where the step's previous run (in a repeat) ended.
                let key: *const RandomSpec = &**spec;
                for _ in 0..spec.count {
                    let generated = local
                        .draws
                        .entry(key)
                        .or_insert_with(|| spec.draws())
                        .next_step(spec);
                    gate.before_step();
                    let result = run_step(world, hooks, gate, thread, &generated, out, local, fail);
                    gate.after_step(0);
                    result?;
                }
            }
            Step::Api { op, stream } => {
                driver::api_call(*op, stream.as_ref().map(|s| world.stream(s))).map_err(fail)?;
                out.api_calls += 1;
            }
            Step::Group {
                annotate,
                repeat,
                steps,
            } => {
                for i in 0..*repeat {
                    // Annotations take turns too: a tracer numbers them as they arrive.
                    if let Some(name) = annotate {
                        gate.before_step();
                        expand_annotation(name, i, &mut local.annotation);
                        hooks.push_annotation(&local.annotation);
                        gate.after_step(0);
                        out.annotations += 1;
                    }
                    let result = run_steps(world, hooks, gate, thread, steps, out, local);
                    if annotate.is_some() {
                        gate.before_step();
                        hooks.pop_annotation();
                        gate.after_step(0);
                    }
                    result?;
                }
            }
        }
    }
    Ok(())
}

/// `roctx_name`: ROCTx's `roctxNameHipStream` right after the stream's creation.
fn name_stream(spec: &StreamSpec, stream: HipStream, context: &str) -> Result<(), ReplayError> {
    if let Some(name) = &spec.roctx_name {
        driver::roctx_name_hip_stream(stream, name).map_err(|e| sim(context, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::expand_annotation;

    #[test]
    fn annotations_expand_every_index_placeholder_in_place() {
        let mut out = String::from("left over");
        expand_annotation("step_{i}", 7, &mut out);
        assert_eq!(out, "step_7");
        expand_annotation("{i}/{i}-x{i", 12, &mut out);
        assert_eq!(out, "12/12-x{i");
        expand_annotation("plain", 3, &mut out);
        assert_eq!(out, "plain");
    }
}
