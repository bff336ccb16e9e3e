//! The engine: what the simulated SDK does behind its exports (docs/simulator-fidelity.md).
//! Contexts and their services ([`registry`]), buffers and the threads that deliver them
//! ([`buffer`], [`callback_thread`]), the order callbacks and records fire in around a HIP call
//! ([`dispatch`]), the HSA signal-handler thread that completes device work ([`signal`], with
//! its hand-off [`bell`]), external correlation, ROCTx tracing, the agents handed to tools,
//! handle numbering, and the SDK's life from registration to finalization ([`registration`]
//! writes it, [`lifecycle`] is what the other rooms read).
//!
//! Threads: a HIP call's callbacks run on the calling thread (or HIP's worker thread),
//! completions on the signal thread, buffer deliveries on the SDK's callback threads; no lock
//! of this room is held while a tool callback runs (docs/simulator-fidelity.md#threading).
pub(crate) mod abort_flush;
pub(crate) mod agents;
pub(crate) mod bell;
pub(crate) mod buffer;
pub(crate) mod callback_thread;
pub(crate) mod dispatch;
pub(crate) mod external_correlation;
pub(crate) mod handles;
pub(crate) mod lifecycle;
pub(crate) mod registration;
pub(crate) mod registry;
pub(crate) mod roctx;
pub(crate) mod signal;
pub(crate) mod user_ptr;
