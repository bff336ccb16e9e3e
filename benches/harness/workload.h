// Synthetic buffer records, as the SDK hands them to a buffer callback: per HIP launch one
// HIP_RUNTIME_API record (hipLaunchKernel) and one KERNEL_DISPATCH record sharing its
// correlation id, on four streams, split into callbacks of `kRecordsPerCallback` headers.
#ifndef XLA_ROCM_TRACER_BENCH_HARNESS_WORKLOAD_H_
#define XLA_ROCM_TRACER_BENCH_HARNESS_WORKLOAD_H_

#include <cstdint>
#include <vector>

#include "rocprofiler-sdk/rocprofiler.h"

// About what XLA's 400 KiB buffer with its 160 KiB watermark holds per callback.
constexpr size_t kRecordsPerCallback = 512;

struct Workload {
  std::vector<rocprofiler_buffer_tracing_hip_api_record_t> api;
  std::vector<rocprofiler_buffer_tracing_kernel_dispatch_record_t> kernels;
  std::vector<rocprofiler_record_header_t> headers;
  std::vector<rocprofiler_record_header_t*> header_ptrs;
  size_t num_callbacks() const {
    return (header_ptrs.size() + kRecordsPerCallback - 1) / kRecordsPerCallback;
  }
};

// `events` records (rounded down to even) starting at `start_ns`, one ns apart, on GPU agent
// `gpu_agent` running kernel `kernel_id`; `thread_id` is the launching thread.
Workload make_workload(size_t events, uint64_t start_ns, uint64_t gpu_agent,
                       uint64_t kernel_id, uint64_t thread_id);

#endif  // XLA_ROCM_TRACER_BENCH_HARNESS_WORKLOAD_H_
