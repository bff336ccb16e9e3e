// How the C++ tracer finds out that a collector is backed by the Rust collector (one that
// CreateRocmCollector made), so that its session delivers straight into Rust. Defined in
// cpp/rocm_collector.cc; no RTTI needed.
#ifndef XLA_ROCM_TRACER_CPP_SESSION_COLLECTOR_H_
#define XLA_ROCM_TRACER_CPP_SESSION_COLLECTOR_H_

#include "xla-rocm-tracer/src/ffi/collector.rs.h"
#include "xla/backends/profiler/gpu/rocm_collector.h"

namespace xla {
namespace profiler {

// The Rust collector behind `collector`, or null if `collector` is any other
// RocmTraceCollector. The pointer lives as long as `collector`.
rust_bridge::SessionCollector* RustSessionOf(const RocmTraceCollector* collector);

}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_SESSION_COLLECTOR_H_
