#!/usr/bin/env bash
# Replays the jax_matmul scenario on the simulator, converts the resulting .xplane.pb with
# xprof's trace_viewer tool (PyPI `xprof`) and checks lane names and copy events by name, and the
# stream waits' flow arrows (trace_viewer@, the streaming viewer the UI loads); the other
# scenarios below check rows, stats shown as event args and ROCTx bands.
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
# The scenario's two waits as flow arrows: H2D lane -> compute lane, compute lane -> D2H lane.
TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" tests/xprof/check_wait_flows.py "$trace" --flows 2 \
    --flow '/device:GPU:0/Stream #0:/device:GPU:0/Stream #1' \
    --flow '/device:GPU:0/Stream #1:/device:GPU:0/Stream #2'
# Waits across GPUs: GPU 0's producer -> GPU 1's consumer -> GPU 0's copy-back stream.
across="$work/across/sim-host.xplane.pb"
mkdir -p "$work/across"
"$cli" replay scenarios/cross_device_wait.toml -o "$across" >/dev/null
TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" tests/xprof/check_wait_flows.py "$across" --flows 2 \
    --flow '/device:GPU:0/Stream #0:/device:GPU:1/Stream #0' \
    --flow '/device:GPU:1/Stream #0:/device:GPU:0/Stream #1'

# 32 lanes on one GPU: one row each (xprof renumbers the busiest 16; ours must not collide).
many="$work/many/sim-host.xplane.pb"
mkdir -p "$work/many"
"$cli" replay scenarios/many_streams.toml -o "$many" >/dev/null
TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" tests/xprof/check_device_rows.py "$many" \
    --rows 32 --name 'Stream #0 (null)' --in-order

# Graph nodes (scenarios/graphs.toml on 7.14, HIP_GRAPH tracing): every kernel of a launch shows
# its executable's id (cuda_graph_id) and node ordinal (graph_node_id); xprof's derived timeline
# draws each launch as a "Command Buffer <id>" span on a row of its own under the stream.
graphs="$work/graphs/sim-host.xplane.pb"
mkdir -p "$work/graphs"
"$cli" replay scenarios/graphs.toml --rocm 7.14 -o "$graphs" >/dev/null
TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" tests/xprof/check_device_rows.py "$graphs" \
    --rows 2 --name 'Command Buffers - from #1000' --name 'Command Buffers - from #1001' \
    --event-arg cuda_graph_id=1 --event-arg cuda_graph_id=2 --event-arg graph_node_id=2

# ROCTx stream names and the null stream in xprof's thread names.
named="$work/named/sim-host.xplane.pb"
mkdir -p "$work/named"
"$cli" replay scenarios/named_streams.toml -o "$named" >/dev/null
TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" tests/xprof/check_device_rows.py "$named" \
    --rows 4 --name 'Stream #0 "h2d"' --name 'Stream #1 "compute"' --name 'Stream #2' \
    --name 'Stream #3 (null)' --event-arg stream_name=h2d --event-arg stream_kind=null
# ROCTx ranges as host bands, marks as instants, the innermost label on every kernel and copy
# launched inside a range. Session 1 ends with `spanning` still open: its kernel keeps the
# label, no band shows; session 2 pops it (dropped) and has one range of its own. Each session
# has one process range (`epoch`, stopped by another thread; `eval`), labelling nothing.
roctx="$work/roctx/sim-host.xplane.pb"
mkdir -p "$work/roctx"
"$cli" replay scenarios/roctx_ranges.toml -o "$roctx" >/dev/null
TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" tests/xprof/check_roctx_bands.py \
    "$work/roctx/sim-host.session1.xplane.pb" --bands 4 --marks 2 --labelled 5 --open spanning \
    --process-bands 1
TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" tests/xprof/check_roctx_bands.py \
    "$work/roctx/sim-host.session2.xplane.pb" --bands 1 --marks 0 --labelled 1 \
    --process-bands 1
echo "xprof trace_viewer check passed"
