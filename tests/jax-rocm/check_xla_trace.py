#!/usr/bin/env python3
"""Checks the XSpace XLA's own ROCm tracer wrote for one run of examples/jax_matmul.py
--shape MxKxN (any shape) on the simulated GPU, by what the workload submits (never by
computed values: the simulator runs no kernel bodies):
  * /device:GPU:0 exists and its lanes are `Stream #N`;
  * the ten matmul steps are ten launches of each kernel of module jit_matmul (one GEMM, or a
    split-K GEMM and its reduction when autotuning picks that);
  * the elementwise step, the last work before the trace stops, is at most one kernel of
    module jit_multiply: its record may arrive after XLA's tracer flushed (the SDK delivers
    kernel records after a lag, docs/simulator-fidelity.md#asynchronous-completion), so it is
    not required;
  * the upload is one 4 MiB host-to-device copy (a MEMORY_COPY record: above ROCclr's 16 KiB
    blit size);
  * every `__amd_rocclr_copyBuffer` kernel (a blit: HIP runs a host<->device copy of up to
    16 KiB as that kernel, docs/simulator-fidelity.md#the-ledger) is the device work of a HIP
    copy call on XLA's host plane (same correlation id), and the 8x8 read-back, at most 128
    bytes, is one of them, of a hipMemcpyDtoH* call: XLA's tracer in both plugins shows it as a
    kernel, without its bytes;
  * every kernel carries kernel_details and a correlation id, every copy memcpy_details.
Prints one line of counts (kernels, blits among them, copies, lanes) for the summary.
Usage: check_xla_trace.py XLA.xplane.pb
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xspace  # noqa: E402

STEPS = 10
UPLOAD_BYTES = 1024 * 1024 * 4
BLIT_KERNEL = "__amd_rocclr_copyBuffer"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def device_events(space, path):
    """[(lane name, event name, stats)] of /device:GPU:0."""
    planes = [p for p in space if p.name == "/device:GPU:0"]
    if len(planes) != 1:
        fail(f"{path}: expected one /device:GPU:0 plane, found {len(planes)}")
    plane = planes[0]
    return [
        (line.display_name or line.name, plane.event_names.get(e.metadata_id, "?"), plane.event_stats(e))
        for line in plane.lines
        for e in line.events
    ]


def host_copy_calls(space):
    """{correlation id: HIP function} of the HIP copy calls on the host threads."""
    calls = {}
    for plane in (p for p in space if p.name.startswith("/host:")):
        for line in plane.lines:
            for e in line.events:
                name = plane.event_names.get(e.metadata_id, "")
                stats = plane.event_stats(e)
                if name.startswith("hipMemcpy") and "correlation_id" in stats:
                    calls[stats["correlation_id"]] = name
    return calls


def is_copy(name):
    return name.startswith("Memcpy")


def copy_bytes(stats):
    details = dict(kv.split(":", 1) for kv in str(stats.get("memcpy_details", "")).split() if ":" in kv)
    return int(details.get("size", -1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    args = parser.parse_args()
    space = xspace.read(args.trace)
    events = device_events(space, args.trace)
    copy_calls = host_copy_calls(space)
    lanes = sorted({lane for lane, _, _ in events})
    if not lanes or not all(lane.startswith("Stream #") for lane in lanes):
        fail(f"device lanes are {lanes}, expected Stream #N lanes")
    kernels = [(lane, name, st) for lane, name, st in events if not is_copy(name)]
    copies = [(lane, name, st) for lane, name, st in events if is_copy(name)]
    by_module = collections.Counter(st.get("hlo_module", "") for _, _, st in kernels)
    matmul_kernels = collections.Counter(name for _, name, st in kernels if st.get("hlo_module") == "jit_matmul")
    if not matmul_kernels or any(count != STEPS for count in matmul_kernels.values()):
        fail(f"expected each jit_matmul kernel {STEPS} times (one per step), got {dict(matmul_kernels)}")
    if by_module["jit_multiply"] > 1:
        fail(f"more than one jit_multiply kernel (the elementwise step); modules {dict(by_module)}")
    for _, name, st in kernels:
        if "kernel_details" not in st or "correlation_id" not in st:
            fail(f"kernel {name} lacks kernel_details or correlation_id: {sorted(st)}")
    for _, name, st in copies:
        if "memcpy_details" not in st or "correlation_id" not in st:
            fail(f"copy {name} lacks memcpy_details or correlation_id: {sorted(st)}")
    uploads = [c for c in copies if c[1] == "MemcpyH2D" and copy_bytes(c[2]) == UPLOAD_BYTES]
    if len(uploads) != 1:
        fail(f"expected one {UPLOAD_BYTES}-byte MemcpyH2D (the upload), copies: "
             f"{[(name, copy_bytes(st)) for _, name, st in copies]}")
    blit_calls = collections.Counter()
    for _, name, st in kernels:
        if name != BLIT_KERNEL:
            continue
        call = copy_calls.get(st["correlation_id"])
        if call is None:
            fail(f"a {BLIT_KERNEL} kernel (correlation id {st['correlation_id']}) is no HIP copy call's")
        blit_calls[call] += 1
    if sum(count for call, count in blit_calls.items() if call.startswith("hipMemcpyDtoH")) != 1:
        fail(f"expected the read-back as one {BLIT_KERNEL} kernel of a hipMemcpyDtoH* call; blits by call: "
             f"{dict(blit_calls)}, copies: {[(name, copy_bytes(st)) for _, name, st in copies]}")
    kinds = collections.Counter(name for _, name, _ in copies)
    names = collections.Counter(name for _, name, _ in kernels)
    print(f"{len(kernels)} kernels ({', '.join(f'{k} {v}' for k, v in sorted(names.items()))}; "
          f"blits by call: {', '.join(f'{k} {v}' for k, v in sorted(blit_calls.items()))}); "
          f"{len(copies)} copies ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
          f"{len(lanes)} lanes")


if __name__ == "__main__":
    main()
