//! What stands for HIP's side: the program's runtime calls ([`driver`], its public face), the
//! runtime's streams and queues ([`streams`]), the arguments each call leaves in the SDK's
//! payload ([`hip_args`]), code objects and kernel symbols ([`code_objects`]), HIP's worker
//! thread under indirect dispatch ([`worker`]) and the driver's errors ([`error`])
//! (docs/simulator-fidelity.md#per-call-order, #stream-ids, #code-objects, #hip-coverage).
//!
//! Threads: the program's own; under `direct_dispatch = false` submission moves to the
//! worker thread.
pub(crate) mod code_objects;
pub mod driver;
pub mod error;
pub(crate) mod hip_args;
pub(crate) mod streams;
pub(crate) mod worker;
