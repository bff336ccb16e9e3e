// XLA's rocm_collector.cc design: one mutex per AddEvent, API and activity events in hash
// maps keyed by correlation id, the join at Flush(), per-device vectors, and the XPlane
// export through an XPlaneBuilder (docs/xla-interface.md#collector).
#include <cxxabi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rocm_tracer_baseline.h"
#include "xplane_builder_lite.h"

namespace baseline {

using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;

const char* GetRocmTracerEventTypeName(RocmTracerEventType type) {
  switch (type) {
    case RocmTracerEventType::Kernel: return "Kernel";
    case RocmTracerEventType::MemcpyH2D: return "MemcpyH2D";
    case RocmTracerEventType::MemcpyD2H: return "MemcpyD2H";
    case RocmTracerEventType::MemcpyD2D: return "MemcpyD2D";
    case RocmTracerEventType::MemcpyOther: return "MemcpyOther";
    case RocmTracerEventType::MemoryAlloc: return "MemoryAlloc";
    case RocmTracerEventType::MemoryFree: return "MemoryFree";
    case RocmTracerEventType::Memset: return "Memset";
    case RocmTracerEventType::Synchronization: return "Synchronization";
    case RocmTracerEventType::Generic: return "Generic";
    default: return "";
  }
}

namespace {

// XLA's PrintRocmTracerEvent: the event described into an ostringstream, which XLA builds on
// every call and then hands to VLOG(3); the flush calls it for every kernel activity. Here the
// text is built the same way and then discarded (the benchmark never logs).
void DescribeEvent(const RocmTracerEvent& event, absl::string_view message) {
  std::ostringstream oss;
  oss << "correlation_id=" << event.correlation_id
      << ",type=" << GetRocmTracerEventTypeName(event.type)
      << ",source=" << static_cast<int>(event.source)
      << ",domain=" << static_cast<int>(event.domain) << ",name=" << event.name
      << ",corr_id=" << event.correlation_id << ",annotation=" << event.annotation
      << ",start_time_us=" << (0 - event.start_time_ns) / 1000
      << ",duration=" << (event.end_time_ns - event.start_time_ns) / 1000
      << ",device_id=" << event.device_id << ",thread_id=" << event.thread_id
      << ",stream_id=" << event.stream_id;
  if (event.type == RocmTracerEventType::MemcpyD2H ||
      event.type == RocmTracerEventType::MemcpyH2D ||
      event.type == RocmTracerEventType::MemcpyD2D) {
    oss << ",num_bytes=" << event.memcpy_info.num_bytes
        << ",destination=" << event.memcpy_info.destination
        << ",async=" << event.memcpy_info.async;
  }
  static volatile size_t sink = 0;
  sink = sink + oss.str().size() + message.size();
}

// tsl::port::MaybeAbiDemangle, which XLA's export calls for every event's name.
std::string MaybeDemangle(const char* name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string out(demangled);
  std::free(demangled);
  return out;
}

bool IsMemcpy(RocmTracerEventType type) {
  return type == RocmTracerEventType::MemcpyH2D || type == RocmTracerEventType::MemcpyD2H ||
         type == RocmTracerEventType::MemcpyD2D || type == RocmTracerEventType::MemcpyP2P ||
         type == RocmTracerEventType::MemcpyOther;
}

std::string KernelDetailsString(const KernelDetails& k) {
  auto blocks = [](uint32_t grid, uint32_t wg) { return wg == 0 ? 0u : grid / wg; };
  return absl::StrCat(" grid:", blocks(k.grid_x, k.workgroup_x), ",",
                      blocks(k.grid_y, k.workgroup_y), ",", blocks(k.grid_z, k.workgroup_z),
                      " block:", k.workgroup_x, ",", k.workgroup_y, ",", k.workgroup_z,
                      " private_mem:", k.private_segment_size,
                      " group_mem:", k.group_segment_size, " occ_pct:", 0);
}

void CreateXEvent(const RocmTracerEvent& event, XPlaneBuilderLite* plane,
                  uint64_t start_gpu_ns, uint64_t end_gpu_ns,
                  tensorflow::profiler::XLine* line) {
  if (event.start_time_ns < start_gpu_ns || event.end_time_ns > end_gpu_ns ||
      event.start_time_ns > event.end_time_ns) {
    return;
  }
  std::string name = MaybeDemangle(event.name.c_str());
  if (name.empty()) name = GetRocmTracerEventTypeName(event.type);
  auto* metadata = plane->GetOrCreateEventMetadata(name);
  auto* xevent = line->add_events();
  xevent->set_metadata_id(metadata->id());
  xevent->set_offset_ps((event.start_time_ns - start_gpu_ns) * 1000);
  xevent->set_duration_ps((event.end_time_ns - event.start_time_ns) * 1000);
  if (event.source == RocmTracerEventSource::ApiCallback) {
    plane->AddUint64Stat(xevent, "device_id", event.device_id);
  }
  if (event.correlation_id != RocmTracerEvent::kInvalidCorrelationId) {
    plane->AddUint64Stat(xevent, "correlation_id", event.correlation_id);
  }
  if (event.scope_range_id != 0) {
    plane->AddInt64Stat(xevent, "scope_range_id", event.scope_range_id);
  }
  if (event.type == RocmTracerEventType::Kernel &&
      event.source == RocmTracerEventSource::Activity) {
    plane->AddRefStat(xevent, "kernel_details", KernelDetailsString(event.kernel_info));
  } else if (IsMemcpy(event.type) && event.type != RocmTracerEventType::MemcpyP2P) {
    plane->AddRefStat(xevent, "memcpy_details",
                      absl::StrCat("kind:Unknown size:", event.memcpy_info.num_bytes,
                                   " dest:", event.memcpy_info.destination,
                                   " async:", event.memcpy_info.async ? 1 : 0));
  }
  // XLA parses the annotation stack ("outer::inner#k=v#") for tf_op and the innermost
  // metadata of each key; done per event, even when the annotation is empty.
  std::vector<absl::string_view> annotation_stack;
  if (!event.annotation.empty()) {
    annotation_stack = absl::StrSplit(event.annotation, "::", absl::SkipEmpty());
  }
  if (!annotation_stack.empty()) {
    absl::string_view op = annotation_stack.front().substr(0, annotation_stack.front().find('#'));
    plane->AddRefStat(xevent, "tf_op", std::string(op));
  }
  absl::flat_hash_set<absl::string_view> key_set;
  for (auto it = annotation_stack.rbegin(); it != annotation_stack.rend(); ++it) {
    const size_t hash = it->find('#');
    if (hash == absl::string_view::npos) continue;
    absl::string_view rest = it->substr(hash + 1);
    if (!rest.empty() && rest.back() == '#') rest.remove_suffix(1);
    for (absl::string_view kv : absl::StrSplit(rest, ',', absl::SkipEmpty())) {
      const size_t eq = kv.find('=');
      if (eq == absl::string_view::npos) continue;
      if (key_set.insert(kv.substr(0, eq)).second) {
        plane->AddRefStat(xevent, std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
      }
    }
  }
}

}  // namespace

void PerDeviceCollector::AddEvent(RocmTracerEvent&& event) {
  absl::MutexLock lock(&events_mutex_);
  events_.emplace_back(std::move(event));
}

void PerDeviceCollector::Export(uint64_t start_walltime_ns, uint64_t start_gputime_ns,
                                uint64_t end_gputime_ns, XPlane* device_plane,
                                XPlane* host_plane) {
  absl::MutexLock lock(&events_mutex_);
  XPlaneBuilderLite device(device_plane);
  XPlaneBuilderLite host(host_plane);
  absl::flat_hash_map<uint64_t, int64_t> dense_stream;
  for (const auto& event : events_) {
    if (event.source == RocmTracerEventSource::Activity &&
        event.stream_id != RocmTracerEvent::kInvalidStreamId) {
      dense_stream.try_emplace(event.stream_id, static_cast<int64_t>(dense_stream.size()));
    }
  }
  for (const auto& event : events_) {
    const bool is_host = event.source == RocmTracerEventSource::ApiCallback;
    int64_t line_id;
    if (is_host) {
      line_id = static_cast<int64_t>(event.thread_id);
    } else {
      auto it = dense_stream.find(event.stream_id);
      line_id = it == dense_stream.end() ? static_cast<int64_t>(event.stream_id) : it->second;
    }
    if (line_id == -1) continue;
    XPlaneBuilderLite* builder = is_host ? &host : &device;
    auto* line = builder->GetOrCreateLine(line_id);
    line->set_timestamp_ns(start_gputime_ns);
    CreateXEvent(event, builder, start_gputime_ns, end_gputime_ns, line);
  }
  for (auto& line : *device_plane->mutable_lines()) {
    line.set_name(absl::StrCat("Stream #", line.id()));
  }
  for (auto& line : *host_plane->mutable_lines()) {
    line.set_name(absl::StrCat("Host Threads/", line.id()));
  }
  events_.clear();
  (void)start_walltime_ns;
}

RocmTraceCollector::RocmTraceCollector(const RocmTraceCollectorOptions& options,
                                       uint64_t start_walltime_ns, uint64_t start_gputime_ns)
    : options_(options),
      start_walltime_ns_(start_walltime_ns),
      start_gputime_ns_(start_gputime_ns),
      per_device_collector_(options.num_gpus) {}

void RocmTraceCollector::OnEventsDropped(const std::string&, uint32_t num_events) {
  num_dropped_ += num_events;
}

void RocmTraceCollector::AddEvent(RocmTracerEvent&& event, bool is_auxiliary) {
  absl::MutexLock lock(&event_maps_mutex_);
  if (event.source == RocmTracerEventSource::ApiCallback) {
    if (!is_auxiliary && num_callback_events_ >= options_.max_callback_api_events) return;
    if (!is_auxiliary) ++num_callback_events_;
    auto& map = is_auxiliary ? auxiliary_api_events_map_ : api_events_map_;
    const uint64_t correlation_id = event.correlation_id;
    if (!map.emplace(correlation_id, std::move(event)).second) {
      OnEventsDropped("event with duplicate correlation_id was received.", 1);
    }
  } else if (event.source == RocmTracerEventSource::Activity) {
    if (event.domain == RocmTracerEventDomain::HIP_API) {
      if (num_activity_events_ >= options_.max_activity_api_events) return;
      ++num_activity_events_;
    }
    activity_ops_events_map_[event.correlation_id].emplace_back(std::move(event));
  }
}

void RocmTraceCollector::ApiActivityInfoExchange(std::vector<RocmTracerEvent>* aggregated) {
  for (auto& [correlation_id, api_event] : api_events_map_) {
    auto it = activity_ops_events_map_.find(correlation_id);
    if (it == activity_ops_events_map_.end() || it->second.empty()) continue;
    const auto& activity = it->second.front();
    api_event.device_id = activity.device_id;
    api_event.stream_id = activity.stream_id;
    if (api_event.type == RocmTracerEventType::Kernel) {
      api_event.kernel_info = activity.kernel_info;
    } else if (IsMemcpy(api_event.type)) {
      api_event.memcpy_info = activity.memcpy_info;
    }
    switch (api_event.type) {
      case RocmTracerEventType::Kernel: case RocmTracerEventType::Memset:
      case RocmTracerEventType::MemoryAlloc: case RocmTracerEventType::MemoryFree:
      case RocmTracerEventType::Synchronization: case RocmTracerEventType::MemcpyH2D:
      case RocmTracerEventType::MemcpyD2H: case RocmTracerEventType::MemcpyD2D:
      case RocmTracerEventType::MemcpyP2P: case RocmTracerEventType::MemcpyOther:
        aggregated->push_back(api_event);
        break;
      default:
        break;
    }
  }
  for (auto& [correlation_id, activities] : activity_ops_events_map_) {
    const RocmTracerEvent* api = nullptr;
    if (auto it = api_events_map_.find(correlation_id); it != api_events_map_.end()) {
      api = &it->second;
    } else if (auto it = auxiliary_api_events_map_.find(correlation_id);
               it != auxiliary_api_events_map_.end()) {
      api = &it->second;
    }
    if (api == nullptr) continue;
    for (auto& activity : activities) {
      if (activity.type == RocmTracerEventType::Kernel) {
        activity.kernel_info = api->kernel_info;
        DescribeEvent(activity, ". activity event from api_event.");
      } else if (activity.type == RocmTracerEventType::Memset) {
        activity.memset_info = api->memset_info;
      } else if (activity.type == RocmTracerEventType::MemoryAlloc ||
                 activity.type == RocmTracerEventType::MemoryFree ||
                 activity.type == RocmTracerEventType::Synchronization) {
        activity.device_id = api->device_id;
      }
      aggregated->push_back(activity);
    }
  }
}

void RocmTraceCollector::Flush() {
  absl::MutexLock lock(&event_maps_mutex_);
  std::vector<RocmTracerEvent> aggregated;
  size_t total_activities = 0;
  for (const auto& [id, activities] : activity_ops_events_map_) total_activities += activities.size();
  aggregated.reserve(api_events_map_.size() + total_activities);
  ApiActivityInfoExchange(&aggregated);
  uint32_t min_device_id = INT32_MAX;
  for (const auto& event : aggregated) min_device_id = std::min(min_device_id, event.device_id);
  for (auto& event : aggregated) {
    const uint32_t id = event.device_id - min_device_id;
    if (id < options_.num_gpus) {
      per_device_collector_[id].AddEvent(std::move(event));
    } else {
      ++num_dropped_;
    }
  }
  api_events_map_.clear();
  auxiliary_api_events_map_.clear();
  activity_ops_events_map_.clear();
}

void RocmTraceCollector::Export(XSpace* space, uint64_t end_gputime_ns) {
  XPlane* host_plane = space->add_planes();
  host_plane->set_name("/host:ROCTRACER");
  for (uint32_t id = 0; id < options_.num_gpus; ++id) {
    XPlane* device_plane = space->add_planes();
    device_plane->set_name(absl::StrCat("/device:GPU:", id));
    device_plane->set_id(id);
    per_device_collector_[id].Export(start_walltime_ns_, start_gputime_ns_, end_gputime_ns,
                                     device_plane, host_plane);
    for (auto& line : *device_plane->mutable_lines()) line.set_timestamp_ns(start_walltime_ns_);
  }
  for (auto& line : *host_plane->mutable_lines()) line.set_timestamp_ns(start_walltime_ns_);
}

}  // namespace baseline
