/* The one logging header of the C++ shims: absl LOG/VLOG. Inside XLA that is Abseil's
   absl/log; with an Abseil older than absl/log (Debian's 20220623) it is the stderr stand-in
   in cpp/standalone/absl/log/log.h. */
#ifndef XLA_ROCM_TRACER_CPP_LOG_H_
#define XLA_ROCM_TRACER_CPP_LOG_H_

#include "absl/log/log.h"

#define ROCM_SHIM_LOG(severity) LOG(severity)
#define ROCM_SHIM_VLOG(level) VLOG(level)

#endif  // XLA_ROCM_TRACER_CPP_LOG_H_
