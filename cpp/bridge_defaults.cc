// Weak definitions of the bridge's C++ callbacks, compiled into the Rust library by build.rs.
// The Rust core only calls them for a session enabled through the C++ shims, which define the
// real (strong) ones in cpp/rocm_tracer.cc; these exist so that pure Rust programs link.
#include <atomic>
#include <iostream>

#include "xla-rocm-tracer/cpp/bridge_callbacks.h"
#include "xla-rocm-tracer/src/ffi/host.rs.h"

// Without tsl every thread is outside any annotation; a ROCTx label is still recorded.
extern "C" __attribute__((weak)) void xrt_bridge_record_annotation(
    XrtSourceStackSlot*, uint64_t, uint64_t label_frame, const void* thread, const void* map,
    uint64_t correlation_id) noexcept {
  if (label_frame == 0) return;
  const XrtAnnotationStack empty{};
  xrt_bridge_record_annotation_stack(thread, map, correlation_id, &empty);
}

extern "C" __attribute__((weak)) XrtAnnotationStack xrt_bridge_read_annotation_stack(
    XrtSourceStackSlot*, uint64_t) noexcept {
  return XrtAnnotationStack{};
}

namespace xla {
namespace profiler {
namespace rust_bridge {

__attribute__((weak)) void record_hip_api_annotation(uint64_t) {}

// Reached only if a C++ session was enabled but cpp/rocm_tracer.cc was not linked (e.g. the
// shim and the Rust library ended up in different shared objects): say so once rather than
// losing every event silently.
__attribute__((weak)) void clear_hip_api_annotations() {}

__attribute__((weak)) void deliver_events(size_t, rust::Slice<const ::XrtEvent> events) {
  static std::atomic<bool> warned{false};
  if (!events.empty() && !warned.exchange(true)) {
    std::cerr << "xla-rocm-tracer: events dropped: the C++ shim (rocm_tracer.cc) is not linked "
                 "into this program\n";
  }
}

__attribute__((weak)) void deliver_dropped(size_t, rust::Str, uint64_t) {}

__attribute__((weak)) int32_t shim_vlog_level() { return 0; }

__attribute__((weak)) void log_from_rust(LogLevel, rust::Str message) {
  std::cerr << std::string(message) << "\n";
}

}  // namespace rust_bridge
}  // namespace profiler
}  // namespace xla
