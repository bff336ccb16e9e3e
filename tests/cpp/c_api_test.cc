// The C ABI (include/xla_rocm_tracer.h) from C++, on the simulated SDK, and its shared state
// with the C++ RocmTracer (one tracer per process).
#include "xla_rocm_tracer.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include "test_util.h"
#include "xla/backends/profiler/gpu/rocm_collector.h"
#include "xla/backends/profiler/gpu/rocm_tracer.h"

namespace xla {
namespace profiler {
namespace {

TEST(CApiTest, VersionsAndGpus) {
  EXPECT_STREQ(xrt_version(), "0.1.0");
  uint32_t major = 0, minor = 0, patch = 0;
  ASSERT_EQ(xrt_sdk_version(&major, &minor, &patch), XRT_STATUS_OK);
  EXPECT_GE(major, 1u);
  EXPECT_EQ(xrt_num_gpus(), RocmTracer::GetRocmTracerSingleton().NumGpus());
  EXPECT_EQ(xrt_sdk_version(nullptr, &minor, &patch), XRT_STATUS_INVALID_ARGUMENT);
}

TEST(CApiTest, CaptureWritesAReadableXSpace) {
  EXPECT_EQ(xrt_disable(), XRT_STATUS_NO_CAPTURE);
  ASSERT_EQ(xrt_enable(nullptr), XRT_STATUS_OK);
  EXPECT_EQ(xrt_enable(nullptr), XRT_STATUS_ALREADY_EXISTS);
  EXPECT_EQ(xrt_flush(), XRT_STATUS_OK);
  ASSERT_EQ(xrt_disable(), XRT_STATUS_OK);
  const std::string path = ::testing::TempDir() + "/c_api.xplane.pb";
  ASSERT_EQ(xrt_write_xspace(path.c_str()), XRT_STATUS_OK);
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  tensorflow::profiler::XSpace space;
  ASSERT_TRUE(space.ParseFromString(bytes.str()));
  EXPECT_NE(test::FindPlane(space, "/device:GPU:0"), nullptr);
  EXPECT_EQ(xrt_write_xspace("/nonexistent-dir/x.pb"), XRT_STATUS_IO_ERROR);
}

TEST(CApiTest, OneTracerPerProcessIsSharedWithTheCppTracer) {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  RocmTraceCollectorImpl collector(test::Options(1), 0, RocmTracer::GetTimestamp());
  ASSERT_TRUE(tracer.Enable(RocmTracerOptions{16}, &collector).ok());
  EXPECT_EQ(xrt_enable(nullptr), XRT_STATUS_ALREADY_EXISTS);
  tracer.Disable();
  tracer.annotation_map()->Add(7, "kept_annotation");
  ASSERT_EQ(xrt_enable(nullptr), XRT_STATUS_OK);
  EXPECT_EQ(tracer.Enable(RocmTracerOptions{16}, &collector).code(),
            absl::StatusCode::kAlreadyExists);
  // The refused Enable left the annotations alone (earlier events may point into them), and
  // the C++ Disable does not end a session the C ABI started.
  EXPECT_EQ(tracer.annotation_map()->LookUp(7), "kept_annotation");
  tracer.Disable();
  ASSERT_EQ(xrt_disable(), XRT_STATUS_OK);
  EXPECT_TRUE(tracer.IsAvailable());
}

TEST(CApiTest, StreamStackStatsOfThisThread) {
  XrtStreamStackStats stats{};
  ASSERT_EQ(xrt_stream_stack_stats(&stats), XRT_STATUS_OK);
  EXPECT_EQ(stats.depth, 1u);
  EXPECT_EQ(stats.current_stream_id, 0u);
  EXPECT_EQ(xrt_stream_stack_stats(nullptr), XRT_STATUS_INVALID_ARGUMENT);
}

TEST(CApiTest, ExportEventsRejectsBadArgumentsAndFreesBytes) {
  XrtExportInput input{};
  input.num_gpus = 1;
  XrtBytes bytes{};
  EXPECT_EQ(xrt_export_events(nullptr, nullptr, 0, &bytes), XRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(xrt_export_events(&input, nullptr, 3, &bytes), XRT_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(xrt_export_events(&input, nullptr, 0, &bytes), XRT_STATUS_OK);
  tensorflow::profiler::XSpace space;
  EXPECT_TRUE(space.ParseFromArray(bytes.data, static_cast<int>(bytes.len)));
  xrt_free_bytes(bytes);
}

}  // namespace
}  // namespace profiler
}  // namespace xla
