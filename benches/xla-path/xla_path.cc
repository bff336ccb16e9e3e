// The benchmark's entry points for the path XLA runs: the drop-in's C++ classes (cpp/ over the
// Rust staticlib), driven in the order XLA's device_tracer_rocm.cc drives them (its GpuTracer's
// Start, Stop and CollectData). benches/run.sh links this file, the shims and the release
// staticlib into one shared library that the harness dlopens, as a PJRT plugin loads XLA's
// tracer. The functions are shaped like the baseline's, so the harness drives all sides alike.
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include "tsl/profiler/protobuf/xplane.pb.h"
#include "xla/backends/profiler/gpu/rocm_collector.h"
#include "xla/backends/profiler/gpu/rocm_tracer.h"
#include "xla/tsl/profiler/backends/cpu/annotation_stack.h"

namespace {

using xla::profiler::RocmTraceCollector;
using xla::profiler::RocmTracer;

// device_tracer_rocm.cc sizes every cap from --xla_gpu_rocm_max_trace_events; this is the
// value the other sides use.
constexpr uint64_t kMaxTraceEvents = 4u << 20;

std::unique_ptr<RocmTraceCollector> g_collector;

uint64_t WallNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

// GpuTracer::Start.
extern "C" int xla_path_enable() {
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  if (!tracer.IsAvailable()) return 1;
  tsl::profiler::AnnotationStack::Enable(true);
  const uint64_t start_gputime_ns = RocmTracer::GetTimestamp();
  xla::profiler::RocmTraceCollectorOptions options{};
  options.max_callback_api_events = kMaxTraceEvents;
  options.max_activity_api_events = kMaxTraceEvents;
  options.max_annotation_strings = kMaxTraceEvents;
  options.num_gpus = tracer.NumGpus();
  g_collector = xla::profiler::CreateRocmCollector(options, WallNs(), start_gputime_ns);
  g_collector->SetGpuAgents(tracer.GpuAgents());
  xla::profiler::RocmTracerOptions tracer_options{};
  tracer_options.max_annotation_strings = kMaxTraceEvents;
  if (!tracer.Enable(tracer_options, g_collector.get()).ok()) {
    tsl::profiler::AnnotationStack::Enable(false);
    return 1;
  }
  return 0;
}

// GpuTracer::Stop (Disable flushes the collector).
extern "C" int xla_path_disable() {
  RocmTracer::GetRocmTracerSingleton().Disable();
  tsl::profiler::AnnotationStack::Enable(false);
  return 0;
}

// GpuTracer::CollectData, then the bytes a profiler session would write.
extern "C" int xla_path_write_xspace(const char* path) {
  if (!g_collector) return 5;
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  g_collector->SetScopeRangeIdTree(tracer.annotation_map()->TakeScopeRangeIdTree());
  tsl::profiler::XSpace space;
  g_collector->Export(&space);
  std::string bytes;
  if (!space.SerializeToString(&bytes)) return 3;
  FILE* file = std::fopen(path, "wb");
  if (file == nullptr) return 6;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && ok ? 0 : 6;
}

// The application's annotation (what tsl's ScopedAnnotation does on XLA's threads).
extern "C" void xla_path_push_annotation(const char* name) {
  tsl::profiler::AnnotationStack::PushAnnotation(name);
}

extern "C" void xla_path_pop_annotation() { tsl::profiler::AnnotationStack::PopAnnotation(); }
