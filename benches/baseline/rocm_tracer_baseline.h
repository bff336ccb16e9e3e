// A C++ rendition of XLA's ROCm tracer and collector design (openxla/xla#46182;
// docs/xla-interface.md#public-interface, #how-xlas-tracer-drives-the-sdk, #collector), written for benchmarking only. See README.md for every place
// where it departs from XLA's code.
#ifndef XLA_ROCM_TRACER_BENCH_BASELINE_ROCM_TRACER_BASELINE_H_
#define XLA_ROCM_TRACER_BENCH_BASELINE_ROCM_TRACER_BASELINE_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "absl/synchronization/mutex.h"
#include "rocprofiler-sdk/rocprofiler.h"
#include "tsl/profiler/protobuf/xplane.pb.h"

namespace baseline {

enum class RocmTracerEventType {
  Unsupported = 0, Kernel, MemcpyH2D, MemcpyD2H, MemcpyD2D, MemcpyP2P, MemcpyOther,
  MemoryAlloc, MemoryFree, Memset, Synchronization, Generic,
};
enum class RocmTracerEventSource { Invalid = 0, ApiCallback, Activity };
enum class RocmTracerEventDomain { InvalidDomain = 0, HIP_API, HIP_OPS };

const char* GetRocmTracerEventTypeName(RocmTracerEventType type);

struct MemcpyDetails { size_t num_bytes; uint32_t destination; bool async; };
struct MemAllocDetails { uint64_t num_bytes; };
struct MemsetDetails { size_t num_bytes; bool async; };
struct KernelDetails {
  uint32_t private_segment_size; uint32_t group_segment_size;
  uint32_t workgroup_x; uint32_t workgroup_y; uint32_t workgroup_z;
  uint32_t grid_x; uint32_t grid_y; uint32_t grid_z;
  void* func_ptr;
};

struct RocmTracerEvent {
  static constexpr uint32_t kInvalidDeviceId = std::numeric_limits<uint32_t>::max();
  static constexpr uint64_t kInvalidThreadId = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kInvalidCorrelationId = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kInvalidStreamId = std::numeric_limits<uint64_t>::max();
  RocmTracerEventType type;
  RocmTracerEventSource source = RocmTracerEventSource::Invalid;
  RocmTracerEventDomain domain;
  std::string name;
  absl::string_view annotation;
  absl::string_view roctx_range;
  uint64_t start_time_ns = 0;
  uint64_t end_time_ns = 0;
  uint32_t device_id = kInvalidDeviceId;
  uint64_t correlation_id = kInvalidCorrelationId;
  uint64_t thread_id = kInvalidThreadId;
  uint64_t stream_id = kInvalidStreamId;
  uint64_t queue_id = 0;
  int64_t scope_range_id = 0;
  union {
    MemcpyDetails memcpy_info;
    MemsetDetails memset_info;
    MemAllocDetails memalloc_info;
    KernelDetails kernel_info;
  };
};

// XLA's AnnotationMap: interned strings behind a mutex.
class AnnotationMap {
 public:
  explicit AnnotationMap(uint64_t max_size) : max_size_(max_size) {}
  void Add(uint64_t correlation_id, const std::string& annotation,
           absl::Span<const int64_t> scope_range_ids = {});
  absl::string_view LookUp(uint64_t correlation_id);
  int64_t LookUpScopeRangeId(uint64_t correlation_id);
  void Clear();

 private:
  const uint64_t max_size_;
  absl::Mutex mutex_;
  absl::node_hash_set<std::string> annotations_;
  absl::flat_hash_map<uint64_t, absl::string_view> correlation_map_;
  absl::flat_hash_map<uint64_t, int64_t> scope_range_id_map_;
  // ScopeRangeIdTree: child scope range id -> parent.
  absl::flat_hash_map<int64_t, int64_t> scope_range_id_tree_;
};

struct RocmTraceCollectorOptions {
  uint64_t max_callback_api_events;
  uint64_t max_activity_api_events;
  uint64_t max_annotation_strings;
  uint32_t num_gpus;
};

class PerDeviceCollector {
 public:
  void AddEvent(RocmTracerEvent&& event);
  void Export(uint64_t start_walltime_ns, uint64_t start_gputime_ns, uint64_t end_gputime_ns,
              tensorflow::profiler::XPlane* device_plane,
              tensorflow::profiler::XPlane* host_plane);

 private:
  absl::Mutex events_mutex_;
  std::vector<RocmTracerEvent> events_;
};

// XLA's RocmTraceCollectorImpl.
class RocmTraceCollector {
 public:
  RocmTraceCollector(const RocmTraceCollectorOptions& options, uint64_t start_walltime_ns,
                     uint64_t start_gputime_ns);
  void AddEvent(RocmTracerEvent&& event, bool is_auxiliary);
  void OnEventsDropped(const std::string& reason, uint32_t num_events);
  void Flush();
  void Export(tensorflow::profiler::XSpace* space, uint64_t end_gputime_ns);

 private:
  void ApiActivityInfoExchange(std::vector<RocmTracerEvent>* aggregated);

  const RocmTraceCollectorOptions options_;
  const uint64_t start_walltime_ns_;
  const uint64_t start_gputime_ns_;
  absl::Mutex event_maps_mutex_;
  uint64_t num_callback_events_ = 0;
  uint64_t num_activity_events_ = 0;
  uint64_t num_dropped_ = 0;
  absl::flat_hash_map<uint64_t, RocmTracerEvent> api_events_map_;
  absl::flat_hash_map<uint64_t, RocmTracerEvent> auxiliary_api_events_map_;
  absl::flat_hash_map<uint64_t, std::vector<RocmTracerEvent>> activity_ops_events_map_;
  std::vector<PerDeviceCollector> per_device_collector_;
};

struct ProfilerKernelInfo {
  std::string name;
  rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t data;
};

// XLA's RocmTracer singleton.
class RocmTracer {
 public:
  static RocmTracer& GetRocmTracerSingleton();
  bool Enable(RocmTraceCollector* collector);
  void Disable();
  static uint64_t GetTimestamp();
  uint32_t NumGpus() const { return static_cast<uint32_t>(gpu_agents_.size()); }
  RocmTraceCollector* collector() { return collector_; }
  AnnotationMap* annotation_map() { return &annotation_map_; }

  int toolInit();
  void TracingCallback(rocprofiler_record_header_t** headers, size_t num_headers);
  void CodeObjectCallback(const rocprofiler_callback_tracing_record_t& record);

 private:
  RocmTracerEvent HipApiEvent(const rocprofiler_record_header_t* header);
  RocmTracerEvent KernelEvent(const rocprofiler_record_header_t* header);
  RocmTracerEvent MemcpyEvent(const rocprofiler_record_header_t* header);

  rocprofiler_context_id_t utility_context_{};
  rocprofiler_context_id_t context_{};
  rocprofiler_context_id_t hip_stream_ctx_{};
  rocprofiler_buffer_id_t buffer_{};
  absl::Mutex collector_mutex_;
  RocmTraceCollector* collector_ = nullptr;
  AnnotationMap annotation_map_{1024 * 1024};
  absl::Mutex kernel_lock_;
  absl::flat_hash_map<uint64_t, ProfilerKernelInfo> kernel_info_;
  // name_info_[kind][operation], as rocprofiler::sdk::get_callback_tracing_names() gives.
  std::vector<std::vector<std::string>> name_info_;
  absl::flat_hash_map<uint64_t, rocprofiler_agent_v0_t> agents_;
  std::vector<rocprofiler_agent_v0_t> gpu_agents_;
};

}  // namespace baseline

#endif  // XLA_ROCM_TRACER_BENCH_BASELINE_ROCM_TRACER_BASELINE_H_
