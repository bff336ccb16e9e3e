// Proves the Bazel plumbing below XLA's targets: the shim-built rocm_tracer_utils, the C ABI
// of the cargo-built Rust staticlib, and the simulated librocprofiler-sdk.so behind
// @local_config_rocm//rocm:rocprofiler_sdk link into one test and work together.
#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "rocprofiler-sdk/rocprofiler.h"
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"
#include "xla_rocm_tracer.h"

namespace {

TEST(BazelPlumbing, UtilsShimIsLinked) {
  EXPECT_EQ(std::string(xla::profiler::GetRocmTracerEventTypeName(
                xla::profiler::RocmTracerEventType::Kernel)),
            "Kernel");
}

TEST(BazelPlumbing, RustCApiIsLinked) {
  ASSERT_NE(xrt_version(), nullptr);
  EXPECT_EQ(std::string(xrt_version()), "0.1.0");
}

TEST(BazelPlumbing, RustTracerRunsOnTheSimulatedSdk) {
  uint32_t sdk_major = 0, sdk_minor = 0, sdk_patch = 0;
  ASSERT_EQ(rocprofiler_get_version(&sdk_major, &sdk_minor, &sdk_patch),
            ROCPROFILER_STATUS_SUCCESS);

  // The tracer registered with the simulated SDK and sees the same version and GPUs.
  uint32_t major = 0, minor = 0, patch = 0;
  ASSERT_EQ(xrt_sdk_version(&major, &minor, &patch), XRT_STATUS_OK);
  EXPECT_EQ(major, sdk_major);
  EXPECT_EQ(minor, sdk_minor);
  EXPECT_EQ(patch, sdk_patch);
  EXPECT_GE(xrt_num_gpus(), 1u);

  ASSERT_EQ(xrt_enable(nullptr), XRT_STATUS_OK);
  EXPECT_EQ(xrt_enable(nullptr), XRT_STATUS_ALREADY_EXISTS);
  EXPECT_EQ(xrt_disable(), XRT_STATUS_OK);
  EXPECT_EQ(xrt_disable(), XRT_STATUS_NO_CAPTURE);
}

}  // namespace
