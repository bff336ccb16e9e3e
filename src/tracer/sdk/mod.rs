//! What the tracer has of rocprofiler-sdk: its registration as the SDK's tool, the set-up of
//! its contexts, buffer and callbacks, the thin `Result` layer over the SDK's calls, the
//! agents, the SDK's version and whether HIP ever reached the SDK.
//!
//! Thread: whoever registers the tool (the load-time constructor, `Tracer::get()`), the SDK's
//! tool `initialize` / `finalize`, and the RUNTIME_INITIALIZATION callback on the thread that
//! initializes HIP. One room because all of it is set once per process and read afterwards;
//! nothing here runs per HIP call or per record.
pub(crate) mod agents;
pub(crate) mod calls;
pub mod hip_runtime_reach;
pub(crate) mod id_map;
pub(crate) mod registration;
pub(crate) mod setup;
mod tool_libraries;
pub(crate) mod version;
