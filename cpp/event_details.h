// Reads and writes of an event's details that compile against both shapes of XLA's
// RocmTracerEvent: the anonymous union of the 2026-08-22 interface (members `memcpy_info`,
// `kernel_info`, ...), which include/ declares, and the newer `std::variant` field `details`
// with checked accessors (`memcpy_info()` returns nullptr unless it holds a MemcpyDetails,
// `set_memcpy_info(value)`), of ROCm/xla branch cj/kernel-details-jaxlib0.10.2 (commit
// a2aa2884f6, docs/xla-interface-next.md#detail-variant). The shims in cpp/ touch details only
// through these, so they build against either header.
#ifndef XLA_ROCM_TRACER_CPP_EVENT_DETAILS_H_
#define XLA_ROCM_TRACER_CPP_EVENT_DETAILS_H_

#include <type_traits>
#include <utility>

#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"

namespace xla {
namespace profiler {
namespace event_details {

// Whether `Event` keeps its details in a `details` field (the variant shape).
template <typename Event, typename = void>
struct HasDetailsField : std::false_type {};
template <typename Event>
struct HasDetailsField<Event, std::void_t<decltype(std::declval<Event&>().details)>>
    : std::true_type {};

// For each alternative: `Get<Name>(event)` is a pointer to the details (nullptr when the
// variant holds another alternative; in the union shape, the member XLA reads for the event's
// type) and `Set<Name>(event, value)` stores them.
#define XRT_EVENT_DETAILS_ACCESS(Type, Name, member)                      \
  template <typename Event>                                              \
  const Type* Get##Name(const Event& event) {                            \
    if constexpr (HasDetailsField<Event>::value) {                       \
      return event.member();                                             \
    } else {                                                             \
      return &event.member;                                              \
    }                                                                    \
  }                                                                      \
  template <typename Event>                                              \
  void Set##Name(Event& event, const Type& value) {                      \
    if constexpr (HasDetailsField<Event>::value) {                       \
      event.set_##member(value);                                         \
    } else {                                                             \
      event.member = value;                                              \
    }                                                                    \
  }

XRT_EVENT_DETAILS_ACCESS(MemcpyDetails, Memcpy, memcpy_info)
XRT_EVENT_DETAILS_ACCESS(MemsetDetails, Memset, memset_info)
XRT_EVENT_DETAILS_ACCESS(MemAllocDetails, MemAlloc, memalloc_info)
XRT_EVENT_DETAILS_ACCESS(KernelDetails, Kernel, kernel_info)

#undef XRT_EVENT_DETAILS_ACCESS

}  // namespace event_details
}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_EVENT_DETAILS_H_
