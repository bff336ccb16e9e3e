#!/usr/bin/env bash
# Runs every test of the project: Rust (workspace), C++ drop-in (plain and ASan/UBSan),
# the simulated HIP runtime program, xprof's conversion of a replayed trace, and the offline
# Bazel build. Installs the Debian packages it needs when they are missing and it can.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
for pkg in libgtest-dev libgmock-dev libabsl-dev protobuf-compiler libprotobuf-dev cmake bazel-bootstrap binutils python3-venv; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_pkgs+=("$pkg")
done
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing ${need_pkgs[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}"
  else
    echo "missing Debian packages: ${need_pkgs[*]} (run as root, or install them)" >&2
    exit 1
  fi
fi

echo "== Rust: cargo test --workspace"
# Build first: cargo test builds libraries as rlibs only, and the simulator's tests inspect
# its cdylib (exports, SONAME).
cargo build --workspace --locked
cargo test --workspace --locked

echo "== Rust: cargo test --release --workspace (optimized code; the stress, fault and property tests among them)"
# Build first, as above: some tests inspect the release cdylib.
cargo build --release --workspace --locked
cargo test --release --workspace --locked

echo "== C++ drop-in (GoogleTest), then under AddressSanitizer + UndefinedBehaviorSanitizer"
tests/cpp/run.sh
tests/cpp/run.sh --sanitize

echo "== HIP host program on the simulated HIP runtime"
tests/hip/run.sh

echo "== xprof trace_viewer conversion of a replayed trace"
tests/xprof/run.sh

echo "== Bazel 4.2.3 offline build and test of the XLA-shaped example workspace"
tests/bazel/run.sh

echo "all test suites passed"
