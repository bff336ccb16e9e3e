#!/usr/bin/env bash
# Builds the Python wheel (docs/python.md): the tool library in release, staged as the wheel's
# data (`<prefix>/lib/xla-rocm-tracer/`), then maturin builds the command into it.
#   python/build-wheel.sh [OUTDIR]     # default OUTDIR: <target>/wheels; prints the wheel's path
# maturin comes from PyPI into $MATURIN_VENV (default <target>/maturin-venv), once.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
outdir="${1:-$target_dir/wheels}"
venv="${MATURIN_VENV:-$target_dir/maturin-venv}"
log="$target_dir/build-wheel.log"
mkdir -p "$target_dir" "$outdir"
outdir="$(cd "$outdir" && pwd)" # maturin runs in python/: a relative OUTDIR is the caller's

if ! "$venv/bin/maturin" --version >/dev/null 2>&1; then
    echo "installing maturin from PyPI into $venv (once)" >&2
    { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet "maturin>=1.5,<2"; } >"$log" 2>&1 ||
        { cat "$log" >&2; echo "could not install maturin (log above)" >&2; exit 1; }
fi

(cd "$repo" && cargo build --quiet --release --locked -p xla-rocm-tracer-tool)
data="$repo/python/build/wheel-data"
rm -rf "$data"
mkdir -p "$data/data/lib/xla-rocm-tracer"
cp "$target_dir/release/libxla_rocm_tracer_tool.so" "$data/data/lib/xla-rocm-tracer/"

# A plain `linux_x86_64` wheel for this machine's glibc: the command links the C++ runtime
# and the tool library links the SDK's soname, which auditwheel's manylinux policies refuse.
rm -f "$outdir"/xla_rocm_tracer-*.whl
(cd "$repo/python" && "$venv/bin/maturin" build --quiet --release --locked --compatibility linux \
    --skip-auditwheel --out "$outdir") >"$log" 2>&1 ||
    { cat "$log" >&2; echo "maturin build failed (log above)" >&2; exit 1; }
ls "$outdir"/xla_rocm_tracer-*.whl
