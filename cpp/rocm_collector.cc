// XLA's RocmTraceCollectorImpl as a thin shim over the Rust collector and export model.
//
// AddEvent stores events in the maps XLA's header declares, bounded by the caps (the atomic
// counters count every offered event, so "offered - cap" is what the caps dropped). Export
// hands everything to the Rust core in one bridge call, which joins API calls with their
// activities, numbers devices and streams, writes the stats and returns the encoded XSpace
// exactly as the Rust writer would; the XSpace is then merged into the caller's.
// PerDeviceCollector keeps one device's events and writes them, through the same Rust export,
// into the planes its caller builds.
#include "xla/backends/profiler/gpu/rocm_collector.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "xla-rocm-tracer/cpp/absl_compat.h"
#include "xla-rocm-tracer/cpp/drop_tally.h"
#include "xla-rocm-tracer/cpp/log.h"
#include "xla-rocm-tracer/cpp/xplane_copy.h"
#include "xla-rocm-tracer/cpp/xspace_merge.h"
#include "xla-rocm-tracer/src/ffi/bridge.rs.h"

namespace xla {
namespace profiler {
namespace {

namespace bridge = ::xla::profiler::rust_bridge;

constexpr char kDuplicateCorrelationIdReason[] =
    "event with duplicate correlation_id was received.";
// XLA's kGpuPlanePrefix and kRoctracerApiPlaneName (xplane_schema.h).
constexpr char kGpuPlanePrefix[] = "/device:GPU:";
constexpr char kHostApiPlaneName[] = "/host:ROCTRACER";

// Counts one offered event; true when it is beyond `cap` (and so must be dropped).
bool OverCap(std::atomic<int>& offered, uint64_t cap) {
  int count = offered.load(std::memory_order_relaxed);
  if (count < INT_MAX) offered.store(++count, std::memory_order_relaxed);
  return static_cast<uint64_t>(count) > cap;
}

uint64_t BeyondCap(const std::atomic<int>& offered, uint64_t cap) {
  const uint64_t count = static_cast<uint64_t>(std::max(0, offered.load()));
  return count > cap ? count - cap : 0;
}

bridge::BridgeEvent ToBridgeEvent(const RocmTracerEvent& event) {
  bridge::BridgeEvent out;
  out.event_type = static_cast<uint32_t>(event.type);
  out.source = static_cast<uint32_t>(event.source);
  out.domain = static_cast<uint32_t>(event.domain);
  out.name = rust::String::lossy(event.name);
  out.annotation = rust::String::lossy(event.annotation.data(), event.annotation.size());
  out.start_time_ns = event.start_time_ns;
  out.end_time_ns = event.end_time_ns;
  out.device_id = event.device_id;
  out.correlation_id = event.correlation_id;
  out.thread_id = event.thread_id;
  out.stream_id = event.stream_id;
  out.queue_id = event.queue_id;
  out.scope_range_id = event.scope_range_id;
  out.kernel = {};
  out.detail_kind = bridge::DetailKind::None;
  // The union member XLA's export reads for each type (§6.2, §6.5).
  switch (event.type) {
    case RocmTracerEventType::Kernel: {
      const KernelDetails& k = event.kernel_info;
      out.detail_kind = bridge::DetailKind::Kernel;
      out.kernel = {k.private_segment_size, k.group_segment_size, k.workgroup_x, k.workgroup_y,
                    k.workgroup_z,          k.grid_x,             k.grid_y,      k.grid_z};
      break;
    }
    case RocmTracerEventType::MemcpyH2D:
    case RocmTracerEventType::MemcpyD2H:
    case RocmTracerEventType::MemcpyD2D:
    case RocmTracerEventType::MemcpyP2P:
    case RocmTracerEventType::MemcpyOther:
      out.detail_kind = bridge::DetailKind::Memcpy;
      out.num_bytes = event.memcpy_info.num_bytes;
      out.destination = event.memcpy_info.destination;
      out.is_async = event.memcpy_info.async;
      break;
    case RocmTracerEventType::Memset:
      out.detail_kind = bridge::DetailKind::Memset;
      out.num_bytes = event.memset_info.num_bytes;
      out.is_async = event.memset_info.async;
      break;
    case RocmTracerEventType::MemoryAlloc:
    case RocmTracerEventType::MemoryFree:
      out.detail_kind = bridge::DetailKind::MemAlloc;
      out.num_bytes = event.memalloc_info.num_bytes;
      break;
    default:
      break;
  }
  return out;
}

bridge::BridgeAgent ToBridgeAgent(const rocprofiler_agent_v0_t& agent) {
  bridge::BridgeAgent out;
  out.handle = agent.id.handle;
  out.name = rust::String::lossy(agent.name == nullptr ? "" : agent.name);
  out.cu_count = agent.cu_count;
  out.max_engine_clock_mhz = agent.max_engine_clk_fcompute;
  out.gfx_target_version = agent.gfx_target_version;
  if (agent.mem_banks != nullptr) {
    for (uint32_t i = 0; i < agent.mem_banks_count; ++i) {
      const rocprofiler_agent_mem_bank_t& bank = agent.mem_banks[i];
      out.memory_banks.push_back(bridge::BridgeMemoryBank{
          static_cast<uint32_t>(bank.heap_type), bank.size_in_bytes, bank.mem_clk_max,
          bank.width});
    }
  }
  return out;
}

// Runs the Rust export; false (with the reason in `error`) if it failed.
bool RunRustExport(bridge::ExportRequest request, tsl::profiler::XSpace* exported,
                   std::string* error) {
  bridge::ExportResult result = bridge::export_xspace(std::move(request));
  if (result.status.code != bridge::StatusCode::Ok) {
    *error = std::string(result.status.message);
    return false;
  }
  if (!exported->ParseFromArray(result.xspace.data(), static_cast<int>(result.xspace.size()))) {
    *error = "ROCm trace export produced an unreadable XSpace";
    return false;
  }
  return true;
}

bool IsGpuPlane(const tsl::profiler::XPlane& plane) {
  return plane.name().rfind(kGpuPlanePrefix, 0) == 0;
}

// One device's request: no caps (the owning collector applied them), one GPU.
bridge::ExportRequest SingleDeviceRequest(uint64_t start_walltime_ns, uint64_t start_gputime_ns,
                                          uint64_t end_gputime_ns) {
  bridge::ExportRequest request;
  request.max_callback_api_events = UINT64_MAX;
  request.max_activity_api_events = UINT64_MAX;
  request.max_annotation_strings = UINT64_MAX;
  request.num_gpus = 1;
  request.start_walltime_ns = start_walltime_ns;
  request.start_gputime_ns = start_gputime_ns;
  request.end_gputime_ns = end_gputime_ns;
  return request;
}

}  // namespace

void PerDeviceCollector::AddEvent(RocmTracerEvent&& event) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(events_mutex_));
  events_.push_back(std::move(event));
}

// The capability stats the Rust export writes on a GPU plane for `agent`.
void PerDeviceCollector::GetDeviceCapabilities(const rocprofiler_agent_v0_t& agent,
                                               tsl::profiler::XPlaneBuilder* device_plane) {
  if (device_plane == nullptr) return;
  bridge::ExportRequest request = SingleDeviceRequest(0, 0, 0);
  request.gpu_agents.push_back(ToBridgeAgent(agent));
  tsl::profiler::XSpace exported;
  std::string error;
  if (!RunRustExport(std::move(request), &exported, &error)) {
    ROCM_SHIM_LOG(ERROR) << "ROCm device capabilities failed: " << error;
    return;
  }
  for (const tsl::profiler::XPlane& plane : exported.planes()) {
    if (!IsGpuPlane(plane)) continue;
    for (const auto& stat : plane.stats()) {
      auto name = plane.stat_metadata().find(stat.metadata_id());
      if (name == plane.stat_metadata().end()) continue;
      device_plane->AddStat(*device_plane->GetOrCreateStatMetadata(name->second.name()), stat,
                            plane);
    }
    return;
  }
}

// Writes (and forgets) the stored events: activities onto `device_plane`, API calls onto
// `host_plane`, joined by correlation id as RocmTraceCollectorImpl::Export joins them.
void PerDeviceCollector::Export(uint64_t start_walltime_ns, uint64_t start_gputime_ns,
                                uint64_t end_gputime_ns,
                                tsl::profiler::XPlaneBuilder* device_plane,
                                tsl::profiler::XPlaneBuilder* host_plane) {
  std::vector<RocmTracerEvent> events;
  {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(events_mutex_));
    events.swap(events_);
  }
  bridge::ExportRequest request =
      SingleDeviceRequest(start_walltime_ns, start_gputime_ns, end_gputime_ns);
  for (const RocmTracerEvent& event : events) {
    auto& into = event.source == RocmTracerEventSource::ApiCallback ? request.api_events
                                                                     : request.activity_events;
    into.push_back(ToBridgeEvent(event));
  }
  tsl::profiler::XSpace exported;
  std::string error;
  if (!RunRustExport(std::move(request), &exported, &error)) {
    ROCM_SHIM_LOG(ERROR) << "ROCm device export failed: " << error;
    return;
  }
  for (const tsl::profiler::XPlane& plane : exported.planes()) {
    if (IsGpuPlane(plane)) {
      CopyXPlaneInto(plane, device_plane);
    } else if (plane.name() == kHostApiPlaneName) {
      CopyXPlaneInto(plane, host_plane);
    }
  }
}

std::unique_ptr<RocmTraceCollector> CreateRocmCollector(
const RocmTraceCollectorOptions& options,
                                                        uint64_t start_walltime_ns,
                                                        uint64_t start_gputime_ns) {
  return std::make_unique<RocmTraceCollectorImpl>(options, start_walltime_ns, start_gputime_ns);
}

void RocmTraceCollectorImpl::AddEvent(RocmTracerEvent&& event, bool is_auxiliary) {
  absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(event_maps_mutex_));
  // XLA's constructor is inline and cannot clear a dead collector's tally at this address;
  // the first event a fresh collector gets does (drop_tally.h).
  if (num_callback_events_.load() == 0 && num_activity_events_.load() == 0 &&
      api_events_map_.empty() && auxiliary_api_events_map_.empty() &&
      activity_ops_events_map_.empty()) {
    ForgetDuplicates(this);
  }
  switch (event.source) {
    case RocmTracerEventSource::ApiCallback: {
      if (!is_auxiliary && OverCap(num_callback_events_, options_.max_callback_api_events)) {
        if (BeyondCap(num_callback_events_, options_.max_callback_api_events) == 1) {
          ROCM_SHIM_LOG(WARNING)
              << "Number of callback events reached the configured limit "
                 "(xla_gpu_rocm_max_trace_events="
              << options_.max_callback_api_events
              << "); further ones are dropped. To collect more GPU events, set "
                 "XLA_FLAGS=--xla_gpu_rocm_max_trace_events=<larger value>";
        }
        return;
      }
      auto& map = is_auxiliary ? auxiliary_api_events_map_ : api_events_map_;
      const uint64_t correlation_id = event.correlation_id;
      if (!map.emplace(correlation_id, std::move(event)).second) {
        TallyDuplicateCorrelationId(this);
        OnEventsDropped(kDuplicateCorrelationIdReason, correlation_id);
      }
      return;
    }
    case RocmTracerEventSource::Activity: {
      // Every activity counts (XLA counts only HIP_API-domain ones, rough edge §7.12), so the
      // cap bounds memory, as in the Rust collector.
      if (OverCap(num_activity_events_, options_.max_activity_api_events)) {
        if (BeyondCap(num_activity_events_, options_.max_activity_api_events) == 1) {
          ROCM_SHIM_LOG(WARNING)
              << "Number of activity events reached the configured limit "
                 "(xla_gpu_rocm_max_trace_events="
              << options_.max_activity_api_events
              << "). To collect more GPU events, increase "
                 "XLA_FLAGS=--xla_gpu_rocm_max_trace_events=<value>.";
        }
        return;
      }
      activity_ops_events_map_[event.correlation_id].push_back(std::move(event));
      return;
    }
    case RocmTracerEventSource::Invalid:
      break;
  }
  ROCM_SHIM_VLOG(3) << "Dropped an event of source "
                    << GetRocmTracerEventSourceName(event.source);
}

// Events stay in the maps until Export, which joins them in the Rust core; a Flush between
// two AddEvents therefore changes nothing.
void RocmTraceCollectorImpl::Flush() {}

void RocmTraceCollectorImpl::Export(tsl::profiler::XSpace* space) {
  if (space == nullptr) return;
  bridge::ExportRequest request;
  request.max_callback_api_events = options_.max_callback_api_events;
  request.max_activity_api_events = options_.max_activity_api_events;
  request.max_annotation_strings = options_.max_annotation_strings;
  request.num_gpus = static_cast<uint32_t>(std::max(num_gpus_, 0));
  request.start_walltime_ns = start_walltime_ns_;
  request.start_gputime_ns = start_gputime_ns_;
  request.end_gputime_ns = bridge::tracer_timestamp();  // 0 if the SDK clock failed
  {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(event_maps_mutex_));
    for (const rocprofiler_agent_v0_t& agent : gpu_agents_) {
      request.gpu_agents.push_back(ToBridgeAgent(agent));
    }
    for (const auto& [id, event] : api_events_map_) request.api_events.push_back(ToBridgeEvent(event));
    for (const auto& [id, event] : auxiliary_api_events_map_) {
      request.auxiliary_api_events.push_back(ToBridgeEvent(event));
    }
    for (const auto& [id, events] : activity_ops_events_map_) {
      for (const RocmTracerEvent& event : events) {
        request.activity_events.push_back(ToBridgeEvent(event));
      }
    }
    for (const auto& [child, parent] : scope_range_id_tree_) {
      request.scope_range_tree.push_back(bridge::ScopeRangeEdge{child, parent});
    }
    request.callback_events_over_cap =
        BeyondCap(num_callback_events_, options_.max_callback_api_events);
    request.activity_events_over_cap =
        BeyondCap(num_activity_events_, options_.max_activity_api_events);
    // Exported once, as XLA's per-device collectors empty themselves on export.
    api_events_map_.clear();
    auxiliary_api_events_map_.clear();
    activity_ops_events_map_.clear();
  }
  DropTally tally = TakeDropTally(this);
  request.duplicate_correlation_ids = tally.duplicate_correlation_ids;
  for (const auto& [reason, count] : tally.tracer_drops) {
    request.tracer_drops.push_back(bridge::DropCount{rust::String::lossy(reason), count});
  }

  tsl::profiler::XSpace exported;
  std::string error;
  if (!RunRustExport(std::move(request), &exported, &error)) {
    ROCM_SHIM_LOG(ERROR) << "ROCm trace export failed: " << error;
    space->add_errors(error);
    return;
  }
  MergeXSpace(std::move(exported), space);
}

}  // namespace profiler
}  // namespace xla
