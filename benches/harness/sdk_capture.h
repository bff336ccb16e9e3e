// What the harness captures of a tracer's registration with rocprofiler-sdk: the callbacks the
// SDK would call, taken from the tracer's configure calls (see sdk_capture.cc).
#ifndef XLA_ROCM_TRACER_BENCH_HARNESS_SDK_CAPTURE_H_
#define XLA_ROCM_TRACER_BENCH_HARNESS_SDK_CAPTURE_H_

#include <atomic>
#include <cstdint>

#include "rocprofiler-sdk/rocprofiler.h"

struct CapturedCallbacks {
  rocprofiler_callback_tracing_cb_t hip_stream = nullptr;
  void* hip_stream_data = nullptr;
  // The HIP runtime API callback (XLA records the thread's annotation at ENTER); null if the
  // tracer registers none.
  rocprofiler_callback_tracing_cb_t hip_api = nullptr;
  void* hip_api_data = nullptr;
  rocprofiler_external_correlation_id_request_cb_t request = nullptr;
  void* request_data = nullptr;
  rocprofiler_context_id_t request_context{};
  rocprofiler_buffer_tracing_cb_t buffer = nullptr;
  void* buffer_data = nullptr;
  rocprofiler_context_id_t buffer_context{};
  rocprofiler_buffer_id_t buffer_id{};
};

CapturedCallbacks& captured();

// What the tracer's buffer callback cost when the SDK itself delivered (the harness hands the
// SDK a wrapper that times each delivery with the delivering thread's CPU clock). With the
// real SDK every producer whose half is being delivered waits this long.
struct SdkDeliveries {
  std::atomic<uint64_t> calls{0};
  std::atomic<uint64_t> records{0};
  std::atomic<uint64_t> cpu_ns{0};
  std::atomic<uint64_t> wall_ns{0};
  // The stall bench's HIP threads count themselves in and out of every traced call. When a
  // callback returns, the ones still inside a call are the ones its syncer held: under ROCm
  // 7.1's one syncer per buffer a producer cannot write its record while the callback runs.
  std::atomic<int> hip_threads_in_call{0};
  std::atomic<uint64_t> waiting_threads_sum{0};
  std::atomic<int> waiting_threads_max{0};
};

SdkDeliveries& sdk_deliveries();

// The simulated SDK, opened RTLD_GLOBAL before any tracer; dlsym from it.
void* sdk_symbol(const char* name);

#endif  // XLA_ROCM_TRACER_BENCH_HARNESS_SDK_CAPTURE_H_
