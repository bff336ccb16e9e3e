//! A simulated `librocprofiler-sdk.so` (rocprofiler-sdk >= 1.0.0, ROCm 7.1 layouts).
//!
//! Two halves, in five rooms (docs/simulator-fidelity.md says what each must reproduce):
//! * the **SDK side**: [`sdk`], every C function the real library exports to tools, with its
//!   statuses, and `engine`, what the SDK does behind them (contexts, buffers and their
//!   threads, callback order, completions, registration and shutdown);
//! * the **driver side**: `hip`, the HIP runtime of a program ([`driver`]: streams, queues,
//!   kernels, copies, graphs, code objects; the same as a C ABI in [`capi`]), which makes the
//!   SDK side fire callbacks and fill buffers as the real runtime would. [`scenario`] replays
//!   declarative TOML workloads through the driver.
//!
//! `time` (the clock and the device timing model) serves both; [`machine`] is the one
//! configuration.
//!
//! All global state is lazily initialised: a tracer calls `rocprofiler_force_configure` from a
//! load-time constructor, possibly before any Rust static of ours would have been set up.
//! No sim lock is held while a tool callback runs (docs/simulator-fidelity.md#threading).

mod engine;
mod hip;
mod time;

pub mod capi;
pub mod machine;
pub mod scenario;
pub mod sdk;

pub use engine::buffer::{record_counts, BufferRecordCounts};
pub use engine::registration::{client_names, finalize_as_at_exit};
pub use hip::driver;
pub use hip::error::SimError;
pub use sdk::faults;
