#!/usr/bin/env python3
"""Converts an .xplane.pb with xprof's trace_viewer tool and checks the rows of /device:GPU:0:
  * --rows N: exactly N distinct "Stream #" rows (xprof renumbers its 16 busiest stream lines;
    a lane whose own id collided with one of those numbers would share its row);
  * --name LABEL (repeatable): a row named exactly LABEL exists;
  * --in-order: the rows xprof did not renumber follow in lane order (Stream #0, #1, ...);
  * --event-arg KEY=VALUE (repeatable): some event on the GPU shows arg KEY with VALUE.
Usage: check_device_rows.py TRACE.xplane.pb [--rows N] [--name LABEL ...] [--in-order]
       [--event-arg KEY=VALUE ...]
"""
import argparse
import json
import re
import sys

from xprof.convert import raw_to_tool_data


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--rows", type=int)
    parser.add_argument("--name", action="append", default=[])
    parser.add_argument("--in-order", action="store_true")
    parser.add_argument("--event-arg", action="append", default=[])
    args = parser.parse_args()

    data, _ = raw_to_tool_data.xspace_to_tool_data([args.trace], "trace_viewer", {})
    events = [e for e in json.loads(data)["traceEvents"] if e]
    process_names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    gpu_pids = [pid for pid, name in process_names.items() if name == "/device:GPU:0"]
    if len(gpu_pids) != 1:
        fail(f"expected one /device:GPU:0 process, got {sorted(process_names.values())}")
    gpu = gpu_pids[0]
    rows = {
        e["tid"]: e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e["name"] == "thread_name" and e["pid"] == gpu
    }
    sort_index = {
        e["tid"]: e["args"]["sort_index"]
        for e in events
        if e.get("ph") == "M" and e["name"] == "thread_sort_index" and e["pid"] == gpu
    }
    # Rows that hold events: a lane merged into another row leaves its events there.
    busy = {e["tid"] for e in events if e.get("ph") == "X" and e["pid"] == gpu}
    stream_rows = {tid: name for tid, name in rows.items() if name.startswith("Stream #") and tid in busy}
    print(f"GPU rows: {[rows[tid] for tid in sorted(rows, key=lambda t: sort_index.get(t, t))]}")
    if args.rows is not None and len(stream_rows) != args.rows:
        fail(f"{len(stream_rows)} stream rows with events, expected {args.rows}: {sorted(stream_rows.values())}")
    for label in args.name:
        if label not in rows.values():
            fail(f"no row named {label!r} among {sorted(rows.values())}")
    shown = [e.get("args", {}) for e in events if e.get("ph") == "X" and e["pid"] == gpu]
    for pair in args.event_arg:
        key, _, value = pair.partition("=")
        if not any(str(arg.get(key)) == value for arg in shown):
            fail(f"no GPU event shows {key}={value!r}; args seen: {shown[:4]}")
    if args.in_order:
        # xprof numbers its renumbered rows from 1 up; ours keep their own (larger) ids.
        own = sorted((tid for tid in stream_rows if tid >= 1000), key=lambda t: sort_index.get(t, t))
        lanes = [int(re.match(r"Stream #(\d+)", stream_rows[tid]).group(1)) for tid in own]
        if lanes != sorted(lanes):
            fail(f"rows not in lane order: {lanes}")


if __name__ == "__main__":
    main()
