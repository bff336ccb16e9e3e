/* Drop-in declaration of XLA's xla/backends/profiler/gpu/rocm_collector.h
   (openxla/xla main 2026-08-22), written for xla-rocm-tracer from xla-rocm-tracer.md §3.3.
   Inside an XLA build, XLA's own header is used instead: every declaration here must stay
   identical to it. Implemented by cpp/rocm_collector.cc over the Rust collector/export. */

#ifndef XLA_BACKENDS_PROFILER_GPU_ROCM_COLLECTOR_H_
#define XLA_BACKENDS_PROFILER_GPU_ROCM_COLLECTOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "hip/hip_runtime.h"
#include "tsl/profiler/protobuf/xplane.pb.h"
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"
#include "xla/stream_executor/rocm/roctracer_wrapper.h"
#include "xla/tsl/profiler/utils/xplane_builder.h"

namespace xla {
namespace profiler {

using tsl::profiler::XEvent;
using tsl::profiler::XLineBuilder;
using tsl::profiler::XPlaneBuilder;
using tsl::profiler::XSpace;

// " grid:<blocks x,y,z> block:<x,y,z> private_mem:<p> group_mem:<g> occ_pct:<o>".
inline std::string ToXStat(const KernelDetails& kernel_info, double occupancy_pct) {
  auto blocks = [](uint32_t grid, uint32_t workgroup) -> uint32_t {
    return workgroup == 0 ? 0 : grid / workgroup;
  };
  return absl::StrCat(
      " grid:", blocks(kernel_info.grid_x, kernel_info.workgroup_x), ",",
      blocks(kernel_info.grid_y, kernel_info.workgroup_y), ",",
      blocks(kernel_info.grid_z, kernel_info.workgroup_z), " block:", kernel_info.workgroup_x,
      ",", kernel_info.workgroup_y, ",", kernel_info.workgroup_z,
      " private_mem:", kernel_info.private_segment_size,
      " group_mem:", kernel_info.group_segment_size, " occ_pct:", occupancy_pct);
}

struct RocmDeviceOccupancyParams {
  hipFuncAttributes attributes = {};
  int block_size = 0;
  size_t dynamic_smem_size = 0;
  void* func_ptr = nullptr;
  uint32_t max_waves_per_cu = 0;
  uint32_t wave_front_size = 0;

  friend bool operator==(const RocmDeviceOccupancyParams& a,
                         const RocmDeviceOccupancyParams& b) {
    return a.attributes.sharedSizeBytes == b.attributes.sharedSizeBytes &&
           a.attributes.numRegs == b.attributes.numRegs &&
           a.attributes.maxThreadsPerBlock == b.attributes.maxThreadsPerBlock &&
           a.block_size == b.block_size && a.dynamic_smem_size == b.dynamic_smem_size &&
           a.func_ptr == b.func_ptr && a.max_waves_per_cu == b.max_waves_per_cu &&
           a.wave_front_size == b.wave_front_size;
  }

  friend bool operator!=(const RocmDeviceOccupancyParams& a,
                         const RocmDeviceOccupancyParams& b) {
    return !(a == b);
  }

  template <typename H>
  friend H AbslHashValue(H hash_state, const RocmDeviceOccupancyParams& params) {
    return H::combine(std::move(hash_state), params.attributes.sharedSizeBytes,
                      params.attributes.numRegs, params.attributes.maxThreadsPerBlock,
                      params.block_size, params.dynamic_smem_size, params.func_ptr,
                      params.max_waves_per_cu, params.wave_front_size);
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

  virtual void SetGpuAgents(std::vector<rocprofiler_agent_v0_t> /*agents*/) {}
  virtual void AddEvent(RocmTracerEvent&& event, bool is_auxiliary) = 0;
  // Callers pass a correlation id or an event count, depending on the reason.
  virtual void OnEventsDropped(const std::string& reason, uint64_t num_events) = 0;
  virtual void Flush() = 0;
  virtual void Export(tsl::profiler::XSpace* space) = 0;
  virtual void SetScopeRangeIdTree(ScopeRangeIdTree /*tree*/) {}

 protected:
  RocmTraceCollectorOptions options_;

 public:
  RocmTraceCollector(const RocmTraceCollector&) = delete;
  RocmTraceCollector& operator=(const RocmTraceCollector&) = delete;
};

class PerDeviceCollector {
 public:
  void Export(uint64_t start_walltime_ns, uint64_t start_gputime_ns, uint64_t end_gputime_ns,
              tsl::profiler::XPlaneBuilder* device_plane,
              tsl::profiler::XPlaneBuilder* host_plane);

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

  absl::Mutex events_mutex_;
  std::vector<RocmTracerEvent> events_;
  absl::flat_hash_map<RocmDeviceOccupancyParams, OccupancyStats> occupancy_cache_;
};

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

  void SetGpuAgents(std::vector<rocprofiler_agent_v0_t> agents) override;
  void AddEvent(RocmTracerEvent&& event, bool is_auxiliary) override;
  void Flush() override;
  void Export(tsl::profiler::XSpace* space) override;
  void SetScopeRangeIdTree(ScopeRangeIdTree tree) override;
  void OnEventsDropped(const std::string& reason, uint64_t correlation_id) override;

 private:
  std::atomic<int> num_callback_events_;
  std::atomic<int> num_activity_events_;
  uint64_t start_walltime_ns_;
  uint64_t start_gputime_ns_;
  int num_gpus_;
  std::vector<rocprofiler_agent_v0_t> gpu_agents_;

  absl::Mutex event_maps_mutex_;
  absl::flat_hash_map<uint64_t, RocmTracerEvent> api_events_map_;
  absl::flat_hash_map<uint64_t, std::vector<RocmTracerEvent>> activity_ops_events_map_;
  absl::flat_hash_map<uint64_t, RocmTracerEvent> auxiliary_api_events_map_;

  std::vector<RocmTracerEvent> ApiActivityInfoExchange();
  void ExportScopeRangeIdTree(tsl::profiler::XSpace* space);

  absl::node_hash_map<uint32_t, PerDeviceCollector> per_device_collector_;
  ScopeRangeIdTree scope_range_id_tree_;
};

std::unique_ptr<RocmTraceCollector> CreateRocmCollector(const RocmTraceCollectorOptions& options,
                                                        uint64_t start_walltime_ns,
                                                        uint64_t start_gputime_ns);

}  // namespace profiler
}  // namespace xla

#endif  // XLA_BACKENDS_PROFILER_GPU_ROCM_COLLECTOR_H_
