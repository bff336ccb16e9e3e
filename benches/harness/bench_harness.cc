// Runs one tracer (Rust or the C++ baseline), loaded with dlopen over the simulated SDK,
// through one benchmark and prints `key=value` lines; benches/run.sh runs both sides and
// computes the ratios.
//
//   bench_harness SIDE LIBRARY hotpath CALLS
//   bench_harness SIDE LIBRARY drain EVENTS THREADS [XSPACE_PATH]
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sdk_capture.h"
#include "tracer_side.h"
#include "workload.h"
#include "xspace_count.h"

void alloc_counter_start();
uint64_t alloc_counter_stop();

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU time: the machine is shared, so wall time includes other processes' turns.
double cpu_seconds(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

uint64_t os_thread_id() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

// VmHWM (peak resident set) in bytes.
uint64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

uint64_t sdk_timestamp() {
  using Fn = rocprofiler_status_t (*)(rocprofiler_timestamp_t*);
  static auto fn = reinterpret_cast<Fn>(sdk_symbol("rocprofiler_get_timestamp"));
  rocprofiler_timestamp_t ts = 0;
  fn(&ts);
  return ts;
}

rocprofiler_status_t first_gpu(rocprofiler_agent_version_t, const void** agents, size_t n,
                               void* out) {
  for (size_t i = 0; i < n; ++i) {
    const auto* agent = static_cast<const rocprofiler_agent_v0_t*>(agents[i]);
    if (agent->type == ROCPROFILER_AGENT_TYPE_GPU) {
      *static_cast<uint64_t*>(out) = agent->id.handle;
      break;
    }
  }
  return ROCPROFILER_STATUS_SUCCESS;
}

uint64_t gpu_agent_handle() {
  using Fn = decltype(&rocprofiler_query_available_agents);
  auto fn = reinterpret_cast<Fn>(sdk_symbol("rocprofiler_query_available_agents"));
  uint64_t handle = 0;
  fn(ROCPROFILER_AGENT_INFO_VERSION_0, first_gpu, sizeof(rocprofiler_agent_v0_t), &handle);
  return handle;
}

// Loads a code object on GPU 0 through the simulated runtime, so the tracer learns the name.
uint64_t load_kernel() {
  using Fn = int (*)(uint32_t, const char* const*, size_t, uint64_t*, uint64_t*);
  auto fn = reinterpret_cast<Fn>(sdk_symbol("rocsim_load_code_object"));
  const char* names[] = {"bench_gemm_kernel"};
  uint64_t code_object = 0, kernel = 0;
  if (fn(0, names, 1, &code_object, &kernel) != 0) {
    std::fprintf(stderr, "rocsim_load_code_object failed\n");
    std::exit(2);
  }
  return kernel;
}

// ---- hot path: SET ENTER + external-correlation request + SET EXIT per HIP call ----

struct HotPathState {
  rocprofiler_callback_tracing_record_t record{};
  rocprofiler_callback_tracing_hip_stream_data_t payload{};
  rocprofiler_user_data_t user_data{};
  uint64_t tid = 0;
  uint64_t wrong_stream = 0;
};

inline void one_hip_call(HotPathState& s, uint64_t i) {
  const CapturedCallbacks& cb = captured();
  const uint64_t stream = 1 + (i & 3);
  s.payload.stream_id.handle = stream;
  s.record.phase = ROCPROFILER_CALLBACK_PHASE_ENTER;
  cb.hip_stream(s.record, &s.user_data, cb.hip_stream_data);
  rocprofiler_user_data_t external{};
  cb.request(s.tid, cb.request_context, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
             0, i, &external, cb.request_data);
  s.wrong_stream += external.value != stream;
  s.record.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
  cb.hip_stream(s.record, &s.user_data, cb.hip_stream_data);
}

// callgrind counts instructions inside this function only (--toggle-collect); run.sh builds
// with -fno-ipa-icf so it is not folded into warm_up_loop, which has the same body.
__attribute__((noinline)) void hot_path_loop(HotPathState& s, uint64_t calls) {
  for (uint64_t i = 0; i < calls; ++i) one_hip_call(s, i);
}

__attribute__((noinline)) void warm_up_loop(HotPathState& s, uint64_t calls) {
  for (uint64_t i = 0; i < calls; ++i) one_hip_call(s, i);
}

int run_hot_path(const TracerSide& tracer, uint64_t calls) {
  if (tracer.enable() != 0) return 3;
  HotPathState s;
  s.record.kind = ROCPROFILER_CALLBACK_TRACING_HIP_STREAM;
  s.record.operation = ROCPROFILER_HIP_STREAM_SET;
  s.record.payload = &s.payload;
  s.payload.size = sizeof(s.payload);
  s.tid = os_thread_id();
  s.record.thread_id = s.tid;
  warm_up_loop(s, 10000);
  alloc_counter_start();
  const double cpu_start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  hot_path_loop(s, calls);
  const double elapsed = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
  const uint64_t allocations = alloc_counter_stop();
  tracer.disable();
  std::printf("hot_path_cpu_ns_per_call=%.3f\n", elapsed * 1e9 / static_cast<double>(calls));
  std::printf("hot_path_allocations=%llu\n", static_cast<unsigned long long>(allocations));
  std::printf("hot_path_wrong_stream=%llu\n", static_cast<unsigned long long>(s.wrong_stream));
  return s.wrong_stream == 0 ? 0 : 4;
}

// ---- drain: buffer records -> stored events, then flush + export ----

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

int run_drain(const TracerSide& tracer, size_t events, unsigned threads,
              const char* xspace_path) {
  const uint64_t gpu = gpu_agent_handle();
  const uint64_t kernel = load_kernel();
  if (tracer.enable() != 0) return 3;
  Workload w = make_workload(events, sdk_timestamp() + 1000, gpu, kernel, os_thread_id());
  const CapturedCallbacks& cb = captured();
  const size_t callbacks = w.num_callbacks();
  std::atomic<size_t> next{0};
  auto producer = [&] {
    for (size_t c; (c = next.fetch_add(1)) < callbacks;) {
      const size_t first = c * kRecordsPerCallback;
      const size_t n = std::min(kRecordsPerCallback, w.header_ptrs.size() - first);
      cb.buffer(cb.buffer_context, cb.buffer_id, w.header_ptrs.data() + first, n,
                cb.buffer_data, 0);
    }
  };
  const uint64_t rss_before = peak_rss_bytes();
  const auto start = Clock::now();
  const double cpu_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(producer);
  producer();
  for (auto& thread : pool) thread.join();
  const double drain_s = seconds_since(start);
  const double drain_cpu_s = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
  const uint64_t rss_after = peak_rss_bytes();
  std::printf("drain_events=%zu\n", w.header_ptrs.size());
  std::printf("drain_events_per_s=%.0f\n", static_cast<double>(w.header_ptrs.size()) / drain_s);
  std::printf("drain_events_per_cpu_s=%.0f\n",
              static_cast<double>(w.header_ptrs.size()) / drain_cpu_s);
  std::printf("bytes_per_event=%.1f\n",
              static_cast<double>(rss_after - rss_before) / w.header_ptrs.size());
  if (xspace_path == nullptr) return tracer.disable();

  const double export_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  if (tracer.disable() != 0) return 5;
  if (tracer.write_xspace(xspace_path) != 0) return 6;
  const double export_s = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - export_start;
  const std::string bytes = read_file(xspace_path);
  const int64_t xevents = count_xevents(bytes);
  std::printf("export_cpu_s=%.4f\n", export_s);
  std::printf("export_events_per_s=%.0f\n", static_cast<double>(w.header_ptrs.size()) / export_s);
  std::printf("xspace_bytes=%llu\n", static_cast<unsigned long long>(bytes.size()));
  std::printf("xspace_events=%lld\n", static_cast<long long>(xevents));
  return xevents == static_cast<int64_t>(w.header_ptrs.size()) ? 0 : 7;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s SIDE LIBRARY hotpath CALLS\n"
                 "       %s SIDE LIBRARY drain EVENTS THREADS [XSPACE_PATH]\n",
                 argv[0], argv[0]);
    return 2;
  }
  const TracerSide tracer = load_tracer_side(argv[1], argv[2]);
  const std::string mode = argv[3];
  if (mode == "hotpath") return run_hot_path(tracer, std::strtoull(argv[4], nullptr, 10));
  if (mode == "drain" && argc >= 6) {
    return run_drain(tracer, std::strtoull(argv[4], nullptr, 10),
                     static_cast<unsigned>(std::strtoul(argv[5], nullptr, 10)),
                     argc >= 7 ? argv[6] : nullptr);
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
