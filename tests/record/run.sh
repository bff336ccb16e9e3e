#!/usr/bin/env bash
# `xla-rocm-tracer record` on the simulated HIP runtime and SDK: builds the simulated
# libamdhip64.so and librocprofiler-sdk.so, the tool library (libxla_rocm_tracer_tool.so) and
# the command, compiles hip_app.cc (which knows nothing of the tracer), records it, and checks:
#   * the XSpace has its three kernels and its two copies, and the command's exit status
#     passes through;
#   * every process of the command that uses HIP is traced, each into a file of its own
#     (two at once, one after the other, a child by fork and exec); a process killed by a
#     signal loses only its own trace and is named with the reason; `--logdir` writes them
#     into one run of a jax.profiler log folder; the tool library itself never replaces a file;
#   * a program that forces its own tool before HIP starts keeps it, and both tools see the
#     kernels (ours through ROCP_TOOL_LIBRARIES, in the SDK's same pass), also when the
#     program loaded our library itself before forcing;
#   * teardown: exit with work in flight, SIGTERM (with and without the program's handler),
#     SIGABRT and _exit, under 7.1 and 10.1: the trace written or the loss said in one line; a
#     failing initialize leaves the tracer off and says why; a dormant rocprofiler_configure
#     (libtorch_cpu.so's) first in the global scope does not keep ours from being configured;
#   * HIP initialized before the tool was loaded, or a tool loaded after another one holds
#     the SDK, gives the one-line diagnosis on the default release (7.1); the late tool
#     registers and sees the kernels where the SDK takes it: HIP first from SDK 1.3.0 (late
#     start, 7.13), a second tool on 10.1 (anytime initialization).
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

echo "== libdormant_client.so (a dormant rocprofiler_configure, as libtorch_cpu.so has)"
"$CXX" -std=c++17 -O1 -shared -fPIC -Wall -Wextra -Werror "$repo/tests/record/dormant_client.cc" \
  -o "$build_dir/libdormant_client.so"

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

# Kernel counts of every trace file named $1.pid*.xplane.pb, one line each, sorted.
kernels_per_file() {
  local file
  for file in "$1".pid*.xplane.pb; do
    [[ -f "$file" ]] || continue
    "$cli" inspect "$file" | grep -o 'Kernel [0-9]*' | head -1
  done | sort
}

echo "== every process: two HIP processes at once under one shell, each traced into its own file"
multi="$build_dir/multi"
rm -rf "$multi" && mkdir -p "$multi"
"$cli" record -o "$multi/both.xplane.pb" -- bash -c \
  "'$build_dir/hip_app' plain 0 & '$build_dir/hip_app' plain 0; wait" >"$multi/both.out" 2>"$multi/both.err" ||
  { cat "$multi/both.err"; fail "record of two processes failed"; }
[[ "$(kernels_per_file "$multi/both")" == $'Kernel 3\nKernel 3' ]] ||
  { cat "$multi/both.out" "$multi/both.err"; fail "not two traces of 3 kernels: $(kernels_per_file "$multi/both")"; }
[[ ! -e "$multi/both.xplane.pb" ]] || fail "with two processes, -o itself was written"
grep -q "2 processes traced; their traces show 6 kernels" "$multi/both.out" || fail "no total line"
grep -q "never replaced\|wrote no trace" "$multi/both.err" && fail "a capture was lost: $(cat "$multi/both.err")"

echo "== every process: one after the other, the last one's exit status passed through"
set +e
"$cli" record -o "$multi/seq.xplane.pb" -- bash -c \
  "'$build_dir/hip_app' plain 0; '$build_dir/hip_app' plain 4" >"$multi/seq.out" 2>"$multi/seq.err"
status=$?
set -e
[[ $status == 4 ]] || { cat "$multi/seq.err"; fail "record exited $status, not the command's 4"; }
[[ "$(kernels_per_file "$multi/seq")" == $'Kernel 3\nKernel 3' ]] || fail "not two traces of 3 kernels"

echo "== every process: a child started by fork and exec inherits the tool"
"$cli" record -o "$multi/parent.xplane.pb" -- "$build_dir/hip_app" parent >"$multi/parent.out" 2>"$multi/parent.err" ||
  { cat "$multi/parent.err"; fail "record of a parent and its child failed"; }
[[ "$(kernels_per_file "$multi/parent")" == $'Kernel 3\nKernel 3' ]] || fail "parent and child not both traced"

echo "== every process: a child forked without exec writes nothing over its parent's trace"
"$cli" record -o "$multi/forked.xplane.pb" -- "$build_dir/hip_app" forked-exit >"$multi/forked.out" 2>"$multi/forked.err" ||
  { cat "$multi/forked.err"; fail "record of a program whose forked child exits failed"; }
[[ "$(shows "$multi/forked.xplane.pb" "Kernel 3")" == 1 ]] ||
  { cat "$multi/forked.err"; fail "the parent's trace is not the one written"; }
[[ ! -s "$multi/forked.err" ]] || { cat "$multi/forked.err"; fail "record said something of the forked child"; }

echo "== a process killed by a signal loses only its own trace, and is named"
"$cli" record -o "$multi/killed.xplane.pb" -- bash -c \
  "'$build_dir/hip_app' plain 0 & '$build_dir/hip_app' killed 9; wait" >"$multi/killed.out" 2>"$multi/killed.err" || true
[[ "$(shows "$multi/killed.xplane.pb" "Kernel 3")" == 1 ]] || fail "the survivor's trace is missing"
grep -q "record: process [0-9]* ($build_dir/hip_app killed 9) wrote no trace: it ended without exiting normally" \
  "$multi/killed.err" || { cat "$multi/killed.err"; fail "the killed process is not named"; }
set +e
"$cli" record -o "$multi/killed-child.xplane.pb" -- "$build_dir/hip_app" killed 9 \
  >"$multi/killed-child.out" 2>"$multi/killed-child.err"
status=$?
set -e
[[ $status == $((128 + 9)) ]] || fail "record exited $status, not 128 + SIGKILL"
grep -q "wrote no trace: killed by signal 9 (SIGKILL)" "$multi/killed-child.err" ||
  { cat "$multi/killed-child.err"; fail "the command's own signal is not said"; }

# Teardown (docs/tool-library.md#teardown): every way a traced process can end, each under a
# time limit (a hang is a failure), the trace written or the loss said in one line.
# $1: case name, $2: expected exit status, then hip_app's arguments. Sets $teardown (prefix).
teardown() {
  local name="$1" expected="$2" status
  shift 2
  teardown="$multi/teardown-$name"
  rm -f "$teardown".*
  set +e
  timeout -k 5 60 "$cli" record -o "$teardown.xplane.pb" -- "$build_dir/hip_app" "$@" \
    >"$teardown.out" 2>"$teardown.err"
  status=$?
  set -e
  [[ $status != 124 && $status != 137 ]] || fail "teardown $name: record hung (killed after 60 s)"
  [[ $status == "$expected" ]] || { cat "$teardown.err"; fail "teardown $name: record exited $status, not $expected"; }
}
for release in 7.1 10.1; do
  export ROCSIM_MACHINE="rocm = \"$release\""
  echo "== teardown ($release): exit with work in flight writes the trace"
  teardown exit-busy 0 exit-busy
  grep -q "the trace shows [0-9]* kernels" "$teardown.out" || { cat "$teardown.err"; fail "no trace at exit"; }
  [[ ! -s "$teardown.err" ]] || { cat "$teardown.err"; fail "exit said something: $(cat "$teardown.err")"; }

  echo "== teardown ($release): SIGTERM writes the trace, and the process still ends by SIGTERM"
  teardown sigterm $((128 + 15)) killed 15
  grep -q "the trace shows 3 kernels" "$teardown.out" || { cat "$teardown.err"; fail "no trace at SIGTERM"; }
  [[ ! -s "$teardown.err" ]] || fail "SIGTERM said something: $(cat "$teardown.err")"

  echo "== teardown ($release): SIGTERM with the program's own handler: trace written, its handler still runs"
  teardown own-sigterm 7 own-sigterm
  grep -q "the trace shows 3 kernels" "$teardown.out" || { cat "$teardown.err"; fail "no trace at SIGTERM"; }
  [[ "$(cat "$teardown.err")" == "hip_app: its own SIGTERM handler ran" ]] ||
    fail "the program's handler did not run alone: $(cat "$teardown.err")"

  echo "== teardown ($release): SIGABRT writes the trace, and the process still ends by SIGABRT"
  teardown abort $((128 + 6)) aborted
  grep -q "the trace shows 3 kernels" "$teardown.out" || { cat "$teardown.err"; fail "no trace at SIGABRT"; }
  [[ ! -s "$teardown.err" ]] || fail "SIGABRT said something: $(cat "$teardown.err")"
  # 10.1's SDK flushes on SIGABRT [RN]: its handler is installed last and chains to ours.
  first_handler=librocprofiler-sdk
  [[ $release == 10.1 ]] || first_handler=libxla_rocm_tracer_tool
  grep -q "hip_app: SIGABRT handler in .*$first_handler" "$teardown.out" ||
    fail "the first SIGABRT handler is not $first_handler's: $(grep 'SIGABRT handler' "$teardown.out")"

  echo "== teardown ($release): _exit cannot write the trace: record says so in one line"
  teardown quick-exit 5 quick-exit 5
  [[ ! -e "$teardown.xplane.pb" ]] || fail "a trace after _exit?"
  [[ "$(wc -l <"$teardown.err")" == 1 ]] || fail "not one line: $(cat "$teardown.err")"
  grep -q "record: process [0-9]* ($build_dir/hip_app quick-exit 5) wrote no trace: it ended with status 5 without running its exit handlers" \
    "$teardown.err" || fail "the _exit is not said: $(cat "$teardown.err")"
done
unset ROCSIM_MACHINE

echo "== teardown: a signal flush that does not happen (flush time 0) is one line: record's, or the library's alone"
XLA_ROCM_TRACER_SIGNAL_FLUSH_SECONDS=0 teardown no-flush $((128 + 15)) killed 15
[[ ! -e "$teardown.xplane.pb" ]] || fail "a trace with no flush?"
[[ "$(wc -l <"$teardown.err")" == 1 ]] || fail "not one line: $(cat "$teardown.err")"
grep -q "wrote no trace: killed by signal 15 (SIGTERM)" "$teardown.err" || fail "the loss is not said: $(cat "$teardown.err")"
rm -f "$teardown.bare.xplane.pb"
set +e
XLA_ROCM_TRACER_SIGNAL_FLUSH_SECONDS=0 ROCP_TOOL_LIBRARIES="$tool" XLA_ROCM_TRACER_OUTPUT="$teardown.bare.xplane.pb" \
  timeout -k 5 60 "$build_dir/hip_app" killed 15 2>"$teardown.bare.err"
status=$?
set -e
[[ $status == $((128 + 15)) ]] || fail "the bare process exited $status, not by SIGTERM"
[[ ! -e "$teardown.bare.xplane.pb" ]] || fail "a trace with no flush?"
[[ "$(cat "$teardown.bare.err")" == "xla-rocm-tracer tool: the process ended by SIGTERM before the trace was written (no flush within XLA_ROCM_TRACER_SIGNAL_FLUSH_SECONDS): the capture is lost" ]] ||
  fail "the library did not say the loss in one line: $(cat "$teardown.bare.err")"

echo "== a failing initialize: the SDK ignores its return (#11189); the tracer is off and record says why in one line"
trace="$build_dir/init-fails.xplane.pb"
rm -f "$trace"
set +e
# The first context's creation: fatal to the tracer's initialize whatever the order of the
# services it configures after it (tests/tracer_init_faults.rs lists which calls are fatal).
ROCSIM_FAULTS="rocprofiler_create_context@1=29" timeout -k 5 60 \
  "$cli" record -o "$trace" -- "$build_dir/hip_app" plain 3 >"$build_dir/init-fails.out" 2>"$build_dir/init-fails.err"
status=$?
set -e
[[ $status == 3 ]] || { cat "$build_dir/init-fails.err"; fail "record exited $status, not the command's 3"; }
grep -q "the trace shows 0 kernels" "$build_dir/init-fails.out" || fail "the tracer traced after a failed initialize"
[[ "$(wc -l <"$build_dir/init-fails.err")" == 1 ]] || fail "not one line: $(cat "$build_dir/init-fails.err")"
grep -q "^xla-rocm-tracer: record: rocprofiler-sdk initialization failed: rocprofiler_create_context failed" \
  "$build_dir/init-fails.err" || fail "the reason is not said: $(cat "$build_dir/init-fails.err")"

for release in 7.1 10.1; do
  echo "== a dormant rocprofiler_configure first in the global scope ($release): ours is still configured"
  trace="$build_dir/dormant-$release.xplane.pb"
  rm -f "$trace"
  ROCSIM_MACHINE="rocm = \"$release\"" timeout -k 5 60 "$cli" record -o "$trace" -- \
    env LD_PRELOAD="$build_dir/libdormant_client.so" "$build_dir/hip_app" plain 0 \
    >"$build_dir/dormant-$release.out" 2>"$build_dir/dormant-$release.err" ||
    { cat "$build_dir/dormant-$release.err"; fail "record with a dormant client failed"; }
  grep -q "the trace shows 3 kernels" "$build_dir/dormant-$release.out" ||
    { cat "$build_dir/dormant-$release.err"; fail "not 3 kernels beside a dormant client"; }
done

echo "== --logdir: every process into one run of a jax.profiler log folder"
"$cli" record --logdir "$multi/logdir" -- bash -c \
  "'$build_dir/hip_app' plain 0 & '$build_dir/hip_app' plain 0; wait" >"$multi/logdir.out" 2>"$multi/logdir.err" ||
  { cat "$multi/logdir.err"; fail "record --logdir failed"; }
mapfile -t runs < <(find "$multi/logdir/plugins/profile" -mindepth 1 -maxdepth 1 -type d)
[[ ${#runs[@]} == 1 ]] || fail "expected one run, found ${#runs[@]}"
mapfile -t files < <(find "${runs[0]}" -name "$(hostname).pid*.xplane.pb")
[[ ${#files[@]} == 2 ]] || fail "expected two <host>.pid<PID>.xplane.pb files, found ${#files[@]}"
for file in "${files[@]}"; do
  "$cli" inspect "$file" | grep -q "Kernel 3" || fail "$file has not 3 kernels"
  "$cli" inspect "$file" | grep -q "^/host:CPU" || fail "$file's host plane is not /host:CPU"
done
"$cli" inspect "${runs[0]}" >"$multi/run.inspect" || fail "inspect of the run folder failed"
[[ "$(grep -c "Kernel 3" "$multi/run.inspect")" == 2 ]] || fail "inspect RUN does not show both processes"

echo "== the tool library's own rule: an existing output is never replaced"
echo keep >"$multi/existing.xplane.pb"
env ROCP_TOOL_LIBRARIES="$tool" XLA_ROCM_TRACER_OUTPUT="$multi/existing.xplane.pb" \
  "$build_dir/hip_app" plain 0 2>"$multi/existing.err"
[[ "$(cat "$multi/existing.xplane.pb")" == keep ]] || fail "the tool library replaced an existing file"
grep -q "cannot write $multi/existing.xplane.pb: it exists (never replaced)" "$multi/existing.err" ||
  { cat "$multi/existing.err"; fail "no line about the existing file"; }
[[ -z "$(find "$multi" -name '.existing.xplane.pb.*')" ]] || fail "a temporary file was left"

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

echo "== our library loaded before the program forces its own tool (ctypes before JAX's plugin): both tools trace"
# Listed in ROCP_TOOL_LIBRARIES, our library leaves the SDK to its first initialization, which
# here is the program's forced one; forcing it at load instead made the SDK refuse the
# program's tool (docs/jax-rocm.md#pgle).
trace="$build_dir/tool-first.xplane.pb"
rm -f "$trace"
"$cli" record -o "$trace" -- "$build_dir/hip_app" tool-first >"$build_dir/tool-first.out" ||
  fail "the program's own tool lost the SDK to ours"
grep -q "the trace shows 3 kernels" "$build_dir/tool-first.out" || fail "ours did not see 3 kernels"

echo "== HIP initialized before the tool: the diagnosis (SDK before 1.3.0, the default release)"
trace="$build_dir/hip-first.xplane.pb"
rm -f "$trace"
"$cli" record -o "$trace" -- "$build_dir/hip_app" hip-first >"$build_dir/hip-first.out" \
  2>"$build_dir/hip-first.err"
cat "$build_dir/hip-first.err"
[[ "$(grep -c "record: no GPU events" "$build_dir/hip-first.err")" == 1 ]] ||
  fail "no one-line diagnosis"
grep -q "the trace shows 0 kernels\|the trace shows no" "$build_dir/hip-first.out" ||
  fail "HIP-first traced kernels on an SDK before 1.3.0: $(head -1 "$build_dir/hip-first.out")"

echo "== HIP initialized before the tool, ROCm 7.13 (SDK 1.3.0, late start): the late tool sees the kernels"
trace="$build_dir/hip-first-1.3.0.xplane.pb"
rm -f "$trace"
ROCSIM_MACHINE='rocm = "7.13"' "$cli" record -o "$trace" -- "$build_dir/hip_app" hip-first \
  >"$build_dir/hip-first-1.3.0.out" 2>"$build_dir/hip-first-1.3.0.err"
grep -q "the trace shows 3 kernels" "$build_dir/hip-first-1.3.0.out" || fail "not 3 kernels"
grep -q "no GPU events" "$build_dir/hip-first-1.3.0.err" && fail "a diagnosis where none was due"

echo "== a tool loaded after another one holds the SDK: the diagnosis (no anytime initialization, the default release)"
trace="$build_dir/late-tool.xplane.pb"
rm -f "$trace"
"$cli" record -o "$trace" -- "$build_dir/hip_app" late-tool >"$build_dir/late-tool.out" \
  2>"$build_dir/late-tool.err"
cat "$build_dir/late-tool.err"
[[ "$(grep -c "record: rocprofiler-sdk was initialized without this tracer" \
  "$build_dir/late-tool.err")" == 1 ]] || fail "no one-line diagnosis"
[[ "$(wc -l <"$build_dir/late-tool.err")" == 1 ]] || fail "more than the one line"

echo "== a tool loaded after another one holds the SDK, ROCm 10.1 (anytime initialization): registered late, it traces"
trace="$build_dir/late-tool-10.1.xplane.pb"
rm -f "$trace"
ROCSIM_MACHINE='rocm = "10.1"' "$cli" record -o "$trace" -- "$build_dir/hip_app" late-tool \
  >"$build_dir/late-tool-10.1.out" 2>"$build_dir/late-tool-10.1.err"
grep -q "the trace shows 3 kernels" "$build_dir/late-tool-10.1.out" || fail "not 3 kernels"
[[ -s "$build_dir/late-tool-10.1.err" ]] && fail "unexpected: $(cat "$build_dir/late-tool-10.1.err")"

echo "tests/record/run.sh: all passed"
