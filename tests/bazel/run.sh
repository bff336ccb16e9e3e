#!/usr/bin/env bash
# Builds the Rust pieces with cargo, then runs `bazel build //... && bazel test //...` in the
# example workspace with Debian's Bazel 4.2.3, fully offline: as root, Bazel runs in a network
# namespace of its own (`unshare -n`, only loopback up), so nothing it runs can reach the
# network. Its cargo action builds the staticlib from scratch in Bazel's sandbox, from the
# crates its repository rule vendored out of cargo's cache (bazel/crates.bzl). Installs
# bazel-bootstrap and the other Debian packages it needs when they are missing (CI machines
# are fresh).
#
# Environment:
#   CARGO_TARGET_DIR           cargo's target dir for the pieces built before Bazel
#                              (default: <repo>/target).
#   BAZEL_OUTPUT_USER_ROOT     Bazel's --output_user_root (default: $TMPDIR/xla-rocm-tracer-bazel-$UID).
#   XLA_ROCM_TRACER_BAZEL_NETWORK=1  do not block the network (the check then proves less).
set -euo pipefail

example_dir="$(cd "$(dirname "$0")" && pwd)"
repo_dir="$(cd "$example_dir/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo_dir/target}"
output_user_root="${BAZEL_OUTPUT_USER_ROOT:-${TMPDIR:-/tmp}/xla-rocm-tracer-bazel-$(id -u)}"

# Bazel itself, plus what the example workspace's stand-ins point at (/usr): GoogleTest,
# Abseil, protobuf and protoc.
need_pkgs=()
for pkg in bazel-bootstrap libgtest-dev libgmock-dev libabsl-dev libprotobuf-dev protobuf-compiler g++; do
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

echo "== cargo: the Rust staticlib and the simulated librocprofiler-sdk.so"
(
  cd "$repo_dir"
  # The only network use: crates.io, when the registry cache lacks a locked crate. Bazel's
  # repository rule then vendors from the cache and its cargo action runs --offline.
  cargo fetch --locked
  # The archive must not link a ROCm install: the final link brings the SDK.
  env -u ROCPROFILER_SDK_LIB_DIR -u ROCM_PATH \
    cargo build --release --locked --offline -p xla-rocm-tracer -p rocprofiler-sdk-sim --lib
)
release_dir="$CARGO_TARGET_DIR/release"

# @local_config_rocm's rocm/lib, like %{rocm_root}/lib in XLA. The file carries the SONAME's
# name, so the loader finds it in the folder Bazel points the test's rpath at.
rocm_lib="$example_dir/third_party/local_config_rocm/rocm/lib"
mkdir -p "$rocm_lib"
install -m 0755 "$release_dir/librocprofiler_sdk_sim.so" "$rocm_lib/librocprofiler-sdk.so.1"

# The prebuilt-archive variant (//prebuilt): the .a and the bridge headers cargo wrote.
prebuilt="$example_dir/prebuilt/staticlib"
rm -rf "$prebuilt"
mkdir -p "$prebuilt/include"
cp "$release_dir/libxla_rocm_tracer.a" "$prebuilt/"
cp -rL "$CARGO_TARGET_DIR/cxxbridge/." "$prebuilt/include/"
if [ -f "$repo_dir/include/xla_rocm_tracer.h" ]; then
  cp "$repo_dir/include/xla_rocm_tracer.h" "$prebuilt/include/"
fi

echo "== bazel build //... && bazel test //... (Bazel 4.2.3, offline)"
cd "$example_dir"
bazel_cmd=(bazel --output_user_root="$output_user_root" --max_idle_secs=120)
flags=(
  # The repository rule vendors the crates from cargo's cache (filled by cargo fetch above).
  --repo_env=XLA_ROCM_TRACER_CARGO_OFFLINE=1
  # The cargo action finds the toolchain (rustup's proxies read HOME).
  --action_env=PATH --action_env=HOME
)
# A server started earlier (outside the namespace below) would run the actions with network.
"${bazel_cmd[@]}" shutdown >/dev/null 2>&1 || true
run_bazel="${bazel_cmd[*]@Q}"
script="set -e
$run_bazel build ${flags[*]@Q} //...
$run_bazel test ${flags[*]@Q} //...
$run_bazel shutdown"
if [ "${XLA_ROCM_TRACER_BAZEL_NETWORK:-0}" != 1 ] && [ "$(id -u)" = 0 ] \
    && unshare -n true 2>/dev/null; then
  echo "   (network blocked: unshare -n, loopback only)"
  # Bazel's client talks to its server over loopback, which a new namespace has down.
  unshare -n bash -c "ip link set lo up && $script"
else
  echo "   (network not blocked: needs root and unshare; the build is --offline regardless)"
  bash -c "$script"
fi
