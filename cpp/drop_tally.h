// Drops reported for a RocmTraceCollectorImpl, kept beside it until its Export writes them as
// XSpace warnings: XLA's class has no member for them, and its OnEventsDropped is an inline
// VLOG that subclasses may override. Keyed by collector address, so an entry is cleared
// wherever a collector's life (re)starts: RocmTracer::Enable clears the tracer's drops,
// the first event a fresh collector receives clears the duplicates, Export takes both.
// Header-only, so the build files of the shims need no new source.
#ifndef XLA_ROCM_TRACER_CPP_DROP_TALLY_H_
#define XLA_ROCM_TRACER_CPP_DROP_TALLY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "xla-rocm-tracer/cpp/absl_compat.h"

namespace xla {
namespace profiler {

class RocmTraceCollector;

struct DropTally {
  uint64_t duplicate_correlation_ids = 0;
  // Reported by the tracer: (reason, event count), in first-seen order.
  std::vector<std::pair<std::string, uint64_t>> tracer_drops;
};

namespace drop_tally_internal {

// Leaked on purpose: SDK threads may report drops while statics are destroyed at exit.
inline absl::Mutex& TallyMutex() {
  static absl::Mutex* mutex = new absl::Mutex();
  return *mutex;
}

inline absl::flat_hash_map<const RocmTraceCollector*, DropTally>& Tallies() {
  static auto* tallies = new absl::flat_hash_map<const RocmTraceCollector*, DropTally>();
  return *tallies;
}

inline void EraseIfEmpty(const RocmTraceCollector* collector) {
  auto entry = Tallies().find(collector);
  if (entry != Tallies().end() && entry->second.duplicate_correlation_ids == 0 &&
      entry->second.tracer_drops.empty()) {
    Tallies().erase(entry);
  }
}

}  // namespace drop_tally_internal


inline void TallyTracerDrop(const RocmTraceCollector* collector, const std::string& reason,
                     uint64_t count) {
  if (collector == nullptr || count == 0) return;
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(drop_tally_internal::TallyMutex()));
  auto& drops = drop_tally_internal::Tallies()[collector].tracer_drops;
  for (auto& [known, total] : drops) {
    if (known == reason) {
      total += count;
      return;
    }
  }
  drops.emplace_back(reason, count);
}

inline void TallyDuplicateCorrelationId(const RocmTraceCollector* collector) {
  if (collector == nullptr) return;
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(drop_tally_internal::TallyMutex()));
  ++drop_tally_internal::Tallies()[collector].duplicate_correlation_ids;
}

inline void ForgetTracerDrops(const RocmTraceCollector* collector) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(drop_tally_internal::TallyMutex()));
  auto entry = drop_tally_internal::Tallies().find(collector);
  if (entry == drop_tally_internal::Tallies().end()) return;
  entry->second.tracer_drops.clear();
  drop_tally_internal::EraseIfEmpty(collector);
}

inline void ForgetDuplicates(const RocmTraceCollector* collector) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(drop_tally_internal::TallyMutex()));
  auto entry = drop_tally_internal::Tallies().find(collector);
  if (entry == drop_tally_internal::Tallies().end()) return;
  entry->second.duplicate_correlation_ids = 0;
  drop_tally_internal::EraseIfEmpty(collector);
}

inline DropTally TakeDropTally(const RocmTraceCollector* collector) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(drop_tally_internal::TallyMutex()));
  auto entry = drop_tally_internal::Tallies().find(collector);
  if (entry == drop_tally_internal::Tallies().end()) return DropTally{};
  DropTally tally = std::move(entry->second);
  drop_tally_internal::Tallies().erase(entry);
  return tally;
}

}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_DROP_TALLY_H_
