// The C++ functions the Rust core calls through the host bridge (src/ffi/host.rs). Defined by
// cpp/rocm_tracer.cc; cpp/bridge_defaults.cc gives weak do-nothing definitions so that Rust
// programs without the C++ shims still link.
#ifndef XLA_ROCM_TRACER_CPP_BRIDGE_CALLBACKS_H_
#define XLA_ROCM_TRACER_CPP_BRIDGE_CALLBACKS_H_

#include <cstddef>
#include <cstdint>

#include "rust/cxx.h"
#include "xla_rocm_tracer.h"

extern "C" {

// The calling thread's `SourceStackSlot` (src/tracer/thread_state.rs), kept in the Rust
// tracer's one thread-local: where tsl holds this thread's annotation text, and the tracer's
// session generation it was found in.
struct XrtSourceStackSlot {
  const void* stack;
  uint64_t generation;
};

// tsl's annotation stack of the calling thread, borrowed: valid until that thread changes its
// stack. `text` is null when there is no annotation; the ids are outermost first.
struct XrtAnnotationStack {
  const uint8_t* text;
  size_t text_len;
  const int64_t* scope_range_ids;
  size_t num_scope_range_ids;
};

// The HIP API ENTER's recording of the calling thread's tsl annotation (a plain C call, not a
// cxx one: one call per crossing, and a tail call both ways, so the common case sets up no
// frame). A thread without annotation and outside any labelled ROCTx range (`label_frame` 0)
// returns at once; otherwise the stack goes back to the Rust tracer's
// xrt_bridge_record_annotation_stack with the opaque `thread` and `map` it passed. Must not
// throw.
void xrt_bridge_record_annotation(XrtSourceStackSlot* slot, uint64_t generation,
                                  uint64_t label_frame, const void* thread, const void* map,
                                  uint64_t correlation_id) noexcept;

// The calling thread's tsl annotation stack, for a caller that only reads it. Must not throw.
XrtAnnotationStack xrt_bridge_read_annotation_stack(XrtSourceStackSlot* slot,
                                                    uint64_t generation) noexcept;

// Defined by the Rust tracer (src/ffi/host.rs): records `*stack` (or only the thread's
// ROCTx label, for an empty one) under `correlation_id`. Never unwinds.
void xrt_bridge_record_annotation_stack(const void* thread, const void* map,
                                        uint64_t correlation_id,
                                        const XrtAnnotationStack* stack) noexcept;

}  // extern "C"

namespace xla {
namespace profiler {
namespace rust_bridge {

enum class LogLevel : uint8_t;

void record_hip_api_annotation(uint64_t correlation_id);
void clear_hip_api_annotations();
// The events' strings are valid for the call.
void deliver_events(size_t collector, rust::Slice<const ::XrtEvent> events);
void deliver_dropped(size_t collector, rust::Str reason, uint64_t count);
int32_t shim_vlog_level();
void log_from_rust(LogLevel level, rust::Str message);

}  // namespace rust_bridge
}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_BRIDGE_CALLBACKS_H_
