//! `[[thread]]`: the scenario's OS threads, each with its steps, and the profiling sessions
//! their `enable` / `disable` steps open and close (SCENARIOS.md "Sessions"). Validating a
//! thread walks its steps in order (`steps.rs`), carrying the thread's [`Flow`](super::Flow).
use super::raw::RawThread;
use super::steps::weight;
use super::{Flow, Validator, MAX_TOTAL_STEPS};
use crate::scenario::error::ScenarioError;
use crate::scenario::model::{Scenario, StreamCreator, ThreadSpec};
use std::collections::BTreeMap;
use toml::Spanned;

/// Scenario threads: below the virtual clock's reserved thread ids (`clock::SIGNAL_THREAD_TID`).
const MAX_THREADS: usize = 256;

/// Where the `enable` / `disable` steps seen so far leave the scenario: they must all be in
/// one thread, outside groups, alternating and starting with `enable`.
#[derive(Default)]
pub(super) struct SessionSteps {
    /// The thread being validated (index, name).
    pub(super) thread: (usize, String),
    /// Nesting depth of `steps` groups at the step being validated.
    pub(super) group_depth: u32,
    /// The thread that has the session steps.
    pub(super) owner: Option<(usize, String)>,
    pub(super) open: bool,
    pub(super) count: u32,
}

/// Thread names as steps and `thread` keys give them: `name`, or `thread<index>`.
pub(super) fn thread_names(threads: &[Spanned<RawThread>]) -> Vec<String> {
    threads
        .iter()
        .enumerate()
        .map(|(i, t)| {
            t.get_ref()
                .name
                .clone()
                .unwrap_or_else(|| format!("thread{i}"))
        })
        .collect()
}

impl Validator<'_> {
    pub(super) fn finish(mut self) -> Result<Scenario, ScenarioError> {
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
    pub(super) fn session_step(&self, enable: bool) -> Result<(), String> {
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
}

#[cfg(test)]
mod tests {
    use super::super::{parsed, refused, with_steps};
    use crate::scenario::model::Step;

    #[test]
    fn threads_keep_their_names_and_steps() {
        let s = parsed(
            "[[thread]]\nsteps = [{ sync_device = true }]\n\
             [[thread]]\nname = \"io\"\nsteps = [{ sleep_us = 5 }, { set_device = 0 }]\n",
        );
        let names: Vec<_> = s.threads.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["thread0", "io"]);
        assert!(matches!(
            s.threads[1].steps[..],
            [Step::Sleep { ns: 5000 }, Step::SetDevice(0)]
        ));
    }

    #[test]
    fn a_scenario_needs_threads_with_steps() {
        assert_eq!(
            refused("[streams]\n"),
            "0:0: the scenario has no steps: add a [[thread]] with `steps`"
        );
        assert_eq!(
            refused("[[thread]]\nname = \"a\"\nsteps = []\n"),
            "1:1: thread `a` has no steps"
        );
        let many = "[[thread]]\nsteps = [{ sync_device = true }]\n".repeat(257);
        assert_eq!(refused(&many), "513:1: a scenario has at most 256 threads");
    }

    #[test]
    fn the_total_step_count_is_limited() {
        let message = refused(
            "[[thread]]\nname = \"a\"\nsteps = [{ repeat = 60000000, steps = [{ sync_device = true }] }]\n\
             [[thread]]\nname = \"b\"\nsteps = [{ repeat = 60000000, steps = [{ sync_device = true }] }]\n",
        );
        assert!(
            message.starts_with("4:1: the scenario runs 120000000 steps up to thread `b`"),
            "{message}"
        );
    }

    #[test]
    fn sessions_alternate_in_one_thread_outside_groups() {
        let s = parsed(&with_steps(
            "",
            "{ enable = true }, { disable = true }, { enable = true }",
        ));
        assert_eq!(s.sessions, 2);
        let cases = [
            ("{ disable = true }", "`disable` without an enabled session"),
            (
                "{ enable = true }, { enable = true }",
                "`enable` while a session is enabled (disable it first)",
            ),
            (
                "{ steps = [{ enable = true }] }",
                "`enable` cannot be inside a `steps` group",
            ),
            ("{ enable = false }", "enable must be true"),
        ];
        for (steps, expected) in cases {
            let message = refused(&with_steps("", steps));
            assert!(message.ends_with(expected), "{steps}: {message}");
        }
        let message = refused(
            "[[thread]]\nsteps = [{ enable = true }]\n[[thread]]\nname = \"b\"\nsteps = [{ disable = true }]\n",
        );
        assert!(
            message.ends_with("`enable` and `disable` steps must all be in one thread (thread `thread0` has them)"),
            "{message}"
        );
    }
}
