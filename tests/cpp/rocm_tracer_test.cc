// RocmTracer through the drop-in, on the simulated rocprofiler-sdk: what XLA's
// rocm_tracer_test.cc checks (singleton, lifecycle, context_ state, annotation map) plus
// AlreadyExists, Disable without Enable, agents and contexts mirrored from the Rust core.
#include "xla/backends/profiler/gpu/rocm_tracer.h"

#include <cstdint>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include "absl/status/status.h"
#include "xla/backends/profiler/gpu/rocm_collector.h"

// The simulated SDK's fault injection (crates/rocprofiler-sdk-sim, C ABI): `function`
// returns `status`, on every call (nth 0) or only its nth.
extern "C" void rocsim_fault_inject(const char* function, uint32_t status, uint32_t nth);
extern "C" void rocsim_fault_clear(void);

namespace xla {
namespace profiler {
namespace test {
namespace {

class TestRocmTraceCollector : public RocmTraceCollectorImpl {
 public:
  using RocmTraceCollectorImpl::RocmTraceCollectorImpl;
  void Export(XSpace* space) override { exported_ = space; }
  void Flush() override { ++flushes_; }
  XSpace* exported_ = nullptr;
  int flushes_ = 0;
};

std::unique_ptr<TestRocmTraceCollector> CreateTestCollector() {
  RocmTraceCollectorOptions options;
  options.max_callback_api_events = 2 * 1024 * 1024;
  options.max_activity_api_events = 2 * 1024 * 1024;
  options.max_annotation_strings = 1024 * 1024;
  options.num_gpus = 1;
  return std::make_unique<TestRocmTraceCollector>(options, RocmTracer::GetTimestamp(),
                                                  RocmTracer::GetTimestamp());
}

bool IsActive(rocprofiler_context_id_t context) {
  int active = -1;
  EXPECT_EQ(rocprofiler_context_is_active(context, &active), ROCPROFILER_STATUS_SUCCESS);
  return active != 0;
}

TEST(RocmTracerTest, SingletonInstance) {
  EXPECT_EQ(&RocmTracer::GetRocmTracerSingleton(), &RocmTracer::GetRocmTracerSingleton());
}

TEST(RocmTracerTest, InitialStateIsAvailable) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  EXPECT_TRUE(tracer.IsAvailable());
  EXPECT_EQ(tracer.collector(), nullptr);
}

TEST(RocmTracerTest, EnableAndDisableLifecycleStartsAndStopsTheContext) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  auto collector = CreateTestCollector();
  ASSERT_NE(tracer.context_.handle, 0u);
  EXPECT_FALSE(IsActive(tracer.context_));

  ASSERT_TRUE(tracer.Enable(RocmTracerOptions{128}, collector.get()).ok());
  EXPECT_FALSE(tracer.IsAvailable());
  EXPECT_EQ(tracer.collector(), collector.get());
  EXPECT_TRUE(IsActive(tracer.context_));

  tracer.Disable();
  EXPECT_TRUE(tracer.IsAvailable());
  EXPECT_EQ(tracer.collector(), nullptr);
  EXPECT_FALSE(IsActive(tracer.context_));
  EXPECT_EQ(collector->flushes_, 1);
}

TEST(RocmTracerTest, SecondEnableIsAlreadyExists) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  auto first = CreateTestCollector();
  auto second = CreateTestCollector();
  ASSERT_TRUE(tracer.Enable(RocmTracerOptions{128}, first.get()).ok());
  absl::Status status = tracer.Enable(RocmTracerOptions{128}, second.get());
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(tracer.collector(), first.get());
  tracer.Disable();
  EXPECT_EQ(second->flushes_, 0);
}

TEST(RocmTracerTest, DisableWithoutEnableIsHarmless) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  tracer.Disable();
  EXPECT_TRUE(tracer.IsAvailable());
}

TEST(RocmTracerTest, ProcessLifetimeContextsAreActiveWithoutASession) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  ASSERT_NE(tracer.hip_stream_ctx_.handle, 0u);
  ASSERT_NE(tracer.utility_context_.handle, 0u);
  EXPECT_TRUE(IsActive(tracer.hip_stream_ctx_));
  EXPECT_TRUE(IsActive(tracer.utility_context_));
  EXPECT_NE(tracer.buffer_.handle, 0u);
}

TEST(RocmTracerTest, GpuAgentsComeFromTheSdkInQueryOrder) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  ASSERT_GE(tracer.NumGpus(), 1u);
  ASSERT_EQ(tracer.GpuAgents().size(), tracer.NumGpus());
  for (const rocprofiler_agent_v0_t& agent : tracer.GpuAgents()) {
    EXPECT_EQ(agent.type, ROCPROFILER_AGENT_TYPE_GPU);
    EXPECT_EQ(agent.size, sizeof(rocprofiler_agent_v0_t));
    ASSERT_NE(agent.name, nullptr);
    EXPECT_STREQ(agent.name, "gfx942");
  }
}

TEST(RocmTracerTest, TimestampIsTheSdkClockAndMonotonic) {
  const uint64_t first = RocmTracer::GetTimestamp();
  rocprofiler_timestamp_t sdk = 0;
  ASSERT_EQ(rocprofiler_get_timestamp(&sdk), ROCPROFILER_STATUS_SUCCESS);
  const uint64_t second = RocmTracer::GetTimestamp();
  EXPECT_GT(first, 0u);
  EXPECT_LE(first, sdk);
  EXPECT_LE(sdk, second);
}

TEST(RocmTracerTest, FailedContextStartIsInternalAndLeavesTheTracerUsable) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  auto collector = CreateTestCollector();
  rocsim_fault_inject("rocprofiler_start_context", ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR, 0);
  absl::Status status = tracer.Enable(RocmTracerOptions{128}, collector.get());
  rocsim_fault_clear();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(status.message().find("rocprofiler_start_context"), absl::string_view::npos)
      << status.message();
  EXPECT_TRUE(tracer.IsAvailable());
  EXPECT_EQ(tracer.collector(), nullptr);
  EXPECT_FALSE(IsActive(tracer.context_));

  ASSERT_TRUE(tracer.Enable(RocmTracerOptions{128}, collector.get()).ok());
  EXPECT_TRUE(IsActive(tracer.context_));
  tracer.Disable();
}

// A warning of the Rust core (here the collector's annotation cap, hit during Export) comes
// out through the shim's logging (absl LOG in XLA, stderr with Debian's Abseil).
TEST(RocmTracerTest, RustWarningsReachTheShimLog) {
  RocmTracer::GetRocmTracerSingleton();  // routes the Rust log through the shim
  RocmTraceCollectorOptions options;
  options.max_callback_api_events = 100;
  options.max_activity_api_events = 100;
  options.max_annotation_strings = 1;
  options.num_gpus = 1;
  RocmTraceCollectorImpl collector(options, 0, 1000);
  static const std::string kAnnotations[] = {"first", "second"};
  for (uint64_t id = 1; id <= 2; ++id) {
    RocmTracerEvent activity;
    activity.type = RocmTracerEventType::Kernel;
    activity.source = RocmTracerEventSource::Activity;
    activity.domain = RocmTracerEventDomain::HIP_OPS;
    activity.name = "k";
    activity.correlation_id = id;
    activity.start_time_ns = 2000;
    activity.end_time_ns = 3000;
    activity.device_id = 0;
    activity.stream_id = 0;
    activity.annotation = kAnnotations[id - 1];
    activity.kernel_info = KernelDetails{};
    collector.AddEvent(std::move(activity), false);
  }
  ::testing::internal::CaptureStderr();
  XSpace space;
  collector.Export(&space);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("max_annotation_strings"), std::string::npos) << log;
  EXPECT_NE(log.find("--xla_gpu_rocm_max_trace_events"), std::string::npos) << log;
  // Written by the shim's WARNING logger (cpp/log.h), not the bridge's weak fallback.
  EXPECT_NE(log.find("W "), std::string::npos) << log;
  EXPECT_NE(log.find("rocm_tracer.cc:"), std::string::npos) << log;
}

TEST(RocmTracerTest, AnnotationMapWorks) {
  AnnotationMap* map = RocmTracer::GetRocmTracerSingleton().annotation_map();
  ASSERT_NE(map, nullptr);
  map->Add(42, "matmul_fused_op");
  EXPECT_EQ(map->LookUp(42), "matmul_fused_op");
}

TEST(RocmTracerTest, EnableClearsTheAnnotationMap) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  tracer.annotation_map()->Add(7, "stale");
  auto collector = CreateTestCollector();
  ASSERT_TRUE(tracer.Enable(RocmTracerOptions{128}, collector.get()).ok());
  EXPECT_TRUE(tracer.annotation_map()->LookUp(7).empty());
  tracer.Disable();
}

}  // namespace
}  // namespace test
}  // namespace profiler
}  // namespace xla
