#!/usr/bin/env python3
"""The openxla/xla#46182 test workload, for a machine with a ROCm GPU.

Profiles ten jitted bf16 4096x4096 matrix products plus one host-to-device and one
device-to-host copy with `jax.profiler.trace`, then runs `xla-rocm-tracer inspect` on the
XSpace that XLA's ROCm tracer wrote. With a jaxlib whose XLA is built against this library,
the device plane should show separate `Stream #` lanes for compute, H2D and D2H, ten matmul
kernels and both copies.

With `--cpu` the same workload (the jitted matmul steps under the same annotations, the upload,
the readback and the elementwise kernel) runs on JAX's CPU backend, with float32 matrices of
`--size` (default 256, so that it finishes in seconds): no GPU and no ROCm build are needed,
and the XSpace is still a real one written by XLA's profiler (its host plane holds the XLA ops
and the annotations). The tests run it this way (`tests/jax/run.sh`).

`--shape MxKxN` multiplies an MxK by a KxN matrix instead of two squares; the simulated-GPU
test (`tests/jax-rocm/run.sh`) runs the GPU path with the real JAX ROCm plugin this way, one
shape per process.

`--xla-rocm-tracer` imports the `xla_rocm_tracer` package (`pip install` of the project's
wheel, docs/python.md) before JAX starts: `jax.profiler.trace` then also writes this tracer's
HIP stream lanes into the run, as `<host>.pid<PID>.xplane.pb` beside XLA's file.

Usage:
    python3 examples/jax_matmul.py [--logdir DIR] [--tracer PATH/TO/xla-rocm-tracer] [--xla-rocm-tracer]
    python3 examples/jax_matmul.py --cpu [--size N] [--logdir DIR] [--tracer PATH]
    python3 examples/jax_matmul.py --shape MxKxN [--logdir DIR] [--tracer PATH]
"""
import argparse
import contextlib
import glob
import os
import shutil
import subprocess
import sys
import tempfile

STEPS = 10
SIZE = 4096
CPU_SIZE = 256


def run_workload(logdir, cpu=False, shape=(SIZE, SIZE, SIZE), inside_trace=None, around_steps=None):
    """Runs the workload under `jax.profiler.trace(logdir)`. `inside_trace` and `around_steps`
    are optional context managers (tests/jax-rocm/drive.py): the first is entered just after the
    trace starts and left just before it stops, the second wraps the ten matmul steps."""
    if cpu:
        # Must be set before JAX initializes its backends.
        os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    import jax.numpy as jnp
    import numpy as np

    if cpu:
        dtype = jnp.float32  # bf16 matmuls are emulated, and slow, on CPUs
    else:
        gpus = [d for d in jax.devices() if d.platform in ("gpu", "rocm")]
        if not gpus:
            sys.exit(f"no ROCm GPU visible to JAX (devices: {jax.devices()})")
        dtype = jnp.bfloat16

    lhs_key, rhs_key = jax.random.split(jax.random.PRNGKey(46182))
    m, k, n = shape
    lhs = jax.random.normal(lhs_key, (m, k), dtype=dtype)
    rhs = jax.random.normal(rhs_key, (k, n), dtype=dtype)
    matmul = jax.jit(jnp.matmul)
    # Compile and warm up before tracing, so the trace holds only the steady state.
    matmul(lhs, rhs).block_until_ready()

    with jax.profiler.trace(logdir), inside_trace or contextlib.nullcontext():
        upload = jax.device_put(np.full((1024, 1024), 0.5, dtype=np.float32))  # H2D, 4 MiB
        product = None
        with around_steps or contextlib.nullcontext():
            for step in range(STEPS):
                with jax.profiler.TraceAnnotation(f"matmul_step_{step}"):
                    product = matmul(lhs, rhs)
            product.block_until_ready()
        corner = np.asarray(product[:8, :8])  # D2H (a slice, then the copy)
        (upload * 2.0).block_until_ready()  # a small elementwise kernel
    print(f"devices: {jax.devices()}; corner checksum {float(corner.sum()):.3f}")


def find_tracer(explicit):
    if explicit:
        return explicit
    on_path = shutil.which("xla-rocm-tracer")
    if on_path:
        return on_path
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for profile in ("release", "debug"):
        candidate = os.path.join(repo, "target", profile, "xla-rocm-tracer")
        if os.path.exists(candidate):
            return candidate
    sys.exit("xla-rocm-tracer not found: build it with `cargo build --release -p xla-rocm-tracer-cli` "
             "or pass --tracer")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logdir", help="where jax.profiler writes the trace (default: a temporary dir)")
    parser.add_argument("--tracer", help="path of the xla-rocm-tracer command")
    parser.add_argument("--cpu", action="store_true",
                        help="run the workload on JAX's CPU backend (float32, no GPU needed)")
    parser.add_argument("--size", type=int,
                        help=f"matrix size (default {SIZE}, or {CPU_SIZE} with --cpu)")
    parser.add_argument("--shape", help="MxKxN: multiply an MxK by a KxN matrix (instead of --size)")
    parser.add_argument("--xla-rocm-tracer", action="store_true",
                        help="import xla_rocm_tracer first: its device lanes join jax.profiler's run")
    args = parser.parse_args()
    if args.xla_rocm_tracer:
        import xla_rocm_tracer  # noqa: F401  (before JAX starts HIP)
    size = args.size or (CPU_SIZE if args.cpu else SIZE)
    if size <= 0:
        parser.error(f"--size must be positive, not {size}")
    shape = (size, size, size)
    if args.shape:
        try:
            shape = tuple(int(d) for d in args.shape.lower().split("x"))
        except ValueError:
            shape = ()
        if len(shape) != 3 or min(shape) <= 0:
            parser.error(f"--shape must be MxKxN with positive sizes, not {args.shape!r}")

    tracer = find_tracer(args.tracer)
    logdir = args.logdir or tempfile.mkdtemp(prefix="jax_matmul_trace_")
    run_workload(logdir, cpu=args.cpu, shape=shape)

    traces = sorted(glob.glob(os.path.join(logdir, "**", "*.xplane.pb"), recursive=True))
    if not traces:
        sys.exit(f"jax.profiler wrote no .xplane.pb under {logdir}")
    for trace in traces:
        print(f"\n== {trace}")
        subprocess.run([tracer, "inspect", trace], check=True)


if __name__ == "__main__":
    main()
