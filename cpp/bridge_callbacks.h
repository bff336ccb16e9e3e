// The C++ functions the Rust core calls through the cxx bridge (src/ffi/bridge.rs). Defined by
// cpp/rocm_tracer.cc; cpp/bridge_defaults.cc gives weak do-nothing definitions so that Rust
// programs without the C++ shims still link.
#ifndef XLA_ROCM_TRACER_CPP_BRIDGE_CALLBACKS_H_
#define XLA_ROCM_TRACER_CPP_BRIDGE_CALLBACKS_H_

#include <cstdint>

#include "rust/cxx.h"

namespace xla {
namespace profiler {
namespace rust_bridge {

struct AnnotationView;
struct FlatEvent;
enum class LogLevel : uint8_t;

AnnotationView read_annotation_stack();
void record_hip_api_annotation(uint64_t correlation_id);
void clear_hip_api_annotations();
void deliver_events(size_t collector, rust::Slice<const FlatEvent> events);
void deliver_dropped(size_t collector, rust::Str reason, uint64_t count);
int32_t shim_vlog_level();
void log_from_rust(LogLevel level, rust::Str message);

}  // namespace rust_bridge
}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_BRIDGE_CALLBACKS_H_
