#include "xplane_builder_lite.h"

namespace baseline {

using tensorflow::profiler::XEvent;
using tensorflow::profiler::XEventMetadata;
using tensorflow::profiler::XLine;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XStatMetadata;

XPlaneBuilderLite::XPlaneBuilderLite(XPlane* plane) : plane_(plane) {
  for (auto& [id, metadata] : *plane->mutable_event_metadata()) {
    last_event_metadata_id_ = std::max(last_event_metadata_id_, id);
    event_metadata_.emplace(metadata.name(), &metadata);
  }
  for (auto& [id, metadata] : *plane->mutable_stat_metadata()) {
    last_stat_metadata_id_ = std::max(last_stat_metadata_id_, id);
    stat_metadata_.emplace(metadata.name(), &metadata);
  }
  for (auto& line : *plane->mutable_lines()) lines_.emplace(line.id(), &line);
}

XEventMetadata* XPlaneBuilderLite::GetOrCreateEventMetadata(absl::string_view name) {
  XEventMetadata*& metadata = event_metadata_[name];
  if (metadata == nullptr) {
    int64_t id = ++last_event_metadata_id_;
    metadata = &(*plane_->mutable_event_metadata())[id];
    metadata->set_id(id);
    metadata->set_name(std::string(name));
  }
  return metadata;
}

XStatMetadata* XPlaneBuilderLite::GetOrCreateStatMetadata(absl::string_view name) {
  XStatMetadata*& metadata = stat_metadata_[name];
  if (metadata == nullptr) {
    int64_t id = ++last_stat_metadata_id_;
    metadata = &(*plane_->mutable_stat_metadata())[id];
    metadata->set_id(id);
    metadata->set_name(std::string(name));
  }
  return metadata;
}

XLine* XPlaneBuilderLite::GetOrCreateLine(int64_t id) {
  XLine*& line = lines_[id];
  if (line == nullptr) {
    line = plane_->add_lines();
    line->set_id(id);
    line->set_display_id(id);
  }
  return line;
}

void XPlaneBuilderLite::AddUint64Stat(XEvent* event, absl::string_view key, uint64_t v) {
  auto* stat = event->add_stats();
  stat->set_metadata_id(GetOrCreateStatMetadata(key)->id());
  stat->set_uint64_value(v);
}

void XPlaneBuilderLite::AddInt64Stat(XEvent* event, absl::string_view key, int64_t v) {
  auto* stat = event->add_stats();
  stat->set_metadata_id(GetOrCreateStatMetadata(key)->id());
  stat->set_int64_value(v);
}

void XPlaneBuilderLite::AddRefStat(XEvent* event, absl::string_view key,
                                   absl::string_view value) {
  auto* stat = event->add_stats();
  stat->set_metadata_id(GetOrCreateStatMetadata(key)->id());
  stat->set_ref_value(GetOrCreateStatMetadata(value)->id());
}

}  // namespace baseline
