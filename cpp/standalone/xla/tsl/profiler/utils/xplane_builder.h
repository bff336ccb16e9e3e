/* Stand-in for XLA's xla/tsl/profiler/utils/xplane_builder.h: only the names
   rocm_collector.h mentions. The drop-in's export is done by the Rust core, so the builder
   classes are declared and never defined here. */
#ifndef XLA_TSL_PROFILER_UTILS_XPLANE_BUILDER_H_
#define XLA_TSL_PROFILER_UTILS_XPLANE_BUILDER_H_

#include "tsl/profiler/protobuf/xplane.pb.h"

namespace tsl {
namespace profiler {

using tensorflow::profiler::XEvent;
using tensorflow::profiler::XLine;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;
using tensorflow::profiler::XStat;

class XPlaneBuilder;
class XLineBuilder;

}  // namespace profiler
}  // namespace tsl

#endif  // XLA_TSL_PROFILER_UTILS_XPLANE_BUILDER_H_
