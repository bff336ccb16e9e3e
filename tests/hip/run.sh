#!/usr/bin/env bash
# Builds the simulated libamdhip64.so, the simulated librocprofiler-sdk.so and the tracer's
# staticlib, compiles the HIP host programs in this folder with g++ against the stand-in HIP
# headers (tests/hip-include), runs them, and checks the trace the program captured.
#   tests/hip/run.sh            # debug build
#   PROFILE=release tests/hip/run.sh
# Uses $CARGO_TARGET_DIR if set (else <repo>/target); writes into $BUILD_DIR (default
# <target>/hip-tests).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
profile="${PROFILE:-debug}"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
build_dir="${BUILD_DIR:-$target_dir/hip-tests}"
cargo_profile_flag=()
[[ "$profile" == release ]] && cargo_profile_flag=(--release)
CXX="${CXX:-g++}"

echo "== building libamdhip64 (sim), librocprofiler-sdk (sim), the tracer staticlib, the checker"
(cd "$repo" && cargo build "${cargo_profile_flag[@]}" -p hip-runtime-sim -p rocprofiler-sdk-sim \
  -p xla-rocm-tracer --lib)
(cd "$repo" && cargo build "${cargo_profile_flag[@]}" -p hip-runtime-sim --example check_hip_trace)
out="$target_dir/$profile"

lib="$build_dir/lib"
mkdir -p "$lib"
# The names a program links against, and the SONAMEs it records (as with ROCm's libraries).
cp -f "$out/libamdhip64.so" "$lib/libamdhip64.so.7"
ln -sf libamdhip64.so.7 "$lib/libamdhip64.so"
cp -f "$out/librocprofiler_sdk_sim.so" "$lib/librocprofiler-sdk.so.1"
ln -sf librocprofiler-sdk.so.1 "$lib/librocprofiler-sdk.so"

echo "== exports and SONAME of the simulated libamdhip64.so"
readelf -d "$lib/libamdhip64.so.7" | grep -q 'SONAME.*\[libamdhip64.so.7\]'
exports="$(nm -D --defined-only "$lib/libamdhip64.so.7" | awk '{print $3}')"
for fn in hipInit hipGetDeviceCount hipGetDevice hipSetDevice hipGetDevicePropertiesR0600 \
  hipMalloc hipFree hipHostMalloc hipHostFree hipMemcpy hipMemcpyAsync hipMemset hipMemsetAsync \
  hipStreamCreate hipStreamCreateWithFlags hipStreamDestroy hipStreamSynchronize \
  hipDeviceSynchronize hipLaunchKernel hipModuleLaunchKernel hipGraphLaunch hipEventCreate \
  hipEventRecord hipEventSynchronize hipEventDestroy hipOccupancyMaxActiveBlocksPerMultiprocessor \
  hipOccupancyMaxPotentialBlockSize hipGetLastError hipGetErrorString __hipRegisterFatBinary \
  __hipRegisterFunction __hipUnregisterFatBinary; do
  grep -qx "$fn" <<<"$exports" || { echo "libamdhip64.so does not export $fn" >&2; exit 1; }
done

cxxflags=(-std=c++17 -O1 -g -Wall -Wextra -Werror -Wno-deprecated-declarations
  -I "$repo/tests/hip-include")

echo "== hipDeviceProp_tR0600 layout (stand-in header vs ROCm's numbers)"
"$CXX" "${cxxflags[@]}" "$repo/tests/hip/device_prop_layout.cc" -o "$build_dir/device_prop_layout"
"$build_dir/device_prop_layout"

echo "== HIP host program"
"$CXX" "${cxxflags[@]}" "$repo/tests/hip/hip_host_program.cc" -o "$build_dir/hip_host_program" \
  -L "$lib" -Wl,-rpath,"$lib" -lamdhip64 \
  -Wl,--whole-archive "$out/libxla_rocm_tracer.a" -Wl,--no-whole-archive \
  -lrocprofiler-sdk -lpthread -ldl -lm
# The program records the SONAMEs, like a program built against ROCm.
readelf -d "$build_dir/hip_host_program" | grep -q 'NEEDED.*libamdhip64.so.7'
readelf -d "$build_dir/hip_host_program" | grep -q 'NEEDED.*librocprofiler-sdk.so.1'

trace="$build_dir/hip_host_program.xplane.pb"
rm -f "$trace"
"$build_dir/hip_host_program" "$trace"

echo "== checking the trace"
"$out/examples/check_hip_trace" "$trace"
echo "tests/hip/run.sh: all passed"
