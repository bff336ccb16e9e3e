/* Stand-in for Abseil's absl/log/log.h (LOG, VLOG, VLOG_IS_ON) for Abseils that predate it
   (Debian's 20220623; absl/log arrived in 20230125). With a newer Abseil on the include path
   the real header is used instead, so this file never shadows it. Messages go to stderr;
   VLOG's level is read once from XRT_VLOG=<n> (absl's --v flag does not exist here). */
#if defined(__has_include_next) && __has_include_next("absl/log/log.h")
#include_next "absl/log/log.h"
#else
#ifndef XLA_ROCM_TRACER_STANDALONE_ABSL_LOG_LOG_H_
#define XLA_ROCM_TRACER_STANDALONE_ABSL_LOG_LOG_H_

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace xla_rocm_tracer_log {

// Collects one message and writes it, prefixed, when the statement ends; FATAL aborts.
class Line {
 public:
  Line(char severity, const char* file, int line) : fatal_(severity == 'F') {
    stream_ << severity << " " << file << ":" << line << "] ";
  }
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;
  ~Line() {
    stream_ << "\n";
    std::cerr << stream_.str() << std::flush;
    if (fatal_) std::abort();
  }
  std::ostream& stream() { return stream_; }

 private:
  bool fatal_;
  std::ostringstream stream_;
};

inline int VerboseLevel() {
  static const int level = [] {
    const char* value = std::getenv("XRT_VLOG");
    return value == nullptr ? 0 : std::atoi(value);
  }();
  return level;
}

}  // namespace xla_rocm_tracer_log

#define XRT_LOG_SEVERITY_INFO 'I'
#define XRT_LOG_SEVERITY_WARNING 'W'
#define XRT_LOG_SEVERITY_ERROR 'E'
#define XRT_LOG_SEVERITY_FATAL 'F'
#define LOG(severity) \
  ::xla_rocm_tracer_log::Line(XRT_LOG_SEVERITY_##severity, __FILE__, __LINE__).stream()
#define VLOG_IS_ON(level) ((level) <= ::xla_rocm_tracer_log::VerboseLevel())
// The dangling-else form makes `VLOG(n) << x;` one statement that evaluates x only when on.
#define VLOG(level)         \
  if (!VLOG_IS_ON(level)) { \
  } else                    \
    ::xla_rocm_tracer_log::Line('V', __FILE__, __LINE__).stream()

#endif  // XLA_ROCM_TRACER_STANDALONE_ABSL_LOG_LOG_H_
#endif
