// Runs one library under test (see tracer_side.h), loaded with dlopen over the simulated SDK,
// through one benchmark and prints `key=value` lines; benches/run.sh runs every side and
// computes the ratios.
//
//   bench_harness SIDE LIBRARY hotpath CALLS [bare|roctx]
//     (bare: no annotation active; roctx: annotated and inside a ROCTx range)
//   bench_harness SIDE LIBRARY drain EVENTS THREADS [XSPACE_PATH]
//     (with BENCH_SAME_XSPACE_AS=FILE: fails unless the XSpace written has FILE's XEvent
//     count and size; the export floor's check)
//   bench_harness SIDE LIBRARY sdk CALLS XSPACE_PATH
//   bench_harness SIDE LIBRARY stall CALLS THREADS
#include <dlfcn.h>
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

rocprofiler_status_t collect_agents(rocprofiler_agent_version_t, const void** agents, size_t n,
                                    void* out) {
  auto* result = static_cast<WorkloadAgents*>(out);
  for (size_t i = 0; i < n; ++i) {
    const auto* agent = static_cast<const rocprofiler_agent_v0_t*>(agents[i]);
    if (agent->type == ROCPROFILER_AGENT_TYPE_GPU) result->gpus.push_back(agent->id.handle);
    if (agent->type == ROCPROFILER_AGENT_TYPE_CPU && result->cpu == 0) {
      result->cpu = agent->id.handle;
    }
  }
  return ROCPROFILER_STATUS_SUCCESS;
}

// The SDK's agents, and one kernel loaded through the simulated runtime on each GPU (so the
// tracer learns its name from the code-object callback).
WorkloadAgents workload_agents() {
  using QueryFn = decltype(&rocprofiler_query_available_agents);
  auto query = reinterpret_cast<QueryFn>(sdk_symbol("rocprofiler_query_available_agents"));
  WorkloadAgents agents;
  query(ROCPROFILER_AGENT_INFO_VERSION_0, collect_agents, sizeof(rocprofiler_agent_v0_t),
        &agents);
  // rocsim_code_object_options_t (crates/rocsim-abi): the kernels by name.
  struct CodeObjectOptions {
    uint32_t device;
    size_t count;
    const char* const* names;
    const void* symbols;
  };
  using LoadFn = int (*)(const CodeObjectOptions*, uint64_t*, uint64_t*);
  auto load = reinterpret_cast<LoadFn>(sdk_symbol("rocsim_load_code_object"));
  const char* names[] = {"bench_gemm_kernel"};
  for (uint32_t device = 0; device < agents.gpus.size(); ++device) {
    uint64_t code_object = 0, kernel = 0;
    const CodeObjectOptions options{device, 1, names, nullptr};
    if (load(&options, &code_object, &kernel) != 0) {
      std::fprintf(stderr, "rocsim_load_code_object failed on device %u\n", device);
      std::exit(2);
    }
    agents.kernels.push_back(kernel);
  }
  if (agents.gpus.empty() || agents.cpu == 0) {
    std::fprintf(stderr, "the simulated SDK lists no GPU or no CPU agent\n");
    std::exit(2);
  }
  return agents;
}

// ---- hot path: the SDK's callbacks around one HIP call ----
// In the order the SDK makes them for a launch (the simulator's "Call order" rules): HIP_STREAM
// SET ENTER, HIP_RUNTIME_API ENTER (XLA records the thread's annotation), the external-
// correlation request of the dispatch, HIP_RUNTIME_API EXIT, SET EXIT. The thread has an
// annotation active, as under a tsl ScopedAnnotation of an XLA op.

struct HotPathState {
  rocprofiler_callback_tracing_record_t record{};
  rocprofiler_callback_tracing_hip_stream_data_t payload{};
  rocprofiler_callback_tracing_record_t api_record{};
  unsigned char api_payload[512] = {};
  rocprofiler_user_data_t user_data{};
  rocprofiler_user_data_t api_user_data{};
  uint64_t tid = 0;
  uint64_t wrong_stream = 0;
};

inline void one_hip_call(HotPathState& s, uint64_t i) {
  const CapturedCallbacks& cb = captured();
  const uint64_t stream = 1 + (i & 3);
  s.payload.stream_id.handle = stream;
  // The hipStream_t the id stands for, as the SDK passes it: an ordinary stream's address, not
  // one of the reserved handles 0-2 (null, legacy, per-thread), which tracers note separately.
  s.payload.stream_value.value = 0x7f0000000000ull + 0x100 * stream;
  s.record.phase = ROCPROFILER_CALLBACK_PHASE_ENTER;
  cb.hip_stream(s.record, &s.user_data, cb.hip_stream_data);
  s.api_record.correlation_id.internal = i + 1;
  s.api_record.phase = ROCPROFILER_CALLBACK_PHASE_ENTER;
  cb.hip_api(s.api_record, &s.api_user_data, cb.hip_api_data);
  rocprofiler_user_data_t external{};
  cb.request(s.tid, cb.request_context, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
             0, i + 1, &external, cb.request_data);
  s.wrong_stream += external.value != stream;
  s.api_record.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
  cb.hip_api(s.api_record, &s.api_user_data, cb.hip_api_data);
  s.record.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
  cb.hip_stream(s.record, &s.user_data, cb.hip_stream_data);
}

// callgrind counts instructions inside this function only (--toggle-collect); run.sh builds
// with -fno-ipa-icf so it is not folded into warm_up_loop, which has the same body.
__attribute__((noinline)) void hot_path_loop(HotPathState& s, uint64_t first, uint64_t calls) {
  for (uint64_t i = first; i < first + calls; ++i) one_hip_call(s, i);
}

__attribute__((noinline)) void warm_up_loop(HotPathState& s, uint64_t calls) {
  for (uint64_t i = 0; i < calls; ++i) one_hip_call(s, i);
}

// The ROCTx functions, from the ROCTx library loaded by its SONAME, as a program calls them.
struct Roctx {
  int (*push)(const char*) = nullptr;
  int (*pop)() = nullptr;
};

bool load_roctx(Roctx& roctx) {
  void* handle = dlopen("librocprofiler-sdk-roctx.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "cannot load librocprofiler-sdk-roctx.so.1: %s\n", dlerror());
    return false;
  }
  roctx.push = reinterpret_cast<int (*)(const char*)>(dlsym(handle, "roctxRangePushA"));
  roctx.pop = reinterpret_cast<int (*)()>(dlsym(handle, "roctxRangePop"));
  return roctx.push != nullptr && roctx.pop != nullptr;
}

// `annotated`: the thread is inside two annotations, so the HIP API callback records one per
// call (XLA's AnnotationMap::Add); otherwise it finds none and returns. `in_roctx_range`: the
// thread is also inside a ROCTx range pushed in the session, so the callback reads its label
// too (a side without ROCTx support never hears of the range).
int run_hot_path(const TracerSide& tracer, uint64_t calls, bool annotated, bool in_roctx_range) {
  Roctx roctx;
  if (in_roctx_range && !load_roctx(roctx)) return 5;
  if (tracer.enable() != 0) return 3;
  if (in_roctx_range) roctx.push("train_step");
  HotPathState s;
  s.record.kind = ROCPROFILER_CALLBACK_TRACING_HIP_STREAM;
  s.record.operation = ROCPROFILER_HIP_STREAM_SET;
  s.record.payload = &s.payload;
  s.payload.size = sizeof(s.payload);
  s.api_record.kind = ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
  s.api_record.operation = kHipLaunchKernel;
  s.api_record.payload = s.api_payload;
  s.tid = os_thread_id();
  s.record.thread_id = s.tid;
  s.api_record.thread_id = s.tid;
  if (annotated) {
    tracer.push_annotation("jit_step");
    tracer.push_annotation("fusion.42#hlo_op=fusion.42,hlo_module=jit_step#");
  }
  constexpr uint64_t kWarmUp = 10000;
  warm_up_loop(s, kWarmUp);
  alloc_counter_start();
  const double cpu_start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  hot_path_loop(s, kWarmUp, calls);
  const double elapsed = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
  const uint64_t allocations = alloc_counter_stop();
  if (annotated) {
    tracer.pop_annotation();
    tracer.pop_annotation();
  }
  if (in_roctx_range) roctx.pop();
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

// The buffer callbacks of one producer thread; a function of its own so that callgrind can
// count its instructions (run.sh reads its inclusive cost).
__attribute__((noinline)) void drain_callbacks(const Workload& w, std::atomic<size_t>& next) {
  const CapturedCallbacks& cb = captured();
  const size_t callbacks = w.num_callbacks();
  for (size_t c; (c = next.fetch_add(1)) < callbacks;) {
    const size_t first = c * kRecordsPerCallback;
    const size_t n = std::min(kRecordsPerCallback, w.header_ptrs.size() - first);
    cb.buffer(cb.buffer_context, cb.buffer_id,
              const_cast<rocprofiler_record_header_t**>(w.header_ptrs.data()) + first, n,
              cb.buffer_data, 0);
  }
}

// Disable (flush and join) and export, as XLA's Stop and CollectData; counted like the drain.
__attribute__((noinline)) int flush_and_export(const TracerSide& tracer, const char* path) {
  if (tracer.disable() != 0) return 5;
  if (tracer.write_xspace(path) != 0) return 6;
  return 0;
}

int run_drain(const TracerSide& tracer, size_t events, unsigned threads,
              const char* xspace_path) {
  const WorkloadAgents agents = workload_agents();
  if (tracer.enable() != 0) return 3;
  Workload w = make_workload(events, sdk_timestamp() + 1000, agents, os_thread_id());
  std::atomic<size_t> next{0};
  auto producer = [&] { drain_callbacks(w, next); };
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
  // With one producer, the thread CPU time per record in the buffer callback.
  std::printf("drain_cpu_ns_per_record=%.1f\n", drain_cpu_s * 1e9 / w.header_ptrs.size());
  std::printf("drain_events_per_s=%.0f\n", static_cast<double>(w.header_ptrs.size()) / drain_s);
  std::printf("drain_events_per_cpu_s=%.0f\n",
              static_cast<double>(w.header_ptrs.size()) / drain_cpu_s);
  std::printf("bytes_per_event=%.1f\n",
              static_cast<double>(rss_after - rss_before) / w.header_ptrs.size());
  if (xspace_path == nullptr) return tracer.disable();

  const double export_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  if (const int status = flush_and_export(tracer, xspace_path); status != 0) return status;
  const double export_s = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - export_start;
  const std::string bytes = read_file(xspace_path);
  const int64_t xevents = count_xevents(bytes);
  std::printf("export_cpu_s=%.4f\n", export_s);
  std::printf("export_events_per_s=%.0f\n", static_cast<double>(w.header_ptrs.size()) / export_s);
  std::printf("xspace_bytes=%llu\n", static_cast<unsigned long long>(bytes.size()));
  std::printf("xspace_events=%lld\n", static_cast<long long>(xevents));
  if (xevents != static_cast<int64_t>(w.header_ptrs.size())) return 7;
  // The export floor writes another side's XSpace again: the same events, the same bytes.
  if (const char* reference = std::getenv("BENCH_SAME_XSPACE_AS"); reference && *reference) {
    const std::string reference_bytes = read_file(reference);
    const int64_t reference_events = count_xevents(reference_bytes);
    std::printf("reference_xspace_events=%lld\n", static_cast<long long>(reference_events));
    std::printf("reference_xspace_bytes=%llu\n",
                static_cast<unsigned long long>(reference_bytes.size()));
    if (reference_events != xevents || reference_bytes.size() != bytes.size()) {
      std::fprintf(stderr, "the XSpace differs from %s\n", reference);
      return 10;
    }
  }
  return 0;
}

// ---- sdk: HIP calls through the simulated runtime, records delivered by the SDK ----
// The simulator's real-SDK behaviours are on (they are its defaults: producers wait for the
// buffer callback, kernel records arrive after a lag, the SDK 1.0 stream map, ...). One app
// thread launches kernels and copies on four streams of every GPU; the SDK makes the callbacks
// and fills the tracer's buffer, and its callback thread delivers through the harness's timing
// wrapper. Reports the app thread's CPU per call (the simulator's own work included, the same
// for every side), the buffer callback's CPU per record, and the flush + export.

struct SimLaunch {
  uint64_t kernel;
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t duration_ns;
};

struct SimCopy {
  uint32_t kind;
  uint64_t bytes;
  int32_t src_device;
  int32_t dst_device;
  uint64_t duration_ns;
};

// The simulated SDK's options structs (crates/rocsim-abi); zero fields give the plain call
// (hipLaunchKernel, hipMemcpyAsync from pinned memory, hipStreamCreate).
struct SimLaunchOptions {
  SimLaunch launch;
  uint64_t stream;
  uint64_t function;
  uint64_t args;
  int32_t op;
};

struct SimMemcpyOptions {
  SimCopy copy;
  uint32_t sync;
  int32_t op;
  uint64_t stream;
  uint32_t host;
  uint32_t has_hip_kind;
  int32_t hip_kind;
  uint64_t dst;
  uint64_t src;
};

struct SimStreamCreateOptions {
  int32_t op;
  uint32_t rejected;
  uint32_t has_stream_out;
  uint64_t stream_out;
};

// The simulated HIP runtime's entry points the SDK benches call.
struct SimHip {
  using SetDeviceFn = int (*)(uint32_t);
  using StreamCreateFn = int (*)(const SimStreamCreateOptions*, uint64_t*);
  using LaunchFn = int (*)(const SimLaunchOptions*, uint64_t*);
  using CopyFn = int (*)(const SimMemcpyOptions*, uint64_t*);
  using SyncFn = int (*)();
  SetDeviceFn set_device = reinterpret_cast<SetDeviceFn>(sdk_symbol("rocsim_set_device"));
  StreamCreateFn stream_create =
      reinterpret_cast<StreamCreateFn>(sdk_symbol("rocsim_stream_create"));
  LaunchFn launch = reinterpret_cast<LaunchFn>(sdk_symbol("rocsim_launch_kernel"));
  CopyFn memcpy = reinterpret_cast<CopyFn>(sdk_symbol("rocsim_memcpy"));
  SyncFn device_synchronize = reinterpret_cast<SyncFn>(sdk_symbol("rocsim_device_synchronize"));
};

// Four streams on every GPU, created while the tracer's stream context is active (SDK 1.0's
// stream map knows only those); empty if the runtime refused one.
std::vector<uint64_t> create_streams(const SimHip& hip, uint32_t num_gpus) {
  std::vector<uint64_t> streams;
  for (uint32_t device = 0; device < num_gpus; ++device) {
    if (hip.set_device(device) != 0) return {};
    for (int k = 0; k < 4; ++k) {
      uint64_t stream = 0;
      const SimStreamCreateOptions options{};
      if (hip.stream_create(&options, &stream) != 0) return {};
      streams.push_back(stream);
    }
  }
  return streams;
}

// One HIP thread's calls: kernels and every fourth call a copy, on the four streams of a GPU,
// in runs of 64 calls per GPU as a program switches devices between steps (hipSetDevice is a
// traced call too). With `count_in_call`, the thread counts itself in SdkDeliveries while it
// is inside a call. Returns false if a call failed.
bool issue_hip_calls(const SimHip& hip, const WorkloadAgents& agents,
                     const std::vector<uint64_t>& streams, uint64_t calls, bool count_in_call) {
  const uint32_t num_gpus = static_cast<uint32_t>(agents.gpus.size());
  std::atomic<int>& in_call = sdk_deliveries().hip_threads_in_call;
  uint32_t current_device = num_gpus;  // none yet
  for (uint64_t i = 0; i < calls; ++i) {
    const uint32_t device = static_cast<uint32_t>((i / 64) % num_gpus);
    const uint64_t stream = streams[4 * device + i % 4];
    if (device != current_device) {
      hip.set_device(device);
      current_device = device;
    }
    uint64_t corr = 0;
    if (count_in_call) in_call.fetch_add(1, std::memory_order_relaxed);
    int status;
    if (i % 4 == 3) {
      SimMemcpyOptions copy{};
      copy.copy = SimCopy{(i / 4) % 2 == 0 ? 1u : 2u, 1 << 20, -1, -1, 2000};
      copy.stream = stream;
      status = hip.memcpy(&copy, &corr);
    } else {
      SimLaunchOptions k{};
      k.launch = SimLaunch{agents.kernels[device], {65536, 1, 1}, {256, 1, 1}, 0, 0, 1000};
      k.stream = stream;
      status = hip.launch(&k, &corr);
    }
    if (count_in_call) in_call.fetch_sub(1, std::memory_order_relaxed);
    if (status != 0) {
      std::fprintf(stderr, "simulated HIP call %llu failed: %d\n",
                   static_cast<unsigned long long>(i), status);
      return false;
    }
  }
  return true;
}

// Waits until every GPU is idle and the SDK has delivered every record.
void drain_sim(const SimHip& hip, uint32_t num_gpus) {
  for (uint32_t device = 0; device < num_gpus; ++device) {
    hip.set_device(device);
    hip.device_synchronize();
  }
  reinterpret_cast<void (*)()>(sdk_symbol("rocsim_wait_idle"))();
}

int run_sdk(const TracerSide& tracer, uint64_t calls, const char* xspace_path) {
  const SimHip hip;
  const WorkloadAgents agents = workload_agents();
  const uint32_t num_gpus = static_cast<uint32_t>(agents.gpus.size());
  const std::vector<uint64_t> streams = create_streams(hip, num_gpus);
  if (streams.empty()) return 9;
  if (tracer.enable() != 0) return 3;
  tracer.push_annotation("jit_step");
  const double cpu_start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  if (!issue_hip_calls(hip, agents, streams, calls, false)) return 9;
  const double app_cpu_s = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
  drain_sim(hip, num_gpus);
  tracer.pop_annotation();
  const double export_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  if (tracer.disable() != 0) return 5;
  const SdkDeliveries& d = sdk_deliveries();
  const uint64_t records = d.records.load();
  std::printf("sdk_calls=%llu\n", static_cast<unsigned long long>(calls));
  std::printf("sdk_app_cpu_ns_per_call=%.1f\n", app_cpu_s * 1e9 / static_cast<double>(calls));
  std::printf("sdk_buffer_callbacks=%llu\n", static_cast<unsigned long long>(d.calls.load()));
  std::printf("sdk_records=%llu\n", static_cast<unsigned long long>(records));
  std::printf("sdk_buffer_cpu_ns_per_record=%.1f\n",
              records == 0 ? 0.0 : static_cast<double>(d.cpu_ns.load()) / records);
  if (tracer.write_xspace(xspace_path) != 0) return 6;
  const double export_s = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - export_start;
  const std::string bytes = read_file(xspace_path);
  std::printf("sdk_export_cpu_s=%.4f\n", export_s);
  std::printf("sdk_xspace_events=%lld\n", static_cast<long long>(count_xevents(bytes)));
  return records >= 2 * calls ? 0 : 7;
}

// ---- stall: the application's wait for the buffer callback under one syncer per buffer ----
// ROCm 7.1 and 7.2 hold one syncer per buffer while its callback runs, and every producer (each
// HIP thread writing its API record, the completion thread writing kernel and copy records)
// waits on it: the callback's time is the application's stall. run.sh runs this under the
// simulator's `rocm = "7.1"` profile (`buffer_sync = "per-buffer"`). THREADS HIP threads, each
// inside an annotation as XLA launches, share CALLS calls; the SDK delivers every record.
// Reports the callback's time per record on the SDK's callback thread (CPU: the callback never
// sleeps, so on an idle machine its wall time is its CPU time; wall is printed too) and how
// many HIP threads were inside a call, held by the syncer, when each callback returned.
int run_stall(const TracerSide& tracer, uint64_t calls, unsigned threads) {
  const SimHip hip;
  const WorkloadAgents agents = workload_agents();
  const uint32_t num_gpus = static_cast<uint32_t>(agents.gpus.size());
  const std::vector<uint64_t> streams = create_streams(hip, num_gpus);
  if (streams.empty() || threads == 0) return 9;
  if (tracer.enable() != 0) return 3;
  const uint64_t per_thread = calls / threads;
  std::atomic<bool> failed{false};
  auto hip_thread = [&] {
    tracer.push_annotation("jit_step");
    if (!issue_hip_calls(hip, agents, streams, per_thread, true)) failed = true;
    tracer.pop_annotation();
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(hip_thread);
  for (auto& thread : pool) thread.join();
  if (failed) return 9;
  drain_sim(hip, num_gpus);
  if (tracer.disable() != 0) return 5;
  const SdkDeliveries& d = sdk_deliveries();
  const uint64_t records = d.records.load();
  const uint64_t callbacks = d.calls.load();
  const double per_record = records == 0 ? 0.0 : 1.0 / static_cast<double>(records);
  std::printf("stall_hip_threads=%u\n", threads);
  std::printf("stall_calls=%llu\n", static_cast<unsigned long long>(per_thread * threads));
  std::printf("stall_buffer_callbacks=%llu\n", static_cast<unsigned long long>(callbacks));
  std::printf("stall_records=%llu\n", static_cast<unsigned long long>(records));
  std::printf("stall_cpu_ns_per_record=%.1f\n", static_cast<double>(d.cpu_ns.load()) * per_record);
  std::printf("stall_wall_ns_per_record=%.1f\n",
              static_cast<double>(d.wall_ns.load()) * per_record);
  std::printf("stall_waiting_threads_mean=%.2f\n",
              callbacks == 0 ? 0.0
                             : static_cast<double>(d.waiting_threads_sum.load()) /
                                   static_cast<double>(callbacks));
  std::printf("stall_waiting_threads_max=%d\n", d.waiting_threads_max.load());
  return records >= 2 * per_thread * threads ? 0 : 7;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s SIDE LIBRARY hotpath CALLS [bare|roctx]\n"
                 "       %s SIDE LIBRARY drain EVENTS THREADS [XSPACE_PATH]\n"
                 "       %s SIDE LIBRARY sdk CALLS XSPACE_PATH\n"
                 "       %s SIDE LIBRARY stall CALLS THREADS\n",
                 argv[0], argv[0], argv[0], argv[0]);
    return 2;
  }
  const TracerSide tracer = load_tracer_side(argv[1], argv[2]);
  const std::string mode = argv[3];
  if (mode == "hotpath") {
    const std::string variant = argc >= 6 ? argv[5] : "";
    return run_hot_path(tracer, std::strtoull(argv[4], nullptr, 10), variant != "bare",
                        variant == "roctx");
  }
  if (mode == "drain" && argc >= 6) {
    return run_drain(tracer, std::strtoull(argv[4], nullptr, 10),
                     static_cast<unsigned>(std::strtoul(argv[5], nullptr, 10)),
                     argc >= 7 ? argv[6] : nullptr);
  }
  if (mode == "sdk" && argc >= 6) {
    return run_sdk(tracer, std::strtoull(argv[4], nullptr, 10), argv[5]);
  }
  if (mode == "stall" && argc >= 6) {
    return run_stall(tracer, std::strtoull(argv[4], nullptr, 10),
                     static_cast<unsigned>(std::strtoul(argv[5], nullptr, 10)));
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
