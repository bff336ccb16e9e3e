//! `[streams]`: declared streams, their device, queue, ROCTx name and creating thread, and
//! the stream names steps use (declared ones and the reserved `null`, `legacy`,
//! `per_thread`; docs/simulator-fidelity.md#stream-ids). Streams are created in file order,
//! which is the order of their SDK ids.
use super::raw::RawStream;
use super::{Locator, Validator};
use crate::scenario::error::ScenarioError;
use crate::scenario::model::{StreamCreator, StreamRef, StreamSpec};
use std::collections::{BTreeMap, HashSet};
use toml::Spanned;

pub(super) const RESERVED_STREAMS: [&str; 3] = ["null", "legacy", "per_thread"];

impl Validator<'_> {
    pub(super) fn declare_streams(
        &mut self,
        raw: &BTreeMap<Spanned<String>, Spanned<RawStream>>,
        thread_names: &[String],
        created_by_step: &HashSet<String>,
    ) -> Result<(), ScenarioError> {
        for (name, stream) in raw {
            if RESERVED_STREAMS.contains(&name.get_ref().as_str()) {
                return Err(self.at.error(
                    name.span(),
                    format!(
                        "stream name `{}` is reserved ({})",
                        name.get_ref(),
                        RESERVED_STREAMS.join(", ")
                    ),
                ));
            }
            let device = self.device(stream.get_ref().device.as_ref())?;
            let roctx_name = roctx_stream_name(self.at, stream.get_ref().roctx_name.as_ref())?;
            self.streams.insert(name.get_ref().clone(), device);
            let creator = self.stream_creator(
                name.get_ref(),
                stream.get_ref().thread.as_ref(),
                thread_names,
                created_by_step,
            )?;
            self.stream_specs.push(StreamSpec {
                name: name.get_ref().clone(),
                device,
                queue: stream.get_ref().queue.clone(),
                creator,
                roctx_name,
            });
        }
        // Streams are created in order of appearance in the file (their SDK ids follow it).
        self.stream_specs.sort_by_key(|s| {
            raw.keys()
                .find(|k| *k.get_ref() == s.name)
                .map_or(0, |k| k.span().start)
        });
        Ok(())
    }

    /// Who creates stream `name` (its `thread` key, its `create_stream` steps).
    fn stream_creator(
        &self,
        name: &str,
        thread: Option<&Spanned<String>>,
        thread_names: &[String],
        created_by_step: &HashSet<String>,
    ) -> Result<StreamCreator, ScenarioError> {
        let owner = self.owners.get(name).copied();
        let by_step = created_by_step.contains(name);
        let Some(thread) = thread else {
            return Ok(if by_step {
                StreamCreator::Step
            } else {
                StreamCreator::Main
            });
        };
        let Some(index) = thread_names.iter().position(|n| n == thread.get_ref()) else {
            return Err(self.at.error(
                thread.span(),
                format!(
                    "unknown thread `{}` (known: {})",
                    thread.get_ref(),
                    thread_names.join(", ")
                ),
            ));
        };
        if let Some(owner) = owner.filter(|&o| o != index) {
            return Err(self.at.error(
                thread.span(),
                format!(
                    "stream `{name}` is created by thread `{}` but its `create_stream` / \
                     `hipStreamDestroy` steps are in thread `{}`",
                    thread.get_ref(),
                    thread_names[owner]
                ),
            ));
        }
        Ok(if by_step {
            StreamCreator::Step
        } else {
            StreamCreator::ThreadStart(index)
        })
    }

    /// Resolves a stream name; returns the reference and the device its work runs on.
    pub(super) fn stream(
        &self,
        name: &Spanned<String>,
        device: u32,
    ) -> Result<(StreamRef, u32), ScenarioError> {
        match name.get_ref().as_str() {
            "null" => Ok((StreamRef::Null, device)),
            special @ ("legacy" | "per_thread") => {
                let mut first = self.special_stream.borrow_mut();
                if first.is_none() {
                    let at = self.at.error(name.span(), "");
                    *first = Some(format!("{}:{}:{}", at.file.display(), at.line, at.column));
                }
                let stream = match special {
                    "legacy" => StreamRef::Legacy,
                    _ => StreamRef::PerThread,
                };
                Ok((stream, device))
            }
            other => match self.streams.get(other) {
                Some(d) => {
                    self.check_exists(other, name.span())?;
                    Ok((StreamRef::Named(other.to_owned()), *d))
                }
                None => {
                    let mut known: Vec<_> = self.streams.keys().map(String::as_str).collect();
                    known.sort();
                    known.extend(RESERVED_STREAMS);
                    Err(self.at.error(
                        name.span(),
                        format!("unknown stream `{other}` (known: {})", known.join(", ")),
                    ))
                }
            },
        }
    }

    /// `stream = "..."` or, without it, the null stream; with the device the work runs on.
    pub(super) fn stream_or_null(
        &self,
        name: &Option<Spanned<String>>,
        device: u32,
    ) -> Result<(StreamRef, u32), ScenarioError> {
        match name {
            Some(n) => self.stream(n, device),
            None => Ok((StreamRef::Null, device)),
        }
    }

    /// `stream = "..."` where its absence means the call takes no stream.
    pub(super) fn optional_stream(
        &self,
        name: &Option<Spanned<String>>,
        device: u32,
    ) -> Result<Option<StreamRef>, ScenarioError> {
        name.as_ref()
            .map(|n| self.stream(n, device).map(|(stream, _)| stream))
            .transpose()
    }
}

/// Longest `roctx_name` a scenario may give a stream, in bytes.
const MAX_ROCTX_NAME_BYTES: usize = 256;

/// A stream's `roctx_name`: non-empty, no NUL (it travels as a C string), at most
/// [`MAX_ROCTX_NAME_BYTES`].
fn roctx_stream_name(
    at: &Locator<'_>,
    name: Option<&Spanned<String>>,
) -> Result<Option<String>, ScenarioError> {
    let Some(name) = name else { return Ok(None) };
    let text = name.get_ref();
    let problem = if text.is_empty() {
        Some("`roctx_name` must not be empty".to_owned())
    } else if text.contains('\0') {
        Some("`roctx_name` must not contain a NUL character".to_owned())
    } else if text.len() > MAX_ROCTX_NAME_BYTES {
        Some(format!(
            "`roctx_name` is {} bytes long; at most {MAX_ROCTX_NAME_BYTES} are allowed",
            text.len()
        ))
    } else {
        None
    };
    match problem {
        Some(message) => Err(at.error(name.span(), message)),
        None => Ok(Some(text.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parsed, refused, with_steps};
    use crate::scenario::model::{Step, StreamCreator, StreamRef};

    #[test]
    fn streams_keep_file_order_device_queue_and_roctx_name() {
        let s = parsed(&with_steps(
            "[machine]\ngpus = 2\n[streams]\nzeta = { device = 1, queue = \"q\" }\n\
             alpha = { roctx_name = \"h2d\" }",
            "{ sync_stream = \"alpha\" }, { sync_stream = \"legacy\" }",
        ));
        let names: Vec<_> = s.streams.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["zeta", "alpha"], "file order, not name order");
        assert_eq!(
            (s.streams[0].device, s.streams[0].queue.as_deref()),
            (1, Some("q"))
        );
        assert_eq!(s.streams[1].roctx_name.as_deref(), Some("h2d"));
        assert_eq!(s.streams[1].creator, StreamCreator::Main);
        assert!(matches!(
            &s.threads[0].steps[..],
            [Step::SyncStream(StreamRef::Named(n)), Step::SyncStream(StreamRef::Legacy)] if n == "alpha"
        ));
        assert!(s
            .special_stream
            .is_some_and(|at| at.ends_with("t.toml:8:44")));
    }

    #[test]
    fn a_thread_key_makes_that_thread_create_the_stream() {
        let s = parsed(
            "[streams]\ns = { thread = \"b\" }\n[[thread]]\nname = \"a\"\nsteps = [{ sync_device = true }]\n\
             [[thread]]\nname = \"b\"\nsteps = [{ sync_stream = \"s\" }]\n",
        );
        assert_eq!(s.streams[0].creator, StreamCreator::ThreadStart(1));
        let message = refused(&with_steps(
            "[streams]\ns = { thread = \"x\" }",
            "{ sync_device = true }",
        ));
        assert_eq!(message, "2:16: unknown thread `x` (known: thread0)");
    }

    #[test]
    fn reserved_and_unknown_names_are_refused() {
        let message = refused(&with_steps(
            "[streams]\nlegacy = {}",
            "{ sync_device = true }",
        ));
        assert_eq!(
            message,
            "2:1: stream name `legacy` is reserved (null, legacy, per_thread)"
        );
        let message = refused(&with_steps(
            "[streams]\nb = {}\na = {}",
            "{ sync_stream = \"c\" }",
        ));
        assert_eq!(
            message,
            "6:17: unknown stream `c` (known: a, b, null, legacy, per_thread)"
        );
    }

    #[test]
    fn roctx_names_are_short_c_strings() {
        let cases = [
            ("\"\"", "`roctx_name` must not be empty".to_owned()),
            (
                "\"a\\u0000\"",
                "`roctx_name` must not contain a NUL character".to_owned(),
            ),
            (
                &format!("\"{}\"", "x".repeat(257)),
                "`roctx_name` is 257 bytes long; at most 256 are allowed".to_owned(),
            ),
        ];
        for (name, expected) in cases {
            let message = refused(&with_steps(
                &format!("[streams]\ns = {{ roctx_name = {name} }}"),
                "{ sync_device = true }",
            ));
            assert_eq!(message, format!("2:20: {expected}"));
        }
        let long = "x".repeat(256);
        let s = parsed(&with_steps(
            &format!("[streams]\ns = {{ roctx_name = \"{long}\" }}"),
            "{ sync_device = true }",
        ));
        assert_eq!(s.streams[0].roctx_name.as_deref(), Some(long.as_str()));
    }
}
