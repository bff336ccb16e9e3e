#!/usr/bin/env bash
# The product under every simulated ROCm release and every unpinned shape of one
# (docs/simulator-fidelity.md#the-ledger): the tracer and collector suites and every scenario
# replay, each with ROCSIM_MACHINE set to one line of the simulator's `release_machines`
# example (a release, or a release with the overlay of a shape its sources leave open).
# The default release (7.1) runs the suites in the plain `cargo test` too; it is repeated here
# so that every release has its scenario replays.
#   tests/releases/run.sh            every release
#   tests/releases/run.sh 7.0 10.1   these releases (with their unpinned shapes)
# Uses $CARGO_TARGET_DIR (default: target/); builds nothing the debug test build did not.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"

# The tracer and collector suites (tests/tracer_*.rs, tests/collector_*.rs).
suites=()
for file in tests/tracer_*.rs tests/collector_*.rs; do
  suites+=(--test "$(basename "$file" .rs)")
done

cargo build --locked -q -p xla-rocm-tracer-cli
mapfile -t machines < <(cargo run --locked -q -p rocprofiler-sdk-sim --example release_machines -- "$@")
[ "${#machines[@]}" -gt 0 ] || { echo "no machine to run" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

for machine in "${machines[@]}"; do
  echo "== $machine: tracer and collector suites"
  # The log is shown only when a suite fails.
  if ! ROCSIM_MACHINE="$machine" cargo test --locked -q -p xla-rocm-tracer "${suites[@]}" \
      >"$out/cargo.log" 2>&1; then
    cat "$out/cargo.log" >&2
    echo "$machine: a tracer or collector suite failed" >&2
    exit 1
  fi
  grep -c "^test result: ok" "$out/cargo.log" | sed 's/$/ suites passed/'
  echo "== $machine: every scenario replay"
  for scenario in scenarios/*.toml; do
    ROCSIM_MACHINE="$machine" "$target/debug/xla-rocm-tracer" replay "$scenario" \
      -o "$out/$(basename "$scenario" .toml).xplane.pb" >/dev/null \
      || { echo "$machine: replay of $scenario failed" >&2; exit 1; }
  done
done
echo "the product passed on ${#machines[@]} machines: every release and every unpinned shape"
