/* Stand-in for rocprofiler-sdk-roctx/roctx.h: the ROCTx functions of librocprofiler-sdk-roctx.so
   (the simulated one: crates/rocprofiler-sdk-roctx-sim, SONAME librocprofiler-sdk-roctx.so.1). */
#ifndef ROCPROFILER_SDK_ROCTX_STAND_IN_ROCTX_H_
#define ROCPROFILER_SDK_ROCTX_STAND_IN_ROCTX_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t roctx_range_id_t;

/* Opens a range on the calling thread; returns its 0-based nesting level. */
int roctxRangePushA(const char* message);
/* Closes the calling thread's innermost range; returns its level, or a negative value if none
   was open. */
int roctxRangePop(void);
/* A zero-length mark. */
void roctxMarkA(const char* message);

#define roctxRangePush(message) roctxRangePushA(message)
#define roctxMark(message) roctxMarkA(message)

#ifdef __cplusplus
}
#endif

#endif  // ROCPROFILER_SDK_ROCTX_STAND_IN_ROCTX_H_
