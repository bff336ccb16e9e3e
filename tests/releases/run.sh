#!/usr/bin/env bash
# The product under every simulated ROCm release (docs/simulator-fidelity.md#releases): the
# tracer and collector suites and every scenario replay, each with ROCSIM_MACHINE='rocm = "R"'.
# The default release (7.1) runs the suites in the plain `cargo test` too; it is repeated here
# so that every release has its scenario replays (about 6 s a release, warm).
#   tests/releases/run.sh            every release
#   tests/releases/run.sh 7.0 7.14   these releases
# Uses $CARGO_TARGET_DIR (default: target/); builds nothing the debug test build did not.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"

releases=("$@")
[ "${#releases[@]}" -gt 0 ] || releases=(7.0 7.1 7.2 7.13 7.14)

# The tracer and collector suites (tests/tracer_*.rs, tests/collector_*.rs).
suites=()
for file in tests/tracer_*.rs tests/collector_*.rs; do
  suites+=(--test "$(basename "$file" .rs)")
done

cargo build --locked -p xla-rocm-tracer-cli
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

for rocm in "${releases[@]}"; do
  echo "== ROCm $rocm: tracer and collector suites"
  # The log is shown only when a suite fails.
  if ! ROCSIM_MACHINE="rocm = \"$rocm\"" cargo test --locked -q -p xla-rocm-tracer "${suites[@]}" \
      >"$out/cargo.log" 2>&1; then
    cat "$out/cargo.log" >&2
    echo "ROCm $rocm: a tracer or collector suite failed" >&2
    exit 1
  fi
  grep -c "^test result: ok" "$out/cargo.log" | sed 's/$/ suites passed/'
  echo "== ROCm $rocm: every scenario replay"
  for scenario in scenarios/*.toml; do
    "$target/debug/xla-rocm-tracer" replay --rocm "$rocm" "$scenario" \
      -o "$out/$(basename "$scenario" .toml).xplane.pb" >/dev/null \
      || { echo "ROCm $rocm: replay of $scenario failed" >&2; exit 1; }
  done
done
echo "the product passed under ROCm ${releases[*]}"
