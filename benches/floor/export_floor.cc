// The export's floor: the least any tracer does to hand its caller the XSpace of a trace it
// has already joined. The C++ XSpace the caller receives (XLA's CollectData passes one in),
// every message in it allocated and filled, then serialized and written as the XLA path's
// `xla_path_write_xspace` does (benches/xla-path/xla_path.cc). What XLA's schema puts in it
// (a kernel's details and occupancy as separate XStats on each event) is every tracer's cost.
//
// The trace is the XLA path's own export of the same drain (the file named by
// BENCH_EXPORT_FLOOR_FROM, which run.sh wrote just before), read at enable, before anything
// is measured, into plain arrays: the joined events of each line (metadata id, offset,
// duration, a range of stats), the lines, the planes with their metadata, one string pool.
// So the floor writes the same planes, lines, events and stats as ours, and the harness checks
// the count (BENCH_SAME_XSPACE_AS). The measured region (the harness's flush_and_export) is
// `export_floor_disable` (the floor's registration: stop and flush, nothing stored) and
// `export_floor_write_xspace`: build, serialize, write, destroy.
//
// The hot-path side of the floor (floor.cc) is linked in unchanged for the registration and
// the callbacks; its own library (libhot_path_floor.so) stays without protobuf.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tsl/profiler/protobuf/xplane.pb.h"

extern "C" int floor_enable();
extern "C" int floor_disable();
extern "C" void floor_push_annotation(const char* name);
extern "C" void floor_pop_annotation();

namespace {

namespace xp = ::tensorflow::profiler;

struct Text {  // a string of JoinedTrace::text
  uint32_t start = 0;
  uint32_t len = 0;
};
struct Range {  // items of one of JoinedTrace's arrays
  uint32_t first = 0;
  uint32_t count = 0;
};
struct Stat {
  int64_t metadata_id = 0;
  xp::XStat::ValueCase kind = xp::XStat::VALUE_NOT_SET;
  uint64_t number = 0;  // int64, uint64, ref or a double's bits
  double real = 0;
  Text text;  // str or bytes
};
// One event as a tracer holds it after the join, in its line's order.
struct JoinedEvent {
  int64_t metadata_id = 0;
  bool occurrences = false;  // `at` is num_occurrences, not offset_ps
  int64_t at = 0;
  int64_t duration_ps = 0;
  Range stats;
};
struct Line {
  int64_t id = 0, display_id = 0, timestamp_ns = 0, duration_ps = 0;
  Text name, display_name;
  Range events;
};
struct EventMetadata {
  int64_t id = 0;
  Text name, display_name, metadata;
  Range stats, child_ids;
};
struct StatMetadata {
  int64_t id = 0;
  Text name, description;
};
struct Plane {
  int64_t id = 0;
  Text name;
  Range lines, event_metadata, stat_metadata, stats;
};
struct JoinedTrace {
  std::string text;
  std::vector<Plane> planes;
  std::vector<Line> lines;
  std::vector<JoinedEvent> events;
  std::vector<Stat> stats;
  std::vector<EventMetadata> event_metadata;
  std::vector<StatMetadata> stat_metadata;
  std::vector<int64_t> child_ids;
  std::vector<Text> errors, warnings, hostnames;
};

JoinedTrace g_trace;
bool g_ready = false;

// ---- before the measured region: the XLA path's file into plain arrays ----

Text Keep(JoinedTrace& t, const std::string& s) {
  Text text{static_cast<uint32_t>(t.text.size()), static_cast<uint32_t>(s.size())};
  t.text += s;
  return text;
}

template <typename T>
Range RangeFrom(const std::vector<T>& column, size_t first) {
  return Range{static_cast<uint32_t>(first), static_cast<uint32_t>(column.size() - first)};
}

template <typename Stats>
Range KeepStats(JoinedTrace& t, const Stats& stats) {
  const size_t first = t.stats.size();
  for (const xp::XStat& from : stats) {
    Stat stat;
    stat.metadata_id = from.metadata_id();
    stat.kind = from.value_case();
    switch (from.value_case()) {
      case xp::XStat::kDoubleValue: stat.real = from.double_value(); break;
      case xp::XStat::kUint64Value: stat.number = from.uint64_value(); break;
      case xp::XStat::kInt64Value: stat.number = static_cast<uint64_t>(from.int64_value()); break;
      case xp::XStat::kRefValue: stat.number = from.ref_value(); break;
      case xp::XStat::kStrValue: stat.text = Keep(t, from.str_value()); break;
      case xp::XStat::kBytesValue: stat.text = Keep(t, from.bytes_value()); break;
      default: break;
    }
    t.stats.push_back(stat);
  }
  return RangeFrom(t.stats, first);
}

void KeepPlane(JoinedTrace& t, const xp::XPlane& from) {
  Plane plane;
  plane.id = from.id();
  plane.name = Keep(t, from.name());
  const size_t first_line = t.lines.size();
  for (const xp::XLine& from_line : from.lines()) {
    Line line;
    line.id = from_line.id();
    line.display_id = from_line.display_id();
    line.name = Keep(t, from_line.name());
    line.display_name = Keep(t, from_line.display_name());
    line.timestamp_ns = from_line.timestamp_ns();
    line.duration_ps = from_line.duration_ps();
    const size_t first_event = t.events.size();
    for (const xp::XEvent& from_event : from_line.events()) {
      JoinedEvent event;
      event.metadata_id = from_event.metadata_id();
      event.occurrences = from_event.data_case() == xp::XEvent::kNumOccurrences;
      event.at = event.occurrences ? from_event.num_occurrences() : from_event.offset_ps();
      event.duration_ps = from_event.duration_ps();
      event.stats = KeepStats(t, from_event.stats());
      t.events.push_back(event);
    }
    line.events = RangeFrom(t.events, first_event);
    t.lines.push_back(line);
  }
  plane.lines = RangeFrom(t.lines, first_line);
  const size_t first_metadata = t.event_metadata.size();
  for (const auto& [id, from_metadata] : from.event_metadata()) {
    EventMetadata metadata;
    metadata.id = id;
    metadata.name = Keep(t, from_metadata.name());
    metadata.display_name = Keep(t, from_metadata.display_name());
    metadata.metadata = Keep(t, from_metadata.metadata());
    metadata.stats = KeepStats(t, from_metadata.stats());
    const size_t first_child = t.child_ids.size();
    for (int64_t child : from_metadata.child_id()) t.child_ids.push_back(child);
    metadata.child_ids = RangeFrom(t.child_ids, first_child);
    t.event_metadata.push_back(metadata);
  }
  plane.event_metadata = RangeFrom(t.event_metadata, first_metadata);
  const size_t first_stat_metadata = t.stat_metadata.size();
  for (const auto& [id, from_metadata] : from.stat_metadata()) {
    t.stat_metadata.push_back(
        StatMetadata{id, Keep(t, from_metadata.name()), Keep(t, from_metadata.description())});
  }
  plane.stat_metadata = RangeFrom(t.stat_metadata, first_stat_metadata);
  plane.stats = KeepStats(t, from.stats());
  t.planes.push_back(plane);
}

bool ReadJoinedTrace(const char* path, JoinedTrace& t) {
  std::ifstream file(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  xp::XSpace space;
  if (!file || !space.ParseFromString(bytes)) return false;
  for (const xp::XPlane& plane : space.planes()) KeepPlane(t, plane);
  for (const std::string& s : space.errors()) t.errors.push_back(Keep(t, s));
  for (const std::string& s : space.warnings()) t.warnings.push_back(Keep(t, s));
  for (const std::string& s : space.hostnames()) t.hostnames.push_back(Keep(t, s));
  return true;
}

// ---- the measured region: the XSpace from the arrays ----

void Assign(const JoinedTrace& t, Text text, std::string* to) {
  to->assign(t.text.data() + text.start, text.len);
}

template <typename Stats>
void AddStats(const JoinedTrace& t, Range range, Stats* stats) {
  stats->Reserve(static_cast<int>(range.count));
  for (uint32_t i = range.first; i < range.first + range.count; ++i) {
    const Stat& from = t.stats[i];
    xp::XStat* stat = stats->Add();
    stat->set_metadata_id(from.metadata_id);
    switch (from.kind) {
      case xp::XStat::kDoubleValue: stat->set_double_value(from.real); break;
      case xp::XStat::kUint64Value: stat->set_uint64_value(from.number); break;
      case xp::XStat::kInt64Value: stat->set_int64_value(static_cast<int64_t>(from.number)); break;
      case xp::XStat::kRefValue: stat->set_ref_value(from.number); break;
      case xp::XStat::kStrValue: Assign(t, from.text, stat->mutable_str_value()); break;
      case xp::XStat::kBytesValue: Assign(t, from.text, stat->mutable_bytes_value()); break;
      default: break;
    }
  }
}

void BuildLine(const JoinedTrace& t, const Line& from, xp::XLine* line) {
  line->set_id(from.id);
  line->set_display_id(from.display_id);
  Assign(t, from.name, line->mutable_name());
  Assign(t, from.display_name, line->mutable_display_name());
  line->set_timestamp_ns(from.timestamp_ns);
  line->set_duration_ps(from.duration_ps);
  line->mutable_events()->Reserve(static_cast<int>(from.events.count));
  for (uint32_t i = from.events.first; i < from.events.first + from.events.count; ++i) {
    const JoinedEvent& joined = t.events[i];
    xp::XEvent* event = line->add_events();
    event->set_metadata_id(joined.metadata_id);
    if (joined.occurrences) {
      event->set_num_occurrences(joined.at);
    } else {
      event->set_offset_ps(joined.at);
    }
    event->set_duration_ps(joined.duration_ps);
    AddStats(t, joined.stats, event->mutable_stats());
  }
}

void BuildPlane(const JoinedTrace& t, const Plane& from, xp::XPlane* plane) {
  plane->set_id(from.id);
  Assign(t, from.name, plane->mutable_name());
  plane->mutable_lines()->Reserve(static_cast<int>(from.lines.count));
  for (uint32_t i = from.lines.first; i < from.lines.first + from.lines.count; ++i) {
    BuildLine(t, t.lines[i], plane->add_lines());
  }
  auto& event_metadata = *plane->mutable_event_metadata();
  for (uint32_t i = from.event_metadata.first;
       i < from.event_metadata.first + from.event_metadata.count; ++i) {
    const EventMetadata& m = t.event_metadata[i];
    xp::XEventMetadata& metadata = event_metadata[m.id];
    metadata.set_id(m.id);
    Assign(t, m.name, metadata.mutable_name());
    Assign(t, m.display_name, metadata.mutable_display_name());
    Assign(t, m.metadata, metadata.mutable_metadata());
    AddStats(t, m.stats, metadata.mutable_stats());
    for (uint32_t c = m.child_ids.first; c < m.child_ids.first + m.child_ids.count; ++c) {
      metadata.add_child_id(t.child_ids[c]);
    }
  }
  auto& stat_metadata = *plane->mutable_stat_metadata();
  for (uint32_t i = from.stat_metadata.first;
       i < from.stat_metadata.first + from.stat_metadata.count; ++i) {
    const StatMetadata& m = t.stat_metadata[i];
    xp::XStatMetadata& metadata = stat_metadata[m.id];
    metadata.set_id(m.id);
    Assign(t, m.name, metadata.mutable_name());
    Assign(t, m.description, metadata.mutable_description());
  }
  AddStats(t, from.stats, plane->mutable_stats());
}

void BuildXSpace(const JoinedTrace& t, xp::XSpace* space) {
  space->mutable_planes()->Reserve(static_cast<int>(t.planes.size()));
  for (const Plane& plane : t.planes) BuildPlane(t, plane, space->add_planes());
  for (Text s : t.errors) Assign(t, s, space->add_errors());
  for (Text s : t.warnings) Assign(t, s, space->add_warnings());
  for (Text s : t.hostnames) Assign(t, s, space->add_hostnames());
}

}  // namespace

// The floor's registration and callbacks (floor.cc), and the joined trace read before the
// drain.
extern "C" int export_floor_enable() {
  const char* path = std::getenv("BENCH_EXPORT_FLOOR_FROM");
  if (path != nullptr && *path != '\0' && !g_ready) {
    if (!ReadJoinedTrace(path, g_trace)) {
      std::fprintf(stderr, "export floor: cannot read the XSpace %s\n", path);
      return 1;
    }
    g_ready = true;
  }
  return floor_enable();
}

extern "C" int export_floor_disable() { return floor_disable(); }

// As xla_path_write_xspace: the caller's XSpace, filled, serialized, written.
extern "C" int export_floor_write_xspace(const char* path) {
  if (!g_ready) return 8;  // no BENCH_EXPORT_FLOOR_FROM: nothing joined to export
  xp::XSpace space;
  BuildXSpace(g_trace, &space);
  std::string bytes;
  if (!space.SerializeToString(&bytes)) return 3;
  FILE* file = std::fopen(path, "wb");
  if (file == nullptr) return 6;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && ok ? 0 : 6;
}

extern "C" void export_floor_push_annotation(const char* name) { floor_push_annotation(name); }

extern "C" void export_floor_pop_annotation() { floor_pop_annotation(); }
