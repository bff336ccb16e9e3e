//! One scenario thread's steps as driver calls, each counted in the thread's
//! [`ReplaySummary`]; every step that is not a group takes one turn of the [`Gate`].
use super::turns::Gate;
use super::world::World;
use super::{ReplayHooks, ReplaySummary};
use crate::hip::driver::{self, Copy, CopyCall, KernelLaunch};
use crate::scenario::error::ReplayError;
use crate::scenario::model::{GraphNode, RandomSpec, Step, StreamRef};
use crate::scenario::random::RandomDraws;
use crate::SimError;
use rocprofiler_sdk_sys as sys;
use rustc_hash::FxHashMap as HashMap;

/// What one scenario thread carries from step to step.
#[derive(Default)]
pub(super) struct Local {
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

/// One scenario thread running its steps.
pub(super) struct Runner<'a> {
    pub(super) world: &'a World,
    pub(super) hooks: &'a dyn ReplayHooks,
    pub(super) gate: &'a Gate<'a>,
    pub(super) thread: &'a str,
}

impl Runner<'_> {
    pub(super) fn run_steps(
        &self,
        steps: &[Step],
        out: &mut ReplaySummary,
        local: &mut Local,
    ) -> Result<(), ReplayError> {
        let (gate, thread) = (self.gate, self.thread);
        for step in steps {
            self.hooks.before_step().map_err(ReplayError)?;
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
            let result = self.run_step(step, out, local, &fail);
            if leaf {
                gate.after_step(0);
            }
            result?;
        }
        Ok(())
    }

    fn run_step(
        &self,
        step: &Step,
        out: &mut ReplaySummary,
        local: &mut Local,
        fail: &dyn Fn(SimError) -> ReplayError,
    ) -> Result<(), ReplayError> {
        match step {
            Step::Launch { .. }
            | Step::Graph { .. }
            | Step::Memcpy { .. }
            | Step::Memset { .. } => self.device_work(step, out, fail),
            Step::Random(spec) => self.random(spec, out, local, fail),
            Step::Group {
                annotate,
                repeat,
                steps,
            } => self.group(annotate.as_deref(), *repeat, steps, out, local),
            _ => self.thread_step(step, out, local, fail),
        }
    }

    /// Steps that submit device work: launches, graphs, copies and memsets.
    fn device_work(
        &self,
        step: &Step,
        out: &mut ReplaySummary,
        fail: &dyn Fn(SimError) -> ReplayError,
    ) -> Result<(), ReplayError> {
        let world = self.world;
        match step {
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
            Step::Graph {
                stream,
                nodes,
                exec,
            } => {
                let device = device_of(world, stream).map_err(fail)?;
                let launches: Vec<_> = nodes.iter().map(|n| launch_of(world, n, device)).collect();
                driver::graph_launch_with(world.stream(stream), &launches, *exec).map_err(fail)?;
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
            _ => {}
        }
        Ok(())
    }

    /// Steps that act on the thread or its streams without device work: devices, syncs,
    /// ROCTx, sessions, queues, SET windows, stream lifecycle, other HIP calls.
    fn thread_step(
        &self,
        step: &Step,
        out: &mut ReplaySummary,
        local: &mut Local,
        fail: &dyn Fn(SimError) -> ReplayError,
    ) -> Result<(), ReplayError> {
        let world = self.world;
        match step {
            Step::SetDevice(d) => {
                driver::set_device(*d).map_err(fail)?;
                out.api_calls += 1;
            }
            Step::SyncStream(stream) => {
                driver::stream_synchronize(world.stream(stream)).map_err(fail)?;
                out.api_calls += 1;
            }
            Step::SyncDevice => {
                driver::device_synchronize().map_err(fail)?;
                out.api_calls += 1;
            }
            // Not HIP calls: no API call is counted.
            Step::RoctxPush(message) => {
                driver::roctx_range_push(message).map_err(fail)?;
            }
            Step::RoctxPop => {
                driver::roctx_range_pop();
            }
            Step::RoctxMark(message) => driver::roctx_mark(message).map_err(fail)?,
            Step::RoctxStart(message) => {
                let id = driver::roctx_range_start(message).map_err(fail)?;
                world.process_ranges.lock().insert(message.clone(), id);
            }
            Step::RoctxStop(message) => {
                let id = world.process_ranges.lock().remove(message).ok_or_else(|| {
                    ReplayError(format!(
                        "thread `{}`: roctx_stop: no open process range `{message}` (its \
                         roctx_start must come first in the replay's order)",
                        self.thread
                    ))
                })?;
                driver::roctx_range_stop(id);
            }
            Step::Enable => self
                .hooks
                .enable_tracing()
                .map_err(|e| ReplayError(format!("thread `{}`: enable: {e}", self.thread)))?,
            Step::Disable => self.hooks.disable_tracing(),
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
            Step::EventCall { op, event, stream } => {
                let stream = world.stream(stream);
                match *op {
                    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent => {
                        driver::stream_wait_event(stream, *event, 0)
                    }
                    sys::ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecordWithFlags => {
                        driver::event_record_with_flags(*event, stream, 0)
                    }
                    _ => driver::event_record(*event, stream),
                }
                .map_err(fail)?;
                out.api_calls += 1;
            }
            Step::Api { op, stream } => {
                driver::api_call(*op, stream.as_ref().map(|s| world.stream(s))).map_err(fail)?;
                out.api_calls += 1;
            }
            // Sleeps are the gate's; the other steps are `run_step`'s.
            _ => {}
        }
        Ok(())
    }

    /// A `random` step: one generated step at a time, so a count of any size holds one step.
    /// A run continues the sequence where the step's previous run (in a repeat) ended.
    fn random(
        &self,
        spec: &RandomSpec,
        out: &mut ReplaySummary,
        local: &mut Local,
        fail: &dyn Fn(SimError) -> ReplayError,
    ) -> Result<(), ReplayError> {
        let key: *const RandomSpec = spec;
        for _ in 0..spec.count {
            let generated = local
                .draws
                .entry(key)
                .or_insert_with(|| spec.draws())
                .next_step(spec);
            self.gate.before_step();
            let result = self.run_step(&generated, out, local, fail);
            self.gate.after_step(0);
            result?;
        }
        Ok(())
    }

    /// A `steps` group: `repeat` runs, each inside its annotation if it has one.
    fn group(
        &self,
        annotate: Option<&str>,
        repeat: u32,
        steps: &[Step],
        out: &mut ReplaySummary,
        local: &mut Local,
    ) -> Result<(), ReplayError> {
        let gate = self.gate;
        for i in 0..repeat {
            // Annotations take turns too: a tracer numbers them as they arrive.
            if let Some(name) = annotate {
                gate.before_step();
                expand_annotation(name, i, &mut local.annotation);
                self.hooks.push_annotation(&local.annotation);
                gate.after_step(0);
                out.annotations += 1;
            }
            let result = self.run_steps(steps, out, local);
            if annotate.is_some() {
                gate.before_step();
                self.hooks.pop_annotation();
                gate.after_step(0);
            }
            result?;
        }
        Ok(())
    }
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
