#!/usr/bin/env bash
# JAX's automatic PGLE (profile-guided latency estimator) on the real JAX ROCm plugins and the
# simulated GPU (issue 36, docs/jax-rocm.md#pgle): many processes in a row, each opening XLA
# profiler sessions back to back (pgle.py), first with XLA's tracer alone, then with ours
# capturing the whole run beside it. A process that does not finish within PGLE_TIMEOUT
# seconds (default 120) is a hang, and fails the run; so does a process whose JAX sessions hold
# a GPU event our capture lacks. Empty XLA sessions (the SDK delivers a kernel's record a lag
# after it ends, and XLA's Disable does not wait for it) are counted for both variants.
#
# Usage: tests/jax-rocm/pgle.sh [--plugin LINE ...] OUTDIR [PROCESSES]   (default 6 per variant)
#   OUTDIR/pgle-summary.txt   per line and variant: processes, sessions, empty sessions, hangs
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lines=()
while [ $# -gt 0 ] && [ "$1" = --plugin ]; do
    [ $# -ge 2 ] || { echo "--plugin takes a line (rocm7, rocm10)" >&2; exit 2; }
    lines+=("$2")
    shift 2
done
if [ $# -lt 1 ]; then
    echo "usage: $0 [--plugin rocm7|rocm10 ...] OUTDIR [PROCESSES]" >&2
    exit 2
fi
outdir="$(mkdir -p "$1" && cd "$1" && pwd)"
processes="${2:-6}"
timeout_s="${PGLE_TIMEOUT:-120}"

setup_line="${lines[0]:-rocm7}"
. "$here/setup.sh"
[ ${#lines[@]} -gt 0 ] || lines=("${plugin_lines[@]}")
cargo build --quiet --release -p xla-rocm-tracer-tool
tool_library="$target_dir/release/libxla_rocm_tracer_tool.so"

summary="$outdir/pgle-summary.txt"
: >"$summary"
for line in "${lines[@]}"; do
    use_plugin "$line"
    for variant in xla ours; do
        sessions=0 empty=0 hangs=0
        for i in $(seq 1 "$processes"); do
            run="$outdir/$line/$variant/$i"
            rm -rf "$run"
            mkdir -p "$run"
            extra_env=() ours_args=()
            if [ $variant = ours ]; then
                extra_env=(ROCP_TOOL_LIBRARIES="$tool_library")
                ours_args=(--ours "$tool_library" --ours-out "$run/ours.xplane.pb")
            fi
            status=0
            "$here/with_fake_kfd.sh" env JAX_PLATFORMS=rocm LD_LIBRARY_PATH="$library_path" \
                ROCSIM_MACHINE="$plugin_machine" "${extra_env[@]}" \
                timeout --kill-after=10 "$timeout_s" "$venv/bin/python" "$here/pgle.py" "${ours_args[@]}" \
                >"$run/out.json" 2>"$run/jax.log" || status=$?
            if [ $status = 124 ] || [ $status = 137 ]; then
                hangs=$((hangs + 1))
                echo "$line $variant process $i: no end within $timeout_s s (a hang; log: $run/jax.log)" >&2
                continue
            fi
            [ $status = 0 ] || { tail -20 "$run/jax.log" >&2; fail "$line $variant process $i: status $status (log: $run/jax.log)"; }
            read -r s e < <(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print(r["sessions"], r["empty"])' "$run/out.json")
            sessions=$((sessions + s))
            empty=$((empty + e))
        done
        printf '%-7s %-4s %2d processes, %3d XLA sessions, %3d empty, %d hangs\n' \
            "$line" "$variant" "$processes" "$sessions" "$empty" "$hangs" | tee -a "$summary"
        [ $hangs = 0 ] || fail "$line $variant: $hangs of $processes processes hung"
        # Empty sessions come and go with timing (10 to 20 percent here, either variant); most
        # empty means XLA's tracer lost its sessions.
        [ $((empty * 2)) -le "$sessions" ] || fail "$line $variant: $empty of $sessions XLA sessions empty"
    done
done
echo "pgle: ${lines[*]}, $processes processes per variant, no hang, our captures hold every GPU event of XLA's sessions; $summary"
