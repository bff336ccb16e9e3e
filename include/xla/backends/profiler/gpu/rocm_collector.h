/* Drop-in declaration of XLA's xla/backends/profiler/gpu/rocm_collector.h
   (openxla/xla main 2026-08-22), written for xla-rocm-tracer from docs/xla-interface.md#collector-header.
   Inside an XLA build, XLA's own header is used instead: every declaration here must stay
   identical to it. Implemented by cpp/rocm_collector.cc over the Rust collector/export. */

#ifndef XLA_BACKENDS_PROFILER_GPU_ROCM_COLLECTOR_H_
#define XLA_BACKENDS_PROFILER_GPU_ROCM_COLLECTOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "rocprofiler-sdk/agent.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/log/log.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
// XLA spells this "rocm/include/hip/hip_runtime.h" (its Bazel ROCm repository layout).
#include "hip/hip_runtime.h"
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"
#include "xla/tsl/profiler/utils/xplane_builder.h"
#include "tsl/profiler/protobuf/xplane.pb.h"

namespace xla {
namespace profiler {

// " grid:<blocks x,y,z> block:<x,y,z> private_mem:<p> group_mem:<g> occ_pct:<o>".
inline std::string ToXStat(const KernelDetails& kernel_info, double occupancy_pct) {
  uint32_t grid_x = kernel_info.workgroup_x != 0 ? kernel_info.grid_x / kernel_info.workgroup_x
                                                 : 0,
           grid_y = kernel_info.workgroup_y != 0 ? kernel_info.grid_y / kernel_info.workgroup_y
                                                 : 0,
           grid_z = kernel_info.workgroup_z != 0 ? kernel_info.grid_z / kernel_info.workgroup_z
                                                 : 0;

  return absl::StrCat(" grid:", grid_x, ",", grid_y, ",", grid_z,
                      " block:", kernel_info.workgroup_x, ",", kernel_info.workgroup_y, ",",
                      kernel_info.workgroup_z, " private_mem:", kernel_info.private_segment_size,
                      " group_mem:", kernel_info.group_segment_size, " occ_pct:", occupancy_pct);
}

struct RocmDeviceOccupancyParams {
  hipFuncAttributes attributes = {};
  int block_size = 0;
  size_t dynamic_smem_size = 0;
  void* func_ptr;
  uint32_t max_waves_per_cu = 0;
  uint32_t wave_front_size = 0;

  friend bool operator==(const RocmDeviceOccupancyParams& a,
                         const RocmDeviceOccupancyParams& b) noexcept {
    return std::tuple{a.attributes.binaryVersion,
                      a.attributes.cacheModeCA,
                      a.attributes.constSizeBytes,
                      a.attributes.localSizeBytes,
                      a.attributes.maxDynamicSharedSizeBytes,
                      a.attributes.maxThreadsPerBlock,
                      a.attributes.numRegs,
                      a.attributes.preferredShmemCarveout,
                      a.attributes.ptxVersion,
                      a.block_size,
                      a.dynamic_smem_size,
                      a.func_ptr,
                      a.max_waves_per_cu,
                      a.wave_front_size} ==
           std::tuple{b.attributes.binaryVersion,
                      b.attributes.cacheModeCA,
                      b.attributes.constSizeBytes,
                      b.attributes.localSizeBytes,
                      b.attributes.maxDynamicSharedSizeBytes,
                      b.attributes.maxThreadsPerBlock,
                      b.attributes.numRegs,
                      b.attributes.preferredShmemCarveout,
                      b.attributes.ptxVersion,
                      b.block_size,
                      b.dynamic_smem_size,
                      b.func_ptr,
                      b.max_waves_per_cu,
                      b.wave_front_size};
  }

  friend bool operator!=(const RocmDeviceOccupancyParams& a,
                         const RocmDeviceOccupancyParams& b) noexcept {
    return !(a == b);
  }

  template <typename H>
  friend H AbslHashValue(H hash_state, const RocmDeviceOccupancyParams& params) {
    return H::combine(std::move(hash_state), params.attributes.maxThreadsPerBlock,
                      params.attributes.numRegs, params.attributes.sharedSizeBytes,
                      params.attributes.maxDynamicSharedSizeBytes, params.block_size,
                      params.dynamic_smem_size, params.func_ptr, params.max_waves_per_cu,
                      params.wave_front_size);
  }
};

struct OccupancyStats {
  double occupancy_pct = 0.0;
  int min_grid_size = 0;
  int suggested_block_size = 0;
};

class RocmTraceCollector {
 public:
  explicit RocmTraceCollector(const RocmTraceCollectorOptions& options) : options_(options) {}
  virtual ~RocmTraceCollector() {}

  // Agent data used by GetDeviceCapabilities instead of hipGetDeviceProperties.
  virtual void SetGpuAgents(std::vector<rocprofiler_agent_v0_t> /*agents*/) {}
  virtual void AddEvent(RocmTracerEvent&& event, bool is_auxiliary) = 0;
  // Callers pass a correlation id or an event count, depending on the reason.
  virtual void OnEventsDropped(const std::string& reason, uint64_t num_events) = 0;
  virtual void Flush() = 0;
  virtual void Export(tsl::profiler::XSpace* space) = 0;
  virtual void SetScopeRangeIdTree(ScopeRangeIdTree tree) {}

 protected:
  RocmTraceCollectorOptions options_;

 public:
  RocmTraceCollector(const RocmTraceCollector&) = delete;
  RocmTraceCollector& operator=(const RocmTraceCollector&) = delete;
};

class PerDeviceCollector {
 public:
  // The ROCTx listener's form (#46933). ROCTx ranges and marks go onto `host_plane`, each
  // thread's on a "Host Threads/<tid>/ROCTX" line, as they are after tsl merges XLA's marker
  // plane into the host plane; `marker_plane` is not written.
  void Export(uint64_t start_walltime_ns, uint64_t start_gputime_ns, uint64_t end_gputime_ns,
              tsl::profiler::XPlaneBuilder* device_plane,
              tsl::profiler::XPlaneBuilder* marker_plane,
              tsl::profiler::XPlaneBuilder* host_plane);
  // The 2026-08-22 form.
  void Export(uint64_t start_walltime_ns, uint64_t start_gputime_ns, uint64_t end_gputime_ns,
              tsl::profiler::XPlaneBuilder* device_plane,
              tsl::profiler::XPlaneBuilder* host_plane) {
    Export(start_walltime_ns, start_gputime_ns, end_gputime_ns, device_plane, nullptr,
           host_plane);
  }

  PerDeviceCollector() = default;

  void AddEvent(RocmTracerEvent&& event);
  void GetDeviceCapabilities(const rocprofiler_agent_v0_t& agent,
                             tsl::profiler::XPlaneBuilder* device_plane);

 private:
  OccupancyStats GetOccupancy(const RocmDeviceOccupancyParams& params) const;
  void CreateXEvent(const RocmTracerEvent& event, tsl::profiler::XPlaneBuilder* plane,
                    uint64_t start_gpu_ns, uint64_t end_gpu_ns,
                    tsl::profiler::XLineBuilder* line);
  void SortByStartTime();
  bool IsHostEvent(const RocmTracerEvent& event, int64_t* line_id);

 private:
  absl::Mutex events_mutex_;
  std::vector<RocmTracerEvent> events_ ABSL_GUARDED_BY(events_mutex_);
  absl::flat_hash_map<RocmDeviceOccupancyParams, OccupancyStats> occupancy_cache_;
};  // PerDeviceCollector

class RocmTraceCollectorImpl : public RocmTraceCollector {
 public:
  RocmTraceCollectorImpl(const RocmTraceCollectorOptions& options, uint64_t start_walltime_ns,
                         uint64_t start_gputime_ns)
      : RocmTraceCollector(options),
        num_callback_events_(0),
        num_activity_events_(0),
        start_walltime_ns_(start_walltime_ns),
        start_gputime_ns_(start_gputime_ns),
        num_gpus_(options.num_gpus) {}

  void SetGpuAgents(std::vector<rocprofiler_agent_v0_t> agents) override {
    gpu_agents_ = std::move(agents);
  }

  void AddEvent(RocmTracerEvent&& event, bool is_auxiliary) override;
  void Flush() override;
  void Export(tsl::profiler::XSpace* space) override;
  void SetScopeRangeIdTree(ScopeRangeIdTree tree) override {
    scope_range_id_tree_ = std::move(tree);
  }

  void OnEventsDropped(const std::string& reason, uint64_t correlation_id) override {
    VLOG(2) << "RocmTracerEvent dropped (correlation_id=" << correlation_id << ",) : " << reason
            << ".";
  }

 private:
  std::atomic<int> num_callback_events_;
  std::atomic<int> num_activity_events_;
  uint64_t start_walltime_ns_;
  uint64_t start_gputime_ns_;
  int num_gpus_;
  std::vector<rocprofiler_agent_v0_t> gpu_agents_;

  absl::Mutex event_maps_mutex_;
  absl::flat_hash_map<uint64_t, RocmTracerEvent> api_events_map_
      ABSL_GUARDED_BY(event_maps_mutex_);

  // Several HIP_OPS activities can share one correlation id (graph launches, multi-part
  // memsets): all of them are kept.
  absl::flat_hash_map<uint64_t, std::vector<RocmTracerEvent>> activity_ops_events_map_
      ABSL_GUARDED_BY(event_maps_mutex_);
  // API events tracked only for what their activity needs.
  absl::flat_hash_map<uint64_t, RocmTracerEvent> auxiliary_api_events_map_
      ABSL_GUARDED_BY(event_maps_mutex_);

  std::vector<RocmTracerEvent> ApiActivityInfoExchange()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(event_maps_mutex_);

  void ExportScopeRangeIdTree(tsl::profiler::XSpace* space);

  absl::node_hash_map<uint32_t, PerDeviceCollector> per_device_collector_;
  ScopeRangeIdTree scope_range_id_tree_;
  // ROCTx ranges and marks (Generic events): joined with nothing (#46933).
  std::vector<RocmTracerEvent> standalone_events_ ABSL_GUARDED_BY(event_maps_mutex_);
};  // RocmTraceCollectorImpl

std::unique_ptr<RocmTraceCollector> CreateRocmCollector(const RocmTraceCollectorOptions& options,
                                                        uint64_t start_walltime_ns,
                                                        uint64_t start_gputime_ns);

}  // namespace profiler
}  // namespace xla

#endif  // XLA_BACKENDS_PROFILER_GPU_ROCM_COLLECTOR_H_
