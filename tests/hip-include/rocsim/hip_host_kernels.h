/*
 * Kernels in HIP host programs compiled by g++ (no device compiler), for xla-rocm-tracer's tests.
 * Works with ROCm's real headers as well as with the stand-in in tests/hip-include.
 *
 * 1. The registration entry points that hipcc-generated host code calls (HIP's "compiler"
 *    dispatch table: not traced as HIP runtime API calls). Same ABI as libamdhip64.
 * 2. rocsimHipSetKernelHostBody: an extension of the simulated libamdhip64 only. It is declared
 *    weak, so on a real runtime its address is null and programs skip it:
 *        if (rocsimHipSetKernelHostBody) rocsimHipSetKernelHostBody(stub, body, 0);
 *    The simulator then runs `body` synchronously on the launching thread, inside the launch
 *    call, with the launch's grid, block and argument array (args[i] points at argument i), so
 *    programs compute real results on host memory (device allocations are host memory there).
 *    A hipGraphLaunch runs the bodies of its kernel nodes in node order.
 *    modelled_duration_ns is the kernel's duration on the simulated GPU (0 = derived from the
 *    grid size).
 */
#ifndef XLA_ROCM_TRACER_ROCSIM_HIP_HOST_KERNELS_H
#define XLA_ROCM_TRACER_ROCSIM_HIP_HOST_KERNELS_H

#include <hip/hip_runtime_api.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* What hipcc passes to __hipRegisterFatBinary. */
typedef struct rocsimHipFatbinWrapper {
  unsigned int magic;   /* 0x48495046, "HIPF" */
  unsigned int version; /* 1 */
  const void* binary;   /* clang offload bundle; the simulator does not read it */
  void* unused;
} rocsimHipFatbinWrapper;
#define ROCSIM_HIP_FATBIN_MAGIC 0x48495046u

typedef struct { unsigned int x, y, z; } rocsimHipUint3;

void** __hipRegisterFatBinary(const void* data);
void __hipRegisterFunction(void** modules, const void* hostFunction, char* deviceFunction,
                           const char* deviceName, unsigned int threadLimit, rocsimHipUint3* tid,
                           rocsimHipUint3* bid, dim3* blockDim, dim3* gridDim, int* wSize);
void __hipUnregisterFatBinary(void** modules);
/* `kernel<<<grid, block, shmem, stream>>>(args)` pushes the configuration; the kernel's host
 * stub pops it and calls hipLaunchKernel with its own address. */
hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                      hipStream_t stream);
hipError_t __hipPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                     hipStream_t* stream);

typedef void (*rocsimHipKernelHostBody)(dim3 gridDim, dim3 blockDim, size_t sharedMemBytes,
                                        void** args);

__attribute__((weak)) hipError_t rocsimHipSetKernelHostBody(const void* hostFunction,
                                                            rocsimHipKernelHostBody body,
                                                            uint64_t modelled_duration_ns);

#if defined(__cplusplus)
} /* extern "C" */
#endif

#endif /* XLA_ROCM_TRACER_ROCSIM_HIP_HOST_KERNELS_H */
