//! Streams with `create_stream` and `hipStreamDestroy` steps (SCENARIOS.md "Streams: creating
//! threads, create and destroy"): one thread owns a stream's lifecycle steps, and a step may
//! use such a stream only on that thread while it exists. [`Flow::gone`](super::Flow) tracks
//! whether it does, step by step.
use super::raw::{RawGroup, RawThread, StepAt};
use super::streams::RESERVED_STREAMS;
use super::Validator;
use crate::scenario::error::ScenarioError;
use crate::scenario::model::Step;
use std::collections::HashSet;
use std::ops::Range;
use toml::Spanned;

/// The `create_stream` steps (`true`) and `hipStreamDestroy` steps (`false`) in `steps`, in
/// order, with the stream's name and the span of its name.
fn lifecycle_steps(steps: &[StepAt], out: &mut Vec<(String, bool, Range<usize>)>) {
    for step in steps {
        let raw = step.get_ref();
        if let Some(name) = &raw.create_stream {
            out.push((name.get_ref().clone(), true, name.span()));
        }
        if let (Some(api), Some(stream)) = (&raw.api, &raw.stream) {
            if api.get_ref() == "hipStreamDestroy" {
                out.push((stream.get_ref().clone(), false, stream.span()));
            }
        }
        if let Some(RawGroup(inner)) = &raw.steps {
            lifecycle_steps(inner, out);
        }
    }
}

impl Validator<'_> {
    /// Which thread owns each stream's lifecycle steps (into `owners`); returns the streams
    /// that only exist from a `create_stream` step on (their first lifecycle step creates them).
    pub(super) fn lifecycle_owners(
        &mut self,
        threads: &[Spanned<RawThread>],
        thread_names: &[String],
    ) -> Result<HashSet<String>, ScenarioError> {
        let mut created_by_step = HashSet::new();
        for (index, thread) in threads.iter().enumerate() {
            let mut steps = Vec::new();
            lifecycle_steps(&thread.get_ref().steps, &mut steps);
            for (name, create, span) in steps {
                match self.owners.get(&name) {
                    None => {
                        self.owners.insert(name.clone(), index);
                        if create {
                            created_by_step.insert(name);
                        }
                    }
                    Some(&owner) if owner != index => {
                        return Err(self.at.error(
                            span,
                            format!(
                                "stream `{name}` is created or destroyed by steps of threads `{}` \
                                 and `{}`: one thread must own a stream's `create_stream` and \
                                 `hipStreamDestroy` steps",
                                thread_names[owner], thread_names[index]
                            ),
                        ))
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(created_by_step)
    }

    /// For a stream with lifecycle steps: errors unless this thread owns them and the stream
    /// exists at this step.
    pub(super) fn check_exists(&self, name: &str, span: Range<usize>) -> Result<(), ScenarioError> {
        let Some(&owner) = self.owners.get(name) else {
            return Ok(());
        };
        let thread = self.sessions.borrow().thread.0;
        if owner != thread {
            return Err(self.at.error(
                span,
                format!(
                    "stream `{name}` is created or destroyed by steps of another thread, so \
                     only that thread may use it (scenario threads do not wait for each \
                     other: a use here would race with its create or destroy)"
                ),
            ));
        }
        match self.flow.borrow().gone.get(name) {
            Some(Some(0)) => Err(self.at.error(
                span,
                format!("stream `{name}` does not exist yet: its `create_stream` step comes later"),
            )),
            Some(Some(line)) => Err(self.at.error(
                span,
                format!("stream `{name}` was destroyed (hipStreamDestroy at line {line})"),
            )),
            _ => Ok(()),
        }
    }
    /// `create_stream = "name"`: the stream must be declared, not exist now, and be on the
    /// thread's current device (hipStreamCreate creates on it).
    pub(super) fn create_step(
        &self,
        name: &Spanned<String>,
        device: u32,
    ) -> Result<Step, ScenarioError> {
        let Some(&on) = self.streams.get(name.get_ref()) else {
            let mut known: Vec<_> = self.streams.keys().map(String::as_str).collect();
            known.sort();
            return Err(self.at.error(
                name.span(),
                format!(
                    "create_stream: unknown stream `{}` (declare it in [streams]; known: {})",
                    name.get_ref(),
                    known.join(", ")
                ),
            ));
        };
        let mut flow = self.flow.borrow_mut();
        if let Some(None) = flow.gone.get(name.get_ref()) {
            return Err(self.at.error(
                name.span(),
                format!(
                    "create_stream: stream `{}` exists already (destroy it first)",
                    name.get_ref()
                ),
            ));
        }
        if on != device {
            return Err(self.at.error(
                name.span(),
                format!(
                    "create_stream: stream `{}` is declared on device {on} but this thread's \
                     current device here is {device} (hipStreamCreate creates on the current \
                     device: add `set_device = {on}` before)",
                    name.get_ref()
                ),
            ));
        }
        flow.gone.insert(name.get_ref().clone(), None);
        Ok(Step::CreateStream(name.get_ref().clone()))
    }

    /// `api = "hipStreamDestroy", stream = "name"`.
    pub(super) fn destroy_step(
        &self,
        stream: Option<&Spanned<String>>,
        err: &dyn Fn(String) -> ScenarioError,
        device: u32,
    ) -> Result<Step, ScenarioError> {
        let Some(name) = stream else {
            return Err(err("hipStreamDestroy needs `stream`".into()));
        };
        if RESERVED_STREAMS.contains(&name.get_ref().as_str()) {
            return Err(self.at.error(
                name.span(),
                format!(
                    "stream `{}` cannot be destroyed (only declared streams can)",
                    name.get_ref()
                ),
            ));
        }
        let (stream, _) = self.stream(name, device)?;
        let line = self.at.error(name.span(), "").line;
        self.flow
            .borrow_mut()
            .gone
            .insert(name.get_ref().clone(), Some(line));
        Ok(Step::DestroyStream(stream))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parsed, refused, with_steps};
    use crate::scenario::model::{Step, StreamCreator, StreamRef};

    const S: &str = "[streams]\ns = {}";

    #[test]
    fn a_stream_created_by_a_step_exists_from_that_step_until_destroyed() {
        let s = parsed(&with_steps(
            S,
            "{ create_stream = \"s\" }, { sync_stream = \"s\" },\n\
             { api = \"hipStreamDestroy\", stream = \"s\" }",
        ));
        assert_eq!(s.streams[0].creator, StreamCreator::Step);
        assert!(matches!(
            &s.threads[0].steps[..],
            [Step::CreateStream(_), Step::SyncStream(_), Step::DestroyStream(StreamRef::Named(n))]
                if n == "s"
        ));
    }

    #[test]
    fn uses_before_create_and_after_destroy_are_refused() {
        let message = refused(&with_steps(
            S,
            "{ sync_stream = \"s\" }, { create_stream = \"s\" }",
        ));
        assert_eq!(
            message,
            "5:17: stream `s` does not exist yet: its `create_stream` step comes later"
        );
        let message = refused(&with_steps(
            S,
            "{ api = \"hipStreamDestroy\", stream = \"s\" },\n{ sync_stream = \"s\" }",
        ));
        assert_eq!(
            message,
            "6:17: stream `s` was destroyed (hipStreamDestroy at line 5)"
        );
    }

    #[test]
    fn create_needs_a_declared_absent_stream_on_the_current_device() {
        let message = refused(&with_steps(S, "{ create_stream = \"t\" }"));
        assert_eq!(
            message,
            "5:19: create_stream: unknown stream `t` (declare it in [streams]; known: s)"
        );
        let message = refused(&with_steps(
            S,
            "{ sync_stream = \"s\" }, { create_stream = \"s\" }",
        ));
        assert!(message.contains("does not exist yet"), "{message}");
        let message = refused(&with_steps(
            S,
            "{ create_stream = \"s\" }, { create_stream = \"s\" }",
        ));
        assert_eq!(
            message,
            "5:44: create_stream: stream `s` exists already (destroy it first)"
        );
        let message = refused(&with_steps(
            "[machine]\ngpus = 2\n[streams]\ns = { device = 1 }",
            "{ create_stream = \"s\" }",
        ));
        assert!(
            message.starts_with(
                "7:19: create_stream: stream `s` is declared on device 1 but this thread's \
                 current device here is 0"
            ),
            "{message}"
        );
    }

    #[test]
    fn destroy_needs_a_declared_stream() {
        let message = refused(&with_steps(S, "{ api = \"hipStreamDestroy\" }"));
        assert_eq!(message, "5:1: hipStreamDestroy needs `stream`");
        let message = refused(&with_steps(
            S,
            "{ api = \"hipStreamDestroy\", stream = \"null\" }",
        ));
        assert_eq!(
            message,
            "5:38: stream `null` cannot be destroyed (only declared streams can)"
        );
    }

    #[test]
    fn one_thread_owns_a_streams_lifecycle_steps() {
        let two = "[streams]\ns = {}\n[[thread]]\nsteps = [{ create_stream = \"s\" }]\n\
                   [[thread]]\nsteps = [{ api = \"hipStreamDestroy\", stream = \"s\" }]\n";
        let message = refused(two);
        assert!(
            message.starts_with(
                "6:47: stream `s` is created or destroyed by steps of threads `thread0` and `thread1`"
            ),
            "{message}"
        );
        let other = "[streams]\ns = {}\n[[thread]]\nsteps = [{ create_stream = \"s\" }]\n\
                     [[thread]]\nsteps = [{ sync_stream = \"s\" }]\n";
        let message = refused(other);
        assert!(
            message
                .starts_with("6:26: stream `s` is created or destroyed by steps of another thread"),
            "{message}"
        );
        let keyed = "[streams]\ns = { thread = \"thread1\" }\n[[thread]]\nsteps = [{ create_stream = \"s\" }]\n\
                     [[thread]]\nsteps = [{ sync_device = true }]\n";
        let message = refused(keyed);
        assert!(
            message.starts_with(
                "2:16: stream `s` is created by thread `thread1` but its `create_stream` / \
                 `hipStreamDestroy` steps are in thread `thread0`"
            ),
            "{message}"
        );
    }
}
