#!/usr/bin/env bash
# The real JAX ROCm plugin on the simulated GPU (docs/jax-rocm.md): runs
# examples/jax_matmul.py's GPU path with JAX_PLATFORMS=rocm under jax.profiler.trace, one
# matmul shape per process, on the simulated libamdhip64.so.7 and librocprofiler-sdk.so.1,
# and checks the trace XLA's own ROCm tracer (inside the plugin) wrote.
#
# Usage: tests/jax-rocm/run.sh [--xla-only] OUTDIR [MxKxN[-roctx] ...]
#   OUTDIR/<shape>/xla.xplane.pb   XLA's trace (jax.profiler), per shape
#   OUTDIR/<shape>/ours.xplane.pb  ours, from libxla_rocm_tracer_tool.so in the same process,
#                                  over the same window (drive.py), compared by compare.py
#   OUTDIR/summary.txt             kernel, copy and lane counts per shape, and the comparison
# MxKxN-roctx is the ROCTx workload (drive.py --roctx). --xla-only skips producing and
# comparing ours.xplane.pb, saying so in the summary.
#
# Downloads once, into $JAX_ROCM_VENV (default: target dir/jax-rocm-venv), about 1.2 GB from
# PyPI: jax==0.12.0.1 and jaxlib==0.12.0.1 (with numpy, scipy, ml_dtypes, opt_einsum), then
# jax-rocm7-pjrt==0.12.0 and jax-rocm7-plugin==0.12.0 (without dependencies). Needs Python
# 3.12 (the plugin's wheels are cp312+), a C compiler, readelf/nm, and `unshare` (root, or
# unprivileged user namespaces) for the fake KFD topology that passes JAX's GPU check.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

xla_only=0
if [ "${1:-}" = "--xla-only" ]; then
    xla_only=1
    shift
fi
if [ $# -lt 1 ]; then
    echo "usage: $0 [--xla-only] OUTDIR [MxKxN ...]" >&2
    exit 2
fi
outdir="$(mkdir -p "$1" && cd "$1" && pwd)"
shift
shapes=("$@")
if [ ${#shapes[@]} -eq 0 ]; then
    shapes=(8x8x8 8x32x32 8x128x128 8x256x8 8x512x8 8x1024x256 1024x1024x1024 8x128x128-roctx)
fi

# The venv, the simulated libraries, the stand-ins and xprof: $venv, $library_path, $cli,
# $xprof_venv, fail (shared with tests/python/run.sh).
. "$here/setup.sh"

# --- ours: the project's tracer as a second rocprofiler-sdk tool in the same process ---------
# The SDK loads it through ROCP_TOOL_LIBRARIES beside XLA's forced tool; drive.py starts and
# stops its capture inside jax.profiler.trace's window and writes ours.xplane.pb.
tool_library="$target_dir/release/libxla_rocm_tracer_tool.so"
if [ $xla_only = 0 ]; then
    cargo build --quiet --release -p xla-rocm-tracer-tool
fi

# --- one process per shape -------------------------------------------------------------------
summary="$outdir/summary.txt"
: >"$summary"
for shape in "${shapes[@]}"; do
    run="$outdir/$shape"
    rm -rf "$run"
    mkdir -p "$run"
    extra_env=()
    ours_args=()
    if [ $xla_only = 0 ]; then
        extra_env=(ROCP_TOOL_LIBRARIES="$tool_library")
        ours_args=(--ours "$tool_library" --ours-out "$run/ours.xplane.pb")
    fi
    # MxKxN-roctx: the ROCTx workload (ranges and a mark around the matmul steps, drive.py).
    dims="${shape%-roctx}"
    variant_args=()
    compare_args=()
    if [ "$dims" != "$shape" ]; then
        variant_args=(--roctx)
        compare_args=(--roctx before_matmul,matmul,matmul_steps)
    fi
    start=$(date +%s%N)
    # Only JAX_PLATFORMS and the library path are set for JAX (plus, once wired, our tool).
    if ! "$here/with_fake_kfd.sh" env JAX_PLATFORMS=rocm LD_LIBRARY_PATH="$library_path" "${extra_env[@]}" \
        "$venv/bin/python" "$here/drive.py" --shape "$dims" --logdir "$run/logdir" --tracer "$cli" "${ours_args[@]}" "${variant_args[@]}" \
        >"$run/jax.log" 2>&1; then
        tail -30 "$run/jax.log" >&2
        fail "$shape: the workload failed (log: $run/jax.log)"
    fi
    ms=$((($(date +%s%N) - start) / 1000000))
    mapfile -t traces < <(find "$run/logdir" -name '*.xplane.pb')
    [ "${#traces[@]}" -eq 1 ] || fail "$shape: expected one .xplane.pb under $run/logdir, found ${#traces[@]}"
    cp "${traces[0]}" "$run/xla.xplane.pb"
    counts="$(python3 "$here/check_xla_trace.py" "$run/xla.xplane.pb" --shape "$dims")" ||
        fail "$shape: XLA's trace (log: $run/jax.log)"
    TF_CPP_MIN_LOG_LEVEL=3 "$xprof_venv/bin/python" "$here/check_trace_viewer.py" "$run/xla.xplane.pb" \
        >"$run/trace_viewer.txt" 2>"$run/trace_viewer.log" ||
        { cat "$run/trace_viewer.log" >&2; fail "$shape: xprof's trace_viewer conversion of XLA's trace"; }
    if [ $xla_only = 0 ]; then
        [ -f "$run/ours.xplane.pb" ] || fail "$shape: our tool wrote no $run/ours.xplane.pb"
        TF_CPP_MIN_LOG_LEVEL=3 "$xprof_venv/bin/python" "$here/check_trace_viewer.py" "$run/ours.xplane.pb" \
            >"$run/trace_viewer_ours.txt" 2>"$run/trace_viewer_ours.log" ||
            { cat "$run/trace_viewer_ours.log" >&2; fail "$shape: xprof's trace_viewer conversion of our trace"; }
        python3 "$here/compare.py" "$run/xla.xplane.pb" "$run/ours.xplane.pb" "${compare_args[@]}" >"$run/compare.txt" ||
            { cat "$run/compare.txt" >&2; fail "$shape: our trace differs from XLA's"; }
    fi
    printf '%-16s %3d.%01d s  xla: %s\n' "$shape" $((ms / 1000)) $((ms % 1000 / 100)) "$counts" | tee -a "$summary"
    [ $xla_only = 1 ] || printf '%-16s          ours: %s\n' "" "$(cat "$run/compare.txt")" | tee -a "$summary"
done
if [ $xla_only = 1 ]; then
    echo "ours.xplane.pb: not produced (--xla-only)" | tee -a "$summary"
fi
echo "jax-rocm: ${#shapes[@]} shapes passed; traces under $outdir"
