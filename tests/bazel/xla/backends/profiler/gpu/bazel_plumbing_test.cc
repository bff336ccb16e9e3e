// Proves the Bazel plumbing: XLA's rocm_tracer_utils target built from the project's shim,
// the cargo-built Rust staticlib and the simulated librocprofiler-sdk.so link into one test.
#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "rocprofiler-sdk/registration.h"
#include "rocprofiler-sdk/rocprofiler.h"
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"

// The tool entry point the Rust library exports (rocprofiler-sdk.md §3).
extern "C" rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t version, const char* runtime_version, uint32_t priority,
    rocprofiler_client_id_t* client_id);

namespace {

TEST(BazelPlumbing, UtilsShimIsLinked) {
  EXPECT_EQ(std::string(xla::profiler::GetRocmTracerEventTypeName(
                xla::profiler::RocmTracerEventType::Kernel)),
            "Kernel");
}

TEST(BazelPlumbing, RustToolEntryPointIsLinked) {
  // The Rust staticlib exports the SDK's tool entry point.
  EXPECT_NE(reinterpret_cast<void*>(&rocprofiler_configure), nullptr);
}

TEST(BazelPlumbing, SimulatedSdkIsLoaded) {
  uint32_t major = 0, minor = 0, patch = 0;
  ASSERT_EQ(rocprofiler_get_version(&major, &minor, &patch), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_GE(major, 1u);
}

}  // namespace
