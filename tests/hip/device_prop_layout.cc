// Layout of hipDeviceProp_tR0600 (and the other structs HIP programs share with the runtime)
// as ROCm >= 6.3's <hip/hip_runtime_api.h> lays it out on x86-64. The numbers were computed
// by compiling ROCm's own header (ROCm/HIP include/, AMD platform) with g++ 12; third-party
// bindings generated with hipcc report the same sizeof (1472). Compiling this file against
// the stand-in header (tests/hip-include) proves the stand-in matches; it also compiles
// against ROCm's real headers.
#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdio>

#define EXPECT_OFFSET(field, value) \
  static_assert(offsetof(hipDeviceProp_tR0600, field) == (value), "offset of " #field)

static_assert(sizeof(hipDeviceProp_tR0600) == 1472, "sizeof(hipDeviceProp_tR0600)");
static_assert(alignof(hipDeviceProp_tR0600) == 8, "alignof(hipDeviceProp_tR0600)");
// What a profiler reads.
EXPECT_OFFSET(name, 0);
EXPECT_OFFSET(totalGlobalMem, 288);
EXPECT_OFFSET(clockRate, 348);
EXPECT_OFFSET(major, 360);
EXPECT_OFFSET(minor, 364);
EXPECT_OFFSET(multiProcessorCount, 388);
EXPECT_OFFSET(memoryClockRate, 608);
EXPECT_OFFSET(memoryBusWidth, 612);
EXPECT_OFFSET(gcnArchName, 1160);
// Landmarks across the struct, so a shifted field anywhere shows.
EXPECT_OFFSET(uuid, 256);
EXPECT_OFFSET(sharedMemPerBlock, 296);
EXPECT_OFFSET(warpSize, 308);
EXPECT_OFFSET(maxGridSize, 336);
EXPECT_OFFSET(surfaceAlignment, 568);
EXPECT_OFFSET(l2CacheSize, 616);
EXPECT_OFFSET(maxThreadsPerMultiProcessor, 624);
EXPECT_OFFSET(sharedMemPerBlockOptin, 696);
EXPECT_OFFSET(reserved, 780);
EXPECT_OFFSET(hipReserved, 1032);
EXPECT_OFFSET(maxSharedMemoryPerMultiProcessor, 1416);
EXPECT_OFFSET(arch, 1428);
EXPECT_OFFSET(hdpMemFlushCntl, 1432);
EXPECT_OFFSET(asicRevision, 1468);

static_assert(sizeof(dim3) == 12, "dim3");
static_assert(sizeof(hipFuncAttributes) == 56, "hipFuncAttributes");
static_assert(sizeof(hipKernelNodeParams) == 64, "hipKernelNodeParams");
static_assert(sizeof(hipStream_t) == 8, "hipStream_t");
static_assert(hipErrorInvalidDevice == 101 && hipErrorContextIsDestroyed == 709 &&
                  hipErrorInvalidResourceHandle == 400 && hipErrorInvalidValue == 1,
              "hipError_t values");
static_assert(hipMemcpyHostToDevice == 1 && hipMemcpyDeviceToHost == 2 &&
                  hipMemcpyDeviceToDevice == 3 && hipMemcpyDefault == 4,
              "hipMemcpyKind values");

int main() {
  std::printf("hipDeviceProp_tR0600 layout ok (%zu bytes)\n", sizeof(hipDeviceProp_tR0600));
  return 0;
}
