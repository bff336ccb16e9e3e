// A HIP program for `xla-rocm-tracer record` (tests/record/run.sh), run on the simulated HIP
// runtime and SDK. It knows nothing of the tracer: `record` loads the tool library into it.
//   hip_app plain EXIT_CODE   copies in, three kernels, a copy out; exits with EXIT_CODE
//   hip_app forced-tool       as plain 0, with its own rocprofiler-sdk tool forced before any
//                             HIP call (like XLA's plugin); fails unless that tool saw the
//                             kernels too
//   hip_app tool-first        loads the tool library ROCP_TOOL_LIBRARIES lists itself (left
//                             listed), then runs as forced-tool: a tool loaded before the
//                             program's forced one must not take the SDK for itself
//   hip_app hip-first         hides ROCP_TOOL_LIBRARIES from the SDK, initializes HIP, then
//                             loads the listed tool library itself (a plugin loaded after
//                             hipInit, ROCm/rocm-jax#222), then runs as plain 0
//   hip_app late-tool         hides ROCP_TOOL_LIBRARIES from the SDK, forces its own tool,
//                             then loads the listed tool library itself (a tool that comes
//                             after another one holds the SDK), then runs as plain 0
//   hip_app killed SIGNAL     as plain, then raises SIGNAL (no exit handler runs)
//   hip_app aborted           as plain, prints which library's SIGABRT handler is installed,
//                             then abort() (SIGABRT: no exit handler runs)
//   hip_app own-sigterm       installs its own SIGTERM handler (it says so and _exits 7), then
//                             as plain, then raises SIGTERM: the tool must chain to it
//   hip_app quick-exit CODE   as plain, then _exit(CODE) (no exit handler runs)
//   hip_app exit-busy         queues three kernels and a copy and exits without waiting
//   hip_app parent            as plain, then runs `hip_app plain 0` as a child process (fork
//                             and exec: it inherits the environment) and exits with its status
//   hip_app forked-exit       as plain, then forks a child that only calls exit(0) (its exit
//                             handlers run, with the parent's tool state copied), waits for it
//                             and exits 0
#include <hip/hip_runtime.h>
#include <rocsim/hip_host_kernels.h>

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CHECK_HIP(call)                                                               \
  do {                                                                                \
    hipError_t status_ = (call);                                                      \
    if (status_ != hipSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,       \
                   hipGetErrorString(status_));                                       \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// The few rocprofiler-sdk declarations the forced tool needs (rocprofiler-sdk/*.h layouts).
extern "C" {
struct rsdk_context_id_t {
  uint64_t handle;
};
struct rsdk_client_id_t {
  size_t size;
  const char* name;
  uint32_t handle;
};
typedef int (*rsdk_initialize_t)(void* client_finalize, void* tool_data);
typedef void (*rsdk_finalize_t)(void* tool_data);
struct rsdk_configure_result_t {
  size_t size;
  rsdk_initialize_t initialize;
  rsdk_finalize_t finalize;
  void* tool_data;
};
struct rsdk_callback_record_t {
  rsdk_context_id_t context_id;
  uint64_t thread_id;
  uint64_t correlation_internal;
  uint64_t correlation_external;
  uint64_t correlation_ancestor;
  uint32_t kind;
  int32_t operation;
  uint32_t phase;
  void* payload;
};
typedef void (*rsdk_callback_t)(rsdk_callback_record_t, void* user_data, void* callback_data);
typedef rsdk_configure_result_t* (*rsdk_configure_t)(uint32_t, const char*, uint32_t,
                                                      rsdk_client_id_t*);
int rocprofiler_force_configure(rsdk_configure_t configure);
int rocprofiler_create_context(rsdk_context_id_t* context);
int rocprofiler_configure_callback_tracing_service(rsdk_context_id_t context, uint32_t kind,
                                                   const int32_t* operations, size_t count,
                                                   rsdk_callback_t callback, void* data);
int rocprofiler_start_context(rsdk_context_id_t context);
}

constexpr uint32_t kKernelDispatchCallbacks = 12;  // ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH
constexpr int32_t kDispatchComplete = 2;           // ROCPROFILER_KERNEL_DISPATCH_COMPLETE

static std::atomic<int> forced_tool_kernels{0};

static void on_dispatch(rsdk_callback_record_t record, void*, void*) {
  if (record.kind == kKernelDispatchCallbacks && record.operation == kDispatchComplete)
    forced_tool_kernels.fetch_add(1);
}

static int forced_tool_initialize(void*, void*) {
  rsdk_context_id_t context{};
  if (rocprofiler_create_context(&context) != 0) return -1;
  if (rocprofiler_configure_callback_tracing_service(context, kKernelDispatchCallbacks, nullptr,
                                                     0, on_dispatch, nullptr) != 0)
    return -1;
  return rocprofiler_start_context(context) == 0 ? 0 : -1;
}

static rsdk_configure_result_t forced_tool_result = {sizeof(rsdk_configure_result_t),
                                                     forced_tool_initialize, nullptr, nullptr};

static rsdk_configure_result_t* forced_tool_configure(uint32_t, const char*, uint32_t,
                                                      rsdk_client_id_t* id) {
  id->name = "hip_app-forced-tool";
  return &forced_tool_result;
}

void scale(float* data, float factor, int n);

void scale(float* data, float factor, int n) {
  dim3 grid, block;
  size_t shmem;
  hipStream_t stream;
  if (__hipPopCallConfiguration(&grid, &block, &shmem, &stream) != hipSuccess) return;
  void* args[] = {&data, &factor, &n};
  (void)hipLaunchKernel(reinterpret_cast<const void*>(&scale), grid, block, args, shmem, stream);
}

static const char kFakeCodeObjectBundle[] = "__CLANG_OFFLOAD_BUNDLE__";
static rocsimHipFatbinWrapper fatbin_wrapper = {ROCSIM_HIP_FATBIN_MAGIC, 1, kFakeCodeObjectBundle,
                                               nullptr};

__attribute__((constructor)) static void register_kernels() {
  void** handle = __hipRegisterFatBinary(&fatbin_wrapper);
  __hipRegisterFunction(handle, reinterpret_cast<const void*>(&scale),
                        const_cast<char*>("_Z5scalePffi"), "_Z5scalePffi",
                        static_cast<unsigned>(-1), nullptr, nullptr, nullptr, nullptr, nullptr);
}

static void on_own_sigterm(int) {
  static const char kLine[] = "hip_app: its own SIGTERM handler ran\n";
  (void)!write(2, kLine, sizeof kLine - 1);
  _exit(7);
}

static void run_work(bool wait = true) {
  // 64 KiB: above ROCclr's 16 KiB blit size, so each copy is a copy record, not a blit kernel
  // (docs/simulator-fidelity.md, "Small host<->device copies"), and the tools see 3 kernels.
  const int n = 1 << 14;
  const size_t bytes = n * sizeof(float);
  hipStream_t stream;
  CHECK_HIP(hipStreamCreate(&stream));
  float* host = nullptr;
  float* device = nullptr;
  CHECK_HIP(hipHostMalloc(reinterpret_cast<void**>(&host), bytes, hipHostMallocDefault));
  CHECK_HIP(hipMalloc(reinterpret_cast<void**>(&device), bytes));
  CHECK_HIP(hipMemcpyAsync(device, host, bytes, hipMemcpyHostToDevice, stream));
  for (int i = 0; i < 3; ++i) {
    if (__hipPushCallConfiguration(dim3(n / 256), dim3(256), 0, stream) == hipSuccess)
      scale(device, 2.0f, n);
  }
  CHECK_HIP(hipMemcpyAsync(host, device, bytes, hipMemcpyDeviceToHost, stream));
  if (!wait) return;  // work in flight at exit
  CHECK_HIP(hipStreamSynchronize(stream));
  CHECK_HIP(hipFree(device));
  CHECK_HIP(hipHostFree(host));
  CHECK_HIP(hipStreamDestroy(stream));
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "plain";
  if (mode == "plain") {
    run_work();
    return argc > 2 ? std::atoi(argv[2]) : 0;
  }
  if (mode == "killed" && argc > 2) {
    run_work();
    std::raise(std::atoi(argv[2]));
    return 1;
  }
  if (mode == "aborted") {
    run_work();
    // Whose SIGABRT handler runs first: the library that holds it, on stdout.
    struct sigaction current {};
    Dl_info where {};
    if (sigaction(SIGABRT, nullptr, &current) == 0 &&
        dladdr(reinterpret_cast<void*>(current.sa_sigaction), &where) != 0 && where.dli_fname)
      std::printf("hip_app: SIGABRT handler in %s\n", where.dli_fname);
    std::fflush(stdout);
    std::abort();
  }
  if (mode == "own-sigterm") {
    std::signal(SIGTERM, on_own_sigterm);
    run_work();
    std::raise(SIGTERM);
    return 1;
  }
  if (mode == "quick-exit" && argc > 2) {
    run_work();
    _exit(std::atoi(argv[2]));
  }
  if (mode == "exit-busy") {
    run_work(false);
    std::exit(0);
  }
  if (mode == "parent") {
    run_work();
    const pid_t child = fork();
    if (child == 0) {
      execl(argv[0], argv[0], "plain", "0", static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  if (mode == "forked-exit") {
    run_work();
    const pid_t child = fork();
    if (child == 0) std::exit(0);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  if (mode == "tool-first") {
    const char* listed = std::getenv("ROCP_TOOL_LIBRARIES");
    if (listed == nullptr || dlopen(listed, RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      std::fprintf(stderr, "hip_app: cannot load ROCP_TOOL_LIBRARIES' library: %s\n",
                   listed ? dlerror() : "unset");
      return 1;
    }
    mode = "forced-tool";
  }
  if (mode == "forced-tool") {
    if (rocprofiler_force_configure(forced_tool_configure) != 0) {
      std::fprintf(stderr, "hip_app: the forced tool was refused\n");
      return 1;
    }
    run_work();
    // Completions reach tools a lag after the synchronize (docs/sdk-facts.md#kernel-and-copy-records).
    for (int waited_ms = 0; forced_tool_kernels.load() < 3 && waited_ms < 5000; ++waited_ms)
      usleep(1000);
    if (forced_tool_kernels.load() != 3) {
      std::fprintf(stderr, "hip_app: the forced tool saw %d kernels, not 3\n",
                   forced_tool_kernels.load());
      return 1;
    }
    return 0;
  }
  if (mode == "hip-first" || mode == "late-tool") {
    const char* listed = std::getenv("ROCP_TOOL_LIBRARIES");
    const std::string tools = listed ? listed : "";
    unsetenv("ROCP_TOOL_LIBRARIES");
    if (mode == "hip-first") {
      int devices = 0;
      CHECK_HIP(hipGetDeviceCount(&devices));
      hipStream_t early;
      CHECK_HIP(hipStreamCreate(&early));
      CHECK_HIP(hipStreamDestroy(early));
    } else if (rocprofiler_force_configure(forced_tool_configure) != 0) {
      std::fprintf(stderr, "hip_app: the forced tool was refused\n");
      return 1;
    }
    if (!tools.empty() && dlopen(tools.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      std::fprintf(stderr, "hip_app: cannot load %s: %s\n", tools.c_str(), dlerror());
      return 1;
    }
    run_work();
    return 0;
  }
  std::fprintf(stderr,
               "usage: %s plain [EXIT_CODE] | killed SIGNAL | aborted | own-sigterm | quick-exit CODE | exit-busy | parent | forced-tool | hip-first "
               "| late-tool\n",
               argv[0]);
  return 2;
}
