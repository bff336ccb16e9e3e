#!/usr/bin/env python3
"""Checks what `xla-rocm-tracer inspect` and `convert --to chrome-json` show of the XSpace that
`examples/jax_matmul.py --cpu` wrote with jax.profiler.trace:
  * the host plane /host:CPU is there, with events, and both outputs agree on its lane and
    event counts;
  * the ten `matmul_step_<k>` annotations (jax.profiler.TraceAnnotation) are events of it, each
    once, and the jitted matmul ran at least ten times (`PjitFunction(matmul)` events) within
    the steps' span;
  * the example printed the same `inspect` report for the file.
Usage: check_cpu_trace.py INSPECT_OUTPUT TRACE.json EXAMPLE_OUTPUT
"""
import collections
import json
import re
import sys

STEPS = 10


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def inspect_planes(text):
    """{plane name: (lanes, events)} from the plane headers of an `inspect` report."""
    planes = {}
    for match in re.finditer(r"^(\S[^\n]*?) \(id -?\d+\): (\d+) lanes?, (\d+) events?", text, re.M):
        planes[match.group(1)] = (int(match.group(2)), int(match.group(3)))
    return planes


def main():
    inspect_path, json_path, example_path = sys.argv[1:4]
    inspect_text = open(inspect_path).read()
    example_text = open(example_path).read()
    trace = json.load(open(json_path))

    planes = inspect_planes(inspect_text)
    if "/host:CPU" not in planes:
        fail(f"inspect shows no /host:CPU plane:\n{inspect_text}")
    host_lanes, host_events = planes["/host:CPU"]
    if host_events == 0:
        fail(f"inspect shows an empty /host:CPU plane:\n{inspect_text}")
    report = inspect_text.split("\n", 1)[1]  # without the `trace:` line
    if report not in example_text:
        fail("the example's own inspect report differs from inspect's")

    events = trace.get("traceEvents")
    if not events:
        fail("the chrome JSON has no traceEvents")
    process = {e["pid"]: e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "process_name"}
    host_pids = [pid for pid, name in process.items() if name == "/host:CPU"]
    if len(host_pids) != 1:
        fail(f"expected one /host:CPU process in the JSON, found {process}")
    host = [e for e in events if e.get("ph") == "X" and e["pid"] == host_pids[0]]
    threads = {e["tid"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name" and e["pid"] == host_pids[0]}
    if (len(threads), len(host)) != (host_lanes, host_events):
        fail(f"JSON has {len(threads)} lanes, {len(host)} events on /host:CPU; "
             f"inspect says {host_lanes}, {host_events}")

    names = collections.Counter(e["name"] for e in host)
    steps = [e for e in host if re.fullmatch(r"matmul_step_\d+", e["name"])]
    if sorted(e["name"] for e in steps) != sorted(f"matmul_step_{k}" for k in range(STEPS)):
        fail(f"expected matmul_step_0..{STEPS - 1} once each, got {sorted(e['name'] for e in steps)}")
    matmuls = [e for e in host if e["name"] == "PjitFunction(matmul)"]
    first = min(e["ts"] for e in steps)
    last = max(e["ts"] + e["dur"] for e in steps)
    inside = [e for e in matmuls if first <= e["ts"] and e["ts"] + e["dur"] <= last]
    if len(inside) < STEPS:
        fail(f"expected >= {STEPS} PjitFunction(matmul) events inside the steps, got "
             f"{len(inside)}; most common names: {names.most_common(15)}")
    print(f"/host:CPU: {host_lanes} lanes, {host_events} events; {len(steps)} annotated steps, "
          f"{len(inside)} jitted matmul calls inside them")


if __name__ == "__main__":
    main()
