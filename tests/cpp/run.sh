#!/usr/bin/env bash
# Builds and runs the C++ drop-in's tests: the Rust staticlib, the simulated
# librocprofiler-sdk.so, the shims in cpp/ and the GoogleTest programs in tests/cpp/.
#   tests/cpp/run.sh              plain build
#   tests/cpp/run.sh --sanitize   AddressSanitizer + UndefinedBehaviorSanitizer
# Uses $CARGO_TARGET_DIR (default: target/) and builds under <target>/cpp-tests[-sanitize].
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"

sanitize=OFF
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=ON ;;
    *) echo "usage: $0 [--sanitize]" >&2; exit 2 ;;
  esac
done

target="${CARGO_TARGET_DIR:-$repo/target}"
build="$target/cpp-tests$([ "$sanitize" = ON ] && echo -sanitize || true)"

echo "== cargo build (staticlib, simulated SDK, simulated HIP runtime)"
cargo build --locked -p xla-rocm-tracer -p rocprofiler-sdk-sim -p hip-runtime-sim
python3 cpp/standalone/rocprofiler-sdk/generate_enums.py --check

# The simulated SDK under the real library's names (its SONAME is librocprofiler-sdk.so.1).
mkdir -p "$build/lib"
cp -f "$target/debug/librocprofiler_sdk_sim.so" "$build/lib/librocprofiler-sdk.so"
ln -sf librocprofiler-sdk.so "$build/lib/librocprofiler-sdk.so.1"
cp -f "$target/debug/libamdhip64.so" "$build/lib/libamdhip64.so"
ln -sf libamdhip64.so "$build/lib/libamdhip64.so.7"

echo "== cmake ($build, sanitize=$sanitize)"
cmake -S tests/cpp -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DXRT_REPO="$repo" \
  -DXRT_STATICLIB="$target/debug/libxla_rocm_tracer.a" \
  -DXRT_CXXBRIDGE_DIR="$target/cxxbridge" \
  -DXRT_SDK_LIB_DIR="$build/lib" \
  -DXRT_HIP_LIB_DIR="$build/lib" \
  -DXRT_SANITIZE="$sanitize" >/dev/null
cmake --build "$build" -j "$(nproc)"

echo "== ctest"
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ "$sanitize" = ON ]; then
  # The Rust core keeps process-lifetime singletons (the tracer, the SDK state): not leaks.
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fi
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"

echo "== the C example (examples/c/capture.c) on the simulated SDK"
# Built as its header comment says, against the same staticlib and simulated SDK as the tests
# above; the trace it writes must hold the scenario's kernels on a GPU lane.
cc -std=c11 -Wall -Wextra -Werror -I include examples/c/capture.c \
  "$target/debug/libxla_rocm_tracer.a" -L "$build/lib" -lrocprofiler-sdk \
  -lstdc++ -lpthread -ldl -lm -o "$build/capture_c_example"
"$build/capture_c_example" "$build/capture_c_example.xplane.pb" scenarios/jax_matmul.toml
cargo build --locked -q -p xla-rocm-tracer-cli
"$target/debug/xla-rocm-tracer" inspect "$build/capture_c_example.xplane.pb" \
  | grep -E '^  Stream #[0-9]+: [0-9]+ events \(Kernel 13(, Flow end [0-9]+)?(, Other [0-9]+)?\)$'
