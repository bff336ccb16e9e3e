//! `[profiler]`: options of the tool that traces the replay (SCENARIOS.md "Top level"); the
//! simulator only carries them to the runner.
use super::raw::RawProfiler;
use super::Validator;
use crate::scenario::error::ScenarioError;
use crate::scenario::model::ProfilerSpec;

/// `[profiler] disable_wait_ms`: one hour.
const MAX_DISABLE_WAIT_MS: u64 = 3_600_000;

impl Validator<'_> {
    /// The `[profiler]` table.
    pub(super) fn profiler(
        &self,
        raw: Option<&RawProfiler>,
    ) -> Result<ProfilerSpec, ScenarioError> {
        let Some(p) = raw else {
            return Ok(ProfilerSpec::default());
        };
        if let Some(wait) = &p.disable_wait_ms {
            if *wait.get_ref() > MAX_DISABLE_WAIT_MS {
                return Err(self.at.error(
                    wait.span(),
                    format!(
                        "disable_wait_ms = {} is too large: at most {MAX_DISABLE_WAIT_MS} (one hour)",
                        wait.get_ref()
                    ),
                ));
            }
        }
        Ok(ProfilerSpec {
            max_callback_api_events: p.max_callback_api_events,
            max_activity_api_events: p.max_activity_api_events,
            max_annotation_strings: p.max_annotation_strings,
            disable_wait_ms: p.disable_wait_ms.as_ref().map(|w| *w.get_ref()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parsed, refused, with_steps};
    use crate::scenario::model::ProfilerSpec;

    #[test]
    fn profiler_options_are_carried_as_given() {
        let s = parsed(&with_steps(
            "[profiler]\nmax_callback_api_events = 1\nmax_activity_api_events = 2\n\
             max_annotation_strings = 3\ndisable_wait_ms = 4",
            "{ sync_device = true }",
        ));
        assert_eq!(
            s.profiler,
            ProfilerSpec {
                max_callback_api_events: Some(1),
                max_activity_api_events: Some(2),
                max_annotation_strings: Some(3),
                disable_wait_ms: Some(4),
            }
        );
        let s = parsed(&with_steps("", "{ sync_device = true }"));
        assert_eq!(s.profiler, ProfilerSpec::default());
    }

    #[test]
    fn disable_wait_is_at_most_an_hour() {
        let message = refused(&with_steps(
            "[profiler]\ndisable_wait_ms = 3600001",
            "{ sync_device = true }",
        ));
        assert_eq!(
            message,
            "2:19: disable_wait_ms = 3600001 is too large: at most 3600000 (one hour)"
        );
        let message = refused(&with_steps(
            "[profiler]\nmax_events = 1",
            "{ sync_device = true }",
        ));
        assert!(message.contains("unknown field `max_events`"), "{message}");
    }
}
