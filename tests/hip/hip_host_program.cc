// A HIP host program written the way hipcc would compile a real one, for g++ + the simulated
// libamdhip64.so (it also compiles against ROCm's headers). It registers its kernels like
// hipcc-generated code, uses three streams (compute, H2D, D2H) with events between them,
// hipMemcpyAsync both ways, kernels launched through their registered host stubs, a graph
// launch, a synchronous memset and copy, occupancy queries, error cases, and checks every
// data result. It captures a trace with the tracer's C ABI and writes it to argv[1];
// tests/hip/run.sh then checks the trace (lanes, kernel names, copies, correlation ids).
#include <hip/hip_runtime.h>
#include <rocsim/hip_host_kernels.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// The tracer's C ABI (include/xla_rocm_tracer.h, declared here to keep the program
// independent of that header's location).
extern "C" {
int xrt_enable(const void* options);
int xrt_disable(void);
int xrt_write_xspace(const char* path);
// The simulated SDK's driver (crates/rocprofiler-sdk-sim): waits until every record was pushed.
void rocsim_wait_idle(void);
}

#define CHECK_HIP(call)                                                                      \
  do {                                                                                       \
    hipError_t status_ = (call);                                                             \
    if (status_ != hipSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,         \
                   hipGetErrorName(status_), hipGetErrorString(status_));                     \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

#define EXPECT(cond)                                                            \
  do {                                                                          \
    if (!(cond)) {                                                              \
      std::fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

// ---- What a device compiler would generate: host stubs and their registration. ----------

// Host stubs: `kernel<<<grid, block, shmem, stream>>>(args...)` becomes a call to the stub,
// which launches the kernel by the stub's own address.
void vector_add(const float* a, const float* b, float* out, int n);
void scale(float* data, float factor, int n);

void vector_add(const float* a, const float* b, float* out, int n) {
  dim3 grid, block;
  size_t shmem;
  hipStream_t stream;
  if (__hipPopCallConfiguration(&grid, &block, &shmem, &stream) != hipSuccess) return;
  void* args[] = {&a, &b, &out, &n};
  (void)hipLaunchKernel(reinterpret_cast<const void*>(&vector_add), grid, block, args, shmem,
                        stream);
}

void scale(float* data, float factor, int n) {
  dim3 grid, block;
  size_t shmem;
  hipStream_t stream;
  if (__hipPopCallConfiguration(&grid, &block, &shmem, &stream) != hipSuccess) return;
  void* args[] = {&data, &factor, &n};
  (void)hipLaunchKernel(reinterpret_cast<const void*>(&scale), grid, block, args, shmem, stream);
}

// Host bodies the simulator runs for these kernels (the "device code").
static void vector_add_body(dim3 grid, dim3 block, size_t, void** args) {
  const float* a = *static_cast<const float**>(args[0]);
  const float* b = *static_cast<const float**>(args[1]);
  float* out = *static_cast<float**>(args[2]);
  int n = *static_cast<int*>(args[3]);
  unsigned threads = grid.x * block.x;
  for (unsigned tid = 0; tid < threads; ++tid)
    if (static_cast<int>(tid) < n) out[tid] = a[tid] + b[tid];
}

static void scale_body(dim3 grid, dim3 block, size_t, void** args) {
  float* data = *static_cast<float**>(args[0]);
  float factor = *static_cast<float*>(args[1]);
  int n = *static_cast<int*>(args[2]);
  unsigned threads = grid.x * block.x;
  for (unsigned tid = 0; tid < threads; ++tid)
    if (static_cast<int>(tid) < n) data[tid] *= factor;
}

static const char kFakeCodeObjectBundle[] = "__CLANG_OFFLOAD_BUNDLE__";
static rocsimHipFatbinWrapper fatbin_wrapper = {ROCSIM_HIP_FATBIN_MAGIC, 1, kFakeCodeObjectBundle,
                                               nullptr};
static void** fatbin_handle = nullptr;

static void unregister_kernels() { __hipUnregisterFatBinary(fatbin_handle); }

__attribute__((constructor)) static void register_kernels() {
  fatbin_handle = __hipRegisterFatBinary(&fatbin_wrapper);
  __hipRegisterFunction(fatbin_handle, reinterpret_cast<const void*>(&vector_add),
                        const_cast<char*>("_Z10vector_addPKfS0_Pfi"), "_Z10vector_addPKfS0_Pfi",
                        static_cast<unsigned>(-1), nullptr, nullptr, nullptr, nullptr, nullptr);
  __hipRegisterFunction(fatbin_handle, reinterpret_cast<const void*>(&scale),
                        const_cast<char*>("_Z5scalePffi"), "_Z5scalePffi",
                        static_cast<unsigned>(-1), nullptr, nullptr, nullptr, nullptr, nullptr);
  std::atexit(unregister_kernels);
}

// `kernel<<<grid, block, shmem, stream>>>(args)` as clang lowers it.
#define LAUNCH(kernel, grid, block, shmem, stream, ...)                     \
  (__hipPushCallConfiguration((grid), (block), (shmem), (stream)) == hipSuccess \
       ? kernel(__VA_ARGS__)                                                \
       : (void)0)

// ---- The program. --------------------------------------------------------------------------

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.xplane.pb\n", argv[0]);
    return 2;
  }
  if (rocsimHipSetKernelHostBody) {
    CHECK_HIP(rocsimHipSetKernelHostBody(reinterpret_cast<const void*>(&vector_add),
                                         vector_add_body, 40000));
    CHECK_HIP(rocsimHipSetKernelHostBody(reinterpret_cast<const void*>(&scale), scale_body,
                                         0));
  }

  int device_count = 0;
  CHECK_HIP(hipGetDeviceCount(&device_count));
  EXPECT(device_count >= 1);
  hipDeviceProp_t props;
  CHECK_HIP(hipGetDeviceProperties(&props, 0));
  EXPECT(props.multiProcessorCount > 0 && props.warpSize == 64);
  EXPECT(std::strncmp(props.gcnArchName, "gfx", 3) == 0);
  CHECK_HIP(hipSetDevice(0));

  if (xrt_enable(nullptr) != 0) {
    std::fprintf(stderr, "xrt_enable failed\n");
    return 1;
  }

  const int n = 1 << 16;
  const size_t bytes = n * sizeof(float);
  hipStream_t compute, h2d, d2h;
  CHECK_HIP(hipStreamCreate(&compute));
  CHECK_HIP(hipStreamCreateWithFlags(&h2d, hipStreamNonBlocking));
  CHECK_HIP(hipStreamCreateWithFlags(&d2h, hipStreamNonBlocking));

  float *a, *b, *out;
  CHECK_HIP(hipHostMalloc(reinterpret_cast<void**>(&a), bytes, hipHostMallocDefault));
  CHECK_HIP(hipHostMalloc(reinterpret_cast<void**>(&b), bytes, hipHostMallocDefault));
  CHECK_HIP(hipHostMalloc(reinterpret_cast<void**>(&out), bytes, hipHostMallocDefault));
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f * static_cast<float>(i % 1000);
    out[i] = -1.0f;
  }
  float *d_a, *d_b, *d_out;
  CHECK_HIP(hipMalloc(reinterpret_cast<void**>(&d_a), bytes));
  CHECK_HIP(hipMalloc(reinterpret_cast<void**>(&d_b), bytes));
  CHECK_HIP(hipMalloc(reinterpret_cast<void**>(&d_out), bytes));

  hipEvent_t inputs_ready, result_ready;
  CHECK_HIP(hipEventCreate(&inputs_ready));
  CHECK_HIP(hipEventCreateWithFlags(&result_ready, hipEventDisableTiming));

  // Inputs in on the H2D stream; compute waits for them.
  CHECK_HIP(hipMemcpyAsync(d_a, a, bytes, hipMemcpyHostToDevice, h2d));
  CHECK_HIP(hipMemcpyAsync(d_b, b, bytes, hipMemcpyHostToDevice, h2d));
  CHECK_HIP(hipEventRecord(inputs_ready, h2d));
  CHECK_HIP(hipStreamWaitEvent(compute, inputs_ready, 0));

  // out = (a + b) * 2 with <<<>>>-style launches.
  const dim3 block(256);
  const dim3 grid((n + 255) / 256);
  LAUNCH(vector_add, grid, block, 0, compute, d_a, d_b, d_out, n);
  CHECK_HIP(hipGetLastError());
  LAUNCH(scale, grid, block, 0, compute, d_out, 2.0f, n);
  CHECK_HIP(hipGetLastError());

  // out *= 0.5 then *= 3 through a two-node graph.
  hipGraph_t graph;
  CHECK_HIP(hipGraphCreate(&graph, 0));
  float half = 0.5f, three = 3.0f;
  int count = n;
  void* half_args[] = {&d_out, &half, &count};
  void* three_args[] = {&d_out, &three, &count};
  hipKernelNodeParams node_params = {};
  node_params.func = reinterpret_cast<void*>(&scale);
  node_params.gridDim = grid;
  node_params.blockDim = block;
  node_params.kernelParams = half_args;
  hipGraphNode_t first, second;
  CHECK_HIP(hipGraphAddKernelNode(&first, graph, nullptr, 0, &node_params));
  node_params.kernelParams = three_args;
  CHECK_HIP(hipGraphAddKernelNode(&second, graph, &first, 1, &node_params));
  hipGraphExec_t graph_exec;
  CHECK_HIP(hipGraphInstantiate(&graph_exec, graph, nullptr, nullptr, 0));
  CHECK_HIP(hipGraphLaunch(graph_exec, compute));
  CHECK_HIP(hipEventRecord(result_ready, compute));

  // Result out on the D2H stream.
  CHECK_HIP(hipStreamWaitEvent(d2h, result_ready, 0));
  CHECK_HIP(hipMemcpyAsync(out, d_out, bytes, hipMemcpyDeviceToHost, d2h));
  CHECK_HIP(hipStreamSynchronize(d2h));

  // A synchronous fill and copy (no stream argument: the null stream).
  CHECK_HIP(hipMemset(d_b, 0, bytes));
  std::vector<float> zeros(n, 1.0f);
  CHECK_HIP(hipMemcpy(zeros.data(), d_b, bytes, hipMemcpyDeviceToHost));

  // Occupancy, as XLA's collector asks it.
  int blocks_per_cu = 0, min_grid = 0, best_block = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks_per_cu, reinterpret_cast<const void*>(&vector_add), 256, 0));
  CHECK_HIP(hipOccupancyMaxPotentialBlockSize(&min_grid, &best_block,
                                              reinterpret_cast<const void*>(&scale), 0, 0));
  EXPECT(blocks_per_cu > 0 && best_block > 0 && min_grid >= props.multiProcessorCount);

  CHECK_HIP(hipDeviceSynchronize());

  // Bad use returns HIP's errors and leaves a sticky last error.
  EXPECT(hipSetDevice(device_count) == hipErrorInvalidDevice);
  EXPECT(hipMalloc(nullptr, 16) == hipErrorInvalidValue);
  EXPECT(hipGetLastError() == hipErrorInvalidValue);
  EXPECT(hipGetLastError() == hipSuccess);
  hipStream_t doomed;
  CHECK_HIP(hipStreamCreate(&doomed));
  CHECK_HIP(hipStreamDestroy(doomed));
  EXPECT(hipStreamSynchronize(doomed) == hipErrorContextIsDestroyed);
  EXPECT(hipPeekAtLastError() == hipErrorContextIsDestroyed);
  EXPECT(hipFree(reinterpret_cast<void*>(0x1234)) == hipErrorInvalidValue);
  EXPECT(hipMemcpy(d_a, nullptr, 4, hipMemcpyHostToDevice) == hipErrorInvalidValue);
  (void)hipGetLastError();

  // Data results.
  for (int i = 0; i < n; ++i) {
    float expected = 3.0f * (static_cast<float>(i) + 0.5f * static_cast<float>(i % 1000));
    if (std::fabs(out[i] - expected) > 1e-3f * std::fabs(expected) + 1e-3f) {
      std::fprintf(stderr, "out[%d] = %f, expected %f\n", i, out[i], expected);
      return 1;
    }
    if (zeros[i] != 0.0f) {
      std::fprintf(stderr, "zeros[%d] = %f after hipMemset\n", i, zeros[i]);
      return 1;
    }
  }

  CHECK_HIP(hipGraphExecDestroy(graph_exec));
  CHECK_HIP(hipGraphDestroy(graph));
  CHECK_HIP(hipEventDestroy(inputs_ready));
  CHECK_HIP(hipEventDestroy(result_ready));
  CHECK_HIP(hipFree(d_a));
  CHECK_HIP(hipFree(d_b));
  CHECK_HIP(hipFree(d_out));
  CHECK_HIP(hipHostFree(a));
  CHECK_HIP(hipHostFree(b));
  CHECK_HIP(hipHostFree(out));
  CHECK_HIP(hipStreamDestroy(compute));
  CHECK_HIP(hipStreamDestroy(h2d));
  CHECK_HIP(hipStreamDestroy(d2h));

  // Kernel records can reach the SDK's buffer after hipDeviceSynchronize returned, as on real
  // hardware; the trace checker counts every kernel, so the program lets the simulator push
  // them all before it ends the session (the tracer's own wait at Disable is issue 13's).
  rocsim_wait_idle();
  if (xrt_disable() != 0 || xrt_write_xspace(argv[1]) != 0) {
    std::fprintf(stderr, "capturing the trace failed\n");
    return 1;
  }
  std::printf("hip_host_program: results correct, trace written to %s\n", argv[1]);
  return 0;
}
