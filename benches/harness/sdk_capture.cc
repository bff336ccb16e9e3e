// Interposes three SDK configuration functions (the harness is linked with -rdynamic, so a
// dlopen-ed tracer binds to these first), records the callbacks, and forwards to the SDK.
#include "sdk_capture.h"

#include <dlfcn.h>

#include <time.h>

#include <cstdio>
#include <cstdlib>

CapturedCallbacks& captured() {
  static CapturedCallbacks callbacks;
  return callbacks;
}

SdkDeliveries& sdk_deliveries() {
  static SdkDeliveries deliveries;
  return deliveries;
}

namespace {

uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The tracer's callback of each buffer it created (tracers create one or two).
struct BufferCallback {
  uint64_t buffer = 0;
  rocprofiler_buffer_tracing_cb_t callback = nullptr;
};
constexpr int kMaxBuffers = 8;
BufferCallback g_buffer_callbacks[kMaxBuffers];
std::atomic<int> g_num_buffers{0};

// What the SDK calls instead of the tracer's buffer callback: the tracer's, timed.
void timed_buffer_callback(rocprofiler_context_id_t context, rocprofiler_buffer_id_t buffer,
                           rocprofiler_record_header_t** headers, size_t num_headers,
                           void* data, uint64_t drop_count) {
  rocprofiler_buffer_tracing_cb_t callback = nullptr;
  const int n = g_num_buffers.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    if (g_buffer_callbacks[i].buffer == buffer.handle) callback = g_buffer_callbacks[i].callback;
  }
  if (callback == nullptr) return;
  const uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  const uint64_t wall_start = clock_ns(CLOCK_MONOTONIC);
  callback(context, buffer, headers, num_headers, data, drop_count);
  SdkDeliveries& d = sdk_deliveries();
  d.cpu_ns.fetch_add(clock_ns(CLOCK_THREAD_CPUTIME_ID) - start, std::memory_order_relaxed);
  d.wall_ns.fetch_add(clock_ns(CLOCK_MONOTONIC) - wall_start, std::memory_order_relaxed);
  const int waiting = d.hip_threads_in_call.load(std::memory_order_relaxed);
  d.waiting_threads_sum.fetch_add(static_cast<uint64_t>(waiting), std::memory_order_relaxed);
  int max = d.waiting_threads_max.load(std::memory_order_relaxed);
  while (waiting > max && !d.waiting_threads_max.compare_exchange_weak(max, waiting)) {
  }
  d.records.fetch_add(num_headers, std::memory_order_relaxed);
  d.calls.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

void* sdk_symbol(const char* name) {
  static void* sdk = [] {
    void* handle = dlopen("librocprofiler-sdk.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      std::fprintf(stderr, "cannot load librocprofiler-sdk.so.1: %s\n", dlerror());
      std::exit(2);
    }
    return handle;
  }();
  void* symbol = dlsym(sdk, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "librocprofiler-sdk.so.1 has no %s\n", name);
    std::exit(2);
  }
  return symbol;
}

extern "C" rocprofiler_status_t rocprofiler_configure_callback_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_callback_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_callback_tracing_cb_t callback, void* callback_args) {
  using Fn = decltype(&rocprofiler_configure_callback_tracing_service);
  static auto real =
      reinterpret_cast<Fn>(sdk_symbol("rocprofiler_configure_callback_tracing_service"));
  if (kind == ROCPROFILER_CALLBACK_TRACING_HIP_STREAM) {
    captured().hip_stream = callback;
    captured().hip_stream_data = callback_args;
  } else if (kind == ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API) {
    captured().hip_api = callback;
    captured().hip_api_data = callback_args;
  }
  return real(context_id, kind, operations, operations_count, callback, callback_args);
}

extern "C" rocprofiler_status_t rocprofiler_configure_external_correlation_id_request_service(
    rocprofiler_context_id_t context_id,
    const rocprofiler_external_correlation_id_request_kind_t* kinds, size_t kinds_count,
    rocprofiler_external_correlation_id_request_cb_t callback, void* callback_args) {
  using Fn = decltype(&rocprofiler_configure_external_correlation_id_request_service);
  static auto real = reinterpret_cast<Fn>(
      sdk_symbol("rocprofiler_configure_external_correlation_id_request_service"));
  captured().request = callback;
  captured().request_data = callback_args;
  captured().request_context = context_id;
  return real(context_id, kinds, kinds_count, callback, callback_args);
}

extern "C" rocprofiler_status_t rocprofiler_create_buffer(
    rocprofiler_context_id_t context, size_t size, size_t watermark,
    rocprofiler_buffer_policy_t policy, rocprofiler_buffer_tracing_cb_t callback,
    void* callback_data, rocprofiler_buffer_id_t* buffer_id) {
  using Fn = decltype(&rocprofiler_create_buffer);
  static auto real = reinterpret_cast<Fn>(sdk_symbol("rocprofiler_create_buffer"));
  captured().buffer = callback;
  rocprofiler_status_t status = real(context, size, watermark, policy,
                                     callback != nullptr ? timed_buffer_callback : nullptr,
                                     callback_data, buffer_id);
  captured().buffer_data = callback_data;
  captured().buffer_context = context;
  if (buffer_id != nullptr) {
    captured().buffer_id = *buffer_id;
    const int n = g_num_buffers.load(std::memory_order_relaxed);
    if (n < kMaxBuffers && status == ROCPROFILER_STATUS_SUCCESS) {
      g_buffer_callbacks[n] = {buffer_id->handle, callback};
      g_num_buffers.store(n + 1, std::memory_order_release);
    }
  }
  return status;
}
