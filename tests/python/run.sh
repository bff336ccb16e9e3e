#!/usr/bin/env bash
# The Python package as a JAX user meets it (docs/python.md): builds the wheel
# (python/build-wheel.sh), installs it with pip into a fresh venv that sees the real JAX ROCm
# plugin of tests/jax-rocm (its cached venv, through a .pth file: nothing is downloaded twice),
# then, on the simulated GPU, checks with xprof (tests/python/check_run.py) that:
#   * `examples/jax_matmul.py --xla-rocm-tracer` (`import xla_rocm_tracer` before JAX) puts a
#     file of ours into jax.profiler.trace's run, with our Stream lanes and XLA's host events;
#   * `python -m xla_rocm_tracer SCRIPT` does the same, on ROCm 7.14 (the plugin's release);
#   * imported after HIP started (XLA's tool holds the SDK): one line says why on ROCm 7.1
#     (no anytime initialization, so a second tool is refused), and on 10.1 the late tool
#     still traces;
#   * `xla-rocm-tracer record --logdir` from the installed wheel: a `jax.distributed` job of two
#     processes on localhost (tests/python/distributed.py), one simulated GPU each, both
#     processes' kernels in one run, each on its own GPU; and one process whose own
#     jax.profiler.trace shares the log folder, merged with it.
# Usage: tests/python/run.sh OUTDIR
set -euo pipefail
here_python="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
outdir="$(mkdir -p "$1" && cd "$1" && pwd)"
. "$here_python/../jax-rocm/setup.sh"

echo "== the wheel"
wheel="$("$repo/python/build-wheel.sh" "$target_dir/wheels")"
echo "$wheel"

echo "== pip install into a fresh venv (JAX and its ROCm plugin seen from $venv)"
user_venv="$outdir/venv"
rm -rf "$user_venv"
"$venv/bin/python" -m venv "$user_venv"
jax_site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
user_site="$("$user_venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$jax_site" >"$user_site/jax-rocm-venv.pth"
"$user_venv/bin/pip" install --quiet --no-deps --no-index "$wheel" ||
    fail "pip install $wheel failed"
[ "$(PATH="$user_venv/bin:$PATH" command -v xla-rocm-tracer)" = "$user_venv/bin/xla-rocm-tracer" ] ||
    fail "xla-rocm-tracer is not on the venv's PATH"
"$user_venv/bin/xla-rocm-tracer" --version
installed="$("$user_venv/bin/python" -c 'import xla_rocm_tracer; print(xla_rocm_tracer.library_path())')"
[ "$installed" = "$user_venv/lib/xla-rocm-tracer/libxla_rocm_tracer_tool.so" ] ||
    fail "the module finds the tool library at $installed, not in the venv"

# Runs the venv's Python on the simulated GPU: $1 is a name for the log, the rest its arguments.
jax_run() {
    local name="$1"
    shift
    "$here/with_fake_kfd.sh" env JAX_PLATFORMS=rocm LD_LIBRARY_PATH="$library_path" \
        PATH="$user_venv/bin:$PATH" ${ROCSIM_MACHINE:+ROCSIM_MACHINE="$ROCSIM_MACHINE"} \
        "$@" >"$outdir/$name.log" 2>&1 || { tail -30 "$outdir/$name.log" >&2; fail "$name failed (log: $outdir/$name.log)"; }
}
check_run() {
    TF_CPP_MIN_LOG_LEVEL=3 "$xprof_venv/bin/python" "$here_python/check_run.py" "$@" 2>"$outdir/check.log" ||
        { cat "$outdir/check.log" >&2; fail "xprof's view of $1"; }
}
example="$repo/examples/jax_matmul.py"

echo "== import xla_rocm_tracer, then jax.profiler.trace (ROCm 7.1)"
rm -rf "$outdir/import"
jax_run import "$user_venv/bin/python" "$example" --shape 8x8x8 --logdir "$outdir/import" --xla-rocm-tracer
check_run "$outdir/import" --processes 1 --kernels 11 --xla --merged

echo "== python -m xla_rocm_tracer SCRIPT (ROCm 7.14)"
rm -rf "$outdir/module"
ROCSIM_MACHINE='rocm = "7.14"' jax_run module "$user_venv/bin/python" -m xla_rocm_tracer "$example" \
    --shape 8x8x8 --logdir "$outdir/module"
check_run "$outdir/module" --processes 1 --kernels 11 --xla --merged

echo "== imported after HIP started, ROCm 7.1: one line says why"
rm -rf "$outdir/late"
jax_run late "$user_venv/bin/python" "$here_python/late_import.py" "$outdir/late"
said="$(grep -c "^xla-rocm-tracer tool: \|^xla_rocm_tracer: " "$outdir/late.log" || true)"
[ "$said" = 1 ] || { cat "$outdir/late.log" >&2; fail "expected one line from the tracer, got $said"; }
grep -q "^xla-rocm-tracer tool: rocprofiler-sdk was initialized without this tracer" "$outdir/late.log" ||
    fail "the line is not the SDK-held diagnosis: $(grep "xla-rocm-tracer tool" "$outdir/late.log")"
[ -z "$(find "$outdir/late" -name '*.pid*.xplane.pb')" ] || fail "a file of ours without a capture"

echo "== imported after HIP started, ROCm 10.1: the late tool traces"
rm -rf "$outdir/late-10.1"
ROCSIM_MACHINE='rocm = "10.1"' jax_run late-10.1 "$user_venv/bin/python" "$here_python/late_import.py" "$outdir/late-10.1"
check_run "$outdir/late-10.1" --processes 1 --kernels 3 --xla --merged

echo "== record --logdir: a jax.distributed job of two processes, one GPU each, under one record"
rm -rf "$outdir/two"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
job="$here_python/distributed.py"
ROCSIM_MACHINE='gpus = 2' jax_run two "$user_venv/bin/xla-rocm-tracer" record --logdir "$outdir/two/record" -- bash -c \
    "python '$job' $port 2 0 '$outdir/two/a' & python '$job' $port 2 1 '$outdir/two/b' && wait \$!"
check_run "$outdir/two/record" --processes 2 --kernels 11 --own-gpus
grep -q "^2 processes traced; their traces show" "$outdir/two.log" || fail "no total of both processes"
for id in 0 1; do
    grep -q "^process $id: ran on" "$outdir/two.log" || fail "process $id of the job did not finish"
done

echo "== record --logdir into the program's own log folder: merged with its XLA trace"
rm -rf "$outdir/shared"
jax_run shared "$user_venv/bin/xla-rocm-tracer" record --logdir "$outdir/shared" -- \
    python "$example" --shape 8x8x8 --logdir "$outdir/shared"
check_run "$outdir/shared" --processes 1 --kernels 11 --xla --merged
grep -q "XLA's host planes from" "$outdir/shared.log" || fail "record did not merge with XLA's trace"

echo "tests/python/run.sh: all passed; logs and log folders under $outdir"
