//! The two foreign boundaries: the cxx bridge the XLA-facing C++ shims (`cpp/`) call, and the
//! C ABI (`include/xla_rocm_tracer.h`) for C and other languages.
pub mod bridge;
pub mod capi;
