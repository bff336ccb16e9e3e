// A library that exposes a dormant rocprofiler-sdk client, as libtorch_cpu.so does (Kineto's
// `rocprofiler_configure`, which declines unless its profiler asked for the SDK): the SDK finds
// it in the global scope at its first initialization and it returns null. Preloaded into
// hip_app by tests/record/run.sh ("a dormant rocprofiler_configure"), so that it comes first in
// the global scope, ahead of our tool library.
#include <cstdint>

extern "C" __attribute__((visibility("default"))) void* rocprofiler_configure(uint32_t, const char*,
                                                                               uint32_t, void*) {
  return nullptr;
}
