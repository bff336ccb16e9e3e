// XLA's rocm_tracer_utils.cc for the drop-in: the enum names and the AnnotationMap, in plain
// C++ over the members XLA's header declares (docs/xla-interface.md#utilities-header).
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "xla-rocm-tracer/cpp/absl_compat.h"

namespace xla {
namespace profiler {

const char* GetRocmTracerEventSourceName(const RocmTracerEventSource& source) {
  switch (source) {
    case RocmTracerEventSource::ApiCallback:
      return "ApiCallback";
    case RocmTracerEventSource::Activity:
      return "Activity";
    case RocmTracerEventSource::Invalid:
      return "Invalid";
  }
  return "";
}

const char* GetRocmTracerEventDomainName(const RocmTracerEventDomain& domain) {
  switch (domain) {
    case RocmTracerEventDomain::HIP_API:
      return "HIP_API";
    case RocmTracerEventDomain::HIP_OPS:
      return "HIP_OPS";
    case RocmTracerEventDomain::InvalidDomain:
      return "InvalidDomain";
  }
  return "";
}

// Unlike XLA, Unsupported and MemcpyP2P have names too (docs/xla-interface.md#xla-edge-9): the same spelling
// as the Rust core's EventType::name, so both export paths label lanes alike.
const char* GetRocmTracerEventTypeName(const RocmTracerEventType& type) {
  switch (type) {
    case RocmTracerEventType::Unsupported:
      return "Unsupported";
    case RocmTracerEventType::Kernel:
      return "Kernel";
    case RocmTracerEventType::MemcpyH2D:
      return "MemcpyH2D";
    case RocmTracerEventType::MemcpyD2H:
      return "MemcpyD2H";
    case RocmTracerEventType::MemcpyD2D:
      return "MemcpyD2D";
    case RocmTracerEventType::MemcpyP2P:
      return "MemcpyP2P";
    case RocmTracerEventType::MemcpyOther:
      return "MemcpyOther";
    case RocmTracerEventType::MemoryAlloc:
      return "MemoryAlloc";
    case RocmTracerEventType::MemoryFree:
      return "MemoryFree";
    case RocmTracerEventType::Memset:
      return "Memset";
    case RocmTracerEventType::Synchronization:
      return "Synchronization";
    case RocmTracerEventType::Generic:
      return "Generic";
  }
  return "";
}

// As the newest XLA (openxla/xla#46933 with #48501): a string is interned and correlated only
// while the set is below the capacity, known strings included; scope range ids are recorded
// only while the set is still below it after the strings went in.
void AnnotationMap::Add(uint64_t correlation_id, const std::string& annotation,
                        absl::string_view roctx_range,
                        absl::Span<const int64_t> scope_range_ids) {
  if (annotation.empty() && roctx_range.empty()) return;
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(map_.mutex));
  if (!annotation.empty() && map_.annotations.size() < max_size_) {
    const std::string& interned = *map_.annotations.emplace(annotation).first;
    map_.correlation_map.insert_or_assign(correlation_id, std::cref(interned));
  }
  if (!roctx_range.empty() && map_.annotations.size() < max_size_) {
    const std::string& interned = *map_.annotations.emplace(roctx_range).first;
    map_.roctx_range_map.insert_or_assign(correlation_id, std::cref(interned));
  }
  if (scope_range_ids.empty() || map_.annotations.size() >= max_size_) return;
  map_.scope_range_id_map.emplace(correlation_id, scope_range_ids.back());
  // Child -> parent edges from the innermost scope outwards; an id already in the tree has
  // its ancestors there too.
  for (size_t i = scope_range_ids.size() - 1; i > 0; --i) {
    if (!map_.scope_range_id_tree.emplace(scope_range_ids[i], scope_range_ids[i - 1]).second) {
      break;
    }
  }
}

absl::string_view AnnotationMap::LookUp(uint64_t correlation_id) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(map_.mutex));
  auto it = map_.correlation_map.find(correlation_id);
  return it == map_.correlation_map.end() ? absl::string_view() : it->second.get();
}

absl::string_view AnnotationMap::LookUpRoctxRange(uint64_t correlation_id) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(map_.mutex));
  auto it = map_.roctx_range_map.find(correlation_id);
  return it == map_.roctx_range_map.end() ? absl::string_view() : it->second.get();
}

int64_t AnnotationMap::LookUpScopeRangeId(uint64_t correlation_id) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(map_.mutex));
  auto it = map_.scope_range_id_map.find(correlation_id);
  return it == map_.scope_range_id_map.end() ? 0 : it->second;
}

ScopeRangeIdTree AnnotationMap::TakeScopeRangeIdTree() {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(map_.mutex));
  ScopeRangeIdTree tree = std::move(map_.scope_range_id_tree);
  map_.scope_range_id_tree.clear();
  return tree;
}

void AnnotationMap::Reset(uint64_t max_size) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(map_.mutex));
  map_.correlation_map.clear();
  map_.roctx_range_map.clear();
  map_.scope_range_id_map.clear();
  map_.scope_range_id_tree.clear();
  map_.annotations.clear();
  max_size_ = max_size;
}

void AnnotationMap::Clear() {
  uint64_t max_size;
  {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(map_.mutex));
    max_size = max_size_;
  }
  Reset(max_size);
}

}  // namespace profiler
}  // namespace xla
