//! A simulated `librocprofiler-sdk.so` (rocprofiler-sdk >= 1.0.0, ROCm 7.1 layouts).
//!
//! Two halves:
//! * the **SDK side** ([`sdk`]): every C function the real library exports to tools, with its
//!   statuses, call order and threads (docs/simulator-fidelity.md);
//! * the **driver side** ([`driver`], and the same as a C ABI in [`capi`]): plays the HIP
//!   runtime of a program (streams, queues, kernels, copies, graphs, code objects), which makes
//!   the SDK side fire callbacks and fill buffers as the real runtime would. [`scenario`] replays
//!   declarative TOML workloads through the driver.
//!
//! All global state is lazily initialised: a tracer calls `rocprofiler_force_configure` from a
//! load-time constructor, possibly before any Rust static of ours would have been set up.
//! No sim lock is held while a tool callback runs (docs/simulator-fidelity.md#threading).

mod agents;
mod bell;
mod buffer;
mod callback_thread;
mod clock;
mod code_objects;
mod device;
mod dispatch;
mod error;
mod external_correlation;
mod ffi_guard;
mod handles;
mod hip_args;
mod lifecycle;
mod names;
mod registration;
mod registry;
mod roctx;
mod signal;
mod status_names;
mod streams;
mod user_ptr;
mod worker;

pub mod capi;
pub mod driver;
pub mod faults;
pub mod machine;
pub mod scenario;
pub mod sdk;

pub use buffer::{record_counts, BufferRecordCounts};
pub use error::SimError;
pub use registration::{client_names, finalize_as_at_exit};
