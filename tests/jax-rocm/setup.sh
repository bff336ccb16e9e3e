# Sourced by tests/jax-rocm/run.sh and tests/python/run.sh: the JAX venvs with the real ROCm
# plugins (one per plugin line, each downloaded once), the simulated HIP runtime and SDK under
# their real SONAMEs, each plugin's stand-in libraries, the command, and xprof's venv. Defines
# repo, here, target_dir, stage, cli, xprof_venv, fail, plugin_lines and use_plugin.
# `use_plugin LINE` (rocm7 or rocm10) sets up that line's venv and stand-ins and defines venv,
# site, plugin, plugin_machine, plugin_title and library_path for it; sourcing this file selects
# $setup_line if the sourcing script set it, else rocm7 (tests/python/run.sh runs that one).
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$repo/tests/jax-rocm"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
stage="$target_dir/jax-rocm"
jax_requirements=(jax==0.12.0.1 jaxlib==0.12.0.1)
plugin_version=0.12.0

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# --- the plugin lines: the one place they differ (docs/jax-rocm.md) -------------------------
# LINE -> the ROCm release its wheels were built for (the pjrt wheel's summary, "JAX XLA PJRT
# Plugin for AMD GPUs (ROCm:7.14.0)" / "(ROCm:10.1.0)"), which the simulated machine then runs
# (ROCSIM_MACHINE, crates/rocprofiler-sdk-sim/src/machine.rs). Everything else follows the
# line's name: the wheels jax-LINE-pjrt and jax-LINE-plugin, the modules jax_plugins.xla_LINE
# and jax_LINE_plugin. Each line has its own venv: two plugins in one venv would both register
# as JAX's `rocm` platform (and the pjrt package's __init__ tries jax_rocm10_plugin's extension
# first, whichever line it belongs to).
plugin_lines=(rocm7 rocm10)
declare -A plugin_release=([rocm7]=7.14 [rocm10]=10.1)
declare -A plugin_venv=(
    [rocm7]="${JAX_ROCM_VENV:-$target_dir/jax-rocm-venv}"
    [rocm10]="${JAX_ROCM10_VENV:-$target_dir/jax-rocm10-venv}"
)

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

# --- a line's venv (cached): jax and jaxlib (pip's cache serves the second line), then the
# line's two wheels without their dependencies ----------------------------------------------
plugin_ok() {
    "$venv/bin/python" -c "import jax, jax_plugins.xla_$1, jax_$1_plugin" 2>/dev/null
}
make_venv() {
    local line="$1" python312 pip_log wheels
    wheels=("jax-$line-pjrt==$plugin_version" "jax-$line-plugin==$plugin_version")
    python312="$(find_python312)" ||
        fail "Python 3.12 not found (on PATH or under pyenv): jax-$line-plugin $plugin_version has cp312+ wheels only"
    echo "downloading from PyPI into $venv (once; about 280 MB, 1.1 GB installed; jax and jaxlib, 140 MB of it, come from pip's cache where another line put them): ${jax_requirements[*]}, then ${wheels[*]} (--no-deps)" >&2
    mkdir -p "$stage"
    pip_log="$stage/pip-$line.log"
    if ! { "$python312" -m venv "$venv" &&
        "$venv/bin/pip" install --quiet "${jax_requirements[@]}" &&
        "$venv/bin/pip" install --quiet --no-deps "${wheels[@]}"; } >"$pip_log" 2>&1; then
        fail "download from PyPI failed: ${jax_requirements[*]} ${wheels[*]} (pip log: $pip_log)"
    fi
    plugin_ok "$line" || fail "the venv $venv does not import jax and the $line plugin after installing (pip log: $pip_log)"
}

# --- the simulated libraries under their real SONAMEs (shared by the lines) ------------------
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

# --- one line: its venv, its plugin, its stand-ins (the sonames its plugin names) ------------
use_plugin() {
    local line="$1" stand_ins
    [ -n "${plugin_release[$line]:-}" ] || fail "unknown plugin line '$line' (known: ${plugin_lines[*]})"
    venv="${plugin_venv[$line]}"
    if [ ! -x "$venv/bin/python" ] || ! plugin_ok "$line"; then
        make_venv "$line"
    fi
    site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    plugin="$site/jax_plugins/xla_$line/xla_rocm_plugin.so"
    plugin_machine="rocm = \"${plugin_release[$line]}\""
    plugin_title="jax-$line-plugin $plugin_version on ROCm ${plugin_release[$line]} (ROCSIM_MACHINE='$plugin_machine')"
    stand_ins="$stage/stand-ins/$line"
    if [ ! -f "$stand_ins/.plugin" ] || [ "$(cat "$stand_ins/.plugin")" != "$plugin" ] ||
        [ "$here/make_stand_ins.py" -nt "$stand_ins/.plugin" ]; then
        rm -rf "$stand_ins"
        python3 "$here/make_stand_ins.py" "$plugin" "$stand_ins" >/dev/null
        echo "$plugin" >"$stand_ins/.plugin"
    fi
    library_path="$stage/lib:$stand_ins"
}

# xprof (for the trace_viewer check), in the venv tests/xprof uses.
xprof_venv="${XPROF_VENV:-$target_dir/xprof-venv}"
if [ ! -x "$xprof_venv/bin/python" ] || ! "$xprof_venv/bin/python" -c 'import xprof' 2>/dev/null; then
    echo "creating xprof venv in $xprof_venv" >&2
    python3 -m venv "$xprof_venv"
    "$xprof_venv/bin/pip" install --quiet xprof || fail "download of xprof from PyPI failed"
fi

use_plugin "${setup_line:-rocm7}"
