//! xla-rocm-tracer: XLA's ROCm GPU tracer over rocprofiler-sdk, in Rust.
//!
//! The tracer (`tracer`) registers with rocprofiler-sdk, tracks each thread's HIP stream
//! (`stream_stack`, `correlation`), turns buffer records into [`event::RocmTracerEvent`]s and
//! hands them in batches to an [`sink::EventSink`]. The collector (`collector`) joins and
//! stores them, and `export` turns them into an XSpace.
pub mod agents;
pub mod annotation;
pub mod bridge;
pub mod capi;
pub mod collector;
pub mod correlation;
pub mod event;
pub mod export;
pub mod hip_api;
pub mod kernel_names;
pub mod records;
pub mod registration;
pub mod sdk;
pub mod sink;
pub mod stream_stack;
pub mod tracer;
pub mod version;

// Unit tests link the simulated SDK statically (the library itself never contains it).
#[cfg(test)]
use rocprofiler_sdk_sim as _;
