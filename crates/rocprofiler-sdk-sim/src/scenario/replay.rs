//! Replaying a [`Scenario`] through the driver: one OS thread per scenario thread, started
//! together; annotations are reported to [`ReplayHooks`] on the issuing thread.
//!
//! Under the virtual clock (`ROCSIM_CLOCK=virtual`) the threads stay real OS threads (their
//! thread-local state, such as a tracer's annotation stack, depends on it) but take turns: one
//! step at a time, always the thread with the smallest local virtual time (ties: the earlier
//! thread in the file). A sleep moves only the sleeping thread's local time, so the others run
//! meanwhile; every other step starts no earlier than the thread's local time and leaves it
//! at the virtual time the step ended. So a replay's trace depends only on the scenario and
//! `ROCSIM_SEED`.
use super::error::ReplayError;
use super::model::*;
use crate::driver::{self, Copy, CopyCall, CopyKind, HipStream, KernelId, KernelLaunch};
use crate::SimError;
use parking_lot::{Condvar, Mutex};
use std::collections::{BTreeMap, HashMap};
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
    kernels: HashMap<(String, u32), KernelId>,
    /// name -> (hipStream_t, device)
    streams: HashMap<String, (HipStream, u32)>,
    queues: HashMap<String, u64>,
}

/// Fake HSA queue addresses for named queues.
const NAMED_QUEUE_BASE: u64 = 0x7d00_0000_0000;

impl World {
    fn stream(&self, r: &StreamRef) -> HipStream {
        match r {
            StreamRef::Null => driver::NULL_STREAM,
            StreamRef::Legacy => driver::STREAM_LEGACY,
            StreamRef::PerThread => driver::STREAM_PER_THREAD,
            StreamRef::Named(name) => self.streams[name].0,
        }
    }

    fn queue(&mut self, name: &str) -> u64 {
        let next = NAMED_QUEUE_BASE + 0x1000 * (self.queues.len() as u64 + 1);
        *self.queues.entry(name.to_owned()).or_insert(next)
    }
}

fn sim(context: &str, e: SimError) -> ReplayError {
    ReplayError(format!("{context}: {e}"))
}

/// Runs the scenario; returns when every thread finished and all device work of every GPU
/// completed and was pushed into buffers.
pub fn replay(scenario: &Scenario, hooks: &dyn ReplayHooks) -> Result<ReplaySummary, ReplayError> {
    let have = crate::machine::machine().gpus;
    if scenario.gpus > have {
        return Err(ReplayError(format!(
            "{} needs {} GPU(s) but this process has {have} (set ROCSIM_GPUS before the first SDK call)",
            scenario.file.display(),
            scenario.gpus
        )));
    }
    if let Some(wanted) = scenario.stream_map {
        let have = crate::machine::machine().stream_map;
        if wanted != have {
            return Err(ReplayError(format!(
                "{} needs the {} SDK stream map but this process has {} \
                 (set ROCSIM_STREAM_MAP={} before the first SDK call)",
                scenario.file.display(),
                wanted.as_str(),
                have.as_str(),
                wanted.as_str()
            )));
        }
    }
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
        kernels: HashMap::new(),
        streams: HashMap::new(),
        queues: HashMap::new(),
    };
    for co in &scenario.code_objects {
        let symbols: Vec<&str> = co.kernels.iter().map(|(_, s)| s.as_str()).collect();
        let (_, ids) = driver::load_code_object(co.device, &symbols)
            .map_err(|e| sim("loading a code object", e))?;
        for ((alias, _), id) in co.kernels.iter().zip(ids) {
            world.kernels.insert((alias.clone(), co.device), id);
        }
    }
    let restore = driver::current_device();
    for spec in &scenario.streams {
        let context = format!("creating stream `{}`", spec.name);
        driver::set_device(spec.device).map_err(|e| sim(&context, e))?;
        let stream = driver::stream_create().map_err(|e| sim(&context, e))?;
        summary.api_calls += 2;
        if let Some(queue) = &spec.queue {
            let queue = world.queue(queue);
            driver::bind_stream_to_queue(stream, queue).map_err(|e| sim(&context, e))?;
        }
        world
            .streams
            .insert(spec.name.clone(), (stream, spec.device));
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
    let barrier = Barrier::new(scenario.threads.len());
    let turns = crate::clock::is_virtual().then(|| Turns::new(scenario.threads.len()));
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
                        crate::clock::name_thread(index);
                        let gate = Gate { turns, index };
                        barrier.wait();
                        let mut out = ReplaySummary::default();
                        let result =
                            run_steps(world, hooks, &gate, &thread.name, &thread.steps, &mut out);
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
    for result in results {
        summary.merge(&result?);
    }
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
        kernel: world.kernels[&(node.kernel.clone(), device)],
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
        StreamRef::Named(name) => Ok(world.streams[name].1),
        _ => Ok(driver::current_device()),
    }
}

/// The virtual-clock scheduler: whose turn it is, and each thread's local virtual time.
struct Turns {
    state: Mutex<TurnState>,
    changed: Condvar,
}

struct TurnState {
    local_ns: Vec<u64>,
    finished: Vec<bool>,
    turn: Option<usize>,
}

impl Turns {
    fn new(threads: usize) -> Turns {
        let mut state = TurnState {
            local_ns: vec![crate::clock::now_ns(); threads],
            finished: vec![false; threads],
            turn: None,
        };
        state.pick();
        Turns {
            state: Mutex::new(state),
            changed: Condvar::new(),
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
                    turns.changed.wait(&mut state);
                }
                state.local_ns[self.index]
            };
            crate::clock::advance_to(local);
        }
    }

    /// Ends the turn; the thread's local time is now, plus `sleep_ns` if the step slept.
    fn after_step(&self, sleep_ns: u64) {
        match self.turns {
            Some(turns) => {
                let mut state = turns.state.lock();
                state.local_ns[self.index] = crate::clock::now_ns().saturating_add(sleep_ns);
                state.pick();
                turns.changed.notify_all();
            }
            None if sleep_ns > 0 => crate::clock::sleep_ns(sleep_ns),
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
            turns.changed.notify_all();
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
        let leaf = !matches!(step, Step::Group { .. });
        if leaf {
            gate.before_step();
        }
        let result = run_step(world, hooks, gate, thread, step, out, &fail);
        if leaf {
            gate.after_step(0);
        }
        result?;
    }
    Ok(())
}

fn run_step(
    world: &World,
    hooks: &dyn ReplayHooks,
    gate: &Gate,
    thread: &str,
    step: &Step,
    out: &mut ReplaySummary,
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
            Step::Enable => hooks
                .enable_tracing()
                .map_err(|e| ReplayError(format!("thread `{thread}`: enable: {e}")))?,
            Step::Disable => hooks.disable_tracing(),
            Step::Bind { stream, queue } => {
                driver::bind_stream_to_queue(world.stream(stream), world.queues[queue])
                    .map_err(fail)?;
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
                        hooks.push_annotation(&name.replace("{i}", &i.to_string()));
                        gate.after_step(0);
                        out.annotations += 1;
                    }
                    let result = run_steps(world, hooks, gate, thread, steps, out);
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
