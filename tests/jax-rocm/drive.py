#!/usr/bin/env python3
"""Runs examples/jax_matmul.py's GPU workload for tests/jax-rocm/run.sh (docs/jax-rocm.md), with
our tracer capturing the same window as XLA's and, optionally, ROCTx ranges around the matmuls.

  --ours LIB --ours-out PATH   LIB is libxla_rocm_tracer_tool.so, already loaded by the SDK
      through ROCP_TOOL_LIBRARIES (ctypes gets the same instance): our capture starts just
      after jax.profiler.trace starts XLA's tracer and stops just before it stops it, then is
      written to PATH (xrt_enable / xrt_disable / xrt_write_xspace of include/xla_rocm_tracer.h).
  --roctx   the ROCTx workload (issue 24 item 4): a mark `before_matmul` after the upload, then
      the ranges `matmul` and, nested in it, `matmul_steps` around the ten steps, through
      ctypes on the simulated librocprofiler-sdk-roctx.so.1, or, when that library is absent,
      on librocprofiler-sdk.so.1 (which exports the ROCTx functions too); prints which.
  --plugin LINE   the plugin line the venv holds (rocm7, rocm10): after the workload, fails
      unless JAX loaded that line's module, jax_plugins.xla_LINE, and no other ROCm plugin
      (two in one venv would both register as `rocm`); prints it and the platform version.
Usage: drive.py --shape MxKxN --logdir DIR --tracer CLI [--ours LIB --ours-out PATH] [--roctx]
                [--plugin LINE]
"""
import argparse
import contextlib
import ctypes
import glob
import importlib.util
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROCTX_LIBRARIES = ("librocprofiler-sdk-roctx.so.1", "librocprofiler-sdk.so.1")
XRT_STATUS_OK = 0


def load_example():
    spec = importlib.util.spec_from_file_location("jax_matmul", os.path.join(REPO, "examples", "jax_matmul.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def our_capture(library, out):
    tool = ctypes.CDLL(library)
    tool.xrt_write_xspace.argtypes = [ctypes.c_char_p]
    status = tool.xrt_enable(None)
    if status != XRT_STATUS_OK:
        sys.exit(f"our tracer did not start (xrt_enable status {status}): is {library} in ROCP_TOOL_LIBRARIES?")
    try:
        yield
    finally:
        stopped = tool.xrt_disable()
        written = tool.xrt_write_xspace(os.fsencode(out))
        if stopped != XRT_STATUS_OK or written != XRT_STATUS_OK:
            sys.exit(f"our tracer: xrt_disable status {stopped}, xrt_write_xspace status {written}")


def load_roctx():
    for name in ROCTX_LIBRARIES:
        try:
            roctx = ctypes.CDLL(name)
        except OSError:
            continue
        roctx.roctxRangePushA.argtypes = [ctypes.c_char_p]
        roctx.roctxRangePushA.restype = ctypes.c_int
        roctx.roctxRangePop.restype = ctypes.c_int
        roctx.roctxMarkA.argtypes = [ctypes.c_char_p]
        print(f"roctx: {name}")
        return roctx
    sys.exit(f"none of {ROCTX_LIBRARIES} loads")


class RoctxSteps:
    """A mark, then two nested ROCTx ranges around the matmul steps (ROCTx returns each range's
    0-based level)."""

    RANGES = (b"matmul", b"matmul_steps")

    def __init__(self, roctx):
        self.roctx = roctx

    def __enter__(self):
        self.roctx.roctxMarkA(b"before_matmul")
        for level, name in enumerate(self.RANGES):
            if self.roctx.roctxRangePushA(name) != level:
                sys.exit(f"roctxRangePushA({name}) did not return level {level}")
        return self

    def __exit__(self, *exc):
        for level in reversed(range(len(self.RANGES))):
            if self.roctx.roctxRangePop() != level:
                sys.exit(f"roctxRangePop() did not close level {level}")
        return False


def check_plugin(line):
    """The ROCm PJRT plugin modules JAX imported must be exactly jax_plugins.xla_LINE."""
    import jax

    loaded = sorted(name for name in sys.modules if name.startswith("jax_plugins.xla_rocm") and name.count(".") == 1)
    if loaded != [f"jax_plugins.xla_{line}"]:
        sys.exit(f"expected JAX to load the plugin jax_plugins.xla_{line} alone, it loaded {loaded}")
    client = jax.devices()[0].client
    print(f"plugin: {loaded[0]} ({sys.modules[loaded[0]].__file__}); platform {client.platform} "
          f"{client.platform_version}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", required=True)
    parser.add_argument("--logdir", required=True)
    parser.add_argument("--tracer", required=True)
    parser.add_argument("--ours")
    parser.add_argument("--ours-out")
    parser.add_argument("--roctx", action="store_true")
    parser.add_argument("--plugin")
    args = parser.parse_args()
    if bool(args.ours) != bool(args.ours_out):
        parser.error("--ours and --ours-out go together")
    shape = tuple(int(d) for d in args.shape.lower().split("x"))

    example = load_example()
    inside = our_capture(args.ours, args.ours_out) if args.ours else None
    around = RoctxSteps(load_roctx()) if args.roctx else None
    example.run_workload(args.logdir, shape=shape, inside_trace=inside, around_steps=around)
    if args.plugin:
        check_plugin(args.plugin)

    traces = sorted(glob.glob(os.path.join(args.logdir, "**", "*.xplane.pb"), recursive=True))
    if not traces:
        sys.exit(f"jax.profiler wrote no .xplane.pb under {args.logdir}")
    for trace in traces + ([args.ours_out] if args.ours else []):
        print(f"\n== {trace}")
        sys.stdout.flush()
        subprocess.run([args.tracer, "inspect", trace], check=True)


if __name__ == "__main__":
    main()
