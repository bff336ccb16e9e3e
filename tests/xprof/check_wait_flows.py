#!/usr/bin/env python3
"""Converts an .xplane.pb with xprof's streaming trace viewer (`trace_viewer@`, what the UI
loads) and checks the stream waits' flow arrows (docs/xla-interface.md#stream-waits):
  * exactly N flows besides xprof's own `gpu_launch` ones, each with one start
    (`flow_out`, an event named hipEventRecord) and one end (`flow_in`, hipStreamWaitEvent)
    sharing its `bind_id`;
  * each flow's start on the recording stream's lane and its end on the waiting stream's, as
    given by --flow RECORD_LANE:WAIT_LANE (lane as "<process> / <thread>" names; repeatable,
    in the order of the flows' start times);
  * an end no earlier than its start (the wait held the waiting stream back).
Usage: check_wait_flows.py TRACE.xplane.pb --flows N [--flow '/device:GPU:0/Stream #0:/device:GPU:1/Stream #0' ...]
"""
import argparse
import collections
import json
import sys

from xprof.convert import raw_to_tool_data


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--flows", type=int, required=True)
    parser.add_argument("--flow", action="append", default=[])
    args = parser.parse_args()

    # The UI's request: resolution 8000; no cached result from an earlier file of this name.
    options = {"trace_viewer_options": {"resolution": 8000, "full_dma": False}, "use_saved_result": False}
    data, content_type = raw_to_tool_data.xspace_to_tool_data([args.trace], "trace_viewer@", options)
    if content_type != "application/json":
        fail(f"unexpected content type {content_type!r}")
    events = [e for e in json.loads(data)["traceEvents"] if e]
    processes = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}

    def lane(e):
        # xprof names a process "<host> <plane>"; the host is the file's name.
        plane = processes.get(e["pid"], "?").split(" ", 1)[-1]
        return f"{plane}/{threads.get((e['pid'], e['tid']), '?')}"

    ends = collections.defaultdict(dict)
    for e in events:
        if "bind_id" not in e or e.get("cat") == "gpu_launch":
            continue
        side = "out" if e.get("flow_out") else "in" if e.get("flow_in") else None
        if side is None or side in ends[e["bind_id"]]:
            fail(f"flow {e['bind_id']}: unexpected or repeated end {e}")
        expected = "hipEventRecord" if side == "out" else "hipStreamWaitEvent"
        if e["name"] != expected:
            fail(f"flow {e['bind_id']}: its {side} end is {e['name']!r}, not {expected}")
        ends[e["bind_id"]][side] = e
    if len(ends) != args.flows:
        fail(f"expected {args.flows} wait flows, got {len(ends)}: {dict(ends)}")
    flows = []
    for flow_id, both in ends.items():
        if set(both) != {"in", "out"}:
            fail(f"flow {flow_id} lacks an end: {both}")
        if both["in"]["ts"] < both["out"]["ts"]:
            fail(f"flow {flow_id} ends before it starts: {both}")
        flows.append((both["out"]["ts"], f"{lane(both['out'])}:{lane(both['in'])}"))
    flows.sort()
    got = [pair for _, pair in flows]
    if args.flow and got != args.flow:
        fail(f"flows run {got}, expected {args.flow}")
    print(f"wait flows: {got}")


if __name__ == "__main__":
    main()
