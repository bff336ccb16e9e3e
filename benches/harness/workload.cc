#include "workload.h"

Workload make_workload(size_t events, uint64_t start_ns, const WorkloadAgents& agents,
                       uint64_t thread_id) {
  const size_t calls = events / 2;
  const size_t num_gpus = agents.gpus.size();
  Workload w;
  w.api.resize(calls);
  w.kernels.reserve(calls);
  w.copies.reserve(calls / 4 + 1);
  w.headers.reserve(calls * 2);
  for (size_t i = 0; i < calls; ++i) {
    const uint64_t correlation_id = i + 1;
    const uint64_t t = start_ns + 4 * i;
    const size_t gpu = (i / 4) % num_gpus;
    // The SDK's stream ids: 1.. in creation order, four per GPU.
    const uint64_t stream = 1 + 4 * gpu + i % 4;
    const bool copy = i % 4 == 3;
    auto& api = w.api[i];
    api = {};
    api.size = sizeof(api);
    api.kind = ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
    api.operation = copy ? kHipMemcpyAsync : kHipLaunchKernel;
    api.correlation_id.internal = correlation_id;
    api.start_timestamp = t;
    api.end_timestamp = t + 1;
    api.thread_id = thread_id;
    rocprofiler_record_header_t api_header{};
    api_header.category = ROCPROFILER_BUFFER_CATEGORY_TRACING;
    api_header.kind = ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
    api_header.payload = &api;
    // The SDK delivers API records when calls return and activity records when they
    // complete; interleaving them keeps the join's working set as it is in a real trace.
    w.headers.push_back(api_header);
    rocprofiler_record_header_t activity_header{};
    activity_header.category = ROCPROFILER_BUFFER_CATEGORY_TRACING;
    if (copy) {
      w.copies.emplace_back();
      auto& c = w.copies.back();
      c = {};
      c.size = sizeof(c);
      c.kind = ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
      const bool to_device = (i / 4) % 2 == 0;
      c.operation = to_device ? ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE
                              : ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST;
      c.correlation_id.internal = correlation_id;
      c.correlation_id.external.value = stream;
      c.thread_id = thread_id;
      c.start_timestamp = t + 2;
      c.end_timestamp = t + 3;
      c.dst_agent_id.handle = to_device ? agents.gpus[gpu] : agents.cpu;
      c.src_agent_id.handle = to_device ? agents.cpu : agents.gpus[gpu];
      c.bytes = 1 << 20;
      activity_header.kind = ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
      activity_header.payload = &c;
    } else {
      w.kernels.emplace_back();
      auto& k = w.kernels.back();
      k = {};
      k.size = sizeof(k);
      k.kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
      k.operation = ROCPROFILER_KERNEL_DISPATCH_COMPLETE;
      k.correlation_id.internal = correlation_id;
      k.correlation_id.external.value = stream;  // the stream id the request stamped
      k.thread_id = thread_id;
      k.start_timestamp = t + 2;
      k.end_timestamp = t + 3;
      k.dispatch_info.size = sizeof(k.dispatch_info);
      k.dispatch_info.agent_id.handle = agents.gpus[gpu];
      k.dispatch_info.queue_id.handle = 0x1000 + stream;
      k.dispatch_info.kernel_id = agents.kernels[gpu];
      k.dispatch_info.dispatch_id = correlation_id;
      k.dispatch_info.workgroup_size = {256, 1, 1};
      k.dispatch_info.grid_size = {65536, 1, 1};
      activity_header.kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
      activity_header.payload = &k;
    }
    w.headers.push_back(activity_header);
  }
  for (auto& header : w.headers) w.header_ptrs.push_back(&header);
  return w;
}
