#!/usr/bin/env bash
# `xla-rocm-tracer record` on the simulated HIP runtime and SDK: builds the simulated
# libamdhip64.so and librocprofiler-sdk.so, the tool library (libxla_rocm_tracer_tool.so) and
# the command, compiles hip_app.cc (which knows nothing of the tracer), records it, and checks:
#   * the XSpace has its three kernels and its two copies, and the command's exit status
#     passes through;
#   * a program that forces its own tool before HIP starts keeps it, and both tools see the
#     kernels (ours through ROCP_TOOL_LIBRARIES, in the SDK's same pass);
#   * HIP initialized before the tool was loaded, or a tool loaded after another one holds
#     the SDK, gives the one-line diagnosis on an SDK before 1.3.2; from 1.3.2 the late tool
#     registers and sees the kernels.
#   tests/record/run.sh            # debug build
#   PROFILE=release tests/record/run.sh
# Uses $CARGO_TARGET_DIR if set (else <repo>/target); writes into $BUILD_DIR (default
# <target>/record-tests).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
profile="${PROFILE:-debug}"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
build_dir="${BUILD_DIR:-$target_dir/record-tests}"
cargo_profile_flag=()
[[ "$profile" == release ]] && cargo_profile_flag=(--release)
CXX="${CXX:-g++}"

echo "== building libamdhip64 (sim), librocprofiler-sdk (sim), the tool library, the command"
(cd "$repo" && cargo build "${cargo_profile_flag[@]}" -p hip-runtime-sim -p rocprofiler-sdk-sim \
  -p xla-rocm-tracer-tool -p xla-rocm-tracer-cli)
out="$target_dir/$profile"
cli="$out/xla-rocm-tracer"
tool="$out/libxla_rocm_tracer_tool.so"

lib="$build_dir/lib"
mkdir -p "$lib"
cp -f "$out/libamdhip64.so" "$lib/libamdhip64.so.7"
ln -sf libamdhip64.so.7 "$lib/libamdhip64.so"
cp -f "$out/librocprofiler_sdk_sim.so" "$lib/librocprofiler-sdk.so.1"
ln -sf librocprofiler-sdk.so.1 "$lib/librocprofiler-sdk.so"

echo "== the tool library's exports and dependency on the SDK"
exports="$(nm -D --defined-only "$tool" | awk '{print $3}')"
for fn in rocprofiler_configure xrt_enable xrt_disable xrt_write_xspace xrt_sdk_version; do
  grep -qx "$fn" <<<"$exports" || { echo "$tool does not export $fn" >&2; exit 1; }
done
readelf -d "$tool" | grep -q 'NEEDED.*librocprofiler-sdk.so.1'

echo "== hip_app"
"$CXX" -std=c++17 -O1 -g -Wall -Wextra -Werror -I "$repo/tests/hip-include" \
  "$repo/tests/record/hip_app.cc" -o "$build_dir/hip_app" \
  -L "$lib" -Wl,-rpath,"$lib" -lamdhip64 -lrocprofiler-sdk -lpthread -ldl

fail() { echo "tests/record/run.sh: $*" >&2; exit 1; }
# Counts of events named like $2 on the GPU plane of trace $1, from `inspect`.
shows() { "$cli" inspect "$1" | grep -c -- "$2" || true; }

echo "== record plain, exit status 3 passed through"
trace="$build_dir/plain.xplane.pb"
rm -f "$trace"
set +e
"$cli" record -o "$trace" -- "$build_dir/hip_app" plain 3 >"$build_dir/plain.out" 2>"$build_dir/plain.err"
status=$?
set -e
cat "$build_dir/plain.out"
[[ $status == 3 ]] || { cat "$build_dir/plain.err"; fail "record exited $status, not the command's 3"; }
grep -q "the trace shows 3 kernels" "$build_dir/plain.out" || fail "not 3 kernels"
"$cli" inspect "$trace" >"$build_dir/plain.inspect"
grep -q "/device:GPU:0" "$build_dir/plain.inspect" || fail "no GPU plane"
grep -q "MemcpyH2D" "$build_dir/plain.inspect" || fail "no host-to-device copy"
grep -q "MemcpyD2H" "$build_dir/plain.inspect" || fail "no device-to-host copy"
grep -q "no GPU events" "$build_dir/plain.err" && fail "a diagnosis where none was due"

echo "== a record never replaces a file it did not make"
echo keep >"$build_dir/taken"
chmod a-w "$build_dir/taken"
if "$cli" record -o "$build_dir/taken" -- "$build_dir/hip_app" plain 2>/dev/null; then
  fail "record wrote over a read-only file"
fi
[[ "$(cat "$build_dir/taken")" == keep ]] || fail "the read-only file changed"
rm -f "$build_dir/taken"

echo "== two tools: the program's own forced tool and ours from ROCP_TOOL_LIBRARIES"
# The SDK loads our library inside the forced tool's initialization (status -1 on this very
# thread): the library must not wait for that initialization to end (it once waited 10 s for
# itself and then gave up).
trace="$build_dir/forced.xplane.pb"
rm -f "$trace"
started=$(date +%s%N)
"$cli" record -o "$trace" -- "$build_dir/hip_app" forced-tool >"$build_dir/forced.out"
elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
grep -q "the trace shows 3 kernels" "$build_dir/forced.out" || fail "ours did not see 3 kernels"
(( elapsed_ms < 5000 )) || fail "record took ${elapsed_ms} ms: the tool waited for its own loading"

echo "== HIP initialized before the tool: the diagnosis (SDK before 1.3.2, the default release)"
trace="$build_dir/hip-first.xplane.pb"
rm -f "$trace"
"$cli" record -o "$trace" -- "$build_dir/hip_app" hip-first >"$build_dir/hip-first.out" \
  2>"$build_dir/hip-first.err"
cat "$build_dir/hip-first.err"
[[ "$(grep -c "record: no GPU events" "$build_dir/hip-first.err")" == 1 ]] ||
  fail "no one-line diagnosis"
grep -q "the trace shows 0 kernels\|the trace shows no" "$build_dir/hip-first.out" ||
  fail "HIP-first traced kernels on an SDK before 1.3.2: $(head -1 "$build_dir/hip-first.out")"

echo "== HIP initialized before the tool, ROCm 7.14 (SDK 1.3.2): the late tool sees the kernels"
trace="$build_dir/hip-first-1.3.2.xplane.pb"
rm -f "$trace"
ROCSIM_MACHINE='rocm = "7.14"' "$cli" record -o "$trace" -- "$build_dir/hip_app" hip-first \
  >"$build_dir/hip-first-1.3.2.out" 2>"$build_dir/hip-first-1.3.2.err"
grep -q "the trace shows 3 kernels" "$build_dir/hip-first-1.3.2.out" || fail "not 3 kernels"
grep -q "no GPU events" "$build_dir/hip-first-1.3.2.err" && fail "a diagnosis where none was due"

echo "== a tool loaded after another one holds the SDK: the diagnosis (SDK before 1.3.2, the default release)"
trace="$build_dir/late-tool.xplane.pb"
rm -f "$trace"
"$cli" record -o "$trace" -- "$build_dir/hip_app" late-tool >"$build_dir/late-tool.out" \
  2>"$build_dir/late-tool.err"
cat "$build_dir/late-tool.err"
[[ "$(grep -c "record: rocprofiler-sdk was initialized without this tracer" \
  "$build_dir/late-tool.err")" == 1 ]] || fail "no one-line diagnosis"
[[ "$(wc -l <"$build_dir/late-tool.err")" == 1 ]] || fail "more than the one line"

echo "== a tool loaded after another one holds the SDK, ROCm 7.14 (SDK 1.3.2): registered late, it traces"
trace="$build_dir/late-tool-1.3.2.xplane.pb"
rm -f "$trace"
ROCSIM_MACHINE='rocm = "7.14"' "$cli" record -o "$trace" -- "$build_dir/hip_app" late-tool \
  >"$build_dir/late-tool-1.3.2.out" 2>"$build_dir/late-tool-1.3.2.err"
grep -q "the trace shows 3 kernels" "$build_dir/late-tool-1.3.2.out" || fail "not 3 kernels"
[[ -s "$build_dir/late-tool-1.3.2.err" ]] && fail "unexpected: $(cat "$build_dir/late-tool-1.3.2.err")"

echo "tests/record/run.sh: all passed"
