//! A thread's steps (SCENARIOS.md "Steps"): exactly one action per step, with the modifiers
//! that action takes; the steps that shape the thread (devices, SET windows, sleeps, queues,
//! ROCTx, sessions) and `steps` groups with `repeat` and `annotate`. The steps that submit
//! device work are `work.rs`'s, stream lifecycle steps `lifecycle.rs`'s, `random` steps
//! `random.rs`'s.
use super::raw::{RawStep, StepAt};
use super::{Flow, Validator, MAX_DURATION_US, MAX_TOTAL_STEPS};
use crate::scenario::error::ScenarioError;
use crate::scenario::model::{event_handle, Step, StreamRef};
use std::ops::Range;
use toml::Spanned;

const ACTIONS: &str = "launch, graph, memcpy, memset, sync_stream, sync_device, set_device, \
     sleep_us, bind, api, steps, enable, disable, set_enter, set_exit, create_stream, random, \
     roctx_push, roctx_pop, roctx_mark, roctx_start, roctx_stop";

/// Steps one step runs (graph nodes and generated steps each count; repeats multiply).
pub(super) fn weight(step: &Step) -> u128 {
    match step {
        Step::Graph { nodes, .. } => nodes.len() as u128,
        Step::Random(spec) => u128::from(spec.count),
        Step::Group { repeat, steps, .. } => {
            u128::from(*repeat) * steps.iter().map(weight).sum::<u128>()
        }
        _ => 1,
    }
}

/// The HIP functions an `api` step may name an `event` for: the record and the wait that
/// order streams.
const EVENT_FUNCTIONS: [&str; 3] = [
    "hipEventRecord",
    "hipEventRecordWithFlags",
    "hipStreamWaitEvent",
];

/// The HIP functions that create a stream: a `create_stream` step, not an `api` step.
const STREAM_CREATE_FUNCTIONS: [&str; 4] = [
    "hipStreamCreate",
    "hipStreamCreateWithFlags",
    "hipStreamCreateWithPriority",
    "hipExtStreamCreateWithCUMask",
];

impl Validator<'_> {
    pub(super) fn steps(
        &self,
        raw: Vec<StepAt>,
        device: &mut u32,
    ) -> Result<Vec<Step>, ScenarioError> {
        raw.into_iter().map(|s| self.step(s, device)).collect()
    }

    /// One step: exactly one action, with the modifiers that action takes.
    fn step(&self, raw: StepAt, device: &mut u32) -> Result<Step, ScenarioError> {
        let span = raw.span();
        let mut s = raw.into_inner();
        self.check_shape(&s, &span)?;
        let err = |message: String| self.at.error(span.clone(), message);
        if let Some(step) = self.work_step(&mut s, *device, &span, &err)? {
            return Ok(step);
        }
        if let Some(step) = self.thread_step(&mut s, device, &err)? {
            return Ok(step);
        }
        if let Some(step) = marker_step(&mut s).map_err(err)? {
            return Ok(step);
        }
        if let Some(random) = s.random.take() {
            let spec = self.random(random, *device).map_err(err)?;
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

    /// The steps that act on the thread's HIP state or name one HIP call: `sync_stream`,
    /// `set_device`, `sleep_us`, `bind`, `api`, `set_enter`, `create_stream`.
    fn thread_step(
        &self,
        s: &mut RawStep,
        device: &mut u32,
        err: &dyn Fn(String) -> ScenarioError,
    ) -> Result<Option<Step>, ScenarioError> {
        let on = *device;
        if let Some(name) = &s.sync_stream {
            return Ok(Some(Step::SyncStream(self.stream(name, on)?.0)));
        }
        if let Some(d) = &s.set_device {
            *device = self.device(Some(d))?;
            return Ok(Some(Step::SetDevice(*device)));
        }
        if let Some(us) = s.sleep_us {
            if us > MAX_DURATION_US {
                return Err(err(format!(
                    "sleep_us = {us} is too large: at most {MAX_DURATION_US} µs (one hour)"
                )));
            }
            let ns = us.saturating_mul(1000);
            return Ok(Some(Step::Sleep { ns }));
        }
        if let Some(name) = &s.bind {
            let queue = s
                .queue
                .take()
                .ok_or_else(|| err("bind needs `queue`".into()))?;
            let stream = self.stream(name, on)?.0;
            return Ok(Some(Step::Bind { stream, queue }));
        }
        if let Some(name) = &s.api {
            return self
                .api_step(name, &s.stream, s.event.as_ref(), on, err)
                .map(Some);
        }
        if let Some(name) = &s.set_enter {
            let (stream, _) = self.stream(name, on)?;
            self.flow.borrow_mut().windows += 1;
            return Ok(Some(Step::SetEnter(stream)));
        }
        if let Some(name) = &s.create_stream {
            return self.create_step(name, on).map(Some);
        }
        Ok(None)
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
            ("roctx_start", s.roctx_start.is_some()),
            ("roctx_stop", s.roctx_stop.is_some()),
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
        if let (Some(event), None) = (&s.event, &s.api) {
            return Err(self
                .at
                .error(event.span(), "`event` applies to api steps only"));
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

    /// `api = "hipX"`: any HIP function by name, except the ones with steps of their own.
    fn api_step(
        &self,
        name: &Spanned<String>,
        stream: &Option<Spanned<String>>,
        event: Option<&Spanned<String>>,
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
        let op = crate::hip::driver::hip_operation(name.get_ref()).ok_or_else(|| {
            self.at.error(
                name.span(),
                format!("unknown HIP runtime function `{}`", name.get_ref()),
            )
        })?;
        let stream = self.optional_stream(stream, device)?;
        if let Some(event) = event {
            if !EVENT_FUNCTIONS.contains(&name.get_ref().as_str()) {
                return Err(self.at.error(
                    event.span(),
                    format!(
                        "`event` applies to api steps of {}",
                        EVENT_FUNCTIONS.join(", ")
                    ),
                ));
            }
            return Ok(Step::EventCall {
                op,
                event: event_handle(event.get_ref()),
                // The functions have a stream argument: none given is the null stream.
                stream: stream.unwrap_or(StreamRef::Null),
            });
        }
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

/// The ROCTx steps: `roctx_push`, `roctx_mark`, `roctx_pop`, `roctx_start`, `roctx_stop`.
fn marker_step(s: &mut RawStep) -> Result<Option<Step>, String> {
    if let Some(message) = s.roctx_start.take() {
        return roctx_message(&message).map(|()| Some(Step::RoctxStart(message)));
    }
    if let Some(message) = s.roctx_stop.take() {
        return Ok(Some(Step::RoctxStop(message)));
    }
    if let Some(message) = s.roctx_push.take() {
        return roctx_message(&message).map(|()| Some(Step::RoctxPush(message)));
    }
    if let Some(message) = s.roctx_mark.take() {
        return roctx_message(&message).map(|()| Some(Step::RoctxMark(message)));
    }
    match s.roctx_pop {
        Some(false) => Err("roctx_pop must be true".into()),
        // A pop without a push is allowed: ROCTx returns -1 and the SDK still traces it.
        Some(true) => Ok(Some(Step::RoctxPop)),
        None => Ok(None),
    }
}

/// A `roctx_push` / `roctx_mark` / `roctx_start` message: it travels as a C string, so no NUL.
fn roctx_message(message: &str) -> Result<(), String> {
    if message.contains('\0') {
        return Err("a ROCTx message must not contain a NUL character".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{parsed, refused, with_steps};
    use crate::scenario::model::{Step, StreamRef};

    fn steps(tables: &str, steps: &str) -> Vec<Step> {
        parsed(&with_steps(tables, steps)).threads.remove(0).steps
    }

    #[test]
    fn a_step_has_exactly_one_action() {
        let message = refused(&with_steps("", "{ stream = \"null\" }"));
        assert!(
            message.starts_with("4:1: step has no action (expected one of: launch, graph,"),
            "{message}"
        );
        let message = refused(&with_steps("", "{ sync_device = true, sleep_us = 1 }"));
        assert_eq!(
            message,
            "4:1: step has several actions (sync_device, sleep_us); split it"
        );
    }

    #[test]
    fn modifiers_belong_to_their_actions() {
        let message = refused(&with_steps("", "{ sync_device = true, host = \"pinned\" }"));
        assert_eq!(message, "4:30: `host` applies to memcpy steps only");
        let message = refused(&with_steps("", "{ sync_device = true, repeat = 2 }"));
        assert_eq!(message, "4:1: `annotate` and `repeat` need a `steps` list");
        let message = refused(&with_steps("", "{ sync_device = true, colour = 2 }"));
        assert!(message.contains("unknown field `colour`"), "{message}");
    }

    #[test]
    fn thread_steps_are_accepted() {
        let got = steps(
            "[streams]\ns = {}",
            "{ set_enter = \"s\" }, { set_exit = true }, { bind = \"s\", queue = \"q\" },\n\
             { sleep_us = 2 }, { sync_stream = \"per_thread\" }, { api = \"hipMalloc\" },\n\
             { api = \"hipGetLastError\", stream = \"s\" }, { sync_device = true }",
        );
        assert!(matches!(
            &got[..],
            [
                Step::SetEnter(StreamRef::Named(_)),
                Step::SetExit,
                Step::Bind { queue, .. },
                Step::Sleep { ns: 2000 },
                Step::SyncStream(StreamRef::PerThread),
                Step::Api { stream: None, .. },
                Step::Api { stream: Some(StreamRef::Named(_)), .. },
                Step::SyncDevice,
            ] if queue == "q"
        ));
    }

    #[test]
    fn thread_step_errors() {
        let cases = [
            ("{ bind = \"null\" }", "4:1: bind needs `queue`"),
            (
                "{ set_exit = true }",
                "4:1: set_exit with no SET window open on this thread",
            ),
            (
                "{ sleep_us = 3600000001 }",
                "4:1: sleep_us = 3600000001 is too large",
            ),
            ("{ sync_device = false }", "4:1: sync_device must be true"),
            (
                "{ api = \"hipNothing\" }",
                "4:9: unknown HIP runtime function `hipNothing`",
            ),
            (
                "{ api = \"hipStreamCreate\" }",
                "4:9: `api = \"hipStreamCreate\"` would create no stream",
            ),
        ];
        for (steps, expected) in cases {
            let message = refused(&with_steps("", steps));
            assert!(message.starts_with(expected), "{steps}: {message}");
        }
    }

    #[test]
    fn roctx_steps() {
        let got = steps(
            "",
            "{ roctx_push = \"a\" }, { roctx_mark = \"b\" }, { roctx_pop = true }, { roctx_pop = true }",
        );
        assert!(matches!(
            &got[..],
            [Step::RoctxPush(a), Step::RoctxMark(b), Step::RoctxPop, Step::RoctxPop]
                if a == "a" && b == "b"
        ));
        let got = steps(
            "",
            "{ roctx_start = \"epoch\" }, { roctx_stop = \"epoch\" }",
        );
        assert!(matches!(
            &got[..],
            [Step::RoctxStart(a), Step::RoctxStop(b)] if a == "epoch" && b == "epoch"
        ));
        assert_eq!(
            refused(&with_steps("", "{ roctx_mark = \"a\\u0000\" }")),
            "4:1: a ROCTx message must not contain a NUL character"
        );
        assert_eq!(
            refused(&with_steps("", "{ roctx_pop = false }")),
            "4:1: roctx_pop must be true"
        );
    }

    #[test]
    fn groups_repeat_and_annotate() {
        let got = steps(
            "",
            "{ repeat = 3, annotate = \"it_{i}\", steps = [{ sync_device = true }, { sleep_us = 1 }] }",
        );
        assert!(matches!(
            &got[..],
            [Step::Group { repeat: 3, annotate: Some(a), steps }] if a == "it_{i}" && steps.len() == 2
        ));
        assert_eq!(super::weight(&got[0]), 6);
        let cases = [
            (
                "{ repeat = 0, steps = [{ sync_device = true }] }",
                "5:1: repeat must be >= 1",
            ),
            ("{ steps = [] }", "5:1: `steps` is empty"),
            (
                "{ set_enter = \"s\" }, { repeat = 2, steps = [{ set_exit = true }] }",
                "5:22: a repeated group cannot close more SET windows than it opens",
            ),
            (
                "{ repeat = 200000000, steps = [{ sync_device = true }] }",
                "5:1: repeat = 200000000: the group runs 200000000 steps, more than the limit",
            ),
        ];
        for (steps, expected) in cases {
            let message = refused(&with_steps("[streams]\ns = {}", steps));
            assert!(message.starts_with(expected), "{steps}: {message}");
        }
        let message = refused(&with_steps(
            "[streams]\ns = {}",
            "{ repeat = 2, steps = [{ api = \"hipStreamDestroy\", stream = \"s\" }] }",
        ));
        assert!(
            message.ends_with(
                "a repeated group must leave its streams as it found them \
                               (create what it destroys, or destroy what it creates)"
            ),
            "{message}"
        );
    }

    #[test]
    fn groups_nest_at_most_32_deep() {
        let nested = |depth: usize| {
            format!(
                "{}{{ sync_device = true }}{}",
                "{ steps = [".repeat(depth),
                "] }".repeat(depth)
            )
        };
        parsed(&with_steps("", &nested(32)));
        let message = refused(&with_steps("", &nested(33)));
        assert!(
            message.contains("`steps` groups nest at most 32 deep"),
            "{message}"
        );
    }
}
