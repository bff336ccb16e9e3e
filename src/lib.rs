//! xla-rocm-tracer: XLA's ROCm GPU tracer over rocprofiler-sdk, in Rust.
//!
//! The source tree follows the data (docs/ARCHITECTURE.md):
//! - `tracer`: registers with rocprofiler-sdk, tracks each thread's HIP stream, decodes buffer
//!   records into [`event::RocmTracerEvent`]s and hands them in batches to an [`sink::EventSink`];
//! - `collector`: joins, caps and stores the events of one profiling session;
//! - `export`: turns a collected session into an XSpace;
//! - `ffi`: the cxx bridge of the C++ shims (`cpp/`) and the C ABI.
//!
//! `event`, `drop_reason`, `gpu_agent` and `sink` are the shared bottom layer.
pub mod collector;
pub mod drop_reason;
pub mod event;
pub mod export;
pub mod ffi;
pub mod gpu_agent;
pub mod sink;
pub mod tracer;

/// The tracer's inner parts, reachable only by this crate's own tests, benchmarks and fuzz
/// targets: they turn on the `testing` feature (the root crate's dev-dependency on itself), a
/// build for XLA or the CLI does not. Everything else outside `tracer` is the product's surface.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod testing {
    pub mod agents {
        pub use crate::tracer::sdk::agents::*;
    }
    pub mod correlation {
        pub use crate::tracer::streams::correlation::*;
    }
    pub mod hip_api {
        pub use crate::tracer::hip_api::names::*;
    }
    pub mod kernel_names {
        pub use crate::tracer::decode::kernel_names::*;
    }
    pub mod record_decoder {
        pub use crate::tracer::decode::record_decoder::*;
    }
    pub mod registration {
        pub use crate::tracer::sdk::registration::*;
    }
    pub mod sdk {
        pub use crate::tracer::sdk::calls::*;
    }
    pub mod stream_stack {
        pub use crate::tracer::streams::stack::*;
    }
}

// Unit tests link the simulated SDK statically (the library itself never contains it).
#[cfg(test)]
use rocprofiler_sdk_sim as _;
