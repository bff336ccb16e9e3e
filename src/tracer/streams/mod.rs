//! Which HIP stream each kernel dispatch and copy was issued on, and what each stream is (null,
//! legacy, per-thread, or the name ROCTx gave it).
//!
//! Thread: the application thread, inside its HIP calls (HIP_STREAM SET, CREATE and DESTROY,
//! the external-correlation request, `roctxNameHipStream`); `disable()` reads the stream labels.
//! One room because the request's stream is the top of the stack the SET callbacks keep, and the
//! reserved handles a SET names are noted for the labels on the same call.
pub(crate) mod correlation;
pub(crate) mod graph_nodes;
pub(crate) mod names;
mod notes;
pub(crate) mod stack;
