// XLA's RocmTracerEvent <-> the bridge's FlatEvent (src/ffi/bridge.rs), for the C++
// collectors the Rust tracer delivers to and for events C++ code adds to a Rust-backed
// collector. The flat form's rules (enum ranges, which union member a detail kind means) are
// the Rust core's (src/ffi/flat_event.rs); this file only copies fields.
// Header-only, so the build files of the shims need no new source.
#ifndef XLA_ROCM_TRACER_CPP_EVENT_BRIDGE_H_
#define XLA_ROCM_TRACER_CPP_EVENT_BRIDGE_H_

#include <array>
#include <cstdint>
#include <string>

#include "xla-rocm-tracer/src/ffi/bridge.rs.h"
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"

namespace xla {
namespace profiler {

// KernelDetails as the flat form's array (KernelDetails::to_array in src/event.rs orders it).
// An event that only has #47917's `registers_per_work_item` gives it as the arch VGPRs.
inline std::array<uint32_t, 12> KernelArray(const KernelDetails& k) {
  const bool split = k.arch_vgpr_count != 0 || k.accum_vgpr_count != 0;
  return {k.private_segment_size,
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
}

// #47917's `registers_per_work_item` is the sum of the two register files.
inline KernelDetails KernelOfArray(const std::array<uint32_t, 12>& a) {
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

inline rust_bridge::FlatEvent ToFlatEvent(const RocmTracerEvent& event) {
  rust_bridge::FlatEvent out{};  // no details unless the type has some
  out.event_type = static_cast<uint32_t>(event.type);
  out.source = static_cast<uint32_t>(event.source);
  out.domain = static_cast<uint32_t>(event.domain);
  out.name = rust::String::lossy(event.name);
  out.annotation = rust::String::lossy(event.annotation.data(), event.annotation.size());
  out.roctx_range = rust::String::lossy(event.roctx_range.data(), event.roctx_range.size());
  out.start_time_ns = event.start_time_ns;
  out.end_time_ns = event.end_time_ns;
  out.device_id = event.device_id;
  out.correlation_id = event.correlation_id;
  out.thread_id = event.thread_id;
  out.stream_id = event.stream_id;
  out.queue_id = event.queue_id;
  out.scope_range_id = event.scope_range_id;
  // The union member XLA's export reads for each type.
  switch (event.type) {
    case RocmTracerEventType::Kernel:
      out.detail_kind = rust_bridge::DetailKind::Kernel;
      out.kernel = KernelArray(event.kernel_info);
      break;
    case RocmTracerEventType::MemcpyH2D:
    case RocmTracerEventType::MemcpyD2H:
    case RocmTracerEventType::MemcpyD2D:
    case RocmTracerEventType::MemcpyP2P:
    case RocmTracerEventType::MemcpyOther:
      out.detail_kind = rust_bridge::DetailKind::Memcpy;
      out.num_bytes = event.memcpy_info.num_bytes;
      out.destination = event.memcpy_info.destination;
      out.is_async = event.memcpy_info.async;
      break;
    case RocmTracerEventType::Memset:
      out.detail_kind = rust_bridge::DetailKind::Memset;
      out.num_bytes = event.memset_info.num_bytes;
      out.is_async = event.memset_info.async;
      break;
    case RocmTracerEventType::MemoryAlloc:
    case RocmTracerEventType::MemoryFree:
      out.detail_kind = rust_bridge::DetailKind::MemAlloc;
      out.num_bytes = event.memalloc_info.num_bytes;
      break;
    default:
      break;
  }
  return out;
}

// The Rust tracer's event as XLA's, for a C++ collector. The annotation must outlive the
// collector's export, so it is interned in `annotations` (the tracer's map, cleared only at the
// next Enable); an event without one takes what the HIP API ENTER callback recorded there.
// The Rust core only produces enum values in XLA's ranges.
inline RocmTracerEvent FromFlatEvent(const rust_bridge::FlatEvent& from,
                                       AnnotationMap& annotations) {
  RocmTracerEvent event;
  event.type = static_cast<RocmTracerEventType>(from.event_type);
  event.source = static_cast<RocmTracerEventSource>(from.source);
  event.domain = static_cast<RocmTracerEventDomain>(from.domain);
  event.name = std::string(from.name);
  if (!from.annotation.empty() || !from.roctx_range.empty()) {
    annotations.Add(from.correlation_id, std::string(from.annotation),
                    absl::string_view(from.roctx_range.data(), from.roctx_range.size()));
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
  // The largest union member first, so every byte of the union is initialized.
  event.kernel_info = KernelDetails{};
  switch (from.detail_kind) {
    case rust_bridge::DetailKind::Kernel:
      event.kernel_info = KernelOfArray(from.kernel);
      break;
    case rust_bridge::DetailKind::Memcpy:
      event.memcpy_info = MemcpyDetails{from.num_bytes, from.destination, from.is_async};
      break;
    case rust_bridge::DetailKind::Memset:
      event.memset_info = MemsetDetails{from.num_bytes, from.is_async};
      break;
    case rust_bridge::DetailKind::MemAlloc:
      event.memalloc_info = MemAllocDetails{from.num_bytes};
      break;
    default:
      break;
  }
  return event;
}

}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_EVENT_BRIDGE_H_
