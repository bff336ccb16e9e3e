/* Minimal stand-in for <hip/hip_runtime.h>: only hipFuncAttributes, which rocm_collector.h's
   occupancy types name. The tracer and collector never call HIP (openxla/xla#40199).
   Field names and order follow HIP's hip_runtime_api.h. */
#ifndef XLA_ROCM_TRACER_STANDALONE_HIP_RUNTIME_H_
#define XLA_ROCM_TRACER_STANDALONE_HIP_RUNTIME_H_

#include <stddef.h>

typedef struct hipFuncAttributes {
  int binaryVersion;
  int cacheModeCA;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxDynamicSharedSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int preferredShmemCarveout;
  int ptxVersion;
  size_t sharedSizeBytes;
} hipFuncAttributes;

#endif  // XLA_ROCM_TRACER_STANDALONE_HIP_RUNTIME_H_
