// What the harness captures of a tracer's registration with rocprofiler-sdk: the callbacks the
// SDK would call, taken from the tracer's configure calls (see sdk_capture.cc).
#ifndef XLA_ROCM_TRACER_BENCH_HARNESS_SDK_CAPTURE_H_
#define XLA_ROCM_TRACER_BENCH_HARNESS_SDK_CAPTURE_H_

#include "rocprofiler-sdk/rocprofiler.h"

struct CapturedCallbacks {
  rocprofiler_callback_tracing_cb_t hip_stream = nullptr;
  void* hip_stream_data = nullptr;
  rocprofiler_external_correlation_id_request_cb_t request = nullptr;
  void* request_data = nullptr;
  rocprofiler_context_id_t request_context{};
  rocprofiler_buffer_tracing_cb_t buffer = nullptr;
  void* buffer_data = nullptr;
  rocprofiler_context_id_t buffer_context{};
  rocprofiler_buffer_id_t buffer_id{};
};

CapturedCallbacks& captured();

// The simulated SDK, opened RTLD_GLOBAL before any tracer; dlsym from it.
void* sdk_symbol(const char* name);

#endif  // XLA_ROCM_TRACER_BENCH_HARNESS_SDK_CAPTURE_H_
