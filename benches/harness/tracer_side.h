// One tracer under test, loaded with dlopen as a PJRT plugin loads it: the Rust tracer through
// its xrt_* C ABI, or the C++ baseline through its baseline_* functions.
#ifndef XLA_ROCM_TRACER_BENCH_HARNESS_TRACER_SIDE_H_
#define XLA_ROCM_TRACER_BENCH_HARNESS_TRACER_SIDE_H_

#include <string>

struct TracerSide {
  std::string name;  // "rust" or "cpp"
  int (*enable)() = nullptr;
  int (*disable)() = nullptr;
  int (*write_xspace)(const char* path) = nullptr;
};

// Loads `library` (RTLD_NOW | RTLD_LOCAL) after the simulated SDK; exits on failure.
TracerSide load_tracer_side(const std::string& side, const std::string& library);

#endif  // XLA_ROCM_TRACER_BENCH_HARNESS_TRACER_SIDE_H_
