#!/usr/bin/env python3
"""One process of JAX's automatic profile-guided latency estimator (auto-PGLE) on the real JAX
ROCm plugin and the simulated GPU, for tests/jax-rocm/pgle.sh (issue 36, docs/jax-rocm.md#pgle).

With `jax_enable_pgle` and `jax_pgle_profiling_runs=R`, JAX profiles the first R calls of each
jitted function with a profiler session of its own (XLA's ROCm tracer inside the plugin, one
Enable and Disable per call, back to back), then recompiles with the profile. This runs
FUNCTIONS jitted functions R + 2 times each, so R sessions each, while our tracer (the tool
library, loaded by the SDK through ROCP_TOOL_LIBRARIES) captures the whole run. It keeps the
XSpace of each of JAX's sessions (wrapping the plugin's get_fdo_profile, which JAX hands every
session's XSpace) and prints one JSON line:
  sessions        JAX's profiler sessions
  empty           sessions whose XSpace holds no GPU event (JAX's own warning, "PGLE collected an
                  empty trace", is for an empty FDO profile, counted as empty_fdo)
  session_events  GPU events (kernels and copies) in each session
  ours_events     GPU events in our capture
  missing         GPU events (by correlation id) of JAX's sessions that our capture lacks
Exits nonzero when our tracer fails to start or to write, or our capture lacks an event.

Usage: pgle.py --ours LIB --ours-out PATH [--functions F] [--profiling-runs R]
"""
import argparse
import ctypes
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xspace  # noqa: E402

XRT_STATUS_OK = 0
GPU_PLANE = "/device:GPU:0"


def gpu_correlation_ids(planes):
    """Correlation ids of the GPU events (kernels and copies) of /device:GPU:0."""
    ids = []
    for plane in (p for p in planes if p.name == GPU_PLANE):
        for line in plane.lines:
            for event in line.events:
                corr = plane.event_stats(event).get("correlation_id")
                if corr is not None:
                    ids.append(corr)
    return ids


class SessionRecorder:
    """Stands in for jax._src.profiler's `_profiler` module: every call goes to the plugin's,
    and the XSpace of each session JAX's PGLE profiler stops is kept."""

    def __init__(self, real):
        self._real = real
        self.spaces = []
        self.empty_fdo = 0

    def __getattr__(self, name):
        return getattr(self._real, name)

    def get_fdo_profile(self, space, *args, **kwargs):
        data = space if isinstance(space, (bytes, bytearray)) else space.SerializeToString()
        self.spaces.append(bytes(data))
        profile = self._real.get_fdo_profile(space, *args, **kwargs)
        if not profile:
            self.empty_fdo += 1
        return profile


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ours")
    parser.add_argument("--ours-out")
    parser.add_argument("--functions", type=int, default=3)
    parser.add_argument("--profiling-runs", type=int, default=3)
    args = parser.parse_args()
    if bool(args.ours) != bool(args.ours_out):
        parser.error("--ours and --ours-out go together")

    import jax
    import jax.numpy as jnp
    from jax._src import profiler as jax_profiler

    jax.config.update("jax_enable_pgle", True)
    jax.config.update("jax_pgle_profiling_runs", args.profiling_runs)
    recorder = SessionRecorder(jax_profiler._profiler)
    jax_profiler._profiler = recorder

    # Loading our library first is safe (listed in ROCP_TOOL_LIBRARIES, it leaves the SDK to
    # its first initialization); starting a capture is not: before JAX's backend has loaded
    # the plugin, whose forced configuration of the SDK configures our tool in the same pass,
    # xrt_enable would force the SDK for our tool alone, and an SDK before 10.1 would then
    # refuse XLA's: every XLA session would fail to start (docs/jax-rocm.md#pgle).
    tool = ctypes.CDLL(args.ours) if args.ours else None
    jax.devices()
    if tool:
        tool.xrt_write_xspace.argtypes = [ctypes.c_char_p]
        status = tool.xrt_enable(None)
        if status != XRT_STATUS_OK:
            sys.exit(f"our tracer did not start (xrt_enable status {status}): is {args.ours} in ROCP_TOOL_LIBRARIES?")
    x = jnp.ones((64, 64), jnp.float32)
    for index in range(args.functions):
        # Distinct jaxprs: JAX keeps one PGLE profiler per jaxpr.
        scale = float(index + 2)

        @jax.jit
        def step(a, scale=scale):
            return jnp.tanh(a @ a * scale) + a

        for _ in range(args.profiling_runs + 2):
            x = step(x).block_until_ready()
    if tool:
        stopped = tool.xrt_disable()
        written = tool.xrt_write_xspace(os.fsencode(args.ours_out))
        if stopped != XRT_STATUS_OK or written != XRT_STATUS_OK:
            sys.exit(f"our tracer: xrt_disable status {stopped}, xrt_write_xspace status {written}")

    ours = set(gpu_correlation_ids(xspace.read(args.ours_out))) if tool else None
    session_events, missing = [], []
    for data in recorder.spaces:
        ids = gpu_correlation_ids(xspace.parse(data))
        session_events.append(len(ids))
        if ours is not None:
            missing.extend(corr for corr in ids if corr not in ours)
    report = {
        "sessions": len(recorder.spaces),
        "empty": sum(1 for n in session_events if n == 0),
        "empty_fdo": recorder.empty_fdo,
        "session_events": session_events,
        "ours_events": None if ours is None else len(ours),
        "missing": sorted(missing),
    }
    print(json.dumps(report))
    # Each jitted function is profiled profiling_runs times; so are the primitives JAX runs
    # eagerly through jit (jnp.ones' fill).
    expected = args.functions * args.profiling_runs
    if report["sessions"] < expected:
        sys.exit(f"JAX ran {report['sessions']} PGLE profiler sessions, expected at least {expected}")
    if missing:
        sys.exit(f"our capture lacks {len(missing)} GPU events of JAX's sessions: {sorted(missing)[:10]}")


if __name__ == "__main__":
    main()
