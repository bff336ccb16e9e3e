// Counts the XEvents of a serialized XSpace by walking the protobuf wire format, so the
// harness needs no generated classes (a second copy of xplane.pb.cc in the process, beside the
// baseline's, would register the same proto file twice).
#ifndef XLA_ROCM_TRACER_BENCH_HARNESS_XSPACE_COUNT_H_
#define XLA_ROCM_TRACER_BENCH_HARNESS_XSPACE_COUNT_H_

#include <cstdint>
#include <string>

// Returns -1 if `bytes` is not well-formed protobuf along XSpace.planes.lines.events.
int64_t count_xevents(const std::string& bytes);

#endif  // XLA_ROCM_TRACER_BENCH_HARNESS_XSPACE_COUNT_H_
