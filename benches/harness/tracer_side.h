// One library under test, loaded with dlopen as a PJRT plugin loads XLA's tracer:
//   rust   the Rust tracer through its xrt_* C ABI (benches/rust-tracer-so);
//   xla    XLA's classes (RocmTracer, CreateRocmCollector, Export) from the shims in cpp/ over
//          the Rust staticlib, driven as device_tracer_rocm.cc drives them (benches/xla-path);
//   cpp    the C++ baseline, our rendition of XLA's design (benches/baseline);
//   orig   XLA's own rocm_tracer.cc / rocm_collector.cc behind the same functions (built
//          locally for the calibration, never committed; see BENCHMARKS.md);
//   floor  the hot path's floor (benches/floor): one thread-local access per callback;
//   export_floor  the export's floor (benches/floor/export_floor.cc): the XLA path's XSpace
//          rebuilt from joined events held in plain arrays, serialized and written.
#ifndef XLA_ROCM_TRACER_BENCH_HARNESS_TRACER_SIDE_H_
#define XLA_ROCM_TRACER_BENCH_HARNESS_TRACER_SIDE_H_

#include <string>

struct TracerSide {
  std::string name;
  int (*enable)() = nullptr;
  int (*disable)() = nullptr;
  int (*write_xspace)(const char* path) = nullptr;
  // The calling thread's annotation (tsl's ScopedAnnotation); null where the library has none.
  void (*push_annotation)(const char* name) = nullptr;
  void (*pop_annotation)() = nullptr;
};

// Loads `library` (RTLD_NOW | RTLD_LOCAL) after the simulated SDK; exits on failure.
TracerSide load_tracer_side(const std::string& side, const std::string& library);

#endif  // XLA_ROCM_TRACER_BENCH_HARNESS_TRACER_SIDE_H_
