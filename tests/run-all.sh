#!/usr/bin/env bash
# Runs every test of the project: Rust (workspace, and the product's suites under every
# simulated ROCm release), C++ drop-in (plain and ASan/UBSan, and plain under ROCm 10.1),
# the simulated HIP runtime program, `record` with the tool library, xprof's conversion of a
# replayed trace, a real JAX (CPU) trace read by the command, and the offline Bazel build. Installs the Debian packages it
# needs when they are missing and it can.
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
apt_log="$target_dir/run-all-apt.log"

echo "== what this downloads when it is not cached yet:"
echo "   Debian packages (apt, only missing ones, only as root), Rust crates from crates.io"
echo "   (cargo, into ~/.cargo), PyPI packages into venvs under $target_dir: xprof (tests/xprof),"
echo "   jax[cpu] (tests/jax), and about 0.4-0.6 GB (2.2 GB installed) for the real JAX ROCm plugins"
echo "   (tests/jax-rocm, one venv per line: jax==0.12.0.1 jaxlib==0.12.0.1 with jax-rocm7-pjrt and"
echo "   jax-rocm7-plugin 0.12.0, and with jax-rocm10-pjrt and jax-rocm10-plugin 0.12.0; Python 3.12),"
echo "   and maturin (python/build-wheel.sh, into a venv under $target_dir)"

need_pkgs=()
for pkg in libgtest-dev libgmock-dev libabsl-dev protobuf-compiler libprotobuf-dev cmake bazel-bootstrap binutils python3-venv; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_pkgs+=("$pkg")
done
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing Debian packages: ${need_pkgs[*]} (apt output in $apt_log)"
    # apt's progress is noise when it works: it goes to a log, printed only if apt fails.
    mkdir -p "$(dirname "$apt_log")"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${need_pkgs[@]}"; } >"$apt_log" 2>&1; then
      cat "$apt_log" >&2
      echo "apt-get failed installing ${need_pkgs[*]} (log above, kept in $apt_log)" >&2
      exit 1
    fi
  else
    echo "missing Debian packages: ${need_pkgs[*]} (run as root, or install them)" >&2
    exit 1
  fi
fi

echo "== Rust: cargo test --workspace"
# Build first: cargo test builds libraries as rlibs only, and the simulator's tests inspect
# its cdylib (exports, SONAME). `--all-targets` builds the tests and benches too, with the
# features that the dev-dependencies add (cargo unifies them only when dev targets are
# built), so `cargo test` compiles nothing again: the workspace is built once.
cargo build --workspace --all-targets --locked
cargo test --workspace --locked

echo "== fuzz targets compile (fuzz/, outside the workspace; they run under cargo-fuzz)"
# Checked, not run: without this they went stale unseen when the decoder's fields changed.
cargo check --locked --manifest-path fuzz/Cargo.toml --bins

echo "== every simulated ROCm release: tracer and collector suites, every scenario replay"
tests/releases/run.sh

echo "== Rust: cargo test --release --workspace (optimized code; the stress, fault and property tests among them)"
# Build first, as above: some tests inspect the release cdylib.
cargo build --release --workspace --all-targets --locked
cargo test --release --workspace --locked

echo "== C++ drop-in (GoogleTest), then under AddressSanitizer + UndefinedBehaviorSanitizer"
tests/cpp/run.sh
tests/cpp/run.sh --sanitize
echo "== C++ drop-in under ROCm 10.1 (the default run above is 7.1; docs/simulator-fidelity.md#the-ledger)"
ROCSIM_MACHINE='rocm = "10.1"' tests/cpp/run.sh

echo "== HIP host program on the simulated HIP runtime"
tests/hip/run.sh

echo "== xla-rocm-tracer record: the tool library loaded into a HIP program (ROCP_TOOL_LIBRARIES)"
tests/record/run.sh

echo "== xprof trace_viewer conversion of a replayed trace"
tests/xprof/run.sh

echo "== JAX on its CPU backend (PyPI jax[cpu]): a real XSpace read by inspect and convert"
tests/jax/run.sh

echo "== the real JAX ROCm plugins (PyPI) on the simulated GPU: jax-rocm7 on ROCm 7.14, jax-rocm10 on 10.1; XLA's own tracer and ours in one process, seven matmul shapes and a ROCTx workload each"
python3 tests/jax-rocm/test_compare.py
tests/jax-rocm/run.sh "$target_dir/jax-rocm/out"
echo "== JAX's auto-PGLE on both plugins: XLA profiler sessions back to back in many processes, alone and with our capture beside them (no hang; ours holds every GPU event of XLA's sessions)"
tests/jax-rocm/pgle.sh "$target_dir/jax-rocm/pgle"

echo "== the Python package (maturin wheel) in a fresh venv with the real JAX ROCm plugin: import xla_rocm_tracer, python -m, a late import, record --logdir of a jax.distributed job"
tests/python/run.sh "$target_dir/python/out"

echo "== Bazel 4.2.3 offline build and test of the XLA-shaped example workspace"
tests/bazel/run.sh

echo "all test suites passed"
