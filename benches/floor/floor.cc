// The hot path's floor: the least a tracer built on XLA's design can do per SDK callback.
// It registers with rocprofiler-sdk like the tracers (stream callback, HIP API callback,
// external-correlation request, buffer) and each callback makes one thread-local access:
// SET ENTER / EXIT push and pop a fixed-size stack, the request reads its top, the HIP API
// callback reads the thread's annotation slot. The buffer callback only counts records.
// Built as a shared library with -fPIC (general-dynamic TLS) and loaded by the harness with
// dlopen exactly like the tracers, so the call path (indirect call through the SDK's
// callback pointer, __tls_get_addr) is the same; only the work behind it differs.
#include <atomic>
#include <cstdint>
#include <initializer_list>

#include "rocprofiler-sdk/rocprofiler.h"

namespace {

struct ThreadState {
  uint64_t stack[16] = {0};
  uint32_t depth = 0;
  const char* annotation = nullptr;
};
thread_local ThreadState tls_state;

rocprofiler_context_id_t g_context{};
rocprofiler_context_id_t g_stream_context{};
rocprofiler_buffer_id_t g_buffer{};
std::atomic<uint64_t> g_records{0};

void hip_stream_callback(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t*,
                         void*) {
  ThreadState& state = tls_state;
  if (record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
    const auto* data =
        static_cast<const rocprofiler_callback_tracing_hip_stream_data_t*>(record.payload);
    state.stack[++state.depth & 15] = data->stream_id.handle;
  } else if (state.depth > 0) {
    --state.depth;
  }
}

void hip_api_callback(rocprofiler_callback_tracing_record_t record,
                      rocprofiler_user_data_t* user_data, void*) {
  if (record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
    user_data->ptr = const_cast<char*>(tls_state.annotation);
  }
}

int request_callback(rocprofiler_thread_id_t, rocprofiler_context_id_t,
                     rocprofiler_external_correlation_id_request_kind_t,
                     rocprofiler_tracing_operation_t, uint64_t,
                     rocprofiler_user_data_t* external, void*) {
  const ThreadState& state = tls_state;
  external->value = state.stack[state.depth & 15];
  return 0;
}

void buffer_callback(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t**,
                     size_t num_headers, void*, uint64_t) {
  g_records.fetch_add(num_headers, std::memory_order_relaxed);
}

int tool_init(rocprofiler_client_finalize_t, void*) {
  rocprofiler_create_context(&g_context);
  rocprofiler_create_buffer(g_context, 100 * 4096, 40 * 4096, ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                            buffer_callback, nullptr, &g_buffer);
  for (auto kind :
       {ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
        ROCPROFILER_BUFFER_TRACING_MEMORY_COPY}) {
    rocprofiler_configure_buffer_tracing_service(g_context, kind, nullptr, 0, g_buffer);
  }
  rocprofiler_configure_callback_tracing_service(
      g_context, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, nullptr, 0, hip_api_callback,
      nullptr);
  rocprofiler_external_correlation_id_request_kind_t kinds[] = {
      ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
      ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY};
  rocprofiler_configure_external_correlation_id_request_service(g_context, kinds, 2,
                                                                request_callback, nullptr);
  rocprofiler_create_context(&g_stream_context);
  rocprofiler_configure_callback_tracing_service(g_stream_context,
                                                 ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                                                 nullptr, 0, hip_stream_callback, nullptr);
  rocprofiler_start_context(g_stream_context);
  return 0;
}

void tool_fini(void*) {}

}  // namespace

extern "C" rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* client_id) {
  static bool configured = false;
  if (configured) return nullptr;
  configured = true;
  if (client_id != nullptr) client_id->name = "hot-path-floor";
  static rocprofiler_tool_configure_result_t result = {sizeof(rocprofiler_tool_configure_result_t),
                                                       tool_init, tool_fini, nullptr};
  return &result;
}

static const bool kForceConfigured = [] {
  rocprofiler_force_configure(&rocprofiler_configure);
  return true;
}();

extern "C" int floor_enable() {
  return rocprofiler_start_context(g_context) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

extern "C" int floor_disable() {
  rocprofiler_stop_context(g_context);
  rocprofiler_flush_buffer(g_buffer);
  return 0;
}

// The floor stores nothing, so it has nothing to export.
extern "C" int floor_write_xspace(const char*) { return 8; }

extern "C" void floor_push_annotation(const char* name) { tls_state.annotation = name; }

extern "C" void floor_pop_annotation() { tls_state.annotation = nullptr; }
