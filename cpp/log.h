/* The one logging header of the C++ shims. Inside XLA (Abseil with absl/log) the shims log
   through absl LOG/VLOG; with an Abseil older than absl/log (Debian's 20220623) the same
   macros write to stderr. */
#ifndef XLA_ROCM_TRACER_CPP_LOG_H_
#define XLA_ROCM_TRACER_CPP_LOG_H_

#if __has_include("absl/log/log.h")
#include "absl/log/log.h"

#define ROCM_SHIM_LOG(severity) LOG(severity)
#define ROCM_SHIM_VLOG(level) VLOG(level)

#else
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace xla {
namespace profiler {
namespace shim_log {

// Collects one message and writes it, prefixed, when the statement ends.
class Line {
 public:
  Line(const char* severity, const char* file, int line) {
    stream_ << severity << " " << file << ":" << line << "] ";
  }
  ~Line() {
    stream_ << "\n";
    std::cerr << stream_.str();
  }
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// VLOG level from the environment, read once: XRT_VLOG=<n> (absl's --v is not available).
inline int VerboseLevel() {
  static const int level = [] {
    const char* value = std::getenv("XRT_VLOG");
    return value == nullptr ? 0 : std::atoi(value);
  }();
  return level;
}

}  // namespace shim_log
}  // namespace profiler
}  // namespace xla

#define ROCM_SHIM_LOG_INFO "I"
#define ROCM_SHIM_LOG_WARNING "W"
#define ROCM_SHIM_LOG_ERROR "E"
#define ROCM_SHIM_LOG(severity) \
  ::xla::profiler::shim_log::Line(ROCM_SHIM_LOG_##severity, __FILE__, __LINE__).stream()
#define ROCM_SHIM_VLOG(level)                                      \
  if ((level) > ::xla::profiler::shim_log::VerboseLevel()) {       \
  } else                                                           \
    ::xla::profiler::shim_log::Line("V", __FILE__, __LINE__).stream()

#endif

#endif  // XLA_ROCM_TRACER_CPP_LOG_H_
