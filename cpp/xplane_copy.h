// Writes a plane the Rust export built into a caller's XPlaneBuilder, the way XLA's
// PerDeviceCollector writes into the device and host planes it is given: plane stats, lines
// (id, name, timestamp) and events with their metadata and stats, through the builder's
// GetOrCreate*Metadata so names already in the target plane are shared.
// Header-only, so the build files of the shims need no new source.
#ifndef XLA_ROCM_TRACER_CPP_XPLANE_COPY_H_
#define XLA_ROCM_TRACER_CPP_XPLANE_COPY_H_

#include <cstdint>

#include "tsl/profiler/protobuf/xplane.pb.h"
#include "xla/tsl/profiler/utils/xplane_builder.h"

namespace xla {
namespace profiler {

inline void CopyXPlaneInto(const tensorflow::profiler::XPlane& source,
                           tsl::profiler::XPlaneBuilder* target) {
  if (target == nullptr) return;
  auto stat_metadata = [&](const tensorflow::profiler::XStat& stat) {
    auto found = source.stat_metadata().find(stat.metadata_id());
    return target->GetOrCreateStatMetadata(
        found == source.stat_metadata().end() ? "" : found->second.name());
  };
  for (const auto& stat : source.stats()) target->AddStat(*stat_metadata(stat), stat, source);
  for (const auto& line : source.lines()) {
    tsl::profiler::XLineBuilder line_builder = target->GetOrCreateLine(line.id());
    line_builder.SetName(line.name());
    // A line that already has events keeps its timestamp; the new events are shifted onto it.
    int64_t shift_ps = 0;
    if (line_builder.NumEvents() == 0) {
      line_builder.SetTimestampNs(line.timestamp_ns());
    } else {
      shift_ps = (line.timestamp_ns() - line_builder.TimestampNs()) * 1000;
    }
    if (!line.display_name().empty()) line_builder.SetDisplayNameIfEmpty(line.display_name());
    for (const auto& event : line.events()) {
      auto found = source.event_metadata().find(event.metadata_id());
      if (found == source.event_metadata().end()) continue;
      tensorflow::profiler::XEventMetadata* metadata =
          target->GetOrCreateEventMetadata(found->second.name());
      if (metadata->display_name().empty()) {
        metadata->set_display_name(found->second.display_name());
      }
      tsl::profiler::XEventBuilder event_builder = line_builder.AddEvent(*metadata);
      event_builder.SetOffsetPs(event.offset_ps() + shift_ps);
      event_builder.SetDurationPs(event.duration_ps());
      for (const auto& stat : event.stats()) {
        event_builder.AddStat(*stat_metadata(stat), stat, source);
      }
    }
  }
}

}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_XPLANE_COPY_H_
