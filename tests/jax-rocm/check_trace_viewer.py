#!/usr/bin/env python3
"""Converts an .xplane.pb with xprof's trace_viewer tool (PyPI `xprof`) and checks that the
/device:GPU:0 process holds more than 0 kernel events on its `Stream #` rows and that every
kernel event carries `kernel_details`. Run with the xprof venv's Python.
Usage: check_trace_viewer.py TRACE.xplane.pb
"""
import json
import sys

from xprof.convert import raw_to_tool_data


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    data, content_type = raw_to_tool_data.xspace_to_tool_data([sys.argv[1]], "trace_viewer", {})
    if content_type != "application/json":
        fail(f"unexpected content type {content_type!r}")
    events = [e for e in json.loads(data)["traceEvents"] if e]
    processes = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e.get("ph") == "M" and e["name"] == "thread_name"}
    gpu = [pid for pid, name in processes.items() if name == "/device:GPU:0"]
    if len(gpu) != 1:
        fail(f"expected one /device:GPU:0 process, got {sorted(processes.values())}")
    kernels = [e for e in events
               if e.get("ph") == "X" and e["pid"] == gpu[0]
               and threads.get((e["pid"], e["tid"]), "").startswith("Stream #")
               and not e["name"].startswith("Memcpy")]
    if not kernels:
        fail("no kernel events on /device:GPU:0's Stream rows")
    bare = [e["name"] for e in kernels if "kernel_details" not in e.get("args", {})]
    if bare:
        fail(f"kernel events without kernel_details: {bare[:5]}")
    print(f"{len(kernels)} GPU kernel events, each with kernel_details")


if __name__ == "__main__":
    main()
