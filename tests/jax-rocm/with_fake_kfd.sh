#!/usr/bin/env bash
# Runs a command in a private mount namespace whose /sys/class holds only a KFD topology with
# one GPU node (an MI300X's simd_count). JAX's Python plugin gate counts GPUs there
# (jax._src.hardware_utils.num_available_amd_gpus) before any native code runs; nothing else
# reads it here: the simulated HIP runtime and SDK describe the GPU. The rest of the system is
# untouched: the mount exists only inside the namespace, which ends with the command.
# As root `unshare -m`; otherwise a user namespace (`unshare -rm`) if the kernel allows it.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then
    ns=(unshare -m --propagation private)
else
    ns=(unshare -rm --propagation private)
fi
if ! "${ns[@]}" true 2>/dev/null; then
    echo "FAIL: cannot create a mount namespace (${ns[*]}): needed for the fake /sys/class/kfd (run as root, or enable unprivileged user namespaces)" >&2
    exit 1
fi
exec "${ns[@]}" sh -c '
    mount -t tmpfs -o size=1m rocsim-kfd /sys/class &&
    mkdir -p /sys/class/kfd/kfd/topology/nodes/0 /sys/class/kfd/kfd/topology/nodes/1 &&
    printf "cpu_cores_count 64\nsimd_count 0\n" >/sys/class/kfd/kfd/topology/nodes/0/properties &&
    printf "cpu_cores_count 0\nsimd_count 1216\ngfx_target_version 90402\n" >/sys/class/kfd/kfd/topology/nodes/1/properties &&
    exec "$@"' fake-kfd "$@"
