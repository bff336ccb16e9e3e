/* Drop-in declaration of XLA's xla/backends/profiler/gpu/rocm_tracer.h as the ROCTx listener
   (openxla/xla#46933, ROCm/xla cj/roctx-pr1-listener 7a3d96a4) has it, which also serves the
   2026-08-22 interface (docs/xla-interface.md#supported-xla-interfaces); written for
   xla-rocm-tracer from docs/xla-interface.md#tracer-header and docs/xla-interface-next.md.
   Implemented by cpp/rocm_tracer.cc over the Rust tracer. */

#ifndef XLA_BACKENDS_PROFILER_GPU_ROCM_TRACER_H_
#define XLA_BACKENDS_PROFILER_GPU_ROCM_TRACER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/optional.h"
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"
#include "xla/stream_executor/rocm/roctracer_wrapper.h"

namespace xla {
namespace profiler {

class RocmTraceCollector;

// RocmTracerOptions is declared in rocm_tracer_utils.h (openxla/xla#48501).

// Enables rocprofiler-sdk tracing and forwards the events to a RocmTraceCollector.
// One per process.
class RocmTracer {
 public:
  static RocmTracer& GetRocmTracerSingleton();

  // True while no capture is active.
  bool IsAvailable() const;

  absl::Status Enable(const RocmTracerOptions& options, RocmTraceCollector* collector);
  void Disable();

  // rocprofiler-sdk clock (ns, CLOCK_BOOTTIME); 0 on error.
  static uint64_t GetTimestamp();
  uint32_t NumGpus() const { return num_gpus_; }
  const std::vector<rocprofiler_agent_v0_t>& GpuAgents() const { return gpu_agents_; }
  RocmTraceCollector* collector() { return collector_; }

  int toolInit(rocprofiler_client_finalize_t finalize_func, void* tool_data);
  static void toolFinalize(void* tool_data);

  void TracingCallback(rocprofiler_context_id_t context, rocprofiler_buffer_id_t buffer_id,
                       rocprofiler_record_header_t** headers, size_t num_headers,
                       uint64_t drop_count);
  void CodeObjectCallback(rocprofiler_callback_tracing_record_t record, void* callback_data);

  // One MARKER_CORE_API record: push at ENTER, pop at EXIT, mark at ENTER (XLA's phases; the
  // Rust tracer's own subscription acts at ENTER only, docs/xla-interface.md#roctx-ranges-and-marks).
  void MarkerCallback(const rocprofiler_callback_tracing_record_t& record);
  // The calling thread's innermost ROCTx label of the running session ("" for none); valid
  // until this thread's next call of this function.
  absl::string_view GetCurrentRoctxLabel();
  // Hands a ROCTx range or mark to the running session's collector.
  void EmitMarkerEvent(std::string label, uint64_t start_ns, uint64_t end_ns, uint64_t tid);

  AnnotationMap* annotation_map() { return &annotation_map_; }

 protected:
  RocmTracer() = default;

  void HipApiEvent(const rocprofiler_record_header_t* hdr, RocmTracerEvent* ev);
  void KernelEvent(const rocprofiler_record_header_t* hdr, RocmTracerEvent* ev);
  void MemcpyEvent(const rocprofiler_record_header_t* hdr, RocmTracerEvent* ev);

 private:
  absl::Status InitProfiling(void* tool_data);

  uint32_t num_gpus_{0};
  std::optional<RocmTracerOptions> options_;
  RocmTraceCollector* collector_{nullptr};
  absl::Mutex collector_mutex_;

  bool api_tracing_enabled_{false};
  bool activity_tracing_enabled_{false};

  AnnotationMap annotation_map_{1024 * 1024};

  // XLA's session generation of ROCTx frames. The generation the Rust tracer keeps
  // (src/tracer/roctx.rs) is the one that counts; this one is bumped at Enable for code that
  // reads it.
  std::atomic<uint64_t> roctx_generation_{0};

 public:
  using kernel_symbol_data_t =
      rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;

  struct ProfilerKernelInfo {
    std::string name;
    kernel_symbol_data_t data;
  };

  using kernel_info_map_t = absl::flat_hash_map<rocprofiler_kernel_id_t, ProfilerKernelInfo>;
  using agent_info_map_t = absl::flat_hash_map<uint64_t, rocprofiler_agent_v0_t>;
  using callback_name_info = rocprofiler::sdk::callback_name_info;

  rocprofiler_client_id_t* client_id_{nullptr};
  // Code-object (kernel name) callbacks; on for the life of the process.
  rocprofiler_context_id_t utility_context_{};
  // Buffered tracing, HIP API callback, external correlation; on between Enable and Disable.
  rocprofiler_context_id_t context_{};
  rocprofiler_buffer_id_t buffer_{};
  // HIP_STREAM callback; on for the life of the process (#46182).
  rocprofiler_context_id_t hip_stream_ctx_{};
  kernel_info_map_t kernel_info_{};
  absl::Mutex kernel_lock_;
  callback_name_info name_info_;
  agent_info_map_t agents_;
  std::vector<rocprofiler_agent_v0_t> gpu_agents_;

 public:
  RocmTracer(const RocmTracer&) = delete;
  RocmTracer& operator=(const RocmTracer&) = delete;
};

}  // namespace profiler
}  // namespace xla

#endif  // XLA_BACKENDS_PROFILER_GPU_ROCM_TRACER_H_
