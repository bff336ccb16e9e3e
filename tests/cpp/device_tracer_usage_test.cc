// The drop-in used exactly as XLA's device_tracer_rocm.cc uses it (docs/xla-interface.md#device-tracer):
// a GpuTracer with DoStart / DoStop / CollectData over the singleton, CreateRocmCollector,
// SetGpuAgents(GpuAgents()), Enable with options and collector, Disable, annotation_map,
// SetScopeRangeIdTree and Export. It compiles against the drop-in's headers unchanged.
#include <cstdint>
#include <memory>

#include <gtest/gtest.h>
#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "test_util.h"
#include "xla/backends/profiler/gpu/rocm_collector.h"
#include "xla/backends/profiler/gpu/rocm_tracer.h"
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"
#include "xla/tsl/profiler/backends/cpu/annotation_stack.h"

namespace xla {
namespace profiler {
namespace {

using tsl::profiler::AnnotationStack;

constexpr uint64_t kMaxTraceEvents = 4 * 1024 * 1024;

RocmTracerOptions GetRocmTracerOptions() {
  RocmTracerOptions options;
  options.max_annotation_strings = kMaxTraceEvents;
  return options;
}

RocmTraceCollectorOptions GetRocmTraceCollectorOptions(uint32_t num_gpus) {
  RocmTraceCollectorOptions options;
  options.max_callback_api_events = kMaxTraceEvents;
  options.max_activity_api_events = kMaxTraceEvents;
  options.max_annotation_strings = kMaxTraceEvents;
  options.num_gpus = num_gpus;
  return options;
}

// device_tracer_rocm.cc's GpuTracer, minus the tsl ProfilerInterface base.
class GpuTracer {
 public:
  explicit GpuTracer(RocmTracer* rocm_tracer) : rocm_tracer_(rocm_tracer) {}

  absl::Status Start() {
    AnnotationStack::Enable(true);
    uint64_t start_gputime_ns = RocmTracer::GetTimestamp();
    uint64_t start_walltime_ns = static_cast<uint64_t>(absl::GetCurrentTimeNanos());
    rocm_trace_collector_ = CreateRocmCollector(
        GetRocmTraceCollectorOptions(rocm_tracer_->NumGpus()), start_walltime_ns,
        start_gputime_ns);
    rocm_trace_collector_->SetGpuAgents(rocm_tracer_->GpuAgents());
    absl::Status status = rocm_tracer_->Enable(GetRocmTracerOptions(), rocm_trace_collector_.get());
    if (!status.ok()) {
      AnnotationStack::Enable(false);
      return status;
    }
    return absl::OkStatus();
  }

  absl::Status Stop() {
    rocm_tracer_->Disable();
    AnnotationStack::Enable(false);
    return absl::OkStatus();
  }

  absl::Status CollectData(tsl::profiler::XSpace* space) {
    rocm_trace_collector_->SetScopeRangeIdTree(
        rocm_tracer_->annotation_map()->TakeScopeRangeIdTree());
    rocm_trace_collector_->Export(space);
    return absl::OkStatus();
  }

 private:
  RocmTracer* rocm_tracer_;
  std::unique_ptr<RocmTraceCollector> rocm_trace_collector_;
};

std::unique_ptr<GpuTracer> CreateGpuTracer() {
  RocmTracer* rocm_tracer = &RocmTracer::GetRocmTracerSingleton();
  if (!rocm_tracer->IsAvailable()) return nullptr;
  return std::make_unique<GpuTracer>(rocm_tracer);
}

TEST(DeviceTracerUsageTest, StartStopCollectGivesDevicePlanesWithCapabilities) {
  std::unique_ptr<GpuTracer> tracer = CreateGpuTracer();
  ASSERT_NE(tracer, nullptr);
  ASSERT_TRUE(tracer->Start().ok());
  EXPECT_TRUE(AnnotationStack::IsEnabled());
  EXPECT_FALSE(RocmTracer::GetRocmTracerSingleton().IsAvailable());
  // A second profiler session cannot start while this one runs.
  EXPECT_EQ(CreateGpuTracer(), nullptr);
  ASSERT_TRUE(tracer->Stop().ok());
  EXPECT_FALSE(AnnotationStack::IsEnabled());

  tsl::profiler::XSpace space;
  ASSERT_TRUE(tracer->CollectData(&space).ok());
  const uint32_t num_gpus = RocmTracer::GetRocmTracerSingleton().NumGpus();
  ASSERT_GE(num_gpus, 1u);
  ASSERT_NE(test::FindPlane(space, "/host:ROCTRACER"), nullptr);
  for (uint32_t i = 0; i < num_gpus; ++i) {
    const auto* plane = test::FindPlane(space, "/device:GPU:" + std::to_string(i));
    ASSERT_NE(plane, nullptr) << i;
    EXPECT_EQ(plane->id(), i);
    auto stats = test::PlaneStats(*plane);
    EXPECT_EQ(stats["device_vendor"], "AMD");
    EXPECT_EQ(stats["gpu_device_name"], "gfx942");
    EXPECT_EQ(stats["compute_cap_major"], "9");
    EXPECT_FALSE(stats["core_count"].empty());
  }
  // And the tracer can serve the next session.
  EXPECT_NE(CreateGpuTracer(), nullptr);
}

}  // namespace
}  // namespace profiler
}  // namespace xla
