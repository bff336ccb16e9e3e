// XLA's RocmTracerEvent <-> the flat event XrtEvent (include/xla_rocm_tracer.h, declared once
// in src/ffi/event.rs), for the C++ collectors the Rust tracer delivers to and for events C++
// code adds to a Rust-backed collector. The flat form's rules (enum ranges, which union member
// a detail kind means) are the Rust core's (src/ffi/event.rs); this file only copies fields.
// Header-only, so the build files of the shims need no new source.
#ifndef XLA_ROCM_TRACER_CPP_EVENT_BRIDGE_H_
#define XLA_ROCM_TRACER_CPP_EVENT_BRIDGE_H_

#include <cstdint>
#include <string>

#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"
#include "event_details.h"
#include "xla_rocm_tracer.h"

namespace xla {
namespace profiler {

// KernelDetails as the flat form's words (KernelDetails::to_array in src/event.rs orders them).
// An event that only has #47917's `registers_per_work_item` gives it as the arch VGPRs.
inline void KernelArray(const KernelDetails& k, uint32_t (&out)[XRT_KERNEL_WORDS]) {
  const bool split = k.arch_vgpr_count != 0 || k.accum_vgpr_count != 0;
  const uint32_t words[] = {k.private_segment_size,
                            k.group_segment_size,
                            k.workgroup_x,
                            k.workgroup_y,
                            k.workgroup_z,
                            k.grid_x,
                            k.grid_y,
                            k.grid_z,
                            split ? k.arch_vgpr_count : k.registers_per_work_item,
                            k.accum_vgpr_count,
                            k.sgpr_count,
                            k.static_group_segment_size};
  static_assert(sizeof(words) == sizeof(out), "one word per field of KernelDetails::to_array");
  for (size_t i = 0; i < XRT_KERNEL_WORDS; ++i) out[i] = words[i];
}

// #47917's `registers_per_work_item` is the sum of the two register files.
inline KernelDetails KernelOfArray(const uint32_t (&a)[XRT_KERNEL_WORDS]) {
  KernelDetails k{};
  k.private_segment_size = a[0];
  k.group_segment_size = a[1];
  k.workgroup_x = a[2];
  k.workgroup_y = a[3];
  k.workgroup_z = a[4];
  k.grid_x = a[5];
  k.grid_y = a[6];
  k.grid_z = a[7];
  k.arch_vgpr_count = a[8];
  k.accum_vgpr_count = a[9];
  k.sgpr_count = a[10];
  k.static_group_segment_size = a[11];
  k.registers_per_work_item = a[8] + a[9];
  k.func_ptr = nullptr;
  return k;
}

// `event` as the flat event, with the NUL-terminated strings it points to: valid while this
// object lives (pass `XrtEventOf(event).get()` to a call).
class XrtEventOf {
 public:
  explicit XrtEventOf(const RocmTracerEvent& event)
      : annotation_(event.annotation.data(), event.annotation.size()),
        roctx_range_(event.roctx_range.data(), event.roctx_range.size()) {
    flat_.event_type = static_cast<uint32_t>(event.type);
    flat_.source = static_cast<uint32_t>(event.source);
    flat_.domain = static_cast<uint32_t>(event.domain);
    flat_.name = event.name.c_str();
    flat_.annotation = annotation_.c_str();
    flat_.roctx_range = roctx_range_.c_str();
    flat_.start_time_ns = event.start_time_ns;
    flat_.end_time_ns = event.end_time_ns;
    flat_.device_id = event.device_id;
    flat_.correlation_id = event.correlation_id;
    flat_.thread_id = event.thread_id;
    flat_.stream_id = event.stream_id;
    flat_.queue_id = event.queue_id;
    flat_.scope_range_id = event.scope_range_id;
    // The details XLA's export reads for each type; no details otherwise (through
    // event_details.h: the union or the variant shape of XLA's event).
    switch (event.type) {
      case RocmTracerEventType::Kernel:
        if (const KernelDetails* kernel = event_details::GetKernel(event)) {
          flat_.detail_kind = XRT_DETAIL_KIND_KERNEL;
          KernelArray(*kernel, flat_.kernel);
        }
        break;
      case RocmTracerEventType::MemcpyH2D:
      case RocmTracerEventType::MemcpyD2H:
      case RocmTracerEventType::MemcpyD2D:
      case RocmTracerEventType::MemcpyP2P:
      case RocmTracerEventType::MemcpyOther:
        if (const MemcpyDetails* copy = event_details::GetMemcpy(event)) {
          flat_.detail_kind = XRT_DETAIL_KIND_MEMCPY;
          flat_.num_bytes = copy->num_bytes;
          flat_.destination = copy->destination;
          flat_.is_async = copy->async;
        }
        break;
      case RocmTracerEventType::Memset:
        if (const MemsetDetails* memset = event_details::GetMemset(event)) {
          flat_.detail_kind = XRT_DETAIL_KIND_MEMSET;
          flat_.num_bytes = memset->num_bytes;
          flat_.is_async = memset->async;
        }
        break;
      case RocmTracerEventType::MemoryAlloc:
      case RocmTracerEventType::MemoryFree:
        if (const MemAllocDetails* alloc = event_details::GetMemAlloc(event)) {
          flat_.detail_kind = XRT_DETAIL_KIND_MEM_ALLOC;
          flat_.num_bytes = alloc->num_bytes;
        }
        break;
      default:
        break;
    }
  }
  XrtEventOf(const XrtEventOf&) = delete;
  XrtEventOf& operator=(const XrtEventOf&) = delete;

  const XrtEvent& get() const { return flat_; }

 private:
  std::string annotation_;
  std::string roctx_range_;
  XrtEvent flat_{};
};

inline absl::string_view StringOf(const char* text) {
  return text == nullptr ? absl::string_view() : absl::string_view(text);
}

// The Rust tracer's event as XLA's, for a C++ collector. The annotation must outlive the
// collector's export, so it is interned in `annotations` (the tracer's map, cleared only at the
// next Enable); an event without one takes what the HIP API ENTER callback recorded there.
// The Rust core only produces enum values in XLA's ranges.
inline RocmTracerEvent FromXrtEvent(const XrtEvent& from, AnnotationMap& annotations) {
  RocmTracerEvent event;
  event.type = static_cast<RocmTracerEventType>(from.event_type);
  event.source = static_cast<RocmTracerEventSource>(from.source);
  event.domain = static_cast<RocmTracerEventDomain>(from.domain);
  event.name = std::string(StringOf(from.name));
  const absl::string_view annotation = StringOf(from.annotation);
  const absl::string_view roctx_range = StringOf(from.roctx_range);
  if (!annotation.empty() || !roctx_range.empty()) {
    annotations.Add(from.correlation_id, std::string(annotation), roctx_range);
  }
  event.annotation = annotations.LookUp(from.correlation_id);
  event.roctx_range = annotations.LookUpRoctxRange(from.correlation_id);
  event.scope_range_id = from.scope_range_id != 0
                             ? from.scope_range_id
                             : annotations.LookUpScopeRangeId(from.correlation_id);
  event.start_time_ns = from.start_time_ns;
  event.end_time_ns = from.end_time_ns;
  event.device_id = from.device_id;
  event.correlation_id = from.correlation_id;
  event.thread_id = from.thread_id;
  event.stream_id = from.stream_id;
  event.queue_id = from.queue_id;
  // The largest union member first, so every byte of the union is initialized (the variant
  // shape holds the kernel's alternative until another is set).
  event_details::SetKernel(event, KernelDetails{});
  switch (from.detail_kind) {
    case XRT_DETAIL_KIND_KERNEL:
      event_details::SetKernel(event, KernelOfArray(from.kernel));
      break;
    case XRT_DETAIL_KIND_MEMCPY:
      event_details::SetMemcpy(event,
                               MemcpyDetails{from.num_bytes, from.destination, from.is_async});
      break;
    case XRT_DETAIL_KIND_MEMSET:
      event_details::SetMemset(event, MemsetDetails{from.num_bytes, from.is_async});
      break;
    case XRT_DETAIL_KIND_MEM_ALLOC:
      event_details::SetMemAlloc(event, MemAllocDetails{from.num_bytes});
      break;
    default:
      break;
  }
  return event;
}

}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_EVENT_BRIDGE_H_
