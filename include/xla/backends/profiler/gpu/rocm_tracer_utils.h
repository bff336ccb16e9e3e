/* Drop-in declaration of XLA's xla/backends/profiler/gpu/rocm_tracer_utils.h
   (openxla/xla main 2026-08-22), written for xla-rocm-tracer from the interface facts in
   docs/xla-interface.md#utilities-header. Inside an XLA build, XLA's own header is used instead: every
   declaration here must stay identical to it. Implemented by cpp/rocm_tracer_utils.cc. */

#ifndef XLA_BACKENDS_PROFILER_GPU_ROCM_TRACER_UTILS_H_
#define XLA_BACKENDS_PROFILER_GPU_ROCM_TRACER_UTILS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"

namespace xla {
namespace profiler {

// Child scope range id -> parent scope range id.
using ScopeRangeIdTree = absl::flat_hash_map<int64_t, int64_t>;

struct MemcpyDetails {
  // Bytes copied.
  size_t num_bytes;
  // Destination agent handle, truncated to 32 bits (not a device ordinal).
  uint32_t destination;
  bool async;
};

struct MemAllocDetails {
  uint64_t num_bytes;
};

struct MemsetDetails {
  size_t num_bytes;
  bool async;
};

struct KernelDetails {
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint32_t workgroup_x;
  uint32_t workgroup_y;
  uint32_t workgroup_z;
  // Total work-items per dimension, not blocks.
  uint32_t grid_x;
  uint32_t grid_y;
  uint32_t grid_z;
  void* func_ptr;
};

enum class RocmTracerEventType {
  Unsupported = 0,
  Kernel,
  MemcpyH2D,
  MemcpyD2H,
  MemcpyD2D,
  MemcpyP2P,
  MemcpyOther,
  MemoryAlloc,
  MemoryFree,
  Memset,
  Synchronization,
  Generic,
};

const char* GetRocmTracerEventTypeName(const RocmTracerEventType& type);

enum class RocmTracerEventSource {
  Invalid = 0,
  ApiCallback,
  Activity,
};

const char* GetRocmTracerEventSourceName(const RocmTracerEventSource& source);

enum class RocmTracerEventDomain {
  InvalidDomain = 0,
  HIP_API,
  HIP_OPS,
};

const char* GetRocmTracerEventDomainName(const RocmTracerEventDomain& domain);

// Declared, never defined (as in XLA).
enum class RocmTracerSyncTypes;

struct SynchronizationDetails {
  RocmTracerSyncTypes sync_type;
};

struct RocmTracerEvent {
  static constexpr uint32_t kInvalidDeviceId =
      std::numeric_limits<uint32_t>::max();
  static constexpr uint64_t kInvalidThreadId =
      std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kInvalidCorrelationId =
      std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kInvalidStreamId =
      std::numeric_limits<uint64_t>::max();
  RocmTracerEventType type;
  RocmTracerEventSource source = RocmTracerEventSource::Invalid;
  RocmTracerEventDomain domain;
  std::string name;
  // Points into AnnotationMap storage, valid until the map is cleared.
  absl::string_view annotation;
  absl::string_view roctx_range;
  uint64_t start_time_ns = 0;
  uint64_t end_time_ns = 0;
  uint32_t device_id = kInvalidDeviceId;
  uint64_t correlation_id = kInvalidCorrelationId;
  uint64_t thread_id = kInvalidThreadId;
  uint64_t stream_id = kInvalidStreamId;
  // HSA queue handle of a kernel dispatch (not exported).
  uint64_t queue_id = 0;
  int64_t scope_range_id = 0;
  union {
    MemcpyDetails memcpy_info;
    MemsetDetails memset_info;
    MemAllocDetails memalloc_info;
    KernelDetails kernel_info;
    SynchronizationDetails synchronization_info;
  };
};

struct RocmTraceCollectorOptions {
  uint64_t max_callback_api_events;
  uint64_t max_activity_api_events;
  uint64_t max_annotation_strings;
  uint32_t num_gpus;
};

class AnnotationMap {
 public:
  explicit AnnotationMap(uint64_t max_size) : max_size_(max_size) {}
  void Add(uint64_t correlation_id, const std::string& annotation,
           absl::Span<const int64_t> scope_range_ids = {});
  absl::string_view LookUp(uint64_t correlation_id);
  int64_t LookUpScopeRangeId(uint64_t correlation_id);
  ScopeRangeIdTree TakeScopeRangeIdTree();
  void Clear();

 private:
  struct AnnotationMapImpl {
    absl::Mutex mutex;
    // Interned strings: node storage keeps the string_views below stable.
    absl::node_hash_set<std::string> annotations ABSL_GUARDED_BY(mutex);
    absl::flat_hash_map<uint64_t, absl::string_view> correlation_map ABSL_GUARDED_BY(mutex);
    absl::flat_hash_map<uint64_t, int64_t> scope_range_id_map ABSL_GUARDED_BY(mutex);
    ScopeRangeIdTree scope_range_id_tree ABSL_GUARDED_BY(mutex);
  };
  const uint64_t max_size_;
  AnnotationMapImpl map_;

 public:
  AnnotationMap(const AnnotationMap&) = delete;
  AnnotationMap& operator=(const AnnotationMap&) = delete;
};

}  // namespace profiler
}  // namespace xla

#endif  // XLA_BACKENDS_PROFILER_GPU_ROCM_TRACER_UTILS_H_
