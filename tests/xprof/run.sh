#!/usr/bin/env bash
# Replays the jax_matmul scenario on the simulator, converts the resulting .xplane.pb with
# xprof's trace_viewer tool (PyPI `xprof`) and checks lane names and copy events by name.
# Called by .ci/run. The venv is cached in $XPROF_VENV (default: target dir/xprof-venv).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
venv="${XPROF_VENV:-$target_dir/xprof-venv}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import xprof' 2>/dev/null; then
    echo "creating xprof venv in $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet xprof
fi

cd "$repo"
cargo build --quiet -p xla-rocm-tracer-cli
cli="$target_dir/debug/xla-rocm-tracer"

# xprof names a host's trace after the file: <host>.xplane.pb.
trace="$work/sim-host.xplane.pb"
"$cli" replay scenarios/jax_matmul.toml -o "$trace"

TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" tests/xprof/check_trace_viewer.py "$trace"
echo "xprof trace_viewer check passed"
