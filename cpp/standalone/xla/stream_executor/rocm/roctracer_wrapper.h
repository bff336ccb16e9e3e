/* Stand-in for XLA's xla/stream_executor/rocm/roctracer_wrapper.h: the same set of
   rocprofiler-sdk headers (docs/xla-interface.md#related-targets), taken from cpp/standalone/rocprofiler-sdk. */
#ifndef XLA_STREAM_EXECUTOR_ROCM_ROCTRACER_WRAPPER_H_
#define XLA_STREAM_EXECUTOR_ROCM_ROCTRACER_WRAPPER_H_

#include "rocprofiler-sdk/buffer.h"
#include "rocprofiler-sdk/buffer_tracing.h"
#include "rocprofiler-sdk/callback_tracing.h"
#include "rocprofiler-sdk/cxx/name_info.hpp"
#include "rocprofiler-sdk/external_correlation.h"
#include "rocprofiler-sdk/fwd.h"
#include "rocprofiler-sdk/internal_threading.h"
#include "rocprofiler-sdk/registration.h"
#include "rocprofiler-sdk/rocprofiler.h"

#endif  // XLA_STREAM_EXECUTOR_ROCM_ROCTRACER_WRAPPER_H_
