// Helpers shared by the C++ drop-in's tests: building XLA events and reading XSpaces.
#ifndef XLA_ROCM_TRACER_TESTS_CPP_TEST_UTIL_H_
#define XLA_ROCM_TRACER_TESTS_CPP_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tsl/profiler/protobuf/xplane.pb.h"
#include "xla/backends/profiler/gpu/rocm_tracer_utils.h"

namespace xla {
namespace profiler {
namespace test {

using tensorflow::profiler::XEvent;
using tensorflow::profiler::XLine;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;

RocmTraceCollectorOptions Options(uint32_t num_gpus, uint64_t cap = 100);

// A HIP API callback event of `type` on thread `thread_id`.
RocmTracerEvent ApiEvent(RocmTracerEventType type, const std::string& name,
                         uint64_t correlation_id, uint64_t thread_id);
// A GPU kernel dispatch.
RocmTracerEvent KernelActivity(const std::string& name, uint64_t correlation_id,
                               uint64_t start_ns, uint64_t end_ns, uint32_t device_id,
                               uint64_t stream_id);
// A copy on `stream_id`.
RocmTracerEvent MemcpyActivity(RocmTracerEventType type, uint64_t correlation_id,
                               uint64_t start_ns, uint64_t end_ns, uint32_t device_id,
                               uint64_t stream_id, size_t bytes);

const XPlane* FindPlane(const XSpace& space, const std::string& name);
const XLine* FindLine(const XPlane& plane, const std::string& name);
std::string EventName(const XPlane& plane, const XEvent& event);
// Stat name -> value as text (ref values resolved to their metadata name).
std::map<std::string, std::string> EventStats(const XPlane& plane, const XEvent& event);
std::map<std::string, std::string> PlaneStats(const XPlane& plane);
std::vector<std::string> LineNames(const XPlane& plane);
size_t EventCount(const XPlane& plane);

}  // namespace test
}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_TESTS_CPP_TEST_UTIL_H_
