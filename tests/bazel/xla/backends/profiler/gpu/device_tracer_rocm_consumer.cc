// A consumer that uses the tracer exactly as XLA's device_tracer_rocm.cc does (DoStart,
// DoStop, CollectData; xla-rocm-tracer.md §4.1), built against :rocm_tracer and
// :rocm_collector only. It runs one profiling session over the simulated SDK and fails with
// a message when a step does not behave as XLA expects.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "xla/backends/profiler/gpu/rocm_collector.h"
#include "xla/backends/profiler/gpu/rocm_tracer.h"

namespace {

using xla::profiler::CreateRocmCollector;
using xla::profiler::RocmTraceCollector;
using xla::profiler::RocmTraceCollectorOptions;
using xla::profiler::RocmTracer;
using xla::profiler::RocmTracerOptions;

constexpr uint64_t kMaxEvents = 4 * 1024 * 1024;  // GetRocmTraceCollectorOptions' default

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
  if (!ok) ++failures;
}

uint64_t WallTimeNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool HasPlane(const tsl::profiler::XSpace& space, const std::string& name) {
  for (const auto& plane : space.planes()) {
    if (plane.name() == name) return true;
  }
  return false;
}

}  // namespace

int main() {
  // CreateGpuTracer: the singleton, and nullptr unless it is available.
  RocmTracer& tracer = RocmTracer::GetRocmTracerSingleton();
  Check(&tracer == &RocmTracer::GetRocmTracerSingleton(), "the singleton is one object");
  Check(tracer.IsAvailable(), "available before a capture");
  Check(tracer.NumGpus() >= 1, "the simulated machine has a GPU");
  Check(tracer.GpuAgents().size() == tracer.NumGpus(), "GpuAgents() has NumGpus() agents");

  // DoStart.
  const uint64_t start_gputime_ns = RocmTracer::GetTimestamp();
  const uint64_t start_walltime_ns = WallTimeNs();
  RocmTraceCollectorOptions collector_options;
  collector_options.max_callback_api_events = kMaxEvents;
  collector_options.max_activity_api_events = kMaxEvents;
  collector_options.max_annotation_strings = kMaxEvents;
  collector_options.num_gpus = tracer.NumGpus();
  std::unique_ptr<RocmTraceCollector> collector =
      CreateRocmCollector(collector_options, start_walltime_ns, start_gputime_ns);
  Check(collector != nullptr, "CreateRocmCollector returns a collector");
  if (collector == nullptr) return EXIT_FAILURE;
  collector->SetGpuAgents(tracer.GpuAgents());

  RocmTracerOptions tracer_options{kMaxEvents};
  const absl::Status enabled = tracer.Enable(tracer_options, collector.get());
  Check(enabled.ok(), "Enable succeeds: " + enabled.ToString());
  Check(!tracer.IsAvailable(), "not available during a capture");
  Check(tracer.collector() == collector.get(), "collector() is the enabled collector");
  const absl::Status again = tracer.Enable(tracer_options, collector.get());
  Check(absl::IsAlreadyExists(again), "a second Enable is AlreadyExists: " + again.ToString());

  // DoStop.
  tracer.Disable();
  Check(tracer.IsAvailable(), "available again after Disable");
  Check(tracer.collector() == nullptr, "Disable clears the collector");

  // CollectData.
  collector->SetScopeRangeIdTree(tracer.annotation_map()->TakeScopeRangeIdTree());
  tsl::profiler::XSpace space;
  collector->Export(&space);
  Check(HasPlane(space, "/device:GPU:0"), "Export writes the /device:GPU:0 plane");

  std::cout << (failures == 0 ? "PASSED" : "FAILED") << "\n";
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
