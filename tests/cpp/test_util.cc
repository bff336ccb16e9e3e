#include "test_util.h"

#include <string>

namespace xla {
namespace profiler {
namespace test {

RocmTraceCollectorOptions Options(uint32_t num_gpus, uint64_t cap) {
  RocmTraceCollectorOptions options;
  options.max_callback_api_events = cap;
  options.max_activity_api_events = cap;
  options.max_annotation_strings = cap;
  options.num_gpus = num_gpus;
  return options;
}

RocmTracerEvent ApiEvent(RocmTracerEventType type, const std::string& name,
                         uint64_t correlation_id, uint64_t thread_id) {
  RocmTracerEvent event;
  event.type = type;
  event.source = RocmTracerEventSource::ApiCallback;
  event.domain = RocmTracerEventDomain::HIP_API;
  event.name = name;
  event.correlation_id = correlation_id;
  event.thread_id = thread_id;
  event.kernel_info = KernelDetails{};
  return event;
}

RocmTracerEvent KernelActivity(const std::string& name, uint64_t correlation_id,
                               uint64_t start_ns, uint64_t end_ns, uint32_t device_id,
                               uint64_t stream_id) {
  RocmTracerEvent event;
  event.type = RocmTracerEventType::Kernel;
  event.source = RocmTracerEventSource::Activity;
  event.domain = RocmTracerEventDomain::HIP_OPS;
  event.name = name;
  event.correlation_id = correlation_id;
  event.start_time_ns = start_ns;
  event.end_time_ns = end_ns;
  event.device_id = device_id;
  event.stream_id = stream_id;
  event.kernel_info = KernelDetails{};
  return event;
}

RocmTracerEvent MemcpyActivity(RocmTracerEventType type, uint64_t correlation_id,
                               uint64_t start_ns, uint64_t end_ns, uint32_t device_id,
                               uint64_t stream_id, size_t bytes) {
  RocmTracerEvent event =
      KernelActivity(GetRocmTracerEventTypeName(type), correlation_id, start_ns, end_ns,
                     device_id, stream_id);
  event.type = type;
  event.memcpy_info = MemcpyDetails{bytes, device_id, false};
  return event;
}

const XPlane* FindPlane(const XSpace& space, const std::string& name) {
  for (const XPlane& plane : space.planes()) {
    if (plane.name() == name) return &plane;
  }
  return nullptr;
}

const XLine* FindLine(const XPlane& plane, const std::string& name) {
  for (const XLine& line : plane.lines()) {
    if (line.name() == name) return &line;
  }
  return nullptr;
}

std::string EventName(const XPlane& plane, const XEvent& event) {
  auto it = plane.event_metadata().find(event.metadata_id());
  return it == plane.event_metadata().end() ? "" : it->second.name();
}

namespace {

std::map<std::string, std::string> Stats(
    const XPlane& plane,
    const google::protobuf::RepeatedPtrField<tensorflow::profiler::XStat>& stats) {
  std::map<std::string, std::string> out;
  auto name_of = [&](int64_t id) -> std::string {
    auto it = plane.stat_metadata().find(id);
    return it == plane.stat_metadata().end() ? "<missing>" : it->second.name();
  };
  for (const auto& stat : stats) {
    std::string value;
    switch (stat.value_case()) {
      case tensorflow::profiler::XStat::kRefValue:
        value = name_of(static_cast<int64_t>(stat.ref_value()));
        break;
      case tensorflow::profiler::XStat::kStrValue:
        value = stat.str_value();
        break;
      case tensorflow::profiler::XStat::kUint64Value:
        value = std::to_string(stat.uint64_value());
        break;
      case tensorflow::profiler::XStat::kInt64Value:
        value = std::to_string(stat.int64_value());
        break;
      case tensorflow::profiler::XStat::kDoubleValue:
        value = std::to_string(stat.double_value());
        break;
      default:
        value = "<other>";
    }
    out[name_of(stat.metadata_id())] = value;
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> EventStats(const XPlane& plane, const XEvent& event) {
  return Stats(plane, event.stats());
}

std::map<std::string, std::string> PlaneStats(const XPlane& plane) {
  return Stats(plane, plane.stats());
}

std::vector<std::string> LineNames(const XPlane& plane) {
  std::vector<std::string> names;
  for (const XLine& line : plane.lines()) names.push_back(line.name());
  return names;
}

size_t EventCount(const XPlane& plane) {
  size_t count = 0;
  for (const XLine& line : plane.lines()) count += line.events_size();
  return count;
}

}  // namespace test
}  // namespace profiler
}  // namespace xla
