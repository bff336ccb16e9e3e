// RocmTracer through the drop-in, on the simulated rocprofiler-sdk: what XLA's
// rocm_tracer_test.cc checks (singleton, lifecycle, context_ state, annotation map) plus
// AlreadyExists, Disable without Enable, agents and contexts mirrored from the Rust core.
#include "xla/backends/profiler/gpu/rocm_tracer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

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

using tsl::profiler::XSpace;

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

// Enable and Disable racing from two threads must leave the tracer consistent: every
// collector that was enabled is flushed exactly once, and afterwards a new session starts.
TEST(RocmTracerTest, ConcurrentEnableAndDisableLeaveTheTracerConsistent) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  constexpr int kRounds = 200;
  std::vector<std::unique_ptr<TestRocmTraceCollector>> collectors;
  for (int i = 0; i < kRounds; ++i) collectors.push_back(CreateTestCollector());
  std::vector<bool> enabled(kRounds, false);
  std::thread enabler([&] {
    for (int i = 0; i < kRounds; ++i) {
      enabled[i] = tracer.Enable(RocmTracerOptions{16}, collectors[i].get()).ok();
      tracer.Disable();
    }
  });
  std::thread disabler([&] {
    for (int i = 0; i < kRounds; ++i) tracer.Disable();
  });
  enabler.join();
  disabler.join();
  for (int i = 0; i < kRounds; ++i) {
    EXPECT_EQ(collectors[i]->flushes_, enabled[i] ? 1 : 0) << "collector " << i;
  }
  EXPECT_TRUE(tracer.IsAvailable());
  auto last = CreateTestCollector();
  ASSERT_TRUE(tracer.Enable(RocmTracerOptions{16}, last.get()).ok());
  EXPECT_TRUE(IsActive(tracer.context_));
  tracer.Disable();
  EXPECT_FALSE(IsActive(tracer.context_));
}

TEST(RocmTracerTest, ProcessLifetimeContextsAreActiveWithoutASession) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  ASSERT_NE(tracer.hip_stream_ctx_.handle, 0u);
  ASSERT_NE(tracer.utility_context_.handle, 0u);
  EXPECT_TRUE(IsActive(tracer.hip_stream_ctx_));
  EXPECT_TRUE(IsActive(tracer.utility_context_));
  EXPECT_NE(tracer.buffer_.handle, 0u);
}

// The SDK's own count of agents of `type`, asked directly (not through the tracer).
size_t CountSdkAgents(rocprofiler_agent_type_t type) {
  struct Query {
    rocprofiler_agent_type_t type;
    size_t count;
  } query{type, 0};
  auto count = [](rocprofiler_agent_version_t, const void** agents, size_t num_agents,
                  void* user_data) -> rocprofiler_status_t {
    auto* q = static_cast<Query*>(user_data);
    for (size_t i = 0; i < num_agents; ++i) {
      if (static_cast<const rocprofiler_agent_v0_t*>(agents[i])->type == q->type) ++q->count;
    }
    return ROCPROFILER_STATUS_SUCCESS;
  };
  EXPECT_EQ(rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, count,
                                               sizeof(rocprofiler_agent_v0_t), &query),
            ROCPROFILER_STATUS_SUCCESS);
  return query.count;
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
  // agents_ holds every agent, like XLA's InitProfiling: the GPUs plus one CPU agent per
  // socket (the simulated machine is dual-socket by default, as MI300X nodes are).
  const size_t sdk_cpus = CountSdkAgents(ROCPROFILER_AGENT_TYPE_CPU);
  ASSERT_GE(sdk_cpus, 1u);
  ASSERT_EQ(tracer.agents_.size(), tracer.NumGpus() + sdk_cpus);
  size_t cpus = 0;
  for (const auto& [handle, agent] : tracer.agents_) {
    EXPECT_EQ(agent.id.handle, handle);
    if (agent.type == ROCPROFILER_AGENT_TYPE_CPU) ++cpus;
  }
  EXPECT_EQ(cpus, sdk_cpus);
  for (const rocprofiler_agent_v0_t& gpu : tracer.GpuAgents()) {
    EXPECT_TRUE(tracer.agents_.contains(gpu.id.handle));
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
  // The Rust collector applies the cap as events arrive.
  ::testing::internal::CaptureStderr();
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

// XLA's protected record decoders, reachable as in XLA: through a subclass.
class DecodingTracer : public RocmTracer {
 public:
  using RocmTracer::HipApiEvent;
  using RocmTracer::KernelEvent;
  using RocmTracer::MemcpyEvent;
};

// ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel (hip/hip_runtime_api_id.h, ROCm 7.1; the
// sys crate's hip_runtime_api_id.rs).
constexpr rocprofiler_tracing_operation_t kHipLaunchKernelOperation = 214;

rocprofiler_record_header_t TracingHeader(uint32_t kind, void* payload) {
  rocprofiler_record_header_t header{};
  header.category = ROCPROFILER_BUFFER_CATEGORY_TRACING;
  header.kind = kind;
  header.payload = payload;
  return header;
}

TEST(RocmTracerTest, KernelEventDecodesADispatchRecord) {
  RocmTracer& singleton = RocmTracer::GetRocmTracerSingleton();
  ASSERT_FALSE(singleton.GpuAgents().empty());
  const rocprofiler_agent_id_t gpu = singleton.GpuAgents()[0].id;

  rocprofiler_buffer_tracing_kernel_dispatch_record_t record{};
  record.size = sizeof(record);
  record.kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
  record.correlation_id.internal = 0x1'0000'0007;  // beyond 32 bits, as uint64 ids allow
  record.correlation_id.external.value = 5;        // the stream the request callback wrote
  record.thread_id = 321;
  record.start_timestamp = 1000;
  record.end_timestamp = 1500;
  record.dispatch_info.size = sizeof(record.dispatch_info);
  record.dispatch_info.agent_id = gpu;
  record.dispatch_info.queue_id.handle = 0xabc;
  record.dispatch_info.private_segment_size = 16;
  record.dispatch_info.group_segment_size = 2048;
  record.dispatch_info.workgroup_size = {64, 2, 1};
  record.dispatch_info.grid_size = {256, 4, 1};
  rocprofiler_record_header_t header =
      TracingHeader(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, &record);

  DecodingTracer tracer;
  RocmTracerEvent event;
  tracer.KernelEvent(&header, &event);
  EXPECT_EQ(event.type, RocmTracerEventType::Kernel);
  EXPECT_EQ(event.source, RocmTracerEventSource::Activity);
  EXPECT_EQ(event.domain, RocmTracerEventDomain::HIP_OPS);
  EXPECT_EQ(event.correlation_id, 0x1'0000'0007u);
  EXPECT_EQ(event.stream_id, 5u);
  EXPECT_EQ(event.queue_id, 0xabcu);
  EXPECT_EQ(event.thread_id, 321u);
  EXPECT_EQ(event.start_time_ns, 1000u);
  EXPECT_EQ(event.end_time_ns, 1500u);
  EXPECT_EQ(event.device_id, static_cast<uint32_t>(gpu.handle));
  EXPECT_EQ(event.kernel_info.private_segment_size, 16u);
  EXPECT_EQ(event.kernel_info.group_segment_size, 2048u);
  EXPECT_EQ(event.kernel_info.workgroup_x, 64u);
  EXPECT_EQ(event.kernel_info.workgroup_y, 2u);
  EXPECT_EQ(event.kernel_info.grid_x, 256u);
  EXPECT_EQ(event.kernel_info.grid_y, 4u);
}

TEST(RocmTracerTest, MemcpyAndHipApiEventsDecodeTheirRecords) {
  RocmTracer& singleton = RocmTracer::GetRocmTracerSingleton();
  ASSERT_FALSE(singleton.GpuAgents().empty());
  const rocprofiler_agent_id_t gpu = singleton.GpuAgents()[0].id;
  DecodingTracer tracer;

  rocprofiler_buffer_tracing_memory_copy_record_t copy{};
  copy.size = sizeof(copy);
  copy.kind = ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
  copy.operation = ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE;
  copy.correlation_id.internal = 9;
  copy.start_timestamp = 10;
  copy.end_timestamp = 20;
  copy.dst_agent_id = gpu;
  copy.bytes = 4096;
  rocprofiler_record_header_t copy_header =
      TracingHeader(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, &copy);
  RocmTracerEvent copy_event;
  tracer.MemcpyEvent(&copy_header, &copy_event);
  EXPECT_EQ(copy_event.type, RocmTracerEventType::MemcpyH2D);
  EXPECT_EQ(copy_event.source, RocmTracerEventSource::Activity);
  EXPECT_EQ(copy_event.correlation_id, 9u);
  EXPECT_EQ(copy_event.memcpy_info.num_bytes, 4096u);
  EXPECT_EQ(copy_event.device_id, static_cast<uint32_t>(gpu.handle));

  rocprofiler_buffer_tracing_hip_api_record_t api{};
  api.size = sizeof(api);
  api.kind = ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
  api.operation = kHipLaunchKernelOperation;
  api.correlation_id.internal = 11;
  api.start_timestamp = 1;
  api.end_timestamp = 2;
  api.thread_id = 77;
  rocprofiler_record_header_t api_header =
      TracingHeader(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, &api);
  RocmTracerEvent api_event;
  tracer.HipApiEvent(&api_header, &api_event);
  EXPECT_EQ(api_event.source, RocmTracerEventSource::ApiCallback);
  EXPECT_EQ(api_event.domain, RocmTracerEventDomain::HIP_API);
  EXPECT_EQ(api_event.name, "hipLaunchKernel");
  EXPECT_EQ(api_event.correlation_id, 11u);
  EXPECT_EQ(api_event.thread_id, 77u);
}

TEST(RocmTracerTest, EventDecodersRejectNullTruncatedAndMismatchedRecords) {
  DecodingTracer tracer;
  auto expect_invalid = [](const RocmTracerEvent& event) {
    EXPECT_EQ(event.source, RocmTracerEventSource::Invalid);
    EXPECT_EQ(event.type, RocmTracerEventType::Unsupported);
  };
  RocmTracerEvent event;
  tracer.KernelEvent(nullptr, &event);
  expect_invalid(event);
  tracer.KernelEvent(nullptr, nullptr);  // no event to fill: nothing happens

  rocprofiler_buffer_tracing_memory_copy_record_t copy{};
  copy.size = sizeof(copy);
  rocprofiler_record_header_t header =
      TracingHeader(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, &copy);
  RocmTracerEvent wrong_kind;
  tracer.KernelEvent(&header, &wrong_kind);  // a copy record is not a dispatch
  expect_invalid(wrong_kind);

  copy.size = 8;  // claims fewer bytes than the struct
  RocmTracerEvent truncated;
  tracer.MemcpyEvent(&header, &truncated);
  expect_invalid(truncated);

  header.payload = nullptr;
  RocmTracerEvent no_payload;
  tracer.MemcpyEvent(&header, &no_payload);
  expect_invalid(no_payload);
}

std::string ExportWarnings(RocmTraceCollector& collector) {
  XSpace space;
  collector.Export(&space);
  std::string warnings;
  for (const std::string& warning : space.warnings()) warnings += warning + "\n";
  return warnings;
}

// XLA's path: a collector from CreateRocmCollector is backed by the Rust collector, which the
// session delivers into; what is reported to it reaches its trace's warnings.
TEST(RocmTracerTest, SessionWithACreatedCollectorRunsAndExportsThroughRust) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  RocmTraceCollectorOptions options{1024, 1024, 1024, tracer.NumGpus()};
  std::unique_ptr<RocmTraceCollector> collector = CreateRocmCollector(
      options, RocmTracer::GetTimestamp(), RocmTracer::GetTimestamp());
  collector->SetGpuAgents(tracer.GpuAgents());
  ASSERT_TRUE(tracer.Enable(RocmTracerOptions{128}, collector.get()).ok());
  EXPECT_EQ(tracer.collector(), collector.get());
  tracer.Disable();
  EXPECT_EQ(tracer.collector(), nullptr);
  collector->OnEventsDropped("lost in a test", 3);
  const std::string warnings = ExportWarnings(*collector);
  EXPECT_NE(warnings.find("Dropped 3 events"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("lost in a test"), std::string::npos) << warnings;
  // Export forgot what it exported.
  EXPECT_EQ(ExportWarnings(*collector), "");
}

}  // namespace
}  // namespace test
}  // namespace profiler
}  // namespace xla
