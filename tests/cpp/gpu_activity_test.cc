// GPU activity through the whole C++ drop-in: a HIP program (the simulated libamdhip64 over
// the simulated rocprofiler-sdk) traced by RocmTracer into XLA collectors. Covers the
// openxla/xla#46182 behaviours end to end (a lane per HIP stream, memcpy on the timeline,
// queue_id on kernels, dense lane names), tsl annotations, hipGraph dispatches sharing one
// correlation id, session isolation (#41997), and that the XSpace exported through the C++
// path equals the Rust writer's output for the same events.
#include <hip/hip_runtime.h>
#include <rocsim/hip_host_kernels.h>

#include <cstdint>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include "absl/synchronization/mutex.h"
#include "xla-rocm-tracer/cpp/absl_compat.h"
#include "test_util.h"
#include "xla/backends/profiler/gpu/rocm_collector.h"
#include "xla/backends/profiler/gpu/rocm_tracer.h"
#include "xla/tsl/profiler/backends/cpu/annotation_stack.h"
#include "xla_rocm_tracer.h"

// Not in the stand-in HIP header; the simulated runtime exports it with HIP's signature.
extern "C" hipError_t hipMallocManaged(void** ptr, size_t size, unsigned int flags);

// ---- A kernel as hipcc would register it (see tests/hip/hip_host_program.cc). -------------

void fill(float* data, float value, int n);

void fill(float* data, float value, int n) {
  dim3 grid, block;
  size_t shmem;
  hipStream_t stream;
  if (__hipPopCallConfiguration(&grid, &block, &shmem, &stream) != hipSuccess) return;
  void* args[] = {&data, &value, &n};
  (void)hipLaunchKernel(reinterpret_cast<const void*>(&fill), grid, block, args, shmem, stream);
}

static void fill_body(dim3 grid, dim3 block, size_t, void** args) {
  float* data = *static_cast<float**>(args[0]);
  const float value = *static_cast<float*>(args[1]);
  const int n = *static_cast<int*>(args[2]);
  for (unsigned i = 0; i < grid.x * block.x && static_cast<int>(i) < n; ++i) data[i] = value;
}

static const char kBundle[] = "__CLANG_OFFLOAD_BUNDLE__";
static rocsimHipFatbinWrapper fatbin = {ROCSIM_HIP_FATBIN_MAGIC, 1, kBundle, nullptr};

__attribute__((constructor)) static void RegisterKernels() {
  void** module = __hipRegisterFatBinary(&fatbin);
  __hipRegisterFunction(module, reinterpret_cast<const void*>(&fill),
                        const_cast<char*>("_Z4fillPffi"), "_Z4fillPffi",
                        static_cast<unsigned>(-1), nullptr, nullptr, nullptr, nullptr, nullptr);
}

namespace xla {
namespace profiler {
namespace test {
namespace {

constexpr char kFillName[] = "fill(float*, float, int)";
constexpr int kN = 1 << 12;
constexpr size_t kBytes = kN * sizeof(float);

#define ASSERT_HIP(call) ASSERT_EQ((call), hipSuccess) << #call

void LaunchFill(float* data, float value, hipStream_t stream) {
  ASSERT_HIP(__hipPushCallConfiguration(dim3((kN + 255) / 256), dim3(256), 0, stream));
  fill(data, value, kN);
  ASSERT_HIP(hipGetLastError());
}

// Forwards to XLA's collector and keeps a copy of every event, as a user subclass would.
class RecordingCollector : public RocmTraceCollector {
 public:
  RecordingCollector(const RocmTraceCollectorOptions& options, uint64_t start_walltime_ns,
                     uint64_t start_gputime_ns)
      : RocmTraceCollector(options),
        impl_(options, start_walltime_ns, start_gputime_ns),
        start_walltime_ns_(start_walltime_ns),
        start_gputime_ns_(start_gputime_ns) {}

  void SetGpuAgents(std::vector<rocprofiler_agent_v0_t> agents) override {
    impl_.SetGpuAgents(std::move(agents));
  }
  void AddEvent(RocmTracerEvent&& event, bool is_auxiliary) override {
    {
      absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(mutex_));
      events_.push_back(event);
    }
    impl_.AddEvent(std::move(event), is_auxiliary);
  }
  void OnEventsDropped(const std::string& reason, uint64_t count) override {
    {
      absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(mutex_));
      drops_[reason] += count;
    }
    impl_.OnEventsDropped(reason, count);
  }
  void Flush() override {
    ++flushes_;
    impl_.Flush();
  }
  void Export(XSpace* space) override { impl_.Export(space); }
  void SetScopeRangeIdTree(ScopeRangeIdTree tree) override {
    impl_.SetScopeRangeIdTree(std::move(tree));
  }

  std::vector<RocmTracerEvent> events() {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(mutex_));
    return events_;
  }
  uint64_t Dropped(const std::string& reason) {
    absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(mutex_));
    auto it = drops_.find(reason);
    return it == drops_.end() ? 0 : it->second;
  }
  std::vector<RocmTracerEvent> Activities() {
    std::vector<RocmTracerEvent> out;
    for (RocmTracerEvent& event : events()) {
      if (event.source == RocmTracerEventSource::Activity) out.push_back(std::move(event));
    }
    return out;
  }

  RocmTraceCollectorImpl impl_;
  const uint64_t start_walltime_ns_;
  const uint64_t start_gputime_ns_;
  int flushes_ = 0;

 private:
  absl::Mutex mutex_;
  std::vector<RocmTracerEvent> events_;
  std::map<std::string, uint64_t> drops_;
};

class GpuActivityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (rocsimHipSetKernelHostBody) {
      ASSERT_HIP(rocsimHipSetKernelHostBody(reinterpret_cast<const void*>(&fill), fill_body,
                                            20000));
    }
    ASSERT_HIP(hipSetDevice(0));
    ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&device_), kBytes));
    ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&host_), kBytes, 0));
  }
  void TearDown() override {
    EXPECT_HIP_OK(hipFree(device_));
    EXPECT_HIP_OK(hipHostFree(host_));
  }
  static void EXPECT_HIP_OK(hipError_t status) { EXPECT_EQ(status, hipSuccess); }

  // Starts a session the way device_tracer_rocm.cc does.
  std::unique_ptr<RecordingCollector> Start() {
    tsl::profiler::AnnotationStack::Enable(true);
    const uint64_t gpu_start = RocmTracer::GetTimestamp();
    auto collector = std::make_unique<RecordingCollector>(
        Options(tracer_.NumGpus(), 1 << 20), /*start_walltime_ns=*/1'000'000'000, gpu_start);
    collector->SetGpuAgents(tracer_.GpuAgents());
    EXPECT_TRUE(tracer_.Enable(RocmTracerOptions{1 << 20}, collector.get()).ok());
    return collector;
  }
  XSpace Stop(RecordingCollector& collector) {
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    tracer_.Disable();
    tsl::profiler::AnnotationStack::Enable(false);
    collector.SetScopeRangeIdTree(tracer_.annotation_map()->TakeScopeRangeIdTree());
    XSpace space;
    collector.Export(&space);
    return space;
  }

  RocmTracer& tracer_ = RocmTracer::GetRocmTracerSingleton();
  float* device_ = nullptr;
  float* host_ = nullptr;
};

// The 16 KiB copies are GPU blits that the SDK records as DEVICE_TO_DEVICE with the GPU on
// both sides: the tracer names them by the HIP call's direction.
TEST_F(GpuActivityTest, EachHipStreamIsALaneAndCopiesAreOnTheTimeline) {
  hipStream_t compute, h2d, d2h;
  ASSERT_HIP(hipStreamCreate(&compute));
  ASSERT_HIP(hipStreamCreateWithFlags(&h2d, hipStreamNonBlocking));
  ASSERT_HIP(hipStreamCreateWithFlags(&d2h, hipStreamNonBlocking));
  auto collector = Start();
  ASSERT_HIP(hipMemcpyAsync(device_, host_, kBytes, hipMemcpyHostToDevice, h2d));
  ASSERT_HIP(hipStreamSynchronize(h2d));
  LaunchFill(device_, 1.0f, compute);
  LaunchFill(device_, 2.0f, compute);
  ASSERT_HIP(hipStreamSynchronize(compute));
  ASSERT_HIP(hipMemcpyAsync(host_, device_, kBytes, hipMemcpyDeviceToHost, d2h));
  XSpace space = Stop(*collector);
  EXPECT_EQ(collector->flushes_, 1);
  EXPECT_EQ(host_[kN - 1], 2.0f);

  // What the collector received: kernels carry their HSA queue, copies none; every activity
  // carries a real stream id, and the three streams are distinct.
  std::set<uint64_t> kernel_streams, h2d_streams, d2h_streams;
  for (const RocmTracerEvent& event : collector->Activities()) {
    EXPECT_NE(event.stream_id, RocmTracerEvent::kInvalidStreamId);
    EXPECT_NE(event.correlation_id, RocmTracerEvent::kInvalidCorrelationId);
    if (event.type == RocmTracerEventType::Kernel) {
      EXPECT_EQ(event.name, kFillName);
      EXPECT_NE(event.queue_id, 0u);
      kernel_streams.insert(event.stream_id);
    } else if (event.type == RocmTracerEventType::MemcpyH2D) {
      EXPECT_EQ(event.memcpy_info.num_bytes, kBytes);
      h2d_streams.insert(event.stream_id);
    } else if (event.type == RocmTracerEventType::MemcpyD2H) {
      d2h_streams.insert(event.stream_id);
    }
  }
  ASSERT_EQ(kernel_streams.size(), 1u);
  ASSERT_EQ(h2d_streams.size(), 1u);
  ASSERT_EQ(d2h_streams.size(), 1u);
  EXPECT_NE(*kernel_streams.begin(), *h2d_streams.begin());
  EXPECT_NE(*kernel_streams.begin(), *d2h_streams.begin());
  EXPECT_NE(*h2d_streams.begin(), *d2h_streams.begin());

  // The export: three dense lanes in first-use order, memcpy on its own lane.
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  const XLine* h2d_lane = FindLine(*gpu, "Stream #0");
  const XLine* compute_lane = FindLine(*gpu, "Stream #1");
  const XLine* d2h_lane = FindLine(*gpu, "Stream #2");
  ASSERT_NE(h2d_lane, nullptr);
  ASSERT_NE(compute_lane, nullptr);
  ASSERT_NE(d2h_lane, nullptr);
  EXPECT_EQ(gpu->lines_size(), 3);
  ASSERT_EQ(h2d_lane->events_size(), 1);
  EXPECT_EQ(EventName(*gpu, h2d_lane->events(0)), "MemcpyH2D");
  EXPECT_EQ(compute_lane->events_size(), 2);
  EXPECT_EQ(EventName(*gpu, compute_lane->events(0)), kFillName);
  ASSERT_EQ(d2h_lane->events_size(), 1);
  EXPECT_EQ(EventName(*gpu, d2h_lane->events(0)), "MemcpyD2H");
  // The HIP calls are on the launching thread's host line.
  const XPlane* host = FindPlane(space, "/host:ROCTRACER");
  ASSERT_NE(host, nullptr);
  ASSERT_EQ(host->lines_size(), 1);
  std::set<std::string> api_names;
  for (const XEvent& event : host->lines(0).events()) api_names.insert(EventName(*host, event));
  EXPECT_TRUE(api_names.count("hipLaunchKernel"));
  EXPECT_TRUE(api_names.count("hipMemcpyAsync"));

  ASSERT_HIP(hipStreamDestroy(compute));
  ASSERT_HIP(hipStreamDestroy(h2d));
  ASSERT_HIP(hipStreamDestroy(d2h));
}

// Disable right after hipDeviceSynchronize: the kernel records the SDK pushes after the
// synchronize returned still reach this session (the tracer waits for them).
TEST_F(GpuActivityTest, TslAnnotationsReachEventsStatsAndTheScopeTree) {
  auto collector = Start();
  tsl::profiler::AnnotationStack::PushAnnotation("train_step");
  tsl::profiler::AnnotationStack::PushAnnotation("matmul#hlo_op=dot.1#");
  LaunchFill(device_, 1.0f, nullptr);
  tsl::profiler::AnnotationStack::PopAnnotation();
  tsl::profiler::AnnotationStack::PopAnnotation();
  LaunchFill(device_, 2.0f, nullptr);  // not annotated
  XSpace space = Stop(*collector);

  std::vector<RocmTracerEvent> kernels = collector->Activities();
  ASSERT_EQ(kernels.size(), 2u);
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.start_time_ns < b.start_time_ns; });
  EXPECT_EQ(kernels[0].annotation, "train_step::matmul#hlo_op=dot.1#");
  EXPECT_NE(kernels[0].scope_range_id, 0);
  EXPECT_TRUE(kernels[1].annotation.empty());
  EXPECT_EQ(kernels[1].scope_range_id, 0);

  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  int annotated = 0;
  for (const XLine& line : gpu->lines()) {
    for (const XEvent& event : line.events()) {
      auto stats = EventStats(*gpu, event);
      if (stats.count("tf_op") == 0) continue;
      ++annotated;
      EXPECT_EQ(stats["tf_op"], "train_step");
      EXPECT_EQ(stats["hlo_op"], "dot.1");
      EXPECT_EQ(stats["scope_range_id"], std::to_string(kernels[0].scope_range_id));
    }
  }
  EXPECT_EQ(annotated, 1);
  // The nested scope's parent edge went from the annotation map to the collector.
  const XPlane* tree = FindPlane(space, "/host:__ScopeRangeCallStack__");
  ASSERT_NE(tree, nullptr);
  ASSERT_EQ(tree->stats_size(), 1);
  EXPECT_EQ(tree->stats(0).metadata_id(), kernels[0].scope_range_id);
}

// Something else toggles tsl's annotation stack during the session (another profiler session
// ending and a new one starting): tsl empties each thread's stack at its next touch. Until
// then the thread's text still holds the old annotation, which must not reach an event. On
// XLA's path (a collector from CreateRocmCollector) the tracer keeps the address of that text
// to answer "is there an annotation?" and must read a non-empty one through tsl, which applies
// the reset first; with a C++ collector the tracer reads tsl directly. Both are checked.
TEST_F(GpuActivityTest, AnAnnotationStackResetByTslMidSessionLeavesNoStaleAnnotation) {
  using tsl::profiler::AnnotationStack;
  for (const bool created : {true, false}) {
    SCOPED_TRACE(created ? "CreateRocmCollector" : "a C++ collector");
    AnnotationStack::Enable(true);
    const RocmTraceCollectorOptions options = Options(tracer_.NumGpus(), 1 << 20);
    const uint64_t start_walltime_ns = 1'000'000'000, start_gputime_ns = RocmTracer::GetTimestamp();
    std::unique_ptr<RocmTraceCollector> collector;
    if (created) {
      collector = CreateRocmCollector(options, start_walltime_ns, start_gputime_ns);
    } else {
      collector =
          std::make_unique<RecordingCollector>(options, start_walltime_ns, start_gputime_ns);
    }
    collector->SetGpuAgents(tracer_.GpuAgents());
    ASSERT_TRUE(tracer_.Enable(RocmTracerOptions{1 << 20}, collector.get()).ok());
    AnnotationStack::PushAnnotation("before#hlo_op=a#");
    LaunchFill(device_, 1.0f, nullptr);
    // No HIP call between the two: the thread's text still holds the stale annotation.
    AnnotationStack::Enable(false);
    AnnotationStack::Enable(true);
    LaunchFill(device_, 2.0f, nullptr);
    AnnotationStack::PushAnnotation("after#hlo_op=b#");
    LaunchFill(device_, 3.0f, nullptr);
    AnnotationStack::PopAnnotation();
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    tracer_.Disable();
    AnnotationStack::Enable(false);
    XSpace space;
    collector->Export(&space);

    // The kernels in launch order, by the hlo_op their annotation gave them ("" for none).
    const XPlane* gpu = FindPlane(space, "/device:GPU:0");
    ASSERT_NE(gpu, nullptr);
    std::vector<std::pair<int64_t, std::string>> kernels;
    for (const XLine& line : gpu->lines()) {
      for (const XEvent& event : line.events()) {
        auto stats = EventStats(*gpu, event);
        kernels.emplace_back(line.timestamp_ns() * 1000 + event.offset_ps(), stats["hlo_op"]);
      }
    }
    std::sort(kernels.begin(), kernels.end());
    ASSERT_EQ(kernels.size(), 3u);
    EXPECT_EQ(kernels[0].second, "a");
    EXPECT_EQ(kernels[1].second, "") << "the stale annotation reached an event";
    // Not a nesting under "before": the reset emptied the stack before the push.
    EXPECT_EQ(kernels[2].second, "b");
  }
}

// Disable right after hipDeviceSynchronize: the kernel records the SDK pushes after the
// synchronize returned still reach this session (the tracer waits for them).
TEST_F(GpuActivityTest, GraphLaunchDispatchesShareOneCorrelationIdAndAllAreExported) {
  hipGraph_t graph;
  ASSERT_HIP(hipGraphCreate(&graph, 0));
  float one = 1.0f, two = 2.0f;
  int n = kN;
  void* first_args[] = {&device_, &one, &n};
  void* second_args[] = {&device_, &two, &n};
  hipKernelNodeParams params = {};
  params.func = reinterpret_cast<void*>(&fill);
  params.gridDim = dim3((kN + 255) / 256);
  params.blockDim = dim3(256);
  params.kernelParams = first_args;
  hipGraphNode_t first, second;
  ASSERT_HIP(hipGraphAddKernelNode(&first, graph, nullptr, 0, &params));
  params.kernelParams = second_args;
  ASSERT_HIP(hipGraphAddKernelNode(&second, graph, &first, 1, &params));
  hipGraphExec_t exec;
  ASSERT_HIP(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));

  auto collector = Start();
  ASSERT_HIP(hipGraphLaunch(exec, nullptr));
  XSpace space = Stop(*collector);

  std::vector<RocmTracerEvent> kernels = collector->Activities();
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].correlation_id, kernels[1].correlation_id);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(EventCount(*gpu), 2u);
  ASSERT_HIP(hipGraphExecDestroy(exec));
  ASSERT_HIP(hipGraphDestroy(graph));
}

// openxla/xla#41997: work done between two sessions reaches neither.
// A user collector whose AddEvent throws (hlo_op_profiler_rocm.cc and tests subclass
// RocmTraceCollector): the exception must not reach the Rust core, which would terminate the
// profiled program; the session ends normally and the next one works.
class ThrowingCollector : public RocmTraceCollector {
 public:
  using RocmTraceCollector::RocmTraceCollector;
  void AddEvent(RocmTracerEvent&&, bool) override {
    ++calls_;
    throw std::runtime_error("collector failure");
  }
  void OnEventsDropped(const std::string&, uint64_t) override {}
  void Flush() override { ++flushes_; }
  void Export(XSpace*) override {}
  int calls_ = 0;
  int flushes_ = 0;
};

// Disable right after hipDeviceSynchronize: the kernel records the SDK pushes after the
// synchronize returned still reach this session (the tracer waits for them).
TEST_F(GpuActivityTest, ACollectorThatThrowsDoesNotTakeTheProgramDown) {
  ThrowingCollector throwing(Options(tracer_.NumGpus(), 1 << 20));
  ASSERT_TRUE(tracer_.Enable(RocmTracerOptions{1 << 20}, &throwing).ok());
  LaunchFill(device_, 1.0f, nullptr);
  ASSERT_HIP(hipDeviceSynchronize());
  tracer_.Disable();
  EXPECT_GT(throwing.calls_, 0);
  EXPECT_EQ(throwing.flushes_, 1);

  auto next = Start();
  LaunchFill(device_, 2.0f, nullptr);
  Stop(*next);
  EXPECT_EQ(next->Activities().size(), 1u);
}

// Disable right after hipDeviceSynchronize: the kernel records the SDK pushes after the
// synchronize returned still reach this session (the tracer waits for them).
TEST_F(GpuActivityTest, DisableIsolatesNextSession) {
  auto first = Start();
  LaunchFill(device_, 1.0f, nullptr);
  Stop(*first);
  const size_t first_events = first->events().size();
  EXPECT_GT(first_events, 0u);

  LaunchFill(device_, 2.0f, nullptr);  // between sessions
  ASSERT_HIP(hipDeviceSynchronize());

  auto second = Start();
  LaunchFill(device_, 3.0f, nullptr);
  XSpace space = Stop(*second);
  EXPECT_EQ(first->events().size(), first_events);
  std::vector<RocmTracerEvent> kernels = second->Activities();
  ASSERT_EQ(kernels.size(), 1u);
  for (const RocmTracerEvent& event : second->events()) {
    EXPECT_GE(event.start_time_ns, second->start_gputime_ns_);
  }
  EXPECT_EQ(EventCount(*FindPlane(space, "/device:GPU:0")), 1u);
}

// JAX's profile-guided latency estimator (PGLE) opens XLA profiler sessions back to back, about
// 25 ms apart, and stops each while kernels may still run (issue 36). Every kernel a session
// launched lands in that session, or is counted once there as in flight at Disable (when
// Disable stops waiting: XLA_ROCM_TRACER_DISABLE_WAIT_MS=0 here), and never in the next one.
// docs/xla-interface.md#back-to-back-sessions.
TEST_F(GpuActivityTest, BackToBackSessionsPutEachKernelInItsOwnSessionOrCountItOnce) {
  constexpr uint64_t kKernelNs = 20'000'000;  // 20 ms on the simulated GPU: running at Disable
  constexpr int kInFlight = 4;
  const std::string in_flight_reason =
      "kernel dispatches and copies still in flight at Disable (their records had not arrived)";
  if (!rocsimHipSetKernelHostBody) GTEST_SKIP() << "needs the simulated HIP runtime";
  ASSERT_HIP(rocsimHipSetKernelHostBody(reinterpret_cast<const void*>(&fill), fill_body, kKernelNs));
  hipStream_t stream;
  ASSERT_HIP(hipStreamCreate(&stream));
  for (const char* wait_ms : {"", "0"}) {
    SCOPED_TRACE(std::string("XLA_ROCM_TRACER_DISABLE_WAIT_MS=") + wait_ms);
    if (*wait_ms) {
      ASSERT_EQ(setenv("XLA_ROCM_TRACER_DISABLE_WAIT_MS", wait_ms, 1), 0);
    } else {
      ASSERT_EQ(unsetenv("XLA_ROCM_TRACER_DISABLE_WAIT_MS"), 0);
    }
    auto first = Start();
    for (int i = 0; i < kInFlight; ++i) LaunchFill(device_, 1.0f, stream);
    tracer_.Disable();  // no synchronize: the kernels are still running
    // The next session waits at Disable as by default (the variable is read at every Enable),
    // so its own kernel lands in it.
    ASSERT_EQ(unsetenv("XLA_ROCM_TRACER_DISABLE_WAIT_MS"), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    auto second = Start();
    LaunchFill(device_, 2.0f, stream);
    Stop(*second);

    // The launches are the first session's HIP API events; their kernels are activities under
    // the same correlation ids.
    std::set<uint64_t> launched;
    for (const RocmTracerEvent& event : first->events()) {
      if (event.source == RocmTracerEventSource::ApiCallback && event.name == "hipLaunchKernel") {
        launched.insert(event.correlation_id);
      }
    }
    ASSERT_EQ(launched.size(), static_cast<size_t>(kInFlight));
    uint64_t landed = 0;
    for (const RocmTracerEvent& event : first->Activities()) {
      EXPECT_EQ(launched.count(event.correlation_id), 1u) << event.correlation_id;
      ++landed;
    }
    const uint64_t counted = first->Dropped(in_flight_reason);
    EXPECT_EQ(landed + counted, static_cast<uint64_t>(kInFlight));
    if (*wait_ms) {
      // At least the last kernel (60 ms after the launches) is still running; the first may
      // have ended if this thread was held up for 20 ms before Disable.
      EXPECT_GE(counted, 1u) << "Disable did not wait";
    } else {
      EXPECT_EQ(landed, static_cast<uint64_t>(kInFlight)) << "Disable waits for work in flight";
    }
    std::vector<RocmTracerEvent> next = second->Activities();
    ASSERT_EQ(next.size(), 1u);
    EXPECT_EQ(launched.count(next[0].correlation_id), 0u) << "a kernel of the first session";
    EXPECT_EQ(second->Dropped(in_flight_reason), 0u);
  }
  ASSERT_HIP(hipStreamDestroy(stream));
}

XrtEvent ToXrtEvent(const RocmTracerEvent& event, std::vector<std::string>& strings) {
  XrtEvent out{};
  out.event_type = static_cast<uint32_t>(event.type);
  out.source = static_cast<uint32_t>(event.source);
  out.domain = static_cast<uint32_t>(event.domain);
  strings.push_back(event.name);
  out.name = strings.back().c_str();
  strings.emplace_back(event.annotation);
  out.annotation = strings.back().c_str();
  strings.emplace_back(event.roctx_range);
  out.roctx_range = strings.back().c_str();
  out.start_time_ns = event.start_time_ns;
  out.end_time_ns = event.end_time_ns;
  out.device_id = event.device_id;
  out.correlation_id = event.correlation_id;
  out.thread_id = event.thread_id;
  out.stream_id = event.stream_id;
  out.queue_id = event.queue_id;
  out.scope_range_id = event.scope_range_id;
  if (event.type == RocmTracerEventType::Kernel) {
    const KernelDetails& k = event.kernel_info;
    out.detail_kind = 1;
    const uint32_t kernel[XRT_KERNEL_WORDS] = {
        k.private_segment_size, k.group_segment_size, k.workgroup_x,     k.workgroup_y,
        k.workgroup_z,          k.grid_x,             k.grid_y,          k.grid_z,
        k.arch_vgpr_count,      k.accum_vgpr_count,   k.sgpr_count,      k.static_group_segment_size};
    std::copy(std::begin(kernel), std::end(kernel), out.kernel);
  } else if (event.type >= RocmTracerEventType::MemcpyH2D &&
             event.type <= RocmTracerEventType::MemcpyOther) {
    out.detail_kind = 2;
    out.num_bytes = event.memcpy_info.num_bytes;
    out.destination = event.memcpy_info.destination;
    out.is_async = event.memcpy_info.async;
  }
  return out;
}

// The same session's events, exported through the C++ drop-in (RocmTraceCollectorImpl, the
// bridge, the merge into the caller's XSpace) and through the Rust writer (the C ABI's
// collector + XSpace writer), give the same XSpace.
// Disable right after hipDeviceSynchronize: the kernel records the SDK pushes after the
// synchronize returned still reach this session (the tracer waits for them).
TEST_F(GpuActivityTest, CppExportEqualsTheRustWriterForTheSameEvents) {
  hipStream_t compute, copies;
  ASSERT_HIP(hipStreamCreate(&compute));
  ASSERT_HIP(hipStreamCreate(&copies));
  auto collector = Start();
  tsl::profiler::AnnotationStack::PushAnnotation("step#id=1#");
  ASSERT_HIP(hipMemcpyAsync(device_, host_, kBytes, hipMemcpyHostToDevice, copies));
  LaunchFill(device_, 1.0f, compute);
  tsl::profiler::AnnotationStack::PopAnnotation();
  LaunchFill(device_, 2.0f, compute);
  ASSERT_HIP(hipMemcpy(host_, device_, kBytes, hipMemcpyDeviceToHost));
  XSpace cpp_space = Stop(*collector);

  std::vector<RocmTracerEvent> events = collector->events();
  ASSERT_GT(events.size(), 6u);
  std::vector<std::string> strings;
  strings.reserve(3 * events.size());  // name, annotation, ROCTx label: no reallocation
  std::vector<XrtEvent> xrt_events;
  for (const RocmTracerEvent& event : events) xrt_events.push_back(ToXrtEvent(event, strings));
  XrtExportInput input{};
  input.options.max_callback_api_events = 1 << 20;
  input.options.max_activity_api_events = 1 << 20;
  input.options.max_annotation_strings = 1 << 20;
  input.num_gpus = tracer_.NumGpus();
  input.start_walltime_ns = collector->start_walltime_ns_;
  input.start_gputime_ns = collector->start_gputime_ns_;
  input.end_gputime_ns = RocmTracer::GetTimestamp();
  input.use_tracer_gpu_agents = true;
  XrtBytes bytes{};
  ASSERT_EQ(xrt_export_events(&input, xrt_events.data(), xrt_events.size(), &bytes),
            XRT_STATUS_OK);
  XSpace rust_space;
  ASSERT_TRUE(rust_space.ParseFromArray(bytes.data, static_cast<int>(bytes.len)));
  xrt_free_bytes(bytes);

  // The C++ path also got the scope tree plane from the annotation map, as device_tracer does;
  // the C ABI input has no tree, so compare everything else.
  XSpace cpp_without_tree;
  for (const XPlane& plane : cpp_space.planes()) {
    if (plane.name() != "/host:__ScopeRangeCallStack__") *cpp_without_tree.add_planes() = plane;
  }
  for (const XPlane& plane : rust_space.planes()) {
    if (plane.name() == "/host:__ScopeRangeCallStack__") {
      EXPECT_EQ(plane.stats_size(), 0);
    }
  }
  XSpace rust_without_tree;
  for (const XPlane& plane : rust_space.planes()) {
    if (plane.name() != "/host:__ScopeRangeCallStack__") *rust_without_tree.add_planes() = plane;
  }
  *cpp_without_tree.mutable_warnings() = cpp_space.warnings();
  *rust_without_tree.mutable_warnings() = rust_space.warnings();
  std::string difference;
  google::protobuf::util::MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&difference);
  EXPECT_TRUE(differencer.Compare(rust_without_tree, cpp_without_tree)) << difference;
  EXPECT_GE(EventCount(*FindPlane(cpp_space, "/device:GPU:0")), 4u);

  ASSERT_HIP(hipStreamDestroy(compute));
  ASSERT_HIP(hipStreamDestroy(copies));
}

// Copy details in CUDA's form on XLA's path (CreateRocmCollector): the memory kind of each side
// from the HIP allocation calls the SDK traced (hipMalloc device, hipHostMalloc pinned,
// hipMallocManaged managed, a std::vector pageable), async for hipMemcpyAsync, every copy named
// by its call although these 16 KiB copies are blit kernels (docs/xla-interface.md#copy-details).
TEST_F(GpuActivityTest, CopiesSayTheMemoryKindOfEachSide) {
  float* managed = nullptr;
  ASSERT_HIP(hipMallocManaged(reinterpret_cast<void**>(&managed), kBytes, 1));
  std::vector<float> pageable(kN);
  hipStream_t stream;
  ASSERT_HIP(hipStreamCreate(&stream));
  const RocmTraceCollectorOptions options = Options(tracer_.NumGpus(), 1 << 20);
  std::unique_ptr<RocmTraceCollector> collector =
      CreateRocmCollector(options, 1'000'000'000, RocmTracer::GetTimestamp());
  collector->SetGpuAgents(tracer_.GpuAgents());
  ASSERT_TRUE(tracer_.Enable(RocmTracerOptions{1 << 20}, collector.get()).ok());
  ASSERT_HIP(hipMemcpyAsync(device_, host_, kBytes, hipMemcpyHostToDevice, stream));
  ASSERT_HIP(hipStreamSynchronize(stream));
  ASSERT_HIP(hipMemcpy(pageable.data(), device_, kBytes, hipMemcpyDeviceToHost));
  ASSERT_HIP(hipMemcpy(managed, device_, kBytes, hipMemcpyDeviceToDevice));
  ASSERT_HIP(hipDeviceSynchronize());
  tracer_.Disable();
  XSpace space;
  collector->Export(&space);
  EXPECT_HIP_OK(hipFree(managed));
  EXPECT_HIP_OK(hipStreamDestroy(stream));

  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  std::multiset<std::pair<std::string, std::string>> copies;
  for (const XLine& line : gpu->lines()) {
    for (const XEvent& event : line.events()) {
      copies.emplace(EventName(*gpu, event), EventStats(*gpu, event)["memcpy_details"]);
    }
  }
  const std::string size = std::to_string(kBytes);
  EXPECT_EQ(copies, (std::multiset<std::pair<std::string, std::string>>{
                        {"MemcpyH2D", "kind_src:pinned kind_dst:device size:" + size +
                                          " dest:0 async:1"},
                        {"MemcpyD2H", "kind_src:device kind_dst:pageable size:" + size +
                                          " dest:0 async:0"},
                        {"MemcpyD2D", "kind_src:device kind_dst:managed size:" + size +
                                          " dest:0 async:0"},
                    }));
}

}  // namespace
}  // namespace test
}  // namespace profiler
}  // namespace xla
