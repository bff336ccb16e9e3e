// RocmTraceCollectorImpl through the drop-in: what XLA's rocm_collector_test.cc checks, plus
// the openxla/xla#46182 export behaviours (stream lanes, memcpy on the timeline, dense names,
// queue_id not splitting lanes), stats formats, caps, and merging into a caller's XSpace.
#include "xla/backends/profiler/gpu/rocm_collector.h"

#include <cstdint>
#include <map>
#include <new>
#include <string>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include "absl/container/flat_hash_set.h"
#include "test_util.h"

namespace xla {
namespace profiler {
namespace test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kStartWallTimeNs = 1000;
constexpr uint64_t kStartGpuTimeNs = 2000;

XSpace ExportAll(RocmTraceCollectorImpl& collector) {
  collector.Flush();
  XSpace space;
  collector.Export(&space);
  return space;
}

TEST(RocmCollectorTest, KernelEventExportedWithOffsetAndDurationInPicoseconds) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  RocmTracerEvent api = ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 42, 999);
  api.kernel_info.func_ptr = reinterpret_cast<void*>(0xdeadbeef);
  api.start_time_ns = 2500;
  api.end_time_ns = 2600;
  collector.AddEvent(std::move(api), false);
  collector.AddEvent(KernelActivity("test_rocm_kernel", 42, 3000, 4000, 100, 123), false);

  XSpace space = ExportAll(collector);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->id(), 0);
  ASSERT_EQ(gpu->lines_size(), 1);
  const XLine& line = gpu->lines(0);
  EXPECT_EQ(line.timestamp_ns(), static_cast<int64_t>(kStartWallTimeNs));
  ASSERT_EQ(line.events_size(), 1);
  const XEvent& event = line.events(0);
  EXPECT_EQ(event.offset_ps(), (3000 - kStartGpuTimeNs) * 1000);
  EXPECT_EQ(event.duration_ps(), (4000 - 3000) * 1000);
  EXPECT_EQ(EventName(*gpu, event), "test_rocm_kernel");
  EXPECT_EQ(EventStats(*gpu, event)["correlation_id"], "42");

  // The API call lands on its thread's host line. Its device_id stat is the plane ordinal,
  // not XLA's raw agent handle (docs/xla-interface.md#xla-edge-19, changed deliberately by the Rust export).
  const XPlane* host = FindPlane(space, "/host:ROCTRACER");
  ASSERT_NE(host, nullptr);
  const XLine* thread = FindLine(*host, "Host Threads/999");
  ASSERT_NE(thread, nullptr);
  ASSERT_EQ(thread->events_size(), 1);
  EXPECT_EQ(EventName(*host, thread->events(0)), "hipLaunchKernel");
  EXPECT_EQ(EventStats(*host, thread->events(0))["device_id"], "0");
}

TEST(RocmCollectorTest, MultipleActivitiesPerCorrelationIdAllExported) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipGraphLaunch", 7, 999), false);
  collector.AddEvent(KernelActivity("kernel_a", 7, 3000, 3500, 100, 123), false);
  collector.AddEvent(KernelActivity("kernel_b", 7, 3500, 4000, 100, 123), false);
  collector.AddEvent(KernelActivity("kernel_c", 7, 4000, 4500, 100, 123), false);

  XSpace space = ExportAll(collector);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  absl::flat_hash_set<std::string> names;
  for (const XLine& line : gpu->lines()) {
    for (const XEvent& event : line.events()) names.insert(EventName(*gpu, event));
  }
  EXPECT_EQ(EventCount(*gpu), 3u);
  EXPECT_TRUE(names.contains("kernel_a"));
  EXPECT_TRUE(names.contains("kernel_b"));
  EXPECT_TRUE(names.contains("kernel_c"));
}

// The newer XLA's format (openxla/xla#47469): registers, static and dynamic LDS, and no
// occ_pct without a device to model.
TEST(RocmCollectorTest, KernelDetailsStatHasTheNewerXlaFormat) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 1, 1), false);
  RocmTracerEvent kernel = KernelActivity("k", 1, 3000, 4000, 0, 1);
  kernel.kernel_info = KernelDetails{};
  kernel.kernel_info.private_segment_size = 32;
  kernel.kernel_info.group_segment_size = 1024;
  kernel.kernel_info.static_group_segment_size = 256;
  kernel.kernel_info.workgroup_x = 256;
  kernel.kernel_info.workgroup_y = 1;
  kernel.kernel_info.workgroup_z = 1;
  kernel.kernel_info.grid_x = 25600;
  kernel.kernel_info.grid_y = 2;
  kernel.kernel_info.grid_z = 1;
  kernel.kernel_info.arch_vgpr_count = 61;
  kernel.kernel_info.accum_vgpr_count = 64;
  kernel.kernel_info.sgpr_count = 32;
  collector.AddEvent(std::move(kernel), false);

  XSpace space = ExportAll(collector);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  ASSERT_EQ(EventCount(*gpu), 1u);
  const std::string details = EventStats(*gpu, gpu->lines(0).events(0))["kernel_details"];
  EXPECT_EQ(details,
            "regs:64 static_shared:256 dynamic_shared:768 grid:100,2,1 block:256,1,1 "
            "private_mem:32");
}

// #47917's form: only the register sum is given; it counts as the arch VGPRs.
TEST(RocmCollectorTest, RegistersPerWorkItemAloneReachTheDetails) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 1, 1), false);
  RocmTracerEvent kernel = KernelActivity("k", 1, 3000, 4000, 0, 1);
  kernel.kernel_info = KernelDetails{};
  kernel.kernel_info.registers_per_work_item = 40;
  kernel.kernel_info.workgroup_x = 64;
  kernel.kernel_info.grid_x = 64;
  collector.AddEvent(std::move(kernel), false);
  XSpace space = ExportAll(collector);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  const std::string details = EventStats(*gpu, gpu->lines(0).events(0))["kernel_details"];
  EXPECT_EQ(details.rfind("regs:40 static_shared:0 dynamic_shared:0 grid:1,0,0", 0), 0u)
      << details;
}

TEST(RocmCollectorTest, OccupancyParamsEqualityAndHash) {
  RocmDeviceOccupancyParams a{};
  a.block_size = 256;
  a.func_ptr = reinterpret_cast<void*>(0x1000);
  a.max_waves_per_cu = 40;
  a.wave_front_size = 64;
  RocmDeviceOccupancyParams b = a;
  EXPECT_EQ(a, b);
  absl::flat_hash_set<RocmDeviceOccupancyParams> set = {a, b};
  EXPECT_EQ(set.size(), 1u);
  b.block_size = 128;
  EXPECT_NE(a, b);
  b = a;
  b.wave_front_size = 32;
  EXPECT_NE(a, b);
}

// #46182: memcpy reaches the device timeline on its stream's lane, with its details.
TEST(RocmCollectorTest, MemcpyIsOnTheTimelineWithDetails) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.AddEvent(ApiEvent(RocmTracerEventType::MemcpyOther, "hipMemcpyAsync", 5, 10), false);
  collector.AddEvent(
      MemcpyActivity(RocmTracerEventType::MemcpyH2D, 5, 3000, 5000, 300, 2, 4 << 20), false);

  XSpace space = ExportAll(collector);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_THAT(LineNames(*gpu), ElementsAre("Stream #0"));
  ASSERT_EQ(EventCount(*gpu), 1u);
  const XEvent& copy = gpu->lines(0).events(0);
  EXPECT_EQ(EventName(*gpu, copy), "MemcpyH2D");
  // CUDA's form (docs/xla-interface.md#copy-details): XLA's event carries no memory kinds, and
  // `dest` is the GPU's plane ordinal, not its agent handle 300.
  EXPECT_EQ(EventStats(*gpu, copy)["memcpy_details"],
            "kind_src:unknown kind_dst:unknown size:4194304 dest:0 async:0");
}

// #46182: raw SDK stream ids become dense per-device lane numbers, "Stream #<n>"; the HSA
// queue does not split a stream's lane.
TEST(RocmCollectorTest, StreamsBecomeDenseLanesAndQueuesDoNotSplitThem) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  const uint64_t kRawStreams[] = {1000, 5, 1000};
  const uint64_t kQueues[] = {0x7000, 0x8000, 0x9000};
  for (uint64_t i = 0; i < 3; ++i) {
    collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", i + 1, 10), false);
    RocmTracerEvent kernel =
        KernelActivity("k" + std::to_string(i), i + 1, 3000 + 100 * i, 3050 + 100 * i, 300,
                       kRawStreams[i]);
    kernel.queue_id = kQueues[i];
    collector.AddEvent(std::move(kernel), false);
  }
  XSpace space = ExportAll(collector);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  // Stream 1000 started first: it is #0, with both of its kernels despite two queues.
  const XLine* first = FindLine(*gpu, "Stream #0");
  const XLine* second = FindLine(*gpu, "Stream #1");
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  // Lane n is line 1000 + n, clear of the display ids xprof gives its busiest lanes
  // (docs/xla-interface.md#stream-lanes).
  EXPECT_EQ(first->id(), 1000);
  EXPECT_EQ(second->id(), 1001);
  EXPECT_EQ(first->events_size(), 2);
  EXPECT_EQ(second->events_size(), 1);
  EXPECT_EQ(gpu->lines_size(), 2);
}

TEST(RocmCollectorTest, AnnotationBecomesTfOpAndMetadataStats) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  static const std::string kAnnotation = "train_step::matmul_fusion#hlo_op=dot.1,program_id=7#";
  RocmTracerEvent api = ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 9, 10);
  api.annotation = kAnnotation;
  RocmTracerEvent kernel = KernelActivity("gemm", 9, 3000, 4000, 0, 0);
  kernel.annotation = kAnnotation;
  kernel.scope_range_id = 12;
  collector.AddEvent(std::move(api), false);
  collector.AddEvent(std::move(kernel), false);

  XSpace space = ExportAll(collector);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  ASSERT_EQ(EventCount(*gpu), 1u);
  auto stats = EventStats(*gpu, gpu->lines(0).events(0));
  EXPECT_EQ(stats["tf_op"], "train_step");
  EXPECT_EQ(stats["hlo_op"], "dot.1");
  EXPECT_EQ(stats["program_id"], "7");
  EXPECT_EQ(stats["scope_range_id"], "12");
}

TEST(RocmCollectorTest, CapsDropAndWarnNamingTheFlag) {
  RocmTraceCollectorImpl collector(Options(1, /*cap=*/1), kStartWallTimeNs, kStartGpuTimeNs);
  for (uint64_t id = 1; id <= 3; ++id) {
    collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", id, 10), false);
    collector.AddEvent(KernelActivity("k", id, 3000 + id, 3001 + id, 0, 0), false);
  }
  XSpace space = ExportAll(collector);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(EventCount(*gpu), 1u);
  std::string warnings;
  for (const std::string& warning : space.warnings()) warnings += warning + "\n";
  EXPECT_THAT(warnings, HasSubstr("Dropped 2 events"));
  EXPECT_THAT(warnings, HasSubstr("--xla_gpu_rocm_max_trace_events"));
}

class DropRecordingCollector : public RocmTraceCollectorImpl {
 public:
  using RocmTraceCollectorImpl::RocmTraceCollectorImpl;
  void OnEventsDropped(const std::string& reason, uint64_t num_events) override {
    counts_[reason] += num_events;
  }
  std::map<std::string, uint64_t> counts_;
};

// The Rust collector finds duplicates when it joins, at Export: the subclass then hears of
// them with their count (XLA's header allows a count or a correlation id).
TEST(RocmCollectorTest, DuplicateCorrelationIdReachesOverriddenOnEventsDropped) {
  DropRecordingCollector collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 77, 1), false);
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 77, 1), false);
  XSpace space;
  collector.Export(&space);
  EXPECT_EQ(collector.counts_["HIP API event with a duplicate correlation id"], 1u);
}

std::string Warnings(const XSpace& space) {
  std::string warnings;
  for (const std::string& warning : space.warnings()) warnings += warning + "\n";
  return warnings;
}

// XLA's OnEventsDropped is an inline VLOG that subclasses override; the duplicate still
// reaches the export's warnings.
TEST(RocmCollectorTest, DuplicateIsWarnedAtExportEvenWithOverriddenOnEventsDropped) {
  DropRecordingCollector collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 77, 1), false);
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 77, 1), false);
  XSpace space = ExportAll(collector);
  EXPECT_THAT(Warnings(space), HasSubstr("Dropped 1 event:"));
  EXPECT_THAT(Warnings(space), HasSubstr("duplicate correlation id"));
  // Export took the tally: a second export does not warn again.
  EXPECT_EQ(Warnings(ExportAll(collector)), "");
}

// A collector destroyed without exporting must not pass its drops to the next collector
// built at the same address.
TEST(RocmCollectorTest, DropsOfADeadCollectorAreNotInheritedAtTheSameAddress) {
  alignas(RocmTraceCollectorImpl) unsigned char storage[sizeof(RocmTraceCollectorImpl)];
  auto* first = new (storage) RocmTraceCollectorImpl(Options(1), kStartWallTimeNs,
                                                     kStartGpuTimeNs);
  first->AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 5, 1), false);
  first->AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 5, 1), false);
  first->~RocmTraceCollectorImpl();

  auto* second = new (storage) RocmTraceCollectorImpl(Options(1), kStartWallTimeNs,
                                                      kStartGpuTimeNs);
  ASSERT_EQ(static_cast<void*>(second), static_cast<void*>(first));
  second->AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 6, 1), false);
  second->AddEvent(KernelActivity("k", 6, 3000, 3100, 0, 0), false);
  XSpace space = ExportAll(*second);
  EXPECT_THAT(Warnings(space), Not(HasSubstr("duplicate correlation id")));
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(EventCount(*gpu), 1u);
  second->~RocmTraceCollectorImpl();
}

// XLA's SetScopeRangeIdTree replaces the tree (device_tracer_rocm.cc sets it once, from
// AnnotationMap::TakeScopeRangeIdTree, before Export).
TEST(RocmCollectorTest, SetScopeRangeIdTreeReplacesTheTree) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.SetScopeRangeIdTree(ScopeRangeIdTree{{11, 10}});
  collector.SetScopeRangeIdTree(ScopeRangeIdTree{{21, 20}});
  XSpace space = ExportAll(collector);
  const XPlane* tree = FindPlane(space, "/host:__ScopeRangeCallStack__");
  ASSERT_NE(tree, nullptr);
  std::map<int64_t, int64_t> edges;
  for (const auto& stat : tree->stats()) edges[stat.metadata_id()] = stat.int64_value();
  EXPECT_EQ(edges, (std::map<int64_t, int64_t>{{21, 20}}));
}

TEST(RocmCollectorTest, ExportMergesIntoTheCallersSpaceAndKeepsOtherPlanes) {
  XSpace space;
  XPlane* cpu = space.add_planes();
  cpu->set_name("/host:CPU");
  cpu->add_lines()->set_name("python");
  XPlane* existing_gpu = space.add_planes();
  existing_gpu->set_name("/device:GPU:0");
  (*existing_gpu->mutable_stat_metadata())[1].set_id(1);
  (*existing_gpu->mutable_stat_metadata())[1].set_name("correlation_id");
  XLine* other = existing_gpu->add_lines();
  other->set_id(500);
  other->set_name("other tracer");
  other->add_events()->set_metadata_id(0);

  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 3, 1), false);
  collector.AddEvent(KernelActivity("k", 3, 3000, 4000, 0, 0), false);
  collector.Flush();
  collector.Export(&space);

  ASSERT_NE(FindPlane(space, "/host:CPU"), nullptr);
  EXPECT_EQ(FindPlane(space, "/host:CPU")->lines_size(), 1);
  int gpu_planes = 0;
  for (const XPlane& plane : space.planes()) gpu_planes += plane.name() == "/device:GPU:0";
  EXPECT_EQ(gpu_planes, 1);
  const XPlane* gpu = FindPlane(space, "/device:GPU:0");
  EXPECT_NE(FindLine(*gpu, "other tracer"), nullptr);
  // SDK stream id 0 is the null stream.
  const XLine* stream = FindLine(*gpu, "Stream #0 (null)");
  ASSERT_NE(stream, nullptr);
  ASSERT_EQ(stream->events_size(), 1);
  // The shared stat metadata name kept its id; the ref/metadata ids resolve by name.
  auto stats = EventStats(*gpu, stream->events(0));
  EXPECT_EQ(stats["correlation_id"], "3");
  EXPECT_EQ(EventName(*gpu, stream->events(0)), "k");
}

TEST(RocmCollectorTest, ScopeRangeIdTreeIsExportedAsItsOwnPlane) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.SetScopeRangeIdTree(ScopeRangeIdTree{{2, 1}, {3, 2}});
  XSpace space = ExportAll(collector);
  const XPlane* tree = FindPlane(space, "/host:__ScopeRangeCallStack__");
  ASSERT_NE(tree, nullptr);
  std::map<int64_t, int64_t> edges;
  for (const auto& stat : tree->stats()) edges[stat.metadata_id()] = stat.int64_value();
  EXPECT_EQ(edges, (std::map<int64_t, int64_t>{{2, 1}, {3, 2}}));
}

TEST(RocmCollectorTest, SecondExportHasNoEventsAgain) {
  RocmTraceCollectorImpl collector(Options(1), kStartWallTimeNs, kStartGpuTimeNs);
  collector.AddEvent(ApiEvent(RocmTracerEventType::Kernel, "hipLaunchKernel", 3, 1), false);
  collector.AddEvent(KernelActivity("k", 3, 3000, 4000, 0, 0), false);
  XSpace first = ExportAll(collector);
  XSpace second = ExportAll(collector);
  EXPECT_EQ(EventCount(*FindPlane(first, "/device:GPU:0")), 1u);
  EXPECT_EQ(EventCount(*FindPlane(second, "/device:GPU:0")), 0u);
}

}  // namespace
}  // namespace test
}  // namespace profiler
}  // namespace xla
