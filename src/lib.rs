//! xla-rocm-tracer: XLA's ROCm GPU tracer over rocprofiler-sdk, in Rust.
//!
//! The source tree follows the data (docs/ARCHITECTURE.md):
//! - `tracer`: registers with rocprofiler-sdk, tracks each thread's HIP stream, decodes buffer
//!   records into [`event::RocmTracerEvent`]s and hands them in batches to an [`sink::EventSink`];
//! - `collector`: joins, caps and stores the events of one profiling session;
//! - `export`: turns a collected session into an XSpace;
//! - `ffi`: the cxx bridge of the C++ shims (`cpp/`) and the C ABI.
//!
//! `event`, `gpu_agent` and `sink` are the shared bottom layer.
pub mod collector;
pub mod event;
pub mod export;
pub mod ffi;
pub mod gpu_agent;
pub mod sink;
pub mod tracer;

// Unit tests link the simulated SDK statically (the library itself never contains it).
#[cfg(test)]
use rocprofiler_sdk_sim as _;
