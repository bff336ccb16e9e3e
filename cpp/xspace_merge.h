// Merging one XSpace into another the way XLA's collectors write into the caller's XSpace.
#ifndef XLA_ROCM_TRACER_CPP_XSPACE_MERGE_H_
#define XLA_ROCM_TRACER_CPP_XSPACE_MERGE_H_

#include "tsl/profiler/protobuf/xplane.pb.h"

namespace xla {
namespace profiler {

// Planes of `from` are matched by name, like tsl's FindOrAddMutablePlaneWithName: a new name
// adds the plane as it is; an existing plane keeps its content and gains the new lines,
// events, plane stats and metadata, with metadata ids remapped (metadata with the same name
// is shared, as XPlaneBuilder's GetOrCreate*Metadata would). Lines with the same id are
// joined. Planes of `into` that `from` does not name are left alone; errors, warnings and
// hostnames are appended.
void MergeXSpace(tensorflow::profiler::XSpace&& from, tensorflow::profiler::XSpace* into);

}  // namespace profiler
}  // namespace xla

#endif  // XLA_ROCM_TRACER_CPP_XSPACE_MERGE_H_
