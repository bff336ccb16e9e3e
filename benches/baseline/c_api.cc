// The baseline's entry points for the benchmark harness, shaped like the Rust tracer's xrt_*
// C ABI so that the harness drives both the same way.
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include "rocm_tracer_baseline.h"
#include "xla/tsl/profiler/backends/cpu/annotation_stack.h"

namespace {
std::unique_ptr<baseline::RocmTraceCollector> g_collector;

uint64_t WallNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + ts.tv_nsec;
}
}  // namespace

extern "C" int baseline_enable() {
  tsl::profiler::AnnotationStack::Enable(true);
  auto& tracer = baseline::RocmTracer::GetRocmTracerSingleton();
  // XLA's defaults come from --xla_gpu_rocm_max_trace_events; sized here like the Rust side.
  baseline::RocmTraceCollectorOptions options{4u << 20, 4u << 20, 1u << 20, tracer.NumGpus()};
  g_collector = std::make_unique<baseline::RocmTraceCollector>(
      options, WallNs(), baseline::RocmTracer::GetTimestamp());
  return tracer.Enable(g_collector.get()) ? 0 : 1;
}

extern "C" int baseline_disable() {
  baseline::RocmTracer::GetRocmTracerSingleton().Disable();
  return 0;
}

// Exports the flushed capture as a serialized XSpace into `path`.
extern "C" int baseline_write_xspace(const char* path) {
  if (!g_collector) return 5;
  tensorflow::profiler::XSpace space;
  g_collector->Export(&space, baseline::RocmTracer::GetTimestamp());
  std::string bytes;
  if (!space.SerializeToString(&bytes)) return 3;
  FILE* file = std::fopen(path, "wb");
  if (file == nullptr) return 6;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && ok ? 0 : 6;
}

// The application's annotation (what tsl's ScopedAnnotation does on XLA's threads).
extern "C" void baseline_push_annotation(const char* name) {
  tsl::profiler::AnnotationStack::PushAnnotation(name);
}

extern "C" void baseline_pop_annotation() { tsl::profiler::AnnotationStack::PopAnnotation(); }
