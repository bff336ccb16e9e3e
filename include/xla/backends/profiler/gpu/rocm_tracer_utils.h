/* Drop-in declaration of XLA's xla/backends/profiler/gpu/rocm_tracer_utils.h in its newest
   form found (the ROCTx listener openxla/xla#46933 with #47917's kernel resources and #48501's
   RocmTracerOptions and AnnotationMap::Reset), keeping what the 2026-08-22 interface needs
   (AnnotationMap::Clear, the three-argument Add) and the occupancy wiring's (#47469) register
   fields: one header for every supported interface (docs/xla-interface.md#supported-xla-interfaces).
   Written for xla-rocm-tracer from docs/xla-interface.md#utilities-header and
   docs/xla-interface-next.md. Implemented by cpp/rocm_tracer_utils.cc. */

#ifndef XLA_BACKENDS_PROFILER_GPU_ROCM_TRACER_UTILS_H_
#define XLA_BACKENDS_PROFILER_GPU_ROCM_TRACER_UTILS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
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
  // Scratch bytes per work-item, at dispatch.
  uint32_t private_segment_size;
  // LDS bytes per workgroup at dispatch: static and dynamic.
  uint32_t group_segment_size;
  // Arch plus accumulation VGPRs per work-item (#47917).
  uint32_t registers_per_work_item;
  // Static LDS bytes per workgroup, from the kernel symbol (#47917, #47469).
  uint32_t static_group_segment_size;
  uint32_t workgroup_x;
  uint32_t workgroup_y;
  uint32_t workgroup_z;
  // Total work-items per dimension, not blocks.
  uint32_t grid_x;
  uint32_t grid_y;
  uint32_t grid_z;
  void* func_ptr;
  // From the kernel symbol, as the occupancy wiring (#47469) adds them.
  uint32_t arch_vgpr_count;
  uint32_t accum_vgpr_count;
  uint32_t sgpr_count;
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

// What a HIP copy call asked for, from its HIP API callback arguments (ROCm/xla branch
// cj/kernel-details-jaxlib0.10.2, commit a4b61ae40f): the direction (MemcpyOther when unknown)
// and the copy's details. Declared for XLA's newer files that name it; the Rust core keeps
// the same facts itself (src/tracer/hip_api/copy_calls.rs).
struct CopyApiDetails {
  RocmTracerEventType type = RocmTracerEventType::MemcpyOther;
  MemcpyDetails details{};
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

// One open ROCTx range of a thread (XLA keeps a thread-local stack of them; the Rust tracer
// keeps its own, src/tracer/roctx.rs).
struct RoctxFrame {
  std::string message;
  uint64_t start_ns;
  uint64_t generation;
};

struct RocmTracerOptions {
  uint64_t max_annotation_strings;
};

// The largest value XLA's GPU tracer accepts for an event cap: newer XLA's device_tracer_rocm.cc
// and rocm_tracer_options_utils.cc clamp the gpu_max_* keys and --xla_gpu_rocm_max_trace_events
// to it (this library does not read it). They read it from this header as an int64_t (std::min
// with the int64 flag): openxla/xla#48501-#48503, whose earlier revision clamped to this value
// inline (docs/xla-interface-next.md#event-caps-from-profile-options).
inline constexpr int64_t kMaxRocmTraceEvents = 1'000'000'000;

struct RocmTraceCollectorOptions {
  uint64_t max_callback_api_events;
  uint64_t max_activity_api_events;
  uint64_t max_annotation_strings;
  uint32_t num_gpus;
};

class AnnotationMap {
 public:
  // The capacity before the first session sets one.
  static constexpr uint64_t kPreSessionCapacity = 1024 * 1024;

  explicit AnnotationMap(uint64_t initial_max_size = kPreSessionCapacity)
      : max_size_(initial_max_size) {}
  // Interns the annotation and the ROCTx label of a HIP call (each while fewer than the
  // capacity are stored) and records its scope range ids.
  void Add(uint64_t correlation_id, const std::string& annotation,
           absl::string_view roctx_range = {},
           absl::Span<const int64_t> scope_range_ids = {});
  // The 2026-08-22 form, without a ROCTx label.
  void Add(uint64_t correlation_id, const std::string& annotation,
           absl::Span<const int64_t> scope_range_ids) {
    Add(correlation_id, annotation, absl::string_view(), scope_range_ids);
  }
  absl::string_view LookUp(uint64_t correlation_id);
  absl::string_view LookUpRoctxRange(uint64_t correlation_id);
  int64_t LookUpScopeRangeId(uint64_t correlation_id);
  ScopeRangeIdTree TakeScopeRangeIdTree();
  // Forgets everything and sets the capacity, under one lock.
  void Reset(uint64_t max_size);
  // Forgets everything, keeping the capacity (the 2026-08-22 interface).
  void Clear();

 private:
  struct AnnotationMapImpl {
    absl::Mutex mutex;
    // Interned strings: node storage keeps the references below stable.
    absl::node_hash_set<std::string> annotations ABSL_GUARDED_BY(mutex);
    absl::flat_hash_map<uint64_t, std::reference_wrapper<const std::string>> correlation_map
        ABSL_GUARDED_BY(mutex);
    absl::flat_hash_map<uint64_t, std::reference_wrapper<const std::string>> roctx_range_map
        ABSL_GUARDED_BY(mutex);
    absl::flat_hash_map<uint64_t, int64_t> scope_range_id_map ABSL_GUARDED_BY(mutex);
    ScopeRangeIdTree scope_range_id_tree ABSL_GUARDED_BY(mutex);
  };
  AnnotationMapImpl map_;
  uint64_t max_size_ ABSL_GUARDED_BY(map_.mutex);

 public:
  AnnotationMap(const AnnotationMap&) = delete;
  AnnotationMap& operator=(const AnnotationMap&) = delete;
};

}  // namespace profiler
}  // namespace xla

#endif  // XLA_BACKENDS_PROFILER_GPU_ROCM_TRACER_UTILS_H_
