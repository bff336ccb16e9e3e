# Sourced by tests/jax-rocm/run.sh and tests/python/run.sh: the JAX venv with the real ROCm
# plugin (downloaded once, about 1.2 GB), the simulated HIP runtime and SDK under their real
# SONAMEs, the plugin's stand-in libraries, the command, and xprof's venv. Defines repo,
# target_dir, venv, site, plugin, stage, library_path, cli, xprof_venv and fail.
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$repo/tests/jax-rocm"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
venv="${JAX_ROCM_VENV:-$target_dir/jax-rocm-venv}"
stage="$target_dir/jax-rocm"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# --- Python 3.12: on PATH, else pyenv's ----------------------------------------------------
find_python312() {
    local candidate
    for candidate in python3.12 "$(command -v pyenv >/dev/null 2>&1 && pyenv root 2>/dev/null)/versions/"3.12*/bin/python3.12 \
        "${PYENV_ROOT:-$HOME/.pyenv}/versions/"3.12*/bin/python3.12; do
        if [ -n "$candidate" ] && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
            command -v "$candidate" 2>/dev/null || echo "$candidate"
            return 0
        fi
    done
    return 1
}

# --- the venv (cached) -----------------------------------------------------------------------
plugin_ok() {
    "$venv/bin/python" -c 'import jax, jax_plugins.xla_rocm7, jax_rocm7_plugin' 2>/dev/null
}
if [ ! -x "$venv/bin/python" ] || ! plugin_ok; then
    python312="$(find_python312)" ||
        fail "Python 3.12 not found (on PATH or under pyenv): jax-rocm7-plugin 0.12.0 has cp312+ wheels only"
    echo "downloading from PyPI into $venv (once, about 1.2 GB): jax==0.12.0.1 jaxlib==0.12.0.1, then jax-rocm7-pjrt==0.12.0 jax-rocm7-plugin==0.12.0 (--no-deps)" >&2
    mkdir -p "$stage"
    pip_log="$stage/pip.log"
    if ! { "$python312" -m venv "$venv" &&
        "$venv/bin/pip" install --quiet jax==0.12.0.1 jaxlib==0.12.0.1 &&
        "$venv/bin/pip" install --quiet --no-deps jax-rocm7-pjrt==0.12.0 jax-rocm7-plugin==0.12.0; } >"$pip_log" 2>&1; then
        fail "download from PyPI failed: jax==0.12.0.1 jaxlib==0.12.0.1 jax-rocm7-pjrt==0.12.0 jax-rocm7-plugin==0.12.0 (pip log: $pip_log)"
    fi
    plugin_ok || fail "the venv $venv does not import jax and the ROCm plugin after installing (pip log: $pip_log)"
fi
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
plugin="$site/jax_plugins/xla_rocm7/xla_rocm_plugin.so"

# --- the simulated libraries under their real SONAMEs, and the stand-ins ------------------
cd "$repo"
cargo build --quiet --release -p rocprofiler-sdk-sim -p hip-runtime-sim
cargo build --quiet -p xla-rocm-tracer-cli
cli="$target_dir/debug/xla-rocm-tracer"
mkdir -p "$stage/lib"
ln -sf "$target_dir/release/libamdhip64.so" "$stage/lib/libamdhip64.so.7"
ln -sf "$target_dir/release/librocprofiler_sdk_sim.so" "$stage/lib/librocprofiler-sdk.so.1"
# The simulated ROCTx library, where the tree has it (else drive.py --roctx falls back to the
# ROCTx functions the simulated SDK library exports).
rm -f "$stage/lib/librocprofiler-sdk-roctx.so.1"
if [ -d "$repo/crates/rocprofiler-sdk-roctx-sim" ]; then
    cargo build --quiet --release -p rocprofiler-sdk-roctx-sim
    ln -sf "$target_dir/release/librocprofiler_sdk_roctx_sim.so" "$stage/lib/librocprofiler-sdk-roctx.so.1"
fi
if [ ! -f "$stage/stand-ins/.plugin" ] || [ "$(cat "$stage/stand-ins/.plugin")" != "$plugin" ] ||
    [ "$here/make_stand_ins.py" -nt "$stage/stand-ins/.plugin" ]; then
    python3 "$here/make_stand_ins.py" "$plugin" "$stage/stand-ins" >/dev/null
    echo "$plugin" >"$stage/stand-ins/.plugin"
fi
library_path="$stage/lib:$stage/stand-ins"

# xprof (for the trace_viewer check), in the venv tests/xprof uses.
xprof_venv="${XPROF_VENV:-$target_dir/xprof-venv}"
if [ ! -x "$xprof_venv/bin/python" ] || ! "$xprof_venv/bin/python" -c 'import xprof' 2>/dev/null; then
    echo "creating xprof venv in $xprof_venv" >&2
    python3 -m venv "$xprof_venv"
    "$xprof_venv/bin/pip" install --quiet xprof || fail "download of xprof from PyPI failed"
fi

