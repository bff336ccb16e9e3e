#!/usr/bin/env python3
"""Converts an .xplane.pb with xprof's trace_viewer tool and checks ROCTx ranges and marks:
  * ROCTx ranges are bands (complete events) and marks instant events on rows
    "Host Threads/<tid>/ROCTX" of /host:CPU, named by their labels and carrying them as
    nvtx_range: --bands ranges and --marks marks in all;
  * every kernel or copy on /device:GPU:0 whose HIP call (same correlation_id) started inside a
    range of its thread carries the innermost such range's label as arg nvtx_range, and the
    others carry none, or the label of a range still open at Disable (--open LABEL, never a
    band); at least --labelled of them carry one;
  * ROCTx process ranges (roctxRangeStartA/Stop) are --process-bands bands on the row
    "ROCTX Process Ranges" of /host:CPU, named by their labels, and label no GPU event.
Usage: check_roctx_bands.py TRACE.xplane.pb --bands N --marks K --labelled M [--open LABEL ...]
       [--process-bands P]
"""
import argparse
import json
import sys

from xprof.convert import raw_to_tool_data


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--bands", type=int, required=True)
    parser.add_argument("--marks", type=int, required=True)
    parser.add_argument("--labelled", type=int, required=True)
    parser.add_argument("--open", action="append", default=[])
    parser.add_argument("--process-bands", type=int, default=0)
    args = parser.parse_args()

    data, _ = raw_to_tool_data.xspace_to_tool_data([args.trace], "trace_viewer", {})
    events = [e for e in json.loads(data)["traceEvents"] if e]
    meta = [e for e in events if e.get("ph") == "M"]
    process_names = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    thread_names = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    host = [pid for pid, name in process_names.items() if name == "/host:CPU"]
    gpu = [pid for pid, name in process_names.items() if name == "/device:GPU:0"]
    if len(host) != 1 or len(gpu) != 1:
        fail(f"expected /host:CPU and /device:GPU:0, got {sorted(process_names.values())}")
    host, gpu = host[0], gpu[0]
    complete = [e for e in events if e.get("ph") == "X"]
    instants = [e for e in events if e.get("ph") == "i"]

    # ROCTx rows: "Host Threads/<tid>/ROCTX" -> [(start, end, label)].
    bands = {}
    for e in complete:
        name = thread_names.get((e["pid"], e["tid"]), "")
        if e["pid"] == host and name.endswith("/ROCTX"):
            thread = name[len("Host Threads/"):-len("/ROCTX")]
            label = e.get("args", {}).get("nvtx_range")
            if label != e["name"]:
                fail(f"band {e['name']!r} has nvtx_range {label!r}")
            bands.setdefault(thread, []).append((e["ts"], e["ts"] + e.get("dur", 0), e["name"]))
    total = sum(len(b) for b in bands.values())
    if total != args.bands:
        fail(f"expected {args.bands} ROCTx bands, got {total}: {bands}")
    marks = [
        e for e in instants
        if e["pid"] == host and thread_names.get((e["pid"], e["tid"]), "").endswith("/ROCTX")
        and e.get("args", {}).get("nvtx_range") == e["name"]
    ]
    if len(marks) != args.marks:
        fail(f"expected {args.marks} ROCTx marks, got {[e['name'] for e in marks]}")

    process = [
        e for e in complete
        if e["pid"] == host and thread_names.get((e["pid"], e["tid"]), "") == "ROCTX Process Ranges"
    ]
    if len(process) != args.process_bands:
        fail(f"expected {args.process_bands} process-range bands, got {[e['name'] for e in process]}")
    for e in process:
        label = e.get("args", {}).get("nvtx_range")
        if label != e["name"]:
            fail(f"process band {e['name']!r} has nvtx_range {label!r}")

    # HIP calls by correlation id: (thread, start).
    calls = {}
    for e in complete:
        name = thread_names.get((e["pid"], e["tid"]), "")
        if e["pid"] == host and name.startswith("Host Threads/") and not name.endswith("/ROCTX"):
            correlation = e.get("args", {}).get("correlation_id")
            if correlation is not None:
                calls[str(correlation)] = (name[len("Host Threads/"):], e["ts"])

    labelled = 0
    for e in complete:
        if e["pid"] != gpu:
            continue
        correlation = str(e.get("args", {}).get("correlation_id"))
        if correlation not in calls:
            continue
        thread, start = calls[correlation]
        inside = [b for b in bands.get(thread, []) if b[0] <= start <= b[1] and b[0] != b[1]]
        # Innermost: the latest start, then the earliest end.
        inside.sort(key=lambda b: (b[0], -b[1]))
        expected = inside[-1][2] if inside else None
        got = e.get("args", {}).get("nvtx_range")
        open_at_disable = expected is None and got in args.open
        if got != expected and not open_at_disable:
            fail(f"{e['name']} (correlation {correlation}) has nvtx_range {got!r}, expected {expected!r}")
        labelled += got is not None
    if labelled < args.labelled:
        fail(f"expected at least {args.labelled} labelled GPU events, got {labelled}")
    print(
        f"ROCTx check passed: {total} bands, {len(marks)} marks, {labelled} labelled GPU events, "
        f"{len(process)} process-range bands"
    )


if __name__ == "__main__":
    main()
