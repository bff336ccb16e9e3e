//! Declarative workloads (format: `SCENARIOS.md` beside this crate's Cargo.toml): a machine,
//! code objects, streams and threads with ordered steps, replayed through [`crate::hip::driver`]
//! on real OS threads.
//!
//! [`load`] reads and validates a file; every error names the file, line, column and the
//! problem, whether TOML syntax, a wrong field, or a semantic mistake such as an unknown
//! stream or kernel. [`replay`] runs it and ends with all device work completed and pushed.
//! `parse/` has one file per table of the format, `replay/` the threads and their turns;
//! what a replay must reproduce of the real SDK is docs/simulator-fidelity.md's.
mod error;
mod model;
mod nesting;
mod parse;
mod random;
mod replay;

pub use error::{ReplayError, ScenarioError};
pub use model::{
    CodeObjectSpec, GraphNode, ProfilerSpec, RandomSpec, Scenario, Step, StreamCreator, StreamRef,
    StreamSpec, ThreadSpec,
};
pub use random::{RandomDraws, RandomSteps};
pub use replay::{replay, ReplayHooks, ReplaySummary, ReplayedStream};

use std::path::Path;

/// Reads and validates a scenario file.
pub fn load(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
    let path = path.as_ref();
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.len() > parse::MAX_FILE_BYTES as u64 {
            return Err(parse::too_big(path, meta.len()));
        }
    }
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        message: format!("cannot read the file: {e}"),
    })?;
    parse_str(&text, path)
}

/// Validates scenario text; `path` is only used in error messages.
pub fn parse_str(text: &str, path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
    parse::parse(text, path.as_ref())
}
