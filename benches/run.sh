#!/usr/bin/env bash
# Builds the Rust tracer and the C++ baseline (benches/baseline/) as shared libraries over the
# simulated librocprofiler-sdk.so, runs every benchmark on both in separate processes, and
# ends with one `ratio NAME rust/cpp|cpp/rust VALUE` line per figure.
#   benches/run.sh            default sizes (a few minutes on 2 cores)
#   BENCH_QUICK=1 benches/run.sh   smaller sizes, for checking the script
# Needs: g++, protoc, libabsl-dev, libprotobuf-dev, valgrind, python3 (apt-get install
# protobuf-compiler libprotobuf-dev libabsl-dev valgrind).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"
out="$target/bench"
mkdir -p "$out/sdk" "$out/gen" "$out/results"

hot_calls=20000000; callgrind_calls=200000; events=1000000
if [ "${BENCH_QUICK:-0}" = 1 ]; then hot_calls=1000000; callgrind_calls=20000; events=100000; fi

echo "== build: simulated SDK (release)"
cargo build --release -q -p rocprofiler-sdk-sim
cp -f "$target/release/librocprofiler_sdk_sim.so" "$out/sdk/librocprofiler-sdk.so"
ln -sf librocprofiler-sdk.so "$out/sdk/librocprofiler-sdk.so.1"

echo "== build: Rust tracer as a shared library (benches/rust-tracer-so)"
(cd benches/rust-tracer-so &&
  ROCPROFILER_SDK_LIB_DIR="$out/sdk" CARGO_TARGET_DIR="$target/bench-so" cargo build --release -q)
rust_so="$target/bench-so/release/libxla_rocm_tracer_bench.so"

echo "== build: C++ baseline and harness (g++ -O2)"
protoc -I cpp/standalone --cpp_out="$out/gen" tsl/profiler/protobuf/xplane.proto
absl_libs="$(pkg-config --libs absl_synchronization absl_flat_hash_map absl_node_hash_set absl_strings absl_inlined_vector)"
cxx=(g++ -std=c++17 -O2 -g -DNDEBUG -I cpp/standalone -I "$out/gen")
# shellcheck disable=SC2086
"${cxx[@]}" -fPIC -shared -o "$out/libxla_rocm_tracer_baseline.so" \
  benches/baseline/*.cc "$out/gen/tsl/profiler/protobuf/xplane.pb.cc" \
  -L "$out/sdk" -lrocprofiler-sdk $absl_libs -lprotobuf -Wl,-rpath,"$out/sdk"
"${cxx[@]}" -fno-ipa-icf -rdynamic -o "$out/bench_harness" -I benches/harness benches/harness/*.cc -ldl -lpthread
cpp_so="$out/libxla_rocm_tracer_baseline.so"

export LD_LIBRARY_PATH="$out/sdk${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
harness() { "$out/bench_harness" "$@"; }
lib_of() { if [ "$1" = rust ]; then echo "$rust_so"; else echo "$cpp_so"; fi; }
results="$out/results"
: > "$results/all.txt"
record() { # side bench file
  sed "s/^/$1 $2 /" "$3" >> "$results/all.txt"
  sed "s/^/  $1 $2: /" "$3"
}

for side in rust cpp; do
  echo "== $side: hot path ($hot_calls HIP calls)"
  harness "$side" "$(lib_of "$side")" hotpath "$hot_calls" > "$results/$side-hot.txt"
  record "$side" hot "$results/$side-hot.txt"
  echo "== $side: hot path under callgrind ($callgrind_calls HIP calls)"
  valgrind --tool=callgrind --toggle-collect='*hot_path_loop*' \
    --callgrind-out-file="$results/$side.callgrind" \
    "$out/bench_harness" "$side" "$(lib_of "$side")" hotpath "$callgrind_calls" \
    > /dev/null 2> "$results/$side-callgrind.log"
  ir="$(awk '/^summary:|^totals:/ {print $2; exit}' "$results/$side.callgrind")"
  echo "hot_path_instructions_per_call=$(python3 -c "print(round($ir / $callgrind_calls, 1))")" \
    > "$results/$side-ir.txt"
  record "$side" ir "$results/$side-ir.txt"
  echo "== $side: drain $events events (1 producer thread), flush + export"
  harness "$side" "$(lib_of "$side")" drain "$events" 1 "$results/$side.xplane.pb" \
    > "$results/$side-drain1.txt"
  record "$side" drain1 "$results/$side-drain1.txt"
  echo "== $side: drain $events events (8 producer threads)"
  harness "$side" "$(lib_of "$side")" drain "$events" 8 > "$results/$side-drain8.txt"
  record "$side" drain8 "$results/$side-drain8.txt"
done

python3 - "$results/all.txt" <<'PY'
import sys
values = {}
for line in open(sys.argv[1]):
    side, bench, kv = line.split(maxsplit=2)
    key, value = kv.strip().split("=")
    values[(side, bench, key)] = float(value)
def get(side, bench, key):
    return values[(side, bench, key)]
rows = [
    # name, direction, value, target, met
    ("hot_path_time", "rust/cpp", get("rust", "hot", "hot_path_cpu_ns_per_call") / get("cpp", "hot", "hot_path_cpu_ns_per_call"), "<= 1.0"),
    ("hot_path_instructions", "rust/cpp", get("rust", "ir", "hot_path_instructions_per_call") / get("cpp", "ir", "hot_path_instructions_per_call"), "<= 1.0"),
    ("drain_1_thread", "rust/cpp", get("rust", "drain1", "drain_events_per_cpu_s") / get("cpp", "drain1", "drain_events_per_cpu_s"), ">= 5"),
    ("drain_8_threads", "rust/cpp", get("rust", "drain8", "drain_events_per_s") / get("cpp", "drain8", "drain_events_per_s"), ">= 5"),
    ("drain_8_threads_cpu", "rust/cpp", get("rust", "drain8", "drain_events_per_cpu_s") / get("cpp", "drain8", "drain_events_per_cpu_s"), ">= 5"),
    ("export", "rust/cpp", get("rust", "drain1", "export_events_per_s") / get("cpp", "drain1", "export_events_per_s"), ">= 2"),
    ("bytes_per_event", "rust/cpp", get("rust", "drain1", "bytes_per_event") / max(get("cpp", "drain1", "bytes_per_event"), 1e-9), "<= 0.5"),
]
print("\n== summary (targets from issue 7)")
for side in ("rust", "cpp"):
    print(f"{side}: hot path {get(side,'hot','hot_path_cpu_ns_per_call'):.2f} ns/call, "
          f"{get(side,'ir','hot_path_instructions_per_call'):.1f} instr/call, "
          f"drain {get(side,'drain1','drain_events_per_cpu_s')/1e6:.2f} M events/cpu-s (1 thread), "
          f"{get(side,'drain8','drain_events_per_s')/1e6:.2f} M events/s (8 threads), "
          f"flush+export {get(side,'drain1','export_cpu_s'):.3f} cpu-s -> {int(get(side,'drain1','xspace_bytes'))} bytes "
          f"({int(get(side,'drain1','xspace_events'))} events), "
          f"{get(side,'drain1','bytes_per_event'):.0f} bytes/event, "
          f"app-thread allocations {int(get(side,'hot','hot_path_allocations'))}")
for name, direction, value, target in rows:
    print(f"ratio {name} {direction} {value:.3f}   (target {target})")
print(f"ratio app_thread_allocations_after_warmup rust {int(get('rust','hot','hot_path_allocations'))}   (target 0)")
PY
