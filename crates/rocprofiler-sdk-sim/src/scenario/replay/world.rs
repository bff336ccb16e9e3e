//! What a replay's threads share ([`World`]): the kernels loaded, the streams that exist now,
//! the named HSA queues; the code objects and streams made on the calling thread before the
//! threads start, and the streams the threads create at their start, one at a time in file
//! order ([`Creation`]).
use super::{sim, ReplaySummary, ReplayedStream};
use crate::hip::driver::{self, HipStream, KernelId};
use crate::scenario::error::ReplayError;
use crate::scenario::model::{Scenario, Step, StreamCreator, StreamRef, StreamSpec};
use crate::SimError;
use parking_lot::{Condvar, Mutex};
use rustc_hash::FxHashMap as HashMap;

pub(super) struct World {
    /// Device -> kernel alias -> id (looked up by `&str`, without a key to build per launch).
    pub(super) kernels: HashMap<u32, HashMap<String, KernelId>>,
    /// name -> (hipStream_t, device) of the streams that exist now (`create_stream` and
    /// `hipStreamDestroy` steps change it while threads run).
    pub(super) streams: Mutex<HashMap<String, (HipStream, u32)>>,
    pub(super) queues: HashMap<String, u64>,
    /// Declared stream -> the named HSA queue it starts on.
    stream_queues: HashMap<String, u64>,
    /// Declared stream -> its `roctx_name`, for streams the scenario threads create.
    stream_roctx_names: HashMap<String, String>,
    /// The streams the scenario threads created, for `ReplaySummary::streams`.
    pub(super) created_by_threads: Mutex<Vec<ReplayedStream>>,
    /// The open process ranges (`roctx_start` steps) by message -> ROCTx range id, for the
    /// `roctx_stop` of any thread.
    pub(super) process_ranges: Mutex<HashMap<String, u64>>,
}

/// Fake HSA queue addresses for named queues.
const NAMED_QUEUE_BASE: u64 = 0x7d00_0000_0000;

impl World {
    pub(super) fn stream(&self, r: &StreamRef) -> HipStream {
        match r {
            StreamRef::Null => driver::NULL_STREAM,
            StreamRef::Legacy => driver::STREAM_LEGACY,
            StreamRef::PerThread => driver::STREAM_PER_THREAD,
            StreamRef::Named(name) => self.streams.lock()[name].0,
        }
    }

    /// `hipStreamCreate` of declared stream `name` on the calling thread and its current
    /// device, with its queue binding; the stream then exists for later steps.
    pub(super) fn create_stream(&self, name: &str, device: u32) -> Result<(), SimError> {
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

impl World {
    /// Loads the code objects, creates the streams the calling thread creates (on their
    /// devices, then back on the current one, which it returns), and names the queues that
    /// streams and `bind` steps use, in that order (their handles follow it).
    pub(super) fn before_threads(
        scenario: &Scenario,
        summary: &mut ReplaySummary,
    ) -> Result<(World, u32), ReplayError> {
        let mut world = World {
            kernels: HashMap::default(),
            streams: Mutex::new(HashMap::default()),
            queues: HashMap::default(),
            stream_queues: HashMap::default(),
            stream_roctx_names: HashMap::default(),
            created_by_threads: Mutex::new(Vec::new()),
            process_ranges: Mutex::new(HashMap::default()),
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
        world.create_main_streams(scenario, summary)?;
        world.note_thread_streams(scenario);
        driver::set_device(restore).map_err(|e| sim("restoring the device", e))?;
        summary.api_calls += 1;
        // Named queues used by `bind` steps get their handles up front, so threads share them.
        let mut names = Vec::new();
        for thread in &scenario.threads {
            collect_queues(&thread.steps, &mut names);
        }
        for name in names {
            world.queue(&name);
        }
        Ok((world, restore))
    }

    /// The `[streams]` the calling thread creates, in file order.
    fn create_main_streams(
        &mut self,
        scenario: &Scenario,
        summary: &mut ReplaySummary,
    ) -> Result<(), ReplayError> {
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
                let queue = self.queue(queue);
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
            self.streams
                .get_mut()
                .insert(spec.name.clone(), (stream, spec.device));
        }
        Ok(())
    }

    /// Streams created by scenario threads get their named queues' handles now, in file
    /// order, and keep their `roctx_name` for their creation.
    fn note_thread_streams(&mut self, scenario: &Scenario) {
        for spec in &scenario.streams {
            if let (StreamCreator::ThreadStart(_) | StreamCreator::Step, Some(queue)) =
                (spec.creator, &spec.queue)
            {
                let handle = self.queue(queue);
                self.stream_queues.insert(spec.name.clone(), handle);
            }
            if let (StreamCreator::ThreadStart(_) | StreamCreator::Step, Some(roctx_name)) =
                (spec.creator, &spec.roctx_name)
            {
                self.stream_roctx_names
                    .insert(spec.name.clone(), roctx_name.clone());
            }
        }
    }
}

/// The queues `bind` steps name, groups included.
fn collect_queues(steps: &[Step], out: &mut Vec<String>) {
    for step in steps {
        match step {
            Step::Bind { queue, .. } => out.push(queue.clone()),
            Step::Group { steps, .. } => collect_queues(steps, out),
            _ => {}
        }
    }
}

/// `roctx_name`: ROCTx's `roctxNameHipStream` right after the stream's creation.
fn name_stream(spec: &StreamSpec, stream: HipStream, context: &str) -> Result<(), ReplayError> {
    if let Some(name) = &spec.roctx_name {
        driver::roctx_name_hip_stream(stream, name).map_err(|e| sim(context, e))?;
    }
    Ok(())
}

pub(super) const ANOTHER_CREATION_FAILED: &str = "another thread failed to create its stream";

/// Streams that scenario threads create at their start: one at a time, in `[streams]` order,
/// before any thread runs its first step.
#[derive(Default)]
pub(super) struct Creation {
    /// How many of the streams created at thread start exist, and whether a creation failed.
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl Creation {
    /// Creates thread `index`'s streams in their turn, then waits until every thread's are
    /// created.
    pub(super) fn create_own(
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
