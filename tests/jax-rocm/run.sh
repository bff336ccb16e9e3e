#!/usr/bin/env bash
# The real JAX ROCm plugins on the simulated GPU (docs/jax-rocm.md): runs
# examples/jax_matmul.py's GPU path with JAX_PLATFORMS=rocm under jax.profiler.trace, one
# matmul shape per process, on the simulated libamdhip64.so.7 and librocprofiler-sdk.so.1,
# and checks the trace XLA's own ROCm tracer (inside the plugin) wrote. Each plugin line runs on
# the simulated ROCm release its wheels were built for (ROCSIM_MACHINE, setup.sh's table):
# jax-rocm7-plugin 0.12.0 on 7.14, jax-rocm10-plugin 0.12.0 on 10.1.
#
# Usage: tests/jax-rocm/run.sh [--xla-only] [--plugin LINE ...] OUTDIR [MxKxN[-roctx] ...]
#   OUTDIR/<shape>/xla.xplane.pb   XLA's trace (jax.profiler), per shape (jax-rocm7)
#   OUTDIR/<shape>/ours.xplane.pb  ours, from libxla_rocm_tracer_tool.so in the same process,
#                                  over the same window (drive.py), compared by compare.py
#   OUTDIR/rocm10/<shape>/...      the same for jax-rocm10
#   OUTDIR/summary.txt             per plugin line (a header naming plugin and release), kernel,
#                                  copy and lane counts per shape, and the comparison
# MxKxN-roctx is the ROCTx workload (drive.py --roctx). --xla-only skips producing and
# comparing ours.xplane.pb, saying so in the summary. --plugin rocm7 or rocm10 (repeatable)
# runs only those lines; the default is both, every shape.
#
# Downloads once per line, into its venv (target dir/jax-rocm-venv for rocm7, or $JAX_ROCM_VENV;
# target dir/jax-rocm10-venv, or $JAX_ROCM10_VENV, for rocm10; 1.1 GB each): from PyPI,
# jax==0.12.0.1 and jaxlib==0.12.0.1 (with numpy, scipy, ml_dtypes, opt_einsum; about 140 MB,
# from pip's cache for the second line where pip keeps one), then jax-LINE-pjrt==0.12.0 and
# jax-LINE-plugin==0.12.0 (without dependencies; about 140 MB). Needs Python 3.12 (the
# plugins' wheels are cp312+), a C compiler, readelf/nm, and `unshare` (root, or unprivileged
# user namespaces) for the fake KFD topology that passes JAX's GPU check.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

xla_only=0
lines=()
while [ $# -gt 0 ]; do
    case "$1" in
    --xla-only) xla_only=1 ;;
    --plugin)
        [ $# -ge 2 ] || { echo "--plugin takes a line (rocm7, rocm10)" >&2; exit 2; }
        lines+=("$2")
        shift
        ;;
    *) break ;;
    esac
    shift
done
if [ $# -lt 1 ]; then
    echo "usage: $0 [--xla-only] [--plugin rocm7|rocm10 ...] OUTDIR [MxKxN ...]" >&2
    exit 2
fi
outdir="$(mkdir -p "$1" && cd "$1" && pwd)"
shift
shapes=("$@")
if [ ${#shapes[@]} -eq 0 ]; then
    shapes=(8x8x8 8x32x32 8x128x128 8x256x8 8x512x8 8x1024x256 1024x1024x1024 8x128x128-roctx)
fi

# The simulated libraries, the command and xprof ($cli, $xprof_venv, fail), and use_plugin
# (each line's venv and stand-ins: $venv, $library_path, $plugin_machine, $plugin_title); shared
# with tests/python/run.sh.
setup_line="${lines[0]:-rocm7}"
. "$here/setup.sh"
[ ${#lines[@]} -gt 0 ] || lines=("${plugin_lines[@]}")
for line in "${lines[@]}"; do
    use_plugin "$line" # the venvs first: a download fails before any run
done

# --- ours: the project's tracer as a second rocprofiler-sdk tool in the same process ---------
# The SDK loads it through ROCP_TOOL_LIBRARIES beside XLA's forced tool; drive.py starts and
# stops its capture inside jax.profiler.trace's window and writes ours.xplane.pb.
tool_library="$target_dir/release/libxla_rocm_tracer_tool.so"
if [ $xla_only = 0 ]; then
    cargo build --quiet --release -p xla-rocm-tracer-tool
fi

# --- one process per shape, on the line's release --------------------------------------------
# $1: the directory of the line's shapes. Uses use_plugin's variables.
run_shapes() {
    local base="$1" shape run dims ms counts start
    for shape in "${shapes[@]}"; do
        run="$base/$shape"
        rm -rf "$run"
        mkdir -p "$run"
        local extra_env=() ours_args=() variant_args=() compare_args=() traces=()
        if [ $xla_only = 0 ]; then
            extra_env=(ROCP_TOOL_LIBRARIES="$tool_library")
            ours_args=(--ours "$tool_library" --ours-out "$run/ours.xplane.pb")
        fi
        # MxKxN-roctx: the ROCTx workload (ranges and a mark around the matmul steps, drive.py).
        dims="${shape%-roctx}"
        if [ "$dims" != "$shape" ]; then
            variant_args=(--roctx)
            compare_args=(--roctx before_matmul,matmul,matmul_steps)
        fi
        start=$(date +%s%N)
        # Only JAX_PLATFORMS, the library path and the simulated machine's release are set for
        # JAX (plus our tool).
        if ! "$here/with_fake_kfd.sh" env JAX_PLATFORMS=rocm LD_LIBRARY_PATH="$library_path" \
            ROCSIM_MACHINE="$plugin_machine" "${extra_env[@]}" \
            "$venv/bin/python" "$here/drive.py" --shape "$dims" --logdir "$run/logdir" --tracer "$cli" --plugin "$line" "${ours_args[@]}" "${variant_args[@]}" \
            >"$run/jax.log" 2>&1; then
            tail -30 "$run/jax.log" >&2
            fail "$line $shape: the workload failed (log: $run/jax.log)"
        fi
        ms=$((($(date +%s%N) - start) / 1000000))
        mapfile -t traces < <(find "$run/logdir" -name '*.xplane.pb')
        [ "${#traces[@]}" -eq 1 ] || fail "$line $shape: expected one .xplane.pb under $run/logdir, found ${#traces[@]}"
        cp "${traces[0]}" "$run/xla.xplane.pb"
        counts="$(python3 "$here/check_xla_trace.py" "$run/xla.xplane.pb")" ||
            fail "$line $shape: XLA's trace (log: $run/jax.log)"
        TF_CPP_MIN_LOG_LEVEL=3 "$xprof_venv/bin/python" "$here/check_trace_viewer.py" "$run/xla.xplane.pb" \
            >"$run/trace_viewer.txt" 2>"$run/trace_viewer.log" ||
            { cat "$run/trace_viewer.log" >&2; fail "$line $shape: xprof's trace_viewer conversion of XLA's trace"; }
        if [ $xla_only = 0 ]; then
            [ -f "$run/ours.xplane.pb" ] || fail "$line $shape: our tool wrote no $run/ours.xplane.pb"
            TF_CPP_MIN_LOG_LEVEL=3 "$xprof_venv/bin/python" "$here/check_trace_viewer.py" "$run/ours.xplane.pb" \
                >"$run/trace_viewer_ours.txt" 2>"$run/trace_viewer_ours.log" ||
                { cat "$run/trace_viewer_ours.log" >&2; fail "$line $shape: xprof's trace_viewer conversion of our trace"; }
            python3 "$here/compare.py" "$run/xla.xplane.pb" "$run/ours.xplane.pb" "${compare_args[@]}" >"$run/compare.txt" ||
                { cat "$run/compare.txt" >&2; fail "$line $shape: our trace differs from XLA's"; }
        fi
        printf '%-16s %3d.%01d s  xla: %s\n' "$shape" $((ms / 1000)) $((ms % 1000 / 100)) "$counts" | tee -a "$summary"
        [ $xla_only = 1 ] || printf '%-16s          ours: %s\n' "" "$(cat "$run/compare.txt")" | tee -a "$summary"
    done
}

summary="$outdir/summary.txt"
: >"$summary"
for line in "${lines[@]}"; do
    use_plugin "$line"
    base="$outdir"
    [ "$line" = rocm7 ] || base="$outdir/$line"
    echo "== $plugin_title: ${#shapes[@]} shapes under $base" | tee -a "$summary"
    run_shapes "$base"
done
if [ $xla_only = 1 ]; then
    echo "ours.xplane.pb: not produced (--xla-only)" | tee -a "$summary"
fi
echo "jax-rocm: ${#lines[@]} plugin lines (${lines[*]}), ${#shapes[@]} shapes each, passed; traces under $outdir"
