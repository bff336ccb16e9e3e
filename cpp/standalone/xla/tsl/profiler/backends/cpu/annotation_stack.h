/* Stand-in for XLA's xla/tsl/profiler/backends/cpu/annotation_stack.h: the calling thread's
   stack of annotations ("outer::inner", as tsl joins them) with one scope range id per level,
   plus the process-wide Enable switch and its generations. Only what the drop-in and its
   tests use. */
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

// tsl's generation rule, which the drop-in's kept-address shortcut (cpp/rocm_tracer.cc) must
// survive: the process-wide generation is odd while enabled; Enable(true) sets the low bit,
// Enable(false) moves on to the next even number, so a disable and enable move it twice. Each
// thread's stack remembers the generation it was built in and is emptied, in place, by the
// thread's next Push, Pop, Get or GetScopeRangeIds after the generation moved.
class AnnotationStack {
 public:
  static void PushAnnotation(absl::string_view name) {
    ThreadStack& stack = Current();
    stack.lengths.push_back(stack.joined.size());
    if (!stack.joined.empty()) stack.joined.append("::");
    stack.joined.append(name.data(), name.size());
    stack.scope_range_ids.push_back(NextScopeRangeId().fetch_add(1) + 1);
  }

  static void PopAnnotation() {
    ThreadStack& stack = Current();
    if (stack.lengths.empty()) return;
    stack.joined.resize(stack.lengths.back());
    stack.lengths.pop_back();
    stack.scope_range_ids.pop_back();
  }

  static const std::string& Get() { return Current().joined; }

  // Outermost first, as tsl returns them.
  static absl::Span<const int64_t> GetScopeRangeIds() { return Current().scope_range_ids; }

  static void Enable(bool enable) {
    int generation = Generation().load(std::memory_order_relaxed);
    int next;
    do {
      next = enable ? (generation | 1) : ((generation + 1) & ~1);
    } while (!Generation().compare_exchange_weak(generation, next, std::memory_order_release));
  }
  static bool IsEnabled() { return (Generation().load(std::memory_order_acquire) & 1) != 0; }

 private:
  struct ThreadStack {
    int generation = 0;
    std::string joined;
    std::vector<size_t> lengths;
    std::vector<int64_t> scope_range_ids;
  };
  // The calling thread's stack, emptied first if the generation moved since it was built.
  static ThreadStack& Current() {
    thread_local ThreadStack stack;
    const int generation = Generation().load(std::memory_order_acquire);
    if (stack.generation != generation) {
      stack.generation = generation;
      stack.joined.clear();
      stack.lengths.clear();
      stack.scope_range_ids.clear();
    }
    return stack;
  }
  static std::atomic<int64_t>& NextScopeRangeId() {
    static std::atomic<int64_t> next{0};
    return next;
  }
  static std::atomic<int>& Generation() {
    static std::atomic<int> generation{0};
    return generation;
  }
};

}  // namespace profiler
}  // namespace tsl

#endif  // XLA_TSL_PROFILER_BACKENDS_CPU_ANNOTATION_STACK_H_
