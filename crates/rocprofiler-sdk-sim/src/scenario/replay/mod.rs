//! Replaying a [`Scenario`] through the driver: one OS thread per scenario thread, started
//! together; annotations are reported to [`ReplayHooks`] on the issuing thread.
//!
//! Under the virtual clock (`clock = "virtual"`) the threads stay real OS threads (their
//! thread-local state, such as a tracer's annotation stack, depends on it) but take turns: one
//! step at a time, always the thread with the smallest local virtual time (ties: the earlier
//! thread in the file). A sleep moves only the sleeping thread's local time, so the others run
//! meanwhile; every other step starts no earlier than the thread's local time and leaves it
//! at the virtual time the step ended. So a replay's trace depends only on the scenario and
//! `seed` (docs/simulator-fidelity.md#threading).
//!
//! Rooms: [`world`] (what the threads share: kernels, streams, queues, and the streams made
//! before the threads start), [`turns`] (the virtual clock's turns), [`steps`] (one thread's
//! steps as driver calls); this file holds the hooks, the summary and the replay's outline.
mod steps;
mod turns;
mod world;

use super::error::ReplayError;
use super::model::Scenario;
use crate::hip::driver::{self, CopyKind};
use crate::SimError;
use std::collections::BTreeMap;
use std::sync::Barrier;
use turns::{Gate, Turns};
use world::{Creation, World, ANOTHER_CREATION_FAILED};

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
    let (world, restore) = World::before_threads(scenario, &mut summary)?;
    let results = run_threads(&world, scenario, hooks);
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

/// One OS thread per scenario thread, started together once every thread created the
/// streams it creates at its start; each thread's summary, or why it stopped.
fn run_threads(
    world: &World,
    scenario: &Scenario,
    hooks: &dyn ReplayHooks,
) -> Vec<Result<ReplaySummary, ReplayError>> {
    let creation = Creation::default();
    let creation = &creation;
    let barrier = Barrier::new(scenario.threads.len());
    let turns = crate::time::clock::is_virtual().then(|| Turns::new(scenario.threads.len()));
    let turns = turns.as_ref();
    std::thread::scope(|scope| {
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
                        let runner = steps::Runner {
                            world,
                            hooks,
                            gate: &gate,
                            thread: &thread.name,
                        };
                        let mut local = steps::Local::default();
                        let result = runner.run_steps(&thread.steps, &mut out, &mut local);
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
    })
}
