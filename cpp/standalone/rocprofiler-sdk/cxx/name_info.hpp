/* Stand-in for rocprofiler-sdk/cxx/name_info.hpp: only the type rocm_tracer.h names for its
   `name_info_` member. The drop-in never fills it (the Rust core keeps the HIP API names). */
#ifndef ROCPROFILER_SDK_STAND_IN_CXX_NAME_INFO_HPP_
#define ROCPROFILER_SDK_STAND_IN_CXX_NAME_INFO_HPP_

#include <string_view>
#include <vector>

#include "rocprofiler-sdk/rocprofiler.h"

namespace rocprofiler {
namespace sdk {

// Per tracing kind: its name and the names of its operations, indexed by value.
struct callback_name_info {
  struct kind_names {
    std::string_view name;
    std::vector<std::string_view> operations;
    std::string_view operator[](size_t operation) const {
      return operation < operations.size() ? operations[operation] : std::string_view{};
    }
  };
  std::vector<kind_names> kinds;
  const kind_names* at(size_t kind) const { return kind < kinds.size() ? &kinds[kind] : nullptr; }
};

}  // namespace sdk
}  // namespace rocprofiler

#endif  // ROCPROFILER_SDK_STAND_IN_CXX_NAME_INFO_HPP_
