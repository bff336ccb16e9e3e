// rocm_tracer_utils.cc: enum names and XLA's AnnotationMap semantics (docs/xla-interface.md#utilities-header).
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

namespace xla {
namespace profiler {
namespace {

TEST(RocmTracerUtilsTest, EveryEnumeratorHasItsSpelling) {
  EXPECT_STREQ(GetRocmTracerEventTypeName(RocmTracerEventType::Kernel), "Kernel");
  EXPECT_STREQ(GetRocmTracerEventTypeName(RocmTracerEventType::MemcpyH2D), "MemcpyH2D");
  EXPECT_STREQ(GetRocmTracerEventTypeName(RocmTracerEventType::Generic), "Generic");
  // XLA returns "" for these two (docs/xla-interface.md#xla-edge-9); the drop-in names them.
  EXPECT_STREQ(GetRocmTracerEventTypeName(RocmTracerEventType::Unsupported), "Unsupported");
  EXPECT_STREQ(GetRocmTracerEventTypeName(RocmTracerEventType::MemcpyP2P), "MemcpyP2P");
  EXPECT_STREQ(GetRocmTracerEventSourceName(RocmTracerEventSource::ApiCallback), "ApiCallback");
  EXPECT_STREQ(GetRocmTracerEventSourceName(RocmTracerEventSource::Activity), "Activity");
  EXPECT_STREQ(GetRocmTracerEventSourceName(RocmTracerEventSource::Invalid), "Invalid");
  EXPECT_STREQ(GetRocmTracerEventDomainName(RocmTracerEventDomain::HIP_API), "HIP_API");
  EXPECT_STREQ(GetRocmTracerEventDomainName(RocmTracerEventDomain::HIP_OPS), "HIP_OPS");
}

// Newer XLA's device_tracer_rocm.cc clamps its int64 flag with std::min(flag, kMaxRocmTraceEvents),
// which compiles only if the constant is an int64_t too.
TEST(RocmTracerUtilsTest, TheEventCapLimitIsAnInt64AsNewerXlaReadsIt) {
  static_assert(std::is_same_v<decltype(kMaxRocmTraceEvents), const int64_t>);
  const int64_t flag = 5'000'000'000;
  EXPECT_EQ(std::min(flag, kMaxRocmTraceEvents), 1'000'000'000);
  EXPECT_EQ(static_cast<uint64_t>(std::min(int64_t{4 << 20}, kMaxRocmTraceEvents)), 4u << 20);
}

TEST(RocmTracerUtilsTest, EventDefaultsAreXlasInvalidValues) {
  RocmTracerEvent event;
  EXPECT_EQ(event.correlation_id, RocmTracerEvent::kInvalidCorrelationId);
  EXPECT_EQ(event.correlation_id, UINT64_MAX);  // 64-bit since openxla/xla#47225
  EXPECT_EQ(event.stream_id, RocmTracerEvent::kInvalidStreamId);
  EXPECT_EQ(event.device_id, RocmTracerEvent::kInvalidDeviceId);
  EXPECT_EQ(event.queue_id, 0u);
  EXPECT_EQ(event.scope_range_id, 0);
}

TEST(AnnotationMapTest, InternsStringsAndIgnoresEmptyOnes) {
  AnnotationMap map(10);
  map.Add(1, "step");
  map.Add(2, "step");
  map.Add(3, "");
  EXPECT_EQ(map.LookUp(1), "step");
  EXPECT_EQ(map.LookUp(1).data(), map.LookUp(2).data());
  EXPECT_TRUE(map.LookUp(3).empty());
  // 64-bit correlation ids are not truncated.
  map.Add(uint64_t{1} << 40 | 1, "high");
  EXPECT_EQ(map.LookUp(uint64_t{1} << 40 | 1), "high");
  EXPECT_EQ(map.LookUp(1), "step");
}

// As the newest XLA (#48501): once the string set is full, even a known string is no longer
// correlated (the 2026-08-22 map still correlated known strings).
TEST(AnnotationMapTest, AFullStringSetStopsCorrelating) {
  AnnotationMap map(1);
  map.Add(1, "a");
  map.Add(2, "b");
  map.Add(3, "a");
  EXPECT_EQ(map.LookUp(1), "a");
  EXPECT_TRUE(map.LookUp(2).empty());
  EXPECT_TRUE(map.LookUp(3).empty());
}

TEST(AnnotationMapTest, StoresTheRoctxLabelBesideTheAnnotation) {
  AnnotationMap map;
  map.Add(1, "step", "matmul");
  map.Add(2, "", "matmul");
  map.Add(3, "step");
  EXPECT_EQ(map.LookUp(1), "step");
  EXPECT_EQ(map.LookUpRoctxRange(1), "matmul");
  EXPECT_TRUE(map.LookUp(2).empty());
  EXPECT_EQ(map.LookUpRoctxRange(2), "matmul");
  EXPECT_TRUE(map.LookUpRoctxRange(3).empty());
  // Both forms of Add: with a label and scope ids, and the 2026-08-22 one with ids only.
  const std::vector<int64_t> ids = {4, 5};
  map.Add(4, "x", "label", ids);
  map.Add(5, "y", ids);
  EXPECT_EQ(map.LookUpScopeRangeId(4), 5);
  EXPECT_EQ(map.LookUpScopeRangeId(5), 5);
  EXPECT_EQ(map.LookUpRoctxRange(4), "label");
}

TEST(AnnotationMapTest, ResetForgetsEverythingAndSetsTheCapacity) {
  AnnotationMap map(1);
  map.Add(1, "a", "r");
  map.Reset(3);
  EXPECT_TRUE(map.LookUp(1).empty());
  EXPECT_TRUE(map.LookUpRoctxRange(1).empty());
  map.Add(2, "a", "r");
  map.Add(3, "b");
  EXPECT_EQ(map.LookUpRoctxRange(2), "r");
  EXPECT_EQ(map.LookUp(3), "b");
  map.Reset(0);
  map.Add(4, "a");
  EXPECT_TRUE(map.LookUp(4).empty());
}

TEST(AnnotationMapTest, ScopeRangeIdsAndTreeFromInnerToOuter) {
  AnnotationMap map(100);
  const std::vector<int64_t> first = {10, 20, 30};
  const std::vector<int64_t> second = {99, 20, 30};
  map.Add(1, "x", first);
  map.Add(2, "x", second);
  EXPECT_EQ(map.LookUpScopeRangeId(1), 30);
  EXPECT_EQ(map.LookUpScopeRangeId(7), 0);
  ScopeRangeIdTree tree = map.TakeScopeRangeIdTree();
  EXPECT_EQ(tree, (ScopeRangeIdTree{{30, 20}, {20, 10}}));
  EXPECT_TRUE(map.TakeScopeRangeIdTree().empty());
}

TEST(AnnotationMapTest, ClearForgetsEverything) {
  AnnotationMap map(100);
  const std::vector<int64_t> ids = {1, 2};
  map.Add(1, "x", ids);
  map.Clear();
  EXPECT_TRUE(map.LookUp(1).empty());
  EXPECT_EQ(map.LookUpScopeRangeId(1), 0);
  EXPECT_TRUE(map.TakeScopeRangeIdTree().empty());
}

}  // namespace
}  // namespace profiler
}  // namespace xla
