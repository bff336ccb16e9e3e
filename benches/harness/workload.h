// Synthetic buffer records, as the SDK hands them to a buffer callback: per HIP call one
// HIP_RUNTIME_API record and one activity record sharing its correlation id. Three calls in
// four are hipLaunchKernel with a KERNEL_DISPATCH record, one in four is hipMemcpyAsync with a
// MEMORY_COPY record (host to device and back, alternating); the calls go to every GPU in
// turn, four streams per GPU. Split into callbacks of `kRecordsPerCallback` headers.
#ifndef XLA_ROCM_TRACER_BENCH_HARNESS_WORKLOAD_H_
#define XLA_ROCM_TRACER_BENCH_HARNESS_WORKLOAD_H_

#include <cstdint>
#include <vector>

#include "rocprofiler-sdk/rocprofiler.h"

// About what XLA's 400 KiB buffer with its 160 KiB watermark holds per callback.
constexpr size_t kRecordsPerCallback = 512;

// rocprofiler_hip_runtime_api_id_t of ROCm 7.1.
constexpr int32_t kHipLaunchKernel = 214;
constexpr int32_t kHipMemcpyAsync = 268;

struct Workload {
  std::vector<rocprofiler_buffer_tracing_hip_api_record_t> api;
  std::vector<rocprofiler_buffer_tracing_kernel_dispatch_record_t> kernels;
  std::vector<rocprofiler_buffer_tracing_memory_copy_record_t> copies;
  std::vector<rocprofiler_record_header_t> headers;
  std::vector<rocprofiler_record_header_t*> header_ptrs;
  size_t num_callbacks() const {
    return (header_ptrs.size() + kRecordsPerCallback - 1) / kRecordsPerCallback;
  }
};

struct WorkloadAgents {
  uint64_t cpu = 0;
  std::vector<uint64_t> gpus;     // agent handles
  std::vector<uint64_t> kernels;  // a kernel id loaded on each GPU
};

// `events` records (rounded down to even) starting at `start_ns`; `thread_id` is the
// launching thread.
Workload make_workload(size_t events, uint64_t start_ns, const WorkloadAgents& agents,
                       uint64_t thread_id);

#endif  // XLA_ROCM_TRACER_BENCH_HARNESS_WORKLOAD_H_
