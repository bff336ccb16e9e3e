/* Stand-in for XLA's xla/tsl/profiler/utils/xplane_builder.h: the subset of the builder API
   the drop-in uses (PerDeviceCollector writes into caller-owned planes through it), with the
   same names and signatures as tsl's, implemented inline over the XPlane protos. Inside XLA
   the real header and library are used. */
#ifndef XLA_TSL_PROFILER_UTILS_XPLANE_BUILDER_H_
#define XLA_TSL_PROFILER_UTILS_XPLANE_BUILDER_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "tsl/profiler/protobuf/xplane.pb.h"

namespace tsl {
namespace profiler {

using tensorflow::profiler::XEvent;
using tensorflow::profiler::XEventMetadata;
using tensorflow::profiler::XLine;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;
using tensorflow::profiler::XStat;
using tensorflow::profiler::XStatMetadata;

class XPlaneBuilder;

template <typename T>
class XStatsBuilder {
 public:
  explicit XStatsBuilder(T* stats_owner, XPlaneBuilder* stats_metadata_owner)
      : stats_owner_(stats_owner), stats_metadata_owner_(stats_metadata_owner) {}

  void AddStatValue(const XStatMetadata& metadata, int64_t value) {
    AddStat(metadata)->set_int64_value(value);
  }
  void AddStatValue(const XStatMetadata& metadata, uint64_t value) {
    AddStat(metadata)->set_uint64_value(value);
  }
  void AddStatValue(const XStatMetadata& metadata, double value) {
    AddStat(metadata)->set_double_value(value);
  }
  void AddStatValue(const XStatMetadata& metadata, absl::string_view value) {
    AddStat(metadata)->set_str_value(std::string(value));
  }
  void AddStatValue(const XStatMetadata& metadata, const XStatMetadata& value) {
    AddStat(metadata)->set_ref_value(value.id());
  }

  // Copies `src_stat` of `src_plane`; a reference is re-created in this builder's plane.
  void AddStat(const XStatMetadata& metadata, const XStat& src_stat, const XPlane& src_plane);

 protected:
  XStat* AddStat(const XStatMetadata& metadata) {
    XStat* stat = stats_owner_->add_stats();
    stat->set_metadata_id(metadata.id());
    return stat;
  }

 private:
  T* stats_owner_;
  XPlaneBuilder* stats_metadata_owner_;
};

class XEventBuilder : public XStatsBuilder<XEvent> {
 public:
  XEventBuilder(XEvent* event, XPlaneBuilder* plane)
      : XStatsBuilder<XEvent>(event, plane), event_(event) {}
  int64_t OffsetPs() const { return event_->offset_ps(); }
  int64_t DurationPs() const { return event_->duration_ps(); }
  int64_t MetadataId() const { return event_->metadata_id(); }
  void SetOffsetPs(int64_t offset_ps) { event_->set_offset_ps(offset_ps); }
  void SetDurationPs(int64_t duration_ps) { event_->set_duration_ps(duration_ps); }

 private:
  XEvent* event_;
};

class XLineBuilder {
 public:
  explicit XLineBuilder(XLine* line, XPlaneBuilder* plane) : line_(line), plane_(plane) {}
  int64_t Id() const { return line_->id(); }
  void SetId(int64_t id) { line_->set_id(id); }
  void SetDisplayId(int64_t display_id) { line_->set_display_id(display_id); }
  int64_t NumEvents() const { return line_->events_size(); }
  absl::string_view Name() const { return line_->name(); }
  void SetName(absl::string_view name) { line_->set_name(std::string(name)); }
  void SetDisplayNameIfEmpty(absl::string_view display_name) {
    if (line_->display_name().empty()) line_->set_display_name(std::string(display_name));
  }
  int64_t TimestampNs() const { return line_->timestamp_ns(); }
  void SetTimestampNs(int64_t timestamp_ns) { line_->set_timestamp_ns(timestamp_ns); }
  void SetDurationPs(int64_t duration_ps) { line_->set_duration_ps(duration_ps); }
  XEventBuilder AddEvent(const XEventMetadata& metadata) {
    XEvent* event = line_->add_events();
    event->set_metadata_id(metadata.id());
    return XEventBuilder(event, plane_);
  }

 private:
  XLine* line_;
  XPlaneBuilder* plane_;
};

class XPlaneBuilder : public XStatsBuilder<XPlane> {
 public:
  explicit XPlaneBuilder(XPlane* plane) : XStatsBuilder<XPlane>(plane, this), plane_(plane) {}
  int64_t Id() const { return plane_->id(); }
  void SetId(int64_t id) { plane_->set_id(id); }
  absl::string_view Name() const { return plane_->name(); }
  void SetName(absl::string_view name) { plane_->set_name(std::string(name)); }

  XLineBuilder GetOrCreateLine(int64_t line_id) {
    for (XLine& line : *plane_->mutable_lines()) {
      if (line.id() == line_id) return XLineBuilder(&line, this);
    }
    XLine* line = plane_->add_lines();
    line->set_id(line_id);
    return XLineBuilder(line, this);
  }

  // Metadata ids start at 1, as tsl's (0 means "none" in XEvent.metadata_id).
  XEventMetadata* GetOrCreateEventMetadata(absl::string_view name) {
    for (auto& [id, metadata] : *plane_->mutable_event_metadata()) {
      if (metadata.name() == name) return &metadata;
    }
    int64_t id = 1;
    for (const auto& entry : plane_->event_metadata()) id = std::max(id, entry.first + 1);
    XEventMetadata& metadata = (*plane_->mutable_event_metadata())[id];
    metadata.set_id(id);
    metadata.set_name(std::string(name));
    return &metadata;
  }

  XStatMetadata* GetOrCreateStatMetadata(absl::string_view name) {
    for (auto& [id, metadata] : *plane_->mutable_stat_metadata()) {
      if (metadata.name() == name) return &metadata;
    }
    int64_t id = 1;
    for (const auto& entry : plane_->stat_metadata()) id = std::max(id, entry.first + 1);
    XStatMetadata& metadata = (*plane_->mutable_stat_metadata())[id];
    metadata.set_id(id);
    metadata.set_name(std::string(name));
    return &metadata;
  }

 private:
  XPlane* plane_;
};

template <typename T>
void XStatsBuilder<T>::AddStat(const XStatMetadata& metadata, const XStat& src_stat,
                               const XPlane& src_plane) {
  XStat* stat = AddStat(metadata);
  switch (src_stat.value_case()) {
    case XStat::kRefValue: {
      auto referenced = src_plane.stat_metadata().find(src_stat.ref_value());
      if (referenced != src_plane.stat_metadata().end()) {
        stat->set_ref_value(
            stats_metadata_owner_->GetOrCreateStatMetadata(referenced->second.name())->id());
      }
      break;
    }
    default:
      *stat = src_stat;
      stat->set_metadata_id(metadata.id());
      break;
  }
}

}  // namespace profiler
}  // namespace tsl

#endif  // XLA_TSL_PROFILER_UTILS_XPLANE_BUILDER_H_
