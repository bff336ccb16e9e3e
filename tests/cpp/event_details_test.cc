// cpp/event_details.h: the shims read and write an event's details the same way whether XLA's
// RocmTracerEvent keeps them in the anonymous union (include/'s header) or in the newer
// std::variant with checked accessors (ROCm/xla cj/kernel-details-jaxlib0.10.2,
// docs/xla-interface-next.md#detail-variant).
#include "xla-rocm-tracer/cpp/event_details.h"

#include <optional>
#include <variant>

#include <gtest/gtest.h>

#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"

namespace xla {
namespace profiler {
namespace {

// An event of the variant shape, written from the branch's description: a `details` variant
// and, per alternative, `name()` (nullptr unless active) and `set_name(value)`.
struct VariantShapedEvent {
  RocmTracerEventType type = RocmTracerEventType::Unsupported;
  std::variant<std::monostate, MemcpyDetails, MemsetDetails, MemAllocDetails, KernelDetails>
      details;
  std::optional<CopyApiDetails> blit_copy_info;

  const MemcpyDetails* memcpy_info() const { return std::get_if<MemcpyDetails>(&details); }
  void set_memcpy_info(MemcpyDetails value) { details = value; }
  const MemsetDetails* memset_info() const { return std::get_if<MemsetDetails>(&details); }
  void set_memset_info(MemsetDetails value) { details = value; }
  const MemAllocDetails* memalloc_info() const {
    return std::get_if<MemAllocDetails>(&details);
  }
  void set_memalloc_info(MemAllocDetails value) { details = value; }
  const KernelDetails* kernel_info() const { return std::get_if<KernelDetails>(&details); }
  void set_kernel_info(KernelDetails value) { details = value; }
};

static_assert(event_details::HasDetailsField<VariantShapedEvent>::value);
static_assert(!event_details::HasDetailsField<RocmTracerEvent>::value);

TEST(EventDetailsTest, TheVariantShapeIsReadThroughItsCheckedAccessors) {
  VariantShapedEvent event;
  EXPECT_EQ(event_details::GetMemcpy(event), nullptr);
  event_details::SetMemcpy(event, MemcpyDetails{4096, 1, true});
  const MemcpyDetails* copy = event_details::GetMemcpy(event);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->num_bytes, 4096u);
  EXPECT_EQ(copy->destination, 1u);
  EXPECT_TRUE(copy->async);
  // Another alternative is no copy: no bytes reinterpreted.
  EXPECT_EQ(event_details::GetKernel(event), nullptr);
  event_details::SetMemset(event, MemsetDetails{64, false});
  EXPECT_EQ(event_details::GetMemcpy(event), nullptr);
  EXPECT_EQ(event_details::GetMemset(event)->num_bytes, 64u);
}

TEST(EventDetailsTest, TheUnionShapeIsReadAsItsMembers) {
  RocmTracerEvent event;
  event.type = RocmTracerEventType::MemcpyH2D;
  event_details::SetMemcpy(event, MemcpyDetails{128, 0, false});
  EXPECT_EQ(event.memcpy_info.num_bytes, 128u);
  EXPECT_EQ(event_details::GetMemcpy(event)->num_bytes, 128u);
}

TEST(EventDetailsTest, CopyApiDetailsDefaultsToAnUnknownDirection) {
  const CopyApiDetails call;
  EXPECT_EQ(call.type, RocmTracerEventType::MemcpyOther);
  EXPECT_EQ(call.details.num_bytes, 0u);
}

}  // namespace
}  // namespace profiler
}  // namespace xla
