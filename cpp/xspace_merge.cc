#include "xla-rocm-tracer/cpp/xspace_merge.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace xla {
namespace profiler {
namespace {

using tensorflow::profiler::XEvent;
using tensorflow::profiler::XLine;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;
using tensorflow::profiler::XStat;

using IdMap = absl::flat_hash_map<int64_t, int64_t>;

// Adds `from`'s metadata to `into`'s map (`by_name` of `into`), returning old id -> new id.
template <typename MetadataMap>
IdMap MergeMetadata(MetadataMap& from, MetadataMap* into) {
  absl::flat_hash_map<std::string, int64_t> id_by_name;
  int64_t next_id = 1;
  for (const auto& [id, metadata] : *into) {
    id_by_name.emplace(metadata.name(), id);
    next_id = std::max(next_id, id + 1);
  }
  IdMap remapped;
  for (auto& [old_id, metadata] : from) {
    auto existing = id_by_name.find(metadata.name());
    if (existing != id_by_name.end()) {
      remapped[old_id] = existing->second;
      continue;
    }
    const int64_t new_id = next_id++;
    remapped[old_id] = new_id;
    id_by_name.emplace(metadata.name(), new_id);
    auto& added = (*into)[new_id];
    added = std::move(metadata);
    added.set_id(new_id);
  }
  return remapped;
}

int64_t Remapped(const IdMap& ids, int64_t id) {
  auto it = ids.find(id);
  return it == ids.end() ? id : it->second;
}

void RemapStat(const IdMap& stat_ids, XStat* stat) {
  stat->set_metadata_id(Remapped(stat_ids, stat->metadata_id()));
  if (stat->value_case() == XStat::kRefValue) {
    stat->set_ref_value(
        static_cast<uint64_t>(Remapped(stat_ids, static_cast<int64_t>(stat->ref_value()))));
  }
}

void MergePlane(XPlane&& from, XPlane* into) {
  into->set_id(from.id());
  const IdMap stat_ids = MergeMetadata(*from.mutable_stat_metadata(), into->mutable_stat_metadata());
  // Event metadata stats refer to stat metadata, so remap them before moving them.
  for (auto& [id, metadata] : *from.mutable_event_metadata()) {
    for (XStat& stat : *metadata.mutable_stats()) RemapStat(stat_ids, &stat);
  }
  const IdMap event_ids =
      MergeMetadata(*from.mutable_event_metadata(), into->mutable_event_metadata());
  for (XStat& stat : *from.mutable_stats()) {
    RemapStat(stat_ids, &stat);
    *into->add_stats() = std::move(stat);
  }
  absl::flat_hash_map<int64_t, XLine*> lines_by_id;
  for (XLine& line : *into->mutable_lines()) lines_by_id.emplace(line.id(), &line);
  for (XLine& line : *from.mutable_lines()) {
    for (XEvent& event : *line.mutable_events()) {
      event.set_metadata_id(Remapped(event_ids, event.metadata_id()));
      for (XStat& stat : *event.mutable_stats()) RemapStat(stat_ids, &stat);
    }
    auto existing = lines_by_id.find(line.id());
    if (existing == lines_by_id.end()) {
      XLine* added = into->add_lines();
      *added = std::move(line);
      lines_by_id.emplace(added->id(), added);
      continue;
    }
    XLine* target = existing->second;
    if (target->name().empty()) target->set_name(line.name());
    for (XEvent& event : *line.mutable_events()) *target->add_events() = std::move(event);
  }
}

}  // namespace

void MergeXSpace(XSpace&& from, XSpace* into) {
  for (XPlane& plane : *from.mutable_planes()) {
    XPlane* target = nullptr;
    for (XPlane& existing : *into->mutable_planes()) {
      if (existing.name() == plane.name()) {
        target = &existing;
        break;
      }
    }
    if (target == nullptr) {
      *into->add_planes() = std::move(plane);
    } else {
      MergePlane(std::move(plane), target);
    }
  }
  for (std::string& error : *from.mutable_errors()) into->add_errors(std::move(error));
  for (std::string& warning : *from.mutable_warnings()) into->add_warnings(std::move(warning));
  for (std::string& host : *from.mutable_hostnames()) into->add_hostnames(std::move(host));
}

}  // namespace profiler
}  // namespace xla
