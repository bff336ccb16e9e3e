//! Which annotation (and innermost ROCTx range) each HIP call was made under.
//!
//! Thread: the application thread records, at the HIP API ENTER of each call, through the one
//! entry point `AnnotationMap::add_on_thread` (`record`) into its own lock-free log
//! (`thread_log`), asking its `source` what the annotation is; the buffer thread looks calls
//! up by correlation id while decoding (`map`, which takes the closed runs of every log into
//! `taken_runs`); `enable()` / `disable()` start and end the map's session. One room because
//! the map owns the logs, runs and strings (`strings`) its threads write
//! (docs/ARCHITECTURE.md#a-kernel).
mod map;
mod record;
mod source;
mod strings;
mod taken_runs;
pub(crate) mod thread_log;

pub use map::{AnnotationMap, CallAnnotation, ScopeRangeIdTree, DEFAULT_MAX_ANNOTATION_STRINGS};
pub use source::{
    pop_annotation, push_annotation, record_current_annotation, AnnotationSource,
    ThreadAnnotationStack,
};
