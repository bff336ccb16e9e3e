#!/usr/bin/env bash
# A real client: runs examples/jax_matmul.py --cpu with JAX's CPU backend from PyPI (`jax[cpu]`)
# under jax.profiler.trace, then reads the fresh XSpace with `xla-rocm-tracer inspect` and
# `convert --to chrome-json` and checks what both show (check_cpu_trace.py). Called by
# tests/run-all.sh. The venv is cached in $JAX_VENV (default: target dir/jax-venv).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
venv="${JAX_VENV:-$target_dir/jax-venv}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import jax' 2>/dev/null; then
    echo "downloading jax[cpu] from PyPI into $venv (once; cached there)" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'jax[cpu]'
fi

cd "$repo"
cargo build --quiet -p xla-rocm-tracer-cli
cli="$target_dir/debug/xla-rocm-tracer"

# The example runs `inspect` on what it traced; keep its output for the check.
JAX_PLATFORMS=cpu TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" examples/jax_matmul.py --cpu \
    --logdir "$work/logdir" --tracer "$cli" >"$work/example.out"
mapfile -t traces < <(find "$work/logdir" -name '*.xplane.pb')
if [ "${#traces[@]}" -ne 1 ]; then
    echo "FAIL: expected one .xplane.pb under $work/logdir, found ${#traces[@]}" >&2
    exit 1
fi
trace="${traces[0]}"
"$cli" inspect "$trace" >"$work/inspect.out"
"$cli" convert "$trace" --to chrome-json -o "$work/trace.json"

python3 tests/jax/check_cpu_trace.py "$work/inspect.out" "$work/trace.json" "$work/example.out"
echo "JAX CPU trace check passed ($(grep -c '"ph":"X"' "$work/trace.json") events)"
