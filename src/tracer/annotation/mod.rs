//! Which annotation (and innermost ROCTx range) each HIP call was made under.
//!
//! Thread: the application thread records, at the HIP API ENTER of each call, into its own
//! lock-free log (`thread_log`); the buffer thread looks calls up by correlation id while
//! decoding (`map`, which takes the closed runs of every log into `taken_runs`); `enable()` /
//! `disable()` start and end the map's session. One room because the map owns the logs and runs
//! its threads write (docs/ARCHITECTURE.md#a-kernel).
mod map;
mod taken_runs;
pub(crate) mod thread_log;

pub use map::{
    pop_annotation, push_annotation, record_current_annotation, AnnotationMap, AnnotationSource,
    CallAnnotation, ScopeRangeIdTree, ThreadAnnotationStack, DEFAULT_MAX_ANNOTATION_STRINGS,
};
