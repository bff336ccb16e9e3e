/*
 * STAND-IN for ROCm's <hip/hip_runtime.h> — NOT the AMD header (see hip_runtime_api.h here).
 *
 * g++ cannot compile device code, so `__global__` functions are not supported. A host program
 * does what hipcc's generated host code does instead:
 *   1. at load time it calls __hipRegisterFatBinary(&wrapper) with a wrapper
 *      { magic 0x48495046 ("HIPF"), version 1, code-object bundle pointer, unused }, then
 *      __hipRegisterFunction(handle, host_stub, mangled_name, mangled_name, -1, 0, 0, 0, 0, 0)
 *      once per kernel, and registers __hipUnregisterFatBinary(handle) to run at exit;
 *   2. each kernel has a host stub (any function whose address is unique); launching a kernel
 *      is hipLaunchKernel((const void*)host_stub, grid, block, args, shared_mem, stream), where
 *      args[i] points at the i-th kernel argument (what `kernel<<<...>>>(a, b)` expands to).
 * Those entry points are not declared by ROCm's public headers either (the compiler emits the
 * calls): programs declare them themselves; <rocsim/hip_host_kernels.h> does it for them.
 *
 * The simulated runtime cannot execute GPU code, so a program may give a kernel a host body
 * (<rocsim/hip_host_kernels.h>) that the simulator runs synchronously at launch on host memory.
 */
#ifndef XLA_ROCM_TRACER_STANDIN_HIP_RUNTIME_H
#define XLA_ROCM_TRACER_STANDIN_HIP_RUNTIME_H

#include <hip/hip_runtime_api.h>

#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif

#endif /* XLA_ROCM_TRACER_STANDIN_HIP_RUNTIME_H */
