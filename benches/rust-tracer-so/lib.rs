//! Re-exports the tracer so that its C ABI (`xrt_*`), `rocprofiler_configure` and its load-time
//! registration end up in a shared library, as the tracer sits in a PJRT plugin.
pub use xla_rocm_tracer;
