/* Stand-in for XLA's xla/tsl/profiler/backends/cpu/annotation_stack.h: the calling thread's
   stack of annotations ("outer::inner", as tsl joins them) with one scope range id per level,
   plus the process-wide Enable switch. Only what the drop-in and its tests use. */
#ifndef XLA_TSL_PROFILER_BACKENDS_CPU_ANNOTATION_STACK_H_
#define XLA_TSL_PROFILER_BACKENDS_CPU_ANNOTATION_STACK_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tsl {
namespace profiler {

class AnnotationStack {
 public:
  static void PushAnnotation(absl::string_view name) {
    ThreadStack& stack = Local();
    stack.lengths.push_back(stack.joined.size());
    if (!stack.joined.empty()) stack.joined.append("::");
    stack.joined.append(name.data(), name.size());
    stack.scope_range_ids.push_back(NextScopeRangeId().fetch_add(1) + 1);
  }

  static void PopAnnotation() {
    ThreadStack& stack = Local();
    if (stack.lengths.empty()) return;
    stack.joined.resize(stack.lengths.back());
    stack.lengths.pop_back();
    stack.scope_range_ids.pop_back();
  }

  static const std::string& Get() { return Local().joined; }

  // Outermost first, as tsl returns them.
  static absl::Span<const int64_t> GetScopeRangeIds() { return Local().scope_range_ids; }

  static void Enable(bool enable) { Enabled().store(enable, std::memory_order_release); }
  static bool IsEnabled() { return Enabled().load(std::memory_order_acquire); }

 private:
  struct ThreadStack {
    std::string joined;
    std::vector<size_t> lengths;
    std::vector<int64_t> scope_range_ids;
  };
  static ThreadStack& Local() {
    thread_local ThreadStack stack;
    return stack;
  }
  static std::atomic<int64_t>& NextScopeRangeId() {
    static std::atomic<int64_t> next{0};
    return next;
  }
  static std::atomic<bool>& Enabled() {
    static std::atomic<bool> enabled{false};
    return enabled;
  }
};

}  // namespace profiler
}  // namespace tsl

#endif  // XLA_TSL_PROFILER_BACKENDS_CPU_ANNOTATION_STACK_H_
