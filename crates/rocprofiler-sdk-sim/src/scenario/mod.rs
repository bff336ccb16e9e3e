//! Declarative workloads (format: `SCENARIOS.md` beside this crate's Cargo.toml): a machine,
//! code objects, streams and threads with ordered steps, replayed through [`crate::driver`]
//! on real OS threads.
//!
//! [`load`] reads and validates a file; every error names the file, line, column and the
//! problem, whether TOML syntax, a wrong field, or a semantic mistake such as an unknown
//! stream or kernel. [`replay`] runs it and ends with all device work completed and pushed.
mod error;
mod model;
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
///
/// The TOML reader and the step checks recurse once per `steps` level (up to the documented 32,
/// and the reader further before it refuses a deeper file): they run on a thread with a stack
/// of their own, so the limit holds whatever stack the caller's thread has (a test thread has
/// 2 MiB, which a debug build's frames outgrow).
pub fn parse_str(text: &str, path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
    const PARSER_STACK_BYTES: usize = 16 << 20;
    let path = path.as_ref();
    std::thread::scope(|scope| {
        let parser = std::thread::Builder::new()
            .name("scenario-parser".to_owned())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || parse::parse(text, path));
        match parser {
            Ok(parser) => parser
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had: parse here.
            Err(_) => parse::parse(text, path),
        }
    })
}
