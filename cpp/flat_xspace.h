// Builds XSpace planes from the columns the Rust export hands over (FlatXSpace,
// src/ffi/flat_xspace.rs), field by field with each repeated field reserved: no encode in
// Rust, no parse here. Which fields exist and what they hold is the Rust side's; this file
// only copies them.
// Header-only, so the build files of the shims need no new source.
#ifndef XLA_ROCM_TRACER_CPP_FLAT_XSPACE_H_
#define XLA_ROCM_TRACER_CPP_FLAT_XSPACE_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "tsl/profiler/protobuf/xplane.pb.h"
#include "xla-rocm-tracer/src/ffi/flat_xspace.rs.h"

namespace xla {
namespace profiler {
namespace flat_xspace {

namespace bridge = ::xla::profiler::rust_bridge;

// A span of `flat.text` as a string. Spans come from the Rust side, which made them inside
// `text`; one that is not reads as empty rather than past the end.
inline std::string TextOf(const bridge::FlatXSpace& flat, const bridge::Span& span) {
  if (span.start > flat.text.size() || span.len > flat.text.size() - span.start) return {};
  return std::string(reinterpret_cast<const char*>(flat.text.data()) + span.start, span.len);
}

// Calls `each` on the items of `span` of `column` (none if the span is out of it).
template <typename T, typename F>
void ForEachIn(const rust::Vec<T>& column, const bridge::Span& span, F each) {
  if (span.start > column.size() || span.len > column.size() - span.start) return;
  for (size_t i = span.start; i < span.start + span.len; ++i) each(column[i]);
}

template <typename Stats>
void AddStats(const bridge::FlatXSpace& flat, const bridge::Span& span, Stats* stats) {
  stats->Reserve(stats->size() + static_cast<int>(span.len));
  ForEachIn(flat.stats, span, [&](const bridge::FlatXStat& from) {
    tensorflow::profiler::XStat* stat = stats->Add();
    stat->set_metadata_id(from.metadata_id);
    switch (from.kind) {
      case bridge::XStatValueKind::Double: {
        double value;
        std::memcpy(&value, &from.number, sizeof(value));
        stat->set_double_value(value);
        break;
      }
      case bridge::XStatValueKind::Uint64:
        stat->set_uint64_value(from.number);
        break;
      case bridge::XStatValueKind::Int64:
        stat->set_int64_value(static_cast<int64_t>(from.number));
        break;
      case bridge::XStatValueKind::Str:
        stat->set_str_value(TextOf(flat, from.text));
        break;
      case bridge::XStatValueKind::Bytes:
        stat->set_bytes_value(TextOf(flat, from.text));
        break;
      case bridge::XStatValueKind::Ref:
        stat->set_ref_value(from.number);
        break;
      default:
        break;
    }
  });
}

inline void FillLine(const bridge::FlatXSpace& flat, const bridge::FlatXLine& from,
                     tensorflow::profiler::XLine* line) {
  line->set_id(from.id);
  line->set_display_id(from.display_id);
  line->set_name(TextOf(flat, from.name));
  line->set_display_name(TextOf(flat, from.display_name));
  line->set_timestamp_ns(from.timestamp_ns);
  line->set_duration_ps(from.duration_ps);
  line->mutable_events()->Reserve(static_cast<int>(from.events.len));
  ForEachIn(flat.events, from.events, [&](const bridge::FlatXEvent& from_event) {
    tensorflow::profiler::XEvent* event = line->add_events();
    event->set_metadata_id(from_event.metadata_id);
    if (from_event.data == 1) event->set_offset_ps(from_event.data_value);
    if (from_event.data == 2) event->set_num_occurrences(from_event.data_value);
    event->set_duration_ps(from_event.duration_ps);
    AddStats(flat, from_event.stats, event->mutable_stats());
  });
}

// Fills `plane` (a new, empty one) with `from`.
inline void FillPlane(const bridge::FlatXSpace& flat, const bridge::FlatXPlane& from,
                      tensorflow::profiler::XPlane* plane) {
  plane->set_id(from.id);
  plane->set_name(TextOf(flat, from.name));
  plane->mutable_lines()->Reserve(static_cast<int>(from.lines.len));
  ForEachIn(flat.lines, from.lines,
            [&](const bridge::FlatXLine& line) { FillLine(flat, line, plane->add_lines()); });
  auto& event_metadata = *plane->mutable_event_metadata();
  ForEachIn(flat.event_metadata, from.event_metadata, [&](const bridge::FlatXEventMetadata& m) {
    tensorflow::profiler::XEventMetadata& metadata = event_metadata[m.id];
    metadata.set_id(m.id);
    metadata.set_name(TextOf(flat, m.name));
    metadata.set_display_name(TextOf(flat, m.display_name));
    metadata.set_metadata(TextOf(flat, m.metadata));
    AddStats(flat, m.stats, metadata.mutable_stats());
    ForEachIn(flat.child_ids, m.child_ids, [&](int64_t child) { metadata.add_child_id(child); });
  });
  auto& stat_metadata = *plane->mutable_stat_metadata();
  ForEachIn(flat.stat_metadata, from.stat_metadata, [&](const bridge::FlatXStatMetadata& m) {
    tensorflow::profiler::XStatMetadata& metadata = stat_metadata[m.id];
    metadata.set_id(m.id);
    metadata.set_name(TextOf(flat, m.name));
    metadata.set_description(TextOf(flat, m.description));
  });
  AddStats(flat, from.stats, plane->mutable_stats());
}

}  // namespace flat_xspace
}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_FLAT_XSPACE_H_
