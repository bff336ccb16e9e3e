#include "workload.h"

Workload make_workload(size_t events, uint64_t start_ns, uint64_t gpu_agent,
                       uint64_t kernel_id, uint64_t thread_id) {
  const size_t launches = events / 2;
  Workload w;
  w.api.resize(launches);
  w.kernels.resize(launches);
  w.headers.reserve(launches * 2);
  for (size_t i = 0; i < launches; ++i) {
    const uint64_t correlation_id = i + 1;
    const uint64_t t = start_ns + 4 * i;
    auto& api = w.api[i];
    api = {};
    api.size = sizeof(api);
    api.kind = ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
    api.operation = 214;  // hipLaunchKernel
    api.correlation_id.internal = correlation_id;
    api.start_timestamp = t;
    api.end_timestamp = t + 1;
    api.thread_id = thread_id;
    auto& k = w.kernels[i];
    k = {};
    k.size = sizeof(k);
    k.kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
    k.operation = ROCPROFILER_KERNEL_DISPATCH_COMPLETE;
    k.correlation_id.internal = correlation_id;
    k.correlation_id.external.value = 1 + i % 4;  // the stream id the request stamped
    k.thread_id = thread_id;
    k.start_timestamp = t + 2;
    k.end_timestamp = t + 3;
    k.dispatch_info.size = sizeof(k.dispatch_info);
    k.dispatch_info.agent_id.handle = gpu_agent;
    k.dispatch_info.queue_id.handle = 0x1000 + i % 4;
    k.dispatch_info.kernel_id = kernel_id;
    k.dispatch_info.dispatch_id = correlation_id;
    k.dispatch_info.workgroup_size = {256, 1, 1};
    k.dispatch_info.grid_size = {65536, 1, 1};
  }
  // The SDK delivers API records when calls return and kernel records when they complete;
  // interleaving them keeps the join's working set as it is in a real trace.
  for (size_t i = 0; i < launches; ++i) {
    rocprofiler_record_header_t api_header{};
    api_header.category = ROCPROFILER_BUFFER_CATEGORY_TRACING;
    api_header.kind = ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
    api_header.payload = &w.api[i];
    w.headers.push_back(api_header);
    rocprofiler_record_header_t kernel_header{};
    kernel_header.category = ROCPROFILER_BUFFER_CATEGORY_TRACING;
    kernel_header.kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
    kernel_header.payload = &w.kernels[i];
    w.headers.push_back(kernel_header);
  }
  for (auto& header : w.headers) w.header_ptrs.push_back(&header);
  return w;
}
