#!/usr/bin/env python3
"""Converts an .xplane.pb with xprof's trace_viewer tool and checks, by name (xprof renumbers
pids and tids), what a replay of scenarios/jax_matmul.toml must show:
  * a process /device:GPU:0 whose stream lanes are exactly Stream #0, #1 and #2;
  * host lanes named "Host Threads/<tid>";
  * the H2D and D2H copies and ten matmul kernels as events on the device lanes, the copies on
    their own lanes, apart from the kernels.
Usage: check_trace_viewer.py TRACE.xplane.pb [--matmul-kernels N] [--matmul-prefix P]
"""
import argparse
import collections
import json
import sys

from xprof.convert import raw_to_tool_data


def fail(message, trace=None):
    print(f"FAIL: {message}", file=sys.stderr)
    if trace is not None:
        print(json.dumps(trace, indent=1)[:4000], file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--matmul-kernels", type=int, default=10)
    parser.add_argument("--matmul-prefix", default="Cijk_", help="name prefix of the GEMM kernel (Tensile's)")
    args = parser.parse_args()

    data, content_type = raw_to_tool_data.xspace_to_tool_data([args.trace], "trace_viewer", {})
    if content_type != "application/json":
        fail(f"unexpected content type {content_type!r}")
    trace = json.loads(data)
    events = [e for e in trace["traceEvents"] if e]

    process_names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    thread_names = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e["name"] == "thread_name"
    }
    gpu_pids = [pid for pid, name in process_names.items() if name == "/device:GPU:0"]
    if len(gpu_pids) != 1:
        fail(f"expected one /device:GPU:0 process, got processes {sorted(process_names.values())}")
    gpu = gpu_pids[0]

    # xprof adds derived lanes (e.g. "Framework Ops" from tf_op stats); ours are the streams.
    all_gpu_lanes = sorted(name for (pid, _), name in thread_names.items() if pid == gpu)
    gpu_lanes = [name for name in all_gpu_lanes if name.startswith("Stream #")]
    if gpu_lanes != ["Stream #0", "Stream #1", "Stream #2"]:
        fail(f"device lanes are {all_gpu_lanes}, expected Stream #0..#2")
    host_lanes = [name for name in thread_names.values() if name.startswith("Host Threads/")]
    if not host_lanes:
        fail(f"no 'Host Threads/<tid>' lane among {sorted(set(thread_names.values()))}")

    lane_of = collections.defaultdict(set)
    counts = collections.Counter()
    for e in events:
        if e.get("ph") == "X" and e["pid"] == gpu:
            lane = thread_names.get((e["pid"], e["tid"]), "?")
            if not lane.startswith("Stream #"):
                continue
            lane_of[e["name"]].add(lane)
            counts[e["name"]] += 1

    # The scenario's 128-byte read-back is a GPU blit that the SDK records as DEVICE_TO_DEVICE
    # with the GPU on both sides; the tracer names it by its HIP call, a device-to-host copy.
    read_back = "MemcpyD2H"
    if counts["MemcpyD2D"]:
        fail(f"the read-back is named MemcpyD2D, not by its HIP call; events: {dict(counts)}")
    for copy in ("MemcpyH2D", read_back):
        if counts[copy] < 1:
            fail(f"no {copy} event on /device:GPU:0; events: {dict(counts)}")
        if "memcpy_details" not in json.dumps([e.get("args", {}) for e in events if e.get("name") == copy]):
            fail(f"{copy} events carry no memcpy_details arg")
    matmuls = [name for name in counts if name.startswith(args.matmul_prefix)]
    if sum(counts[name] for name in matmuls) != args.matmul_kernels:
        fail(f"expected {args.matmul_kernels} matmul kernels, got {dict(counts)}")
    kernel_lanes = set().union(*(lane_of[name] for name in matmuls))
    for copy in ("MemcpyH2D", read_back):
        if lane_of[copy] & kernel_lanes:
            fail(f"{copy} shares a lane with the matmul kernels: {lane_of[copy]} vs {kernel_lanes}")
    if lane_of["MemcpyH2D"] & lane_of[read_back]:
        fail("H2D and D2H copies share a lane")

    print(f"device lanes {all_gpu_lanes}; host lanes {sorted(host_lanes)}; events {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
