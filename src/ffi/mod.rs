//! The two foreign boundaries: the cxx bridge the XLA-facing C++ shims (`cpp/`) call, and the
//! C ABI (`include/xla_rocm_tracer.h`) for C and other languages. Both carry events in the one
//! flat form of `flat_event`.
pub mod bridge;
pub mod capi;
mod flat_event;
