// PerDeviceCollector, declared public by XLA's rocm_collector.h: events added to it are
// written, through the Rust export, into the device and host planes its caller builds, and
// GetDeviceCapabilities writes an agent's capability stats onto a device plane.
#include <cstdint>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include "test_util.h"
#include "xla/backends/profiler/gpu/rocm_collector.h"
#include "xla/backends/profiler/gpu/rocm_tracer.h"
#include "xla/tsl/profiler/utils/xplane_builder.h"

namespace xla {
namespace profiler {
namespace test {
namespace {

constexpr uint64_t kStartWallTimeNs = 1000;
constexpr uint64_t kStartGpuTimeNs = 2000;

TEST(PerDeviceCollectorTest, ExportWritesActivitiesOnTheDevicePlaneAndApiCallsOnTheHost) {
  PerDeviceCollector collector;
  RocmTracerEvent api = ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 42, 999);
  api.start_time_ns = 2500;
  api.end_time_ns = 2600;
  collector.AddEvent(std::move(api));
  collector.AddEvent(KernelActivity("my_kernel", 42, 3000, 4000, 100, 7));

  XPlane device;
  device.set_name("/device:GPU:0");
  XPlane host;
  host.set_name("/host:ROCTRACER");
  tsl::profiler::XPlaneBuilder device_builder(&device);
  tsl::profiler::XPlaneBuilder host_builder(&host);
  collector.Export(kStartWallTimeNs, kStartGpuTimeNs, 10000, &device_builder, &host_builder);

  EXPECT_EQ(device.name(), "/device:GPU:0");
  ASSERT_EQ(EventCount(device), 1u);
  const XEvent& kernel = device.lines(0).events(0);
  EXPECT_EQ(EventName(device, kernel), "my_kernel");
  EXPECT_EQ(kernel.offset_ps() + (device.lines(0).timestamp_ns() - static_cast<int64_t>(
                                                                      kStartWallTimeNs)) *
                                     1000,
            (3000 - kStartGpuTimeNs) * 1000);
  EXPECT_EQ(kernel.duration_ps(), 1000 * 1000);
  EXPECT_EQ(EventStats(device, kernel)["correlation_id"], "42");

  const XLine* thread = FindLine(host, "Host Threads/999");
  ASSERT_NE(thread, nullptr);
  ASSERT_EQ(thread->events_size(), 1);
  EXPECT_EQ(EventName(host, thread->events(0)), "hipLaunchKernel");

  // Export empties the collector, as XLA's does.
  XPlane again;
  tsl::profiler::XPlaneBuilder again_builder(&again);
  collector.Export(kStartWallTimeNs, kStartGpuTimeNs, 10000, &again_builder, &again_builder);
  EXPECT_EQ(EventCount(again), 0u);
}

TEST(PerDeviceCollectorTest, ExportSharesMetadataAlreadyInTheTargetPlane) {
  PerDeviceCollector collector;
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 1, 5));
  collector.AddEvent(KernelActivity("shared_name", 1, 3000, 3100, 0, 0));
  XPlane device;
  tsl::profiler::XPlaneBuilder builder(&device);
  const int64_t existing_id = builder.GetOrCreateEventMetadata("shared_name")->id();
  XPlane host;
  tsl::profiler::XPlaneBuilder host_builder(&host);
  collector.Export(kStartWallTimeNs, kStartGpuTimeNs, 10000, &builder, &host_builder);
  ASSERT_EQ(EventCount(device), 1u);
  EXPECT_EQ(device.lines(0).events(0).metadata_id(), existing_id);
  EXPECT_EQ(device.event_metadata_size(), 1);
}

TEST(PerDeviceCollectorTest, GetDeviceCapabilitiesWritesTheAgentsStats) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  ASSERT_FALSE(tracer.GpuAgents().empty());
  const rocprofiler_agent_v0_t& agent = tracer.GpuAgents()[0];

  PerDeviceCollector collector;
  XPlane device;
  tsl::profiler::XPlaneBuilder builder(&device);
  collector.GetDeviceCapabilities(agent, &builder);
  auto stats = PlaneStats(device);
  EXPECT_EQ(stats["core_count"], std::to_string(agent.cu_count));
  EXPECT_EQ(stats["clock_rate"], std::to_string(uint64_t{agent.max_engine_clk_fcompute} * 1000));
  EXPECT_EQ(stats["device_vendor"], "AMD");
  EXPECT_EQ(stats["compute_cap_major"], std::to_string((agent.gfx_target_version / 10000) % 100));
  EXPECT_EQ(device.lines_size(), 0);
  // XLA computes the clock as int64_t, so readers find a signed stat; the counts are unsigned.
  for (const auto& stat : device.stats()) {
    const std::string& name = device.stat_metadata().at(stat.metadata_id()).name();
    if (name == "clock_rate") {
      EXPECT_EQ(stat.value_case(), tensorflow::profiler::XStat::kInt64Value);
    }
    if (name == "core_count") {
      EXPECT_EQ(stat.value_case(), tensorflow::profiler::XStat::kUint64Value);
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace profiler
}  // namespace xla
