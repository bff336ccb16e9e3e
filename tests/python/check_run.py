#!/usr/bin/env python3
"""Checks a jax.profiler log folder with xprof (run with the xprof venv's Python), as a user of
`import xla_rocm_tracer` or `xla-rocm-tracer record --logdir` opens it:
  * one run under LOGDIR/plugins/profile;
  * PROCESSES files of ours in it (`<host>.pid<PID>.xplane.pb`), beside XLA's own when --xla;
  * xprof's trace viewer (`trace_viewer@`, the tool its UI uses) shows, for each of ours,
    `Stream #` rows of one GPU (the process's own) holding at least KERNELS kernels, and with --merged XLA's
    host events (the `python` thread of /host:CPU) in the same view.
Prints one line per file. Usage:
  check_run.py LOGDIR --processes N --kernels K [--xla] [--merged] [--own-gpus]
"""
import argparse
import glob
import json
import os
import re
import sys

from xprof.convert import raw_to_tool_data


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def trace_viewer(path, host):
    data, _ = raw_to_tool_data.xspace_to_tool_data([path], "trace_viewer@", {"hosts": [host]})
    if data is None:
        fail(f"xprof's trace viewer could not convert {path}")
    return [e for e in json.loads(data)["traceEvents"] if e]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("logdir")
    parser.add_argument("--processes", type=int, required=True)
    parser.add_argument("--kernels", type=int, required=True)
    parser.add_argument("--xla", action="store_true", help="XLA's own file is in the run too")
    parser.add_argument("--merged", action="store_true", help="ours carry XLA's host planes")
    parser.add_argument("--own-gpus", action="store_true",
                        help="each process's kernels are on a GPU of its own (one process per GPU)")
    args = parser.parse_args()

    runs = sorted(glob.glob(os.path.join(args.logdir, "plugins", "profile", "*", "")))
    if len(runs) != 1:
        fail(f"expected one run under {args.logdir}/plugins/profile, found {runs}")
    files = sorted(glob.glob(os.path.join(runs[0], "*.xplane.pb")))
    ours = [f for f in files if re.search(r"\.pid\d+(-\d+)?\.xplane\.pb$", f)]
    theirs = [f for f in files if f not in ours]
    if len(ours) != args.processes:
        fail(f"expected {args.processes} files of ours in {runs[0]}, found {[os.path.basename(f) for f in files]}")
    if args.xla and not theirs:
        fail(f"XLA's own file is missing beside ours in {runs[0]}")
    devices = []
    for path in ours:
        host = os.path.basename(path)[: -len(".xplane.pb")]
        events = trace_viewer(path, host)
        processes = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
        threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
                   if e.get("ph") == "M" and e["name"] == "thread_name"}
        kernels = {}
        for pid, name in processes.items():
            if re.search(r"/device:GPU:\d+$", name):
                kernels[name] = [e for e in events if e.get("ph") == "X" and e["pid"] == pid
                                 and threads.get((e["pid"], e["tid"]), "").startswith("Stream #")
                                 and not e["name"].startswith("Memcpy")]
        busy = {name: len(found) for name, found in kernels.items() if found}
        if len(busy) != 1:
            fail(f"{host}: expected kernels on one GPU's Stream rows, got {busy} (processes: {sorted(processes.values())})")
        (device, count), = busy.items()
        devices.append(device.split("/")[-1])
        if count < args.kernels:
            fail(f"{host}: {count} kernels on the Stream rows, expected at least {args.kernels}")
        line = f"{host}: {count} kernels on {device.split('/')[-1]}'s Stream rows"
        if args.merged:
            cpu = [pid for pid, name in processes.items() if name.endswith("/host:CPU")]
            python = [e for e in events if e.get("ph") == "X" and e["pid"] in cpu
                      and threads.get((e["pid"], e["tid"]), "") == "python"]
            if not python:
                fail(f"{host}: no XLA host events (the python thread of /host:CPU) in the same view")
            line += f", {len(python)} events of XLA's python thread on /host:CPU"
        print(line)
    if args.own_gpus and len(set(devices)) != len(devices):
        fail(f"processes share a GPU: {devices}")


if __name__ == "__main__":
    main()
