#!/usr/bin/env python3
"""Compares our tracer's XSpace with XLA's own from the same process (device events only: our
tool cannot see XLA's annotations, so hlo_op / hlo_module are XLA's alone). Passes when both
/device:GPU:0 planes hold
  * the same kernels, by name and count;
  * the same copies, by direction (event name) and bytes;
  * the same correlation ids;
  * lanes that map one to one: each of our lanes holds exactly the events (by correlation id)
    of one XLA lane; lane numbering may differ.
Prints the differences and exits 1 otherwise; prints a one-line summary on success.
Usage: compare.py XLA.xplane.pb OURS.xplane.pb
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xspace  # noqa: E402


class DeviceTrace:
    def __init__(self, path):
        planes = [p for p in xspace.read(path) if p.name == "/device:GPU:0"]
        if len(planes) != 1:
            raise ValueError(f"{path}: expected one /device:GPU:0 plane, found {len(planes)}")
        plane = planes[0]
        self.events = []  # (lane, name, correlation id, bytes or None)
        for line in plane.lines:
            lane = line.display_name or line.name
            for e in line.events:
                name = plane.event_names.get(e.metadata_id, "?")
                stats = plane.event_stats(e)
                self.events.append((lane, name, stats.get("correlation_id"), copy_bytes(stats)))

    def kernels(self):
        return collections.Counter(name for _, name, _, size in self.events if size is None)

    def copies(self):
        return collections.Counter((name, size) for _, name, _, size in self.events if size is not None)

    def correlation_ids(self):
        return collections.Counter(corr for _, _, corr, _ in self.events)

    def lanes(self):
        """{lane: frozenset of its correlation ids}."""
        out = collections.defaultdict(set)
        for lane, _, corr, _ in self.events:
            out[lane].add(corr)
        return {lane: frozenset(ids) for lane, ids in out.items()}


def copy_bytes(stats):
    """A copy's bytes from memcpy_details (`size:N`), or None for a kernel."""
    details = stats.get("memcpy_details")
    if details is None:
        return None
    for item in str(details).split():
        key, _, value = item.partition(":")
        if key == "size":
            return int(value)
    return -1


def differences(xla, ours):
    out = []

    def counter_diff(what, a, b):
        if a != b:
            only_xla, only_ours = a - b, b - a
            out.append(f"{what} differ: only in XLA's {dict(only_xla)}, only in ours {dict(only_ours)}")

    counter_diff("kernels (name: count)", xla.kernels(), ours.kernels())
    counter_diff("copies ((direction, bytes): count)", xla.copies(), ours.copies())
    counter_diff("correlation ids", xla.correlation_ids(), ours.correlation_ids())
    xla_lanes, our_lanes = xla.lanes(), ours.lanes()
    by_ids = {ids: lane for lane, ids in xla_lanes.items()}
    for lane, ids in sorted(our_lanes.items()):
        if ids not in by_ids:
            out.append(f"our lane {lane!r} (correlation ids {sorted(ids, key=str)[:8]}...) "
                       f"holds the events of no single XLA lane")
    if len(our_lanes) != len(xla_lanes):
        out.append(f"lane count differs: XLA {sorted(xla_lanes)} vs ours {sorted(our_lanes)}")
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    xla, ours = DeviceTrace(sys.argv[1]), DeviceTrace(sys.argv[2])
    problems = differences(xla, ours)
    if problems:
        for p in problems:
            print(f"DIFF: {p}")
        sys.exit(1)
    print(f"same device work: {sum(xla.kernels().values())} kernels, {sum(xla.copies().values())} copies, "
          f"{len(xla.lanes())} lanes (XLA) / {len(ours.lanes())} (ours)")


if __name__ == "__main__":
    main()
