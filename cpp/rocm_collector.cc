// XLA's collectors as thin shims over the Rust collector (src/collector/) and export
// (src/export/); docs/ARCHITECTURE.md draws the flow. No rule of collecting or exporting lives
// here: caps, duplicate ids, the join, device numbering, drop counting and the XSpace (names,
// stats, merging into a plane that already exists) are the Rust core's.
//
//  * CreateRocmCollector returns a RustBackedCollector: it owns a Rust SessionCollector, and a
//    tracer session enabled with it delivers straight into Rust (cpp/rocm_tracer.cc). Its
//    Export crosses once, for the XSpace as columns (cpp/flat_xspace.h builds the planes).
//  * XLA's RocmTraceCollectorImpl (which C++ code builds itself: XLA's tests do, and subclass
//    it) and PerDeviceCollector keep their events in the members XLA's header declares for
//    them and cross once, at Export, through a Rust SessionCollector of that call.
#include "xla/backends/profiler/gpu/rocm_collector.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "xla-rocm-tracer/cpp/absl_compat.h"
#include "xla-rocm-tracer/cpp/event_bridge.h"
#include "xla-rocm-tracer/cpp/flat_xspace.h"
#include "xla-rocm-tracer/cpp/log.h"
#include "xla-rocm-tracer/cpp/session_collector.h"
#include "xla-rocm-tracer/cpp/xplane_copy.h"
#include "xla-rocm-tracer/src/ffi/collector.rs.h"
#include "xla-rocm-tracer/src/ffi/tracer.rs.h"

namespace xla {
namespace profiler {
namespace {

namespace bridge = ::xla::profiler::rust_bridge;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;

bridge::CollectorConfig ConfigOf(const RocmTraceCollectorOptions& options,
                                 uint64_t start_walltime_ns, uint64_t start_gputime_ns) {
  bridge::CollectorConfig config;
  config.max_callback_api_events = options.max_callback_api_events;
  config.max_activity_api_events = options.max_activity_api_events;
  config.max_annotation_strings = options.max_annotation_strings;
  config.num_gpus = options.num_gpus;
  config.start_walltime_ns = start_walltime_ns;
  config.start_gputime_ns = start_gputime_ns;
  return config;
}

rust::Slice<const uint8_t> BytesOf(const std::string& bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

void SetAgents(bridge::SessionCollector& rust, const std::vector<rocprofiler_agent_v0_t>& agents) {
  // SAFETY of the bridge call: the vector holds agents.size() structs of the size passed.
  rust.set_gpu_agents(reinterpret_cast<const uint8_t*>(agents.data()), agents.size(),
                      sizeof(rocprofiler_agent_v0_t));
}

void AddScopeRangeTree(bridge::SessionCollector& rust, const ScopeRangeIdTree& tree) {
  std::vector<bridge::ScopeRangeEdge> edges;
  edges.reserve(tree.size());
  for (const auto& [child, parent] : tree) edges.push_back(bridge::ScopeRangeEdge{child, parent});
  rust.add_scope_range_edges(rust::Slice<const bridge::ScopeRangeEdge>(edges.data(), edges.size()));
}

// Adds the planes of `flat` (the Rust export's XSpace, as columns) to `into`. A plane whose
// name `into` already has (an export into a space that holds one already) is merged by the
// Rust export's rule.
void MergeInto(const bridge::FlatXSpace& flat, XSpace* into) {
  using flat_xspace::TextOf;
  into->mutable_planes()->Reserve(into->planes_size() + static_cast<int>(flat.planes.size()));
  for (const bridge::FlatXPlane& from : flat.planes) {
    const std::string name = TextOf(flat, from.name);
    XPlane* existing = nullptr;
    for (XPlane& candidate : *into->mutable_planes()) {
      if (candidate.name() == name) {
        existing = &candidate;
        break;
      }
    }
    if (existing == nullptr) {
      flat_xspace::FillPlane(flat, from, into->add_planes());
      continue;
    }
    XPlane plane;
    flat_xspace::FillPlane(flat, from, &plane);
    const std::string into_bytes = existing->SerializeAsString();
    const std::string from_bytes = plane.SerializeAsString();
    bridge::Bytes merged = bridge::merge_xplanes(BytesOf(into_bytes), BytesOf(from_bytes));
    if (merged.status.code != bridge::StatusCode::Ok ||
        !existing->ParseFromArray(merged.bytes.data(), static_cast<int>(merged.bytes.size()))) {
      into->add_errors("ROCm trace: could not merge plane " + name);
    }
  }
  for (const bridge::Span& error : flat.errors) into->add_errors(TextOf(flat, error));
  for (const bridge::Span& warning : flat.warnings) into->add_warnings(TextOf(flat, warning));
  for (const bridge::Span& host : flat.hostnames) into->add_hostnames(TextOf(flat, host));
}

// Exports what `rust` collected into `space` (and forgets it). Returns the drops, for a
// collector whose OnEventsDropped C++ code may override.
rust::Vec<bridge::DropCount> ExportInto(bridge::SessionCollector& rust, XSpace* space) {
  bridge::ExportResult result = rust.export_xspace(bridge::tracer_timestamp());
  if (result.status.code != bridge::StatusCode::Ok) {
    const std::string error(result.status.message);
    ROCM_SHIM_LOG(ERROR) << "ROCm trace export failed: " << error;
    space->add_errors(error);
    return std::move(result.drops);
  }
  MergeInto(result.xspace, space);
  return std::move(result.drops);
}

// The Rust collectors of the collectors CreateRocmCollector made, by object: each entry
// lives as long as its object, and tells the tracer that a session with it delivers in Rust.
// XLA's own classes need none: they keep their events in the members XLA's header declares
// for them (freed with the object) and cross once, at Export.
class RustCollectors {
 public:
  static bridge::SessionCollector& Make(const void* owner, const bridge::CollectorConfig& config) {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(Mutex()));
    return *Table().insert_or_assign(owner, bridge::new_session_collector(config)).first->second;
  }

  // `owner`'s Rust collector, or null if `owner` is any other RocmTraceCollector.
  static bridge::SessionCollector* Find(const void* owner) {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(Mutex()));
    auto it = Table().find(owner);
    return it == Table().end() ? nullptr : &*it->second;
  }

  static void Forget(const void* owner) {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(Mutex()));
    Table().erase(owner);
  }

 private:
  // Leaked: used until exit.
  static absl::Mutex& Mutex() {
    static absl::Mutex* const mutex = new absl::Mutex();
    return *mutex;
  }
  static absl::flat_hash_map<const void*, rust::Box<bridge::SessionCollector>>& Table() {
    static auto* const table =
        new absl::flat_hash_map<const void*, rust::Box<bridge::SessionCollector>>();
    return *table;
  }
};

// The collector CreateRocmCollector returns: every call goes to its Rust collector, and a
// tracer session with it never calls AddEvent (the tracer delivers in Rust).
class RustBackedCollector final : public RocmTraceCollector {
 public:
  RustBackedCollector(const RocmTraceCollectorOptions& options, uint64_t start_walltime_ns,
                      uint64_t start_gputime_ns)
      : RocmTraceCollector(options),
        rust_(RustCollectors::Make(this,
                                   ConfigOf(options, start_walltime_ns, start_gputime_ns))) {}

  ~RustBackedCollector() override { RustCollectors::Forget(this); }

  void SetGpuAgents(std::vector<rocprofiler_agent_v0_t> agents) override {
    SetAgents(rust_, agents);
  }
  void AddEvent(RocmTracerEvent&& event, bool is_auxiliary) override {
    rust_.add_event(XrtEventOf(event).get(), is_auxiliary);
  }
  void OnEventsDropped(const std::string& reason, uint64_t num_events) override {
    rust_.add_drop(reason, num_events);
  }
  // The Rust collector joins at export.
  void Flush() override {}
  void Export(XSpace* space) override {
    if (space != nullptr) ExportInto(rust_, space);
  }
  // Adds to the tree the tracer already gave the collector at Disable (XLA passes the C++
  // annotation map's tree, which sessions delivering into Rust leave empty).
  void SetScopeRangeIdTree(ScopeRangeIdTree tree) override { AddScopeRangeTree(rust_, tree); }

 private:
  // Its table entry, which lives as long as this object.
  bridge::SessionCollector& rust_;
};

}  // namespace

bridge::SessionCollector* RustSessionOf(const RocmTraceCollector* collector) {
  return RustCollectors::Find(collector);
}

std::unique_ptr<RocmTraceCollector> CreateRocmCollector(const RocmTraceCollectorOptions& options,
                                                        uint64_t start_walltime_ns,
                                                        uint64_t start_gputime_ns) {
  return std::make_unique<RustBackedCollector>(options, start_walltime_ns, start_gputime_ns);
}

// Kept as XLA keeps them, in the event maps its header declares (freed with the object): API
// events and activities per correlation id in arrival order, auxiliary API events apart.
void RocmTraceCollectorImpl::AddEvent(RocmTracerEvent&& event, bool is_auxiliary) {
  if (event.type == RocmTracerEventType::Generic) {
    // A ROCTx range or mark counts against the API callback cap and is reported at once when
    // over it, as XLA does (#46933); the kept ones cross at Export.
    if (static_cast<uint64_t>(num_callback_events_.load()) >= options_.max_callback_api_events) {
      OnEventsDropped("ROCTX marker event dropped: max_callback_api_events reached",
                      event.correlation_id);
      return;
    }
    num_callback_events_.fetch_add(1);
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(event_maps_mutex_));
    standalone_events_.push_back(std::move(event));
    return;
  }
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(event_maps_mutex_));
  const uint64_t id = event.correlation_id;
  if (is_auxiliary) {
    auxiliary_api_events_map_.insert_or_assign(id, std::move(event));
  } else {
    activity_ops_events_map_[id].push_back(std::move(event));
  }
}

// The Rust collector joins at export.
void RocmTraceCollectorImpl::Flush() {}

// Hands the kept events to a Rust collector in correlation order (the order of the calls),
// exports it and forgets them.
void RocmTraceCollectorImpl::Export(tsl::profiler::XSpace* space) {
  if (space == nullptr) return;
  rust::Vec<bridge::DropCount> drops;
  {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(event_maps_mutex_));
    rust::Box<bridge::SessionCollector> rust = bridge::new_session_collector(
        ConfigOf(options_, start_walltime_ns_, start_gputime_ns_));
    // SetGpuAgents and SetScopeRangeIdTree are inline in XLA's header: they fill members,
    // read here.
    SetAgents(*rust, gpu_agents_);
    AddScopeRangeTree(*rust, scope_range_id_tree_);
    std::vector<uint64_t> ids;
    for (const auto& [id, event] : auxiliary_api_events_map_) ids.push_back(id);
    for (const auto& [id, events] : activity_ops_events_map_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (uint64_t id : ids) {
      auto auxiliary = auxiliary_api_events_map_.find(id);
      if (auxiliary != auxiliary_api_events_map_.end()) {
        rust->add_event(XrtEventOf(auxiliary->second).get(), /*is_auxiliary=*/true);
      }
      auto events = activity_ops_events_map_.find(id);
      if (events == activity_ops_events_map_.end()) continue;
      for (const RocmTracerEvent& event : events->second) {
        rust->add_event(XrtEventOf(event).get(), false);
      }
    }
    for (const RocmTracerEvent& event : standalone_events_) {
      rust->add_event(XrtEventOf(event).get(), false);
    }
    auxiliary_api_events_map_.clear();
    activity_ops_events_map_.clear();
    standalone_events_.clear();
    drops = ExportInto(*rust, space);
  }
  // Subclasses (XLA's tests) override OnEventsDropped to see losses; XLA's own only VLOGs.
  for (const bridge::DropCount& drop : drops) {
    OnEventsDropped(std::string(drop.reason), drop.count);
  }
}

void PerDeviceCollector::AddEvent(RocmTracerEvent&& event) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(events_mutex_));
  events_.push_back(std::move(event));
}

void PerDeviceCollector::GetDeviceCapabilities(const rocprofiler_agent_v0_t& agent,
                                               tsl::profiler::XPlaneBuilder* device_plane) {
  if (device_plane == nullptr) return;
  // SAFETY of the bridge call: `agent` is one struct of the size passed.
  bridge::Bytes stats = bridge::device_capability_stats(reinterpret_cast<const uint8_t*>(&agent),
                                                         sizeof(rocprofiler_agent_v0_t));
  XPlane plane;
  if (stats.status.code != bridge::StatusCode::Ok ||
      !plane.ParseFromArray(stats.bytes.data(), static_cast<int>(stats.bytes.size()))) {
    ROCM_SHIM_LOG(ERROR) << "ROCm device capabilities failed: " << std::string(stats.status.message);
    return;
  }
  for (const auto& stat : plane.stats()) {
    auto name = plane.stat_metadata().find(stat.metadata_id());
    if (name == plane.stat_metadata().end()) continue;
    device_plane->AddStat(*device_plane->GetOrCreateStatMetadata(name->second.name()), stat,
                          plane);
  }
}

// Writes (and forgets) the stored events: activities onto `device_plane`, API calls onto
// `host_plane`, joined by correlation id as RocmTraceCollectorImpl::Export joins them.
void PerDeviceCollector::Export(uint64_t start_walltime_ns, uint64_t start_gputime_ns,
                                uint64_t end_gputime_ns,
                                tsl::profiler::XPlaneBuilder* device_plane,
                                tsl::profiler::XPlaneBuilder* /*marker_plane*/,
                                tsl::profiler::XPlaneBuilder* host_plane) {
  std::vector<RocmTracerEvent> events;
  {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(events_mutex_));
    events.swap(events_);
  }
  // No caps (the owning collector applied them), one GPU.
  RocmTraceCollectorOptions options;
  options.max_callback_api_events = UINT64_MAX;
  options.max_activity_api_events = UINT64_MAX;
  options.max_annotation_strings = UINT64_MAX;
  options.num_gpus = 1;
  rust::Box<bridge::SessionCollector> rust =
      bridge::new_session_collector(ConfigOf(options, start_walltime_ns, start_gputime_ns));
  for (const RocmTracerEvent& event : events) rust->add_event(XrtEventOf(event).get(), false);
  bridge::DevicePlanes planes = rust->export_device_planes(end_gputime_ns);
  if (planes.status.code != bridge::StatusCode::Ok) {
    ROCM_SHIM_LOG(ERROR) << "ROCm device export failed: " << std::string(planes.status.message);
    return;
  }
  auto copy = [](const bridge::FlatXSpace& flat, tsl::profiler::XPlaneBuilder* target) {
    for (const bridge::FlatXPlane& from : flat.planes) {
      XPlane plane;
      flat_xspace::FillPlane(flat, from, &plane);
      CopyXPlaneInto(plane, target);
    }
  };
  copy(planes.device_plane, device_plane);
  copy(planes.host_plane, host_plane);
}

}  // namespace profiler
}  // namespace xla
