//! xla-rocm-tracer: XLA's ROCm GPU tracer over rocprofiler-sdk, in Rust.
//!
//! The tracer (`tracer`) registers with rocprofiler-sdk, tracks each thread's HIP stream
//! (`stream_stack`, `correlation`), turns buffer records into [`event::RocmTracerEvent`]s and
//! hands them in batches to an [`sink::EventSink`]. The collector (`collector`) joins and
//! stores them, and `export` turns them into an XSpace.
pub mod collector;
pub mod event;
pub mod export;
pub mod sink;
