// The parts of tsl's XPlaneBuilder that XLA's ROCm collector uses: metadata interned by name
// in hash maps, lines found by id, stats appended to events.
#ifndef XLA_ROCM_TRACER_BENCH_BASELINE_XPLANE_BUILDER_LITE_H_
#define XLA_ROCM_TRACER_BENCH_BASELINE_XPLANE_BUILDER_LITE_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "tsl/profiler/protobuf/xplane.pb.h"

namespace baseline {

class XPlaneBuilderLite {
 public:
  explicit XPlaneBuilderLite(tensorflow::profiler::XPlane* plane);

  tensorflow::profiler::XEventMetadata* GetOrCreateEventMetadata(absl::string_view name);
  tensorflow::profiler::XStatMetadata* GetOrCreateStatMetadata(absl::string_view name);
  tensorflow::profiler::XLine* GetOrCreateLine(int64_t id);
  tensorflow::profiler::XPlane* plane() { return plane_; }

  void AddUint64Stat(tensorflow::profiler::XEvent* event, absl::string_view key, uint64_t v);
  void AddInt64Stat(tensorflow::profiler::XEvent* event, absl::string_view key, int64_t v);
  void AddRefStat(tensorflow::profiler::XEvent* event, absl::string_view key,
                  absl::string_view value);

 private:
  tensorflow::profiler::XPlane* plane_;
  int64_t last_event_metadata_id_ = 0;
  int64_t last_stat_metadata_id_ = 0;
  absl::flat_hash_map<std::string, tensorflow::profiler::XEventMetadata*> event_metadata_;
  absl::flat_hash_map<std::string, tensorflow::profiler::XStatMetadata*> stat_metadata_;
  absl::flat_hash_map<int64_t, tensorflow::profiler::XLine*> lines_;
};

}  // namespace baseline

#endif  // XLA_ROCM_TRACER_BENCH_BASELINE_XPLANE_BUILDER_LITE_H_
