#!/usr/bin/env python3
"""Compares our tracer's XSpace with XLA's own from the same process (device events only: our
tool cannot see XLA's annotations, so hlo_op / hlo_module are XLA's alone). Passes when both
/device:GPU:0 planes hold
  * the same kernels, by name and count;
  * the same copies, by direction (event name) and bytes;
  * the same correlation ids;
  * lanes that map one to one: each of our lanes holds exactly the events (by correlation id)
    of one XLA lane; lane numbering may differ;
  * the same kernel_details fields and the same ROCTx label (`nvtx_range`) on each kernel and
    on each HIP API event of the host threads, by correlation id;
  * the same ROCTx ranges and marks (host lines `Host Threads/<tid>/ROCTX`): per line, the same
    labels in the same order, marks zero-length in both. Their times are not compared: each
    tool reads the clock in its own marker callback (docs/jax-rocm.md).
It accepts exactly the differences docs/jax-rocm.md lists ("Where the two differ"), each
because our side is right or the field is a known gap of ours, and counts them in the summary:
  * stream waits: ours draws each `hipStreamWaitEvent` as a flow between two zero-length
    events (`hipEventRecord`, `hipStreamWaitEvent`) without a correlation id; XLA draws none.
    They are not compared as device work; each flow must have its two ends;
  * a small host<->device copy (up to 16 KiB) that HIP ran as a `__amd_rocclr_copyBuffer` blit
    kernel, and a same-GPU device-to-device copy HIP runs as that kernel too: XLA's tracer in
    both plugins shows the kernel; ours names it by the call (`MemcpyH2D`/`MemcpyD2H`/`MemcpyD2D`,
    `recorded_direction: Kernel`). It is compared under XLA's
    kernel name, only where XLA's event of that correlation id is that kernel and XLA's own HIP
    API event of the call names the same direction (hipMemcpyHtoD* / DtoH*); its bytes are
    not compared (XLA's trace has none) nor its kernel_details (ours has none);
  * `occ_pct`: XLA's tracer in both plugins writes 0 (it computes no occupancy), ours the
    theoretical occupancy;
  * `group_mem`: XLA's older format repeats the LDS total (static_shared + dynamic_shared);
    ours has the newer XLA's format (openxla/xla#47469), without it.
Prints the differences and exits 1 otherwise; prints a one-line summary on success.
Usage: compare.py XLA.xplane.pb OURS.xplane.pb [--roctx LABEL,...]
  --roctx: the ROCTx workload's labels, which XLA's trace must hold on one ROCTX line in this
  order, the last one on some kernel (so that the equality is not that of two empty sets).
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xspace  # noqa: E402

# The kernel ROCclr runs a small host<->device copy as (CLR rocblit.cpp), by its name in XLA's
# trace.
BLIT_KERNEL = "__amd_rocclr_copyBuffer"
# The direction a HIP copy function's name gives (the functions with a `kind` argument give none).
CALL_DIRECTIONS = (("hipMemcpyHtoD", "MemcpyH2D"), ("hipMemcpyDtoH", "MemcpyD2H"),
                   ("hipMemcpyDtoD", "MemcpyD2D"))


def call_direction(api_name):
    return next((d for prefix, d in CALL_DIRECTIONS if (api_name or "").startswith(prefix)), None)


class DeviceTrace:
    def __init__(self, path):
        space = xspace.read(path)
        planes = [p for p in space if p.name == "/device:GPU:0"]
        if len(planes) != 1:
            raise ValueError(f"{path}: expected one /device:GPU:0 plane, found {len(planes)}")
        # The host side XLA's profiler merges into /host:CPU and ours writes to /host:ROCTRACER.
        self.roctx = collections.defaultdict(list)  # line: [(label, is a mark)] in time order
        self.api_labels = {}  # correlation id: nvtx_range of a HIP API event
        self.api_names = {}  # correlation id: the HIP API event's name
        for host in (p for p in space if p.name.startswith("/host:")):
            for line in host.lines:
                if not line.name.startswith("Host Threads/"):
                    continue
                for e in sorted(line.events, key=lambda e: e.offset_ps):
                    stats = host.event_stats(e)
                    if line.name.endswith("/ROCTX"):
                        self.roctx[line.name].append((host.event_names.get(e.metadata_id, "?"), e.duration_ps == 0))
                    elif "correlation_id" in stats:
                        self.api_labels[stats["correlation_id"]] = stats.get("nvtx_range")
                        self.api_names[stats["correlation_id"]] = host.event_names.get(e.metadata_id)
        plane = planes[0]
        self.events = []  # (lane, name, correlation id, bytes or None)
        self.kernel_facts = {}  # correlation id: kernel_details fields of a kernel
        self.labels = {}  # correlation id: ROCTx label (nvtx_range) of a device event
        self.blits_named_by_call = {}  # correlation id: our direction of a blit kernel's copy
        self.wait_flow_ends = collections.Counter()  # flow stat value: ends (ours only)
        for line in plane.lines:
            lane = line.display_name or line.name
            for e in line.events:
                name = plane.event_names.get(e.metadata_id, "?")
                stats = plane.event_stats(e)
                corr = stats.get("correlation_id")
                if name in WAIT_FLOW_END_NAMES and "flow" in stats and corr is None:
                    # A stream wait drawn as a flow (ours, docs/xla-interface.md#stream-waits):
                    # no device work, so not compared as an event.
                    self.wait_flow_ends[stats["flow"]] += 1
                    continue
                size = copy_bytes(stats)
                if size is not None and stats.get("recorded_direction") == "Kernel":
                    # A blit kernel named by its call (ours): compared as the kernel (see above).
                    self.blits_named_by_call[corr] = name
                    name, size = BLIT_KERNEL, None
                elif size is None:
                    self.kernel_facts[corr] = detail_fields(stats.get("kernel_details"))
                self.labels[corr] = stats.get("nvtx_range")
                self.events.append((lane, name, corr, size))

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


# The zero-length events our trace draws a stream wait's flow between.
WAIT_FLOW_END_NAMES = ("hipEventRecord", "hipStreamWaitEvent")


def flow_differences(xla, ours):
    """XLA draws no waits; ours draws each as two flow ends (one out, one in) of one flow."""
    out = []
    if xla.wait_flow_ends:
        out.append(f"XLA's trace has wait flow ends: {dict(xla.wait_flow_ends)}")
    by_flow = collections.Counter()
    for value, count in ours.wait_flow_ends.items():
        # tsl's XFlow: bits 0-1 the direction, 2-57 the id, 58-63 the category.
        by_flow[(int(value) >> 2) & ((1 << 56) - 1)] += count
    unpaired = {flow: n for flow, n in by_flow.items() if n != 2}
    if unpaired:
        out.append(f"our wait flows without exactly two ends (flow id: ends): {unpaired}")
    return out


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


def detail_fields(details):
    """kernel_details `key:value ...` as a dict."""
    return dict(item.partition(":")[::2] for item in str(details or "").split())


def lds_total(fields):
    try:
        return str(int(fields.get("static_shared", "")) + int(fields.get("dynamic_shared", "")))
    except ValueError:
        return None


# kernel_details fields allowed to differ, each only in the documented way:
# (XLA's fields, ours) -> accepted.
DOCUMENTED_FIELD_DIFFERENCES = {
    "occ_pct": lambda xla, ours: xla.get("occ_pct") == "0" and ours.get("occ_pct") is not None,
    "group_mem": lambda xla, ours: xla.get("group_mem") == lds_total(xla) and "group_mem" not in ours,
}


def kernel_fact_differences(xla, ours):
    """kernel_details of the kernels both traces show as kernels, and the ROCTx label of every
    device event in both."""
    out, accepted = [], collections.Counter()
    for corr in sorted(set(xla.labels) & set(ours.labels), key=str):
        if xla.labels[corr] != ours.labels[corr]:
            out.append(f"device event {corr}: ROCTx label (nvtx_range) XLA {xla.labels[corr]!r}, "
                       f"ours {ours.labels[corr]!r}")
    for corr in sorted(set(xla.kernel_facts) & set(ours.kernel_facts), key=str):
        xla_fields, our_fields = xla.kernel_facts[corr], ours.kernel_facts[corr]
        for key in sorted(set(xla_fields) | set(our_fields)):
            a, b = xla_fields.get(key), our_fields.get(key)
            if a == b:
                continue
            if key in DOCUMENTED_FIELD_DIFFERENCES and DOCUMENTED_FIELD_DIFFERENCES[key](xla_fields, our_fields):
                accepted[key] += 1
            else:
                out.append(f"kernel {corr}: kernel_details {key}: XLA {a!r}, ours {b!r}")
    return out, accepted


def blit_differences(xla, ours):
    """Each copy ours names by its call where the SDK recorded a blit kernel must be XLA's
    blit kernel of the same correlation id, of a host<->device call whose direction XLA's HIP
    API event of the call names the same way."""
    out = []
    xla_names = {corr: name for _, name, corr, _ in xla.events}
    for corr, ours_direction in sorted(ours.blits_named_by_call.items(), key=lambda kv: str(kv[0])):
        api = xla.api_names.get(corr)
        if xla_names.get(corr) != BLIT_KERNEL:
            out.append(f"our copy {corr} ({ours_direction}, recorded as a kernel) is XLA's "
                       f"{xla_names.get(corr)!r}, not a {BLIT_KERNEL} kernel")
        elif ours_direction not in ("MemcpyH2D", "MemcpyD2H", "MemcpyD2D") or call_direction(api) not in (None, ours_direction):
            out.append(f"our copy {corr} is named {ours_direction}; XLA's HIP API event of the call is {api!r}")
    return out


def roctx_differences(xla, ours):
    out = []
    for line in sorted(set(xla.roctx) | set(ours.roctx)):
        if xla.roctx.get(line) != ours.roctx.get(line):
            out.append(f"ROCTx on {line!r} ((label, is a mark) in order): XLA {xla.roctx.get(line)}, "
                       f"ours {ours.roctx.get(line)}")
    for corr in sorted(set(xla.api_labels) & set(ours.api_labels), key=str):
        if xla.api_labels[corr] != ours.api_labels[corr]:
            out.append(f"HIP API event {corr}: ROCTx label (nvtx_range) XLA {xla.api_labels[corr]!r}, "
                       f"ours {ours.api_labels[corr]!r}")
    return out


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
    out.extend(blit_differences(xla, ours))
    out.extend(flow_differences(xla, ours))
    out.extend(kernel_fact_differences(xla, ours)[0])
    out.extend(roctx_differences(xla, ours))
    return out


def missing_roctx(trace, labels):
    """With --roctx: the workload's ROCTx calls must be in the trace (so that equal means
    something): one ROCTX line with these labels in order, the last (innermost) on some kernel."""
    lines = [[label for label, _ in events] for events in trace.roctx.values()]
    if lines != [labels]:
        return [f"expected one ROCTx line with {labels} in XLA's trace, found {lines}"]
    if not any(trace.labels.get(corr) == labels[-1] for corr in trace.kernel_facts):
        return [f"no kernel labelled {labels[-1]!r} in XLA's trace"]
    return []


def main():
    args = sys.argv[1:]
    roctx = None
    if len(args) == 4 and args[2] == "--roctx":
        roctx = args[3].split(",")
        args = args[:2]
    if len(args) != 2:
        sys.exit(__doc__)
    xla, ours = DeviceTrace(args[0]), DeviceTrace(args[1])
    problems = (missing_roctx(xla, roctx) if roctx else []) + differences(xla, ours)
    if problems:
        for p in problems:
            print(f"DIFF: {p}")
        sys.exit(1)
    accepted = kernel_fact_differences(xla, ours)[1]
    labelled = sum(1 for corr in ours.kernel_facts if ours.labels.get(corr))
    print(f"same device work: {sum(xla.kernels().values())} kernels, {sum(xla.copies().values())} copies, "
          f"{len(xla.lanes())} lanes (XLA) / {len(ours.lanes())} (ours); {labelled} kernels with a ROCTx label, "
          f"{sum(len(v) for v in ours.roctx.values())} ROCTx ranges and marks; "
          f"documented differences: {sum(ours.wait_flow_ends.values()) // 2} stream waits as flows, "
          f"{len(ours.blits_named_by_call)} blit kernels named by call "
          f"({', '.join(f'{d} {n}' for d, n in sorted(collections.Counter(ours.blits_named_by_call.values()).items()))}), "
          + ", ".join(f"{key} on {accepted[key]} kernels" for key in sorted(DOCUMENTED_FIELD_DIFFERENCES)))


if __name__ == "__main__":
    main()
