#!/usr/bin/env python3
"""Tests of compare.py on synthetic XSpaces written with xspace.write: it passes for the same
device work on renumbered lanes and for exactly the documented differences, and fails, naming
the difference, for each kind of mismatch.
Run: python3 tests/jax-rocm/test_compare.py (tests/run-all.sh does).
"""
import os
import subprocess
import sys
import tempfile
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import xspace  # noqa: E402


def kernel(name, corr):
    return (name, corr * 1000, 500, {"correlation_id": corr, "kernel_details": "regs:32"})


def copy(name, corr, size):
    return (name, corr * 1000, 500, {"correlation_id": corr, "memcpy_details": f"kind:Unknown size:{size}"})


def blit_by_call(name, corr, size):
    """Our event of a copy HIP ran as a blit kernel: named by the call, the kernel recorded."""
    event = copy(name, corr, size)
    event[3]["recorded_direction"] = "Kernel"
    return event


XLA = [
    {"name": "Stream #0", "events": [kernel("gemm_fusion_dot_general_1", 10), kernel("gemm_fusion_dot_general_1", 11),
                                     kernel("loop_multiply_fusion", 14)]},
    {"name": "Stream #1", "events": [copy("MemcpyH2D", 12, 4194304)]},
    {"name": "Stream #2", "events": [copy("MemcpyD2H", 13, 32768)]},
]


def ours_from(lanes):
    return [{"name": name, "events": events} for name, events in lanes]


class CompareTest(unittest.TestCase):
    def run_compare(self, xla_lines, our_lines, xla_host=(), our_host=(), extra=()):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "xla.xplane.pb"), os.path.join(d, "ours.xplane.pb")
            host = {"name": "/host:CPU", "lines": [{"name": "python", "events": [("x", 0, 1, {})]}] + list(xla_host)}
            xspace.write(a, [host, {"name": "/device:GPU:0", "lines": xla_lines}])
            xspace.write(b, [{"name": "/host:ROCTRACER", "lines": list(our_host)},
                             {"name": "/device:GPU:0", "lines": our_lines}])
            result = subprocess.run([sys.executable, os.path.join(here, "compare.py"), a, b, *extra],
                                    capture_output=True, text=True)
            return result.returncode, result.stdout

    def test_same_work_on_renumbered_lanes_passes(self):
        ours = ours_from([("Stream #7", XLA[2]["events"]), ("Stream #3", XLA[0]["events"]),
                          ("Stream #5", XLA[1]["events"])])
        code, out = self.run_compare(XLA, ours)
        self.assertEqual(code, 0, out)
        self.assertIn("3 kernels, 2 copies, 3 lanes", out)

    def test_stream_waits_drawn_as_flows_pass_when_each_has_two_ends(self):
        def end(name, flow_id, direction, at):
            return (name, at, 0, {"flow": direction | flow_id << 2})
        record, wait = end("hipEventRecord", 99, 2, 12600), end("hipStreamWaitEvent", 99, 1, 13000)
        ours = ours_from([("Stream #0", XLA[0]["events"]), ("Stream #1", XLA[1]["events"] + [record]),
                          ("Stream #2", XLA[2]["events"] + [wait])])
        code, out = self.run_compare(XLA, ours)
        self.assertEqual(code, 0, out)
        self.assertIn("1 stream waits as flows", out)
        ours = ours_from([("Stream #0", XLA[0]["events"]), ("Stream #1", XLA[1]["events"] + [record]),
                          ("Stream #2", XLA[2]["events"])])
        code, out = self.run_compare(XLA, ours)
        self.assertEqual(code, 1)
        self.assertIn("without exactly two ends", out)

    def test_missing_kernel_fails(self):
        ours = ours_from([("Stream #0", XLA[0]["events"][:2]), ("Stream #1", XLA[1]["events"]),
                          ("Stream #2", XLA[2]["events"])])
        code, out = self.run_compare(XLA, ours)
        self.assertEqual(code, 1)
        self.assertIn("kernels (name: count) differ", out)
        self.assertIn("loop_multiply_fusion", out)

    def test_copy_direction_or_bytes_differ_fails(self):
        ours = ours_from([("Stream #0", XLA[0]["events"]), ("Stream #1", XLA[1]["events"]),
                          ("Stream #2", [copy("MemcpyD2H", 13, 128)])])
        code, out = self.run_compare(XLA, ours)
        self.assertEqual(code, 1)
        self.assertIn("copies ((direction, bytes): count) differ", out)
        ours = ours_from([("Stream #0", XLA[0]["events"]), ("Stream #1", XLA[1]["events"]),
                          ("Stream #2", [copy("MemcpyD2D", 13, 64)])])
        code, out = self.run_compare(XLA, ours)
        self.assertEqual(code, 1)
        self.assertIn("('MemcpyD2D', 64)", out)
        ours = ours_from([("Stream #0", XLA[0]["events"]), ("Stream #1", XLA[1]["events"]),
                          ("Stream #2", [copy("MemcpyD2H", 13, 65536)])])
        code, out = self.run_compare(XLA, ours)
        self.assertEqual(code, 1)
        self.assertIn("('MemcpyD2H', 65536)", out)

    def test_correlation_ids_differ_fails(self):
        shifted = [kernel("gemm_fusion_dot_general_1", 10), kernel("gemm_fusion_dot_general_1", 99),
                   kernel("loop_multiply_fusion", 14)]
        ours = ours_from([("Stream #0", shifted), ("Stream #1", XLA[1]["events"]), ("Stream #2", XLA[2]["events"])])
        code, out = self.run_compare(XLA, ours)
        self.assertEqual(code, 1)
        self.assertIn("correlation ids differ", out)

    def test_lanes_merged_or_split_fail(self):
        merged = ours_from([("Stream #0", XLA[0]["events"]), ("Stream #1", XLA[1]["events"] + XLA[2]["events"])])
        code, out = self.run_compare(XLA, merged)
        self.assertEqual(code, 1)
        self.assertIn("holds the events of no single XLA lane", out)
        split = ours_from([("Stream #0", XLA[0]["events"][:1]), ("Stream #9", XLA[0]["events"][1:]),
                           ("Stream #1", XLA[1]["events"]), ("Stream #2", XLA[2]["events"])])
        code, out = self.run_compare(XLA, split)
        self.assertEqual(code, 1)
        self.assertIn("lane count differs", out)

    def blit_traces(self, our_blit, xla_blit_name="__amd_rocclr_copyBuffer", xla_call="hipMemcpyDtoHAsync"):
        """XLA's trace with a blit kernel (correlation id 13) of a copy call on a host thread;
        ours with `our_blit` in its place."""
        xla = XLA[:2] + [{"name": "Stream #2", "events": [kernel(xla_blit_name, 13)]}]
        ours = ours_from([("Stream #0", XLA[0]["events"]), ("Stream #1", XLA[1]["events"]), ("Stream #2", [our_blit])])
        xla_host = [{"name": "Host Threads/7", "events": [(xla_call, 13000, 5, {"correlation_id": 13})]}]
        return self.run_compare(xla, ours, xla_host=xla_host)

    def test_blit_kernel_named_by_call_passes_only_against_the_same_call(self):
        code, out = self.blit_traces(blit_by_call("MemcpyD2H", 13, 128))
        self.assertEqual(code, 0, out)
        self.assertIn("1 blit kernels named by call (MemcpyD2H 1)", out)
        # The blit's size is not compared: XLA's kernel has none, and the simulated HIP runtime
        # gives our tool none for hipMemcpyDtoHAsync (docs/jax-rocm.md).
        code, out = self.blit_traces(blit_by_call("MemcpyD2H", 13, 0))
        self.assertEqual(code, 0, out)
        code, out = self.blit_traces(blit_by_call("MemcpyD2H", 13, 128), xla_call="hipMemcpyAsync")
        self.assertEqual(code, 0, "hipMemcpyAsync's direction is in its kind argument, not its name")
        code, out = self.blit_traces(blit_by_call("MemcpyH2D", 13, 128))
        self.assertEqual(code, 1, "named against XLA's call direction")
        self.assertIn("XLA's HIP API event of the call is 'hipMemcpyDtoHAsync'", out)
        code, out = self.blit_traces(blit_by_call("MemcpyD2D", 13, 128), xla_call="hipMemcpyAsync")
        self.assertEqual(code, 0, "a same-GPU device-to-device blit is named by its call too")
        code, out = self.blit_traces(blit_by_call("MemcpyD2D", 13, 128))
        self.assertEqual(code, 1, "named against XLA's call direction")
        code, out = self.blit_traces(blit_by_call("MemcpyP2P", 13, 128), xla_call="hipMemcpyAsync")
        self.assertEqual(code, 1, "no blit is a peer copy")
        code, out = self.blit_traces(blit_by_call("MemcpyD2H", 13, 128), xla_blit_name="loop_multiply_fusion")
        self.assertEqual(code, 1)
        self.assertIn("not a __amd_rocclr_copyBuffer kernel", out)
        labelled = blit_by_call("MemcpyD2H", 13, 128)
        labelled[3]["nvtx_range"] = "matmul_steps"
        code, out = self.blit_traces(labelled)
        self.assertEqual(code, 1, "a blit's ROCTx label is compared too")
        self.assertIn("device event 13: ROCTx label (nvtx_range) XLA None, ours 'matmul_steps'", out)
        code, out = self.blit_traces(copy("MemcpyD2H", 13, 128))
        self.assertEqual(code, 1, "a copy record of ours against XLA's blit kernel")
        self.assertIn("kernels (name: count) differ", out)

    def with_details(self, xla_details, our_details, our_label=None):
        xla = [{"name": "Stream #0", "events": [("k", 0, 5, {"correlation_id": 1, "kernel_details": xla_details})]}]
        stats = {"correlation_id": 1, "kernel_details": our_details}
        if our_label:
            stats["nvtx_range"] = our_label
        return self.run_compare(xla, [{"name": "Stream #4", "events": [("k", 0, 5, stats)]}])

    def test_kernel_details_accept_only_the_documented_differences(self):
        code, out = self.with_details("regs:104 static_shared:0 dynamic_shared:1024 group_mem:1024 occ_pct:0",
                                      "regs:104 static_shared:0 dynamic_shared:1024 occ_pct:50")
        self.assertEqual(code, 0, out)
        self.assertIn("group_mem on 1 kernels, occ_pct on 1 kernels", out)
        for xla_details, ours, field in [("regs:104 occ_pct:0", "regs:96 occ_pct:50", "regs"),
                                         ("regs:104 occ_pct:25", "regs:104 occ_pct:50", "occ_pct"),
                                         ("regs:104 occ_pct:0", "regs:104", "occ_pct"),
                                         ("regs:104 occ_pct:0", "regs:104 occ_pct:0 group_mem:8", "group_mem"),
                                         ("static_shared:0 dynamic_shared:8 group_mem:16", "static_shared:0 dynamic_shared:8",
                                          "group_mem")]:
            code, out = self.with_details(xla_details, ours)
            self.assertEqual(code, 1, (xla_details, ours))
            self.assertIn(f"kernel_details {field}", out)

    def test_roctx_label_on_a_kernel_must_match(self):
        code, out = self.with_details("regs:8", "regs:8", our_label="matmul_steps")
        self.assertEqual(code, 1)
        self.assertIn("ROCTx label (nvtx_range) XLA None, ours 'matmul_steps'", out)

    def test_roctx_ranges_and_api_labels_compared_per_thread_line(self):
        def host(label_of_launch, ranges):
            return [{"name": "Host Threads/7/ROCTX", "events": ranges},
                    {"name": "Host Threads/7", "events": [
                        ("hipModuleLaunchKernel", 50, 5, {"correlation_id": 10, "nvtx_range": label_of_launch})]}]
        xla_ranges = [("before", 10, 0, {}), ("outer", 20, 900, {}), ("inner", 30, 800, {})]
        # The times differ (each tool reads its own clock); labels, order and marks must not.
        our_ranges = [("before", 1010, 0, {}), ("outer", 1021, 898, {}), ("inner", 1033, 790, {})]
        code, out = self.run_compare(XLA, XLA, host("inner", xla_ranges), host("inner", our_ranges))
        self.assertEqual(code, 0, out)
        self.assertIn("3 ROCTx ranges and marks", out)
        code, out = self.run_compare(XLA, XLA, host("inner", xla_ranges), host("inner", our_ranges[:2]))
        self.assertEqual(code, 1)
        self.assertIn("ROCTx on 'Host Threads/7/ROCTX'", out)
        code, out = self.run_compare(XLA, XLA, host("inner", xla_ranges), host("outer", our_ranges))
        self.assertEqual(code, 1)
        self.assertIn("HIP API event 10: ROCTx label", out)
        roctx = ("--roctx", "before,outer,inner")
        code, out = self.run_compare(XLA, XLA, host("inner", xla_ranges), host("inner", our_ranges), roctx)
        self.assertEqual(code, 1, "no kernel carries the innermost label")
        self.assertIn("no kernel labelled 'inner'", out)
        labelled = [{"name": "Stream #0", "events": [
            ("k", 0, 5, {"correlation_id": 10, "kernel_details": "regs:8", "nvtx_range": "inner"})]}]
        code, out = self.run_compare(labelled, labelled, host("inner", xla_ranges), host("inner", our_ranges), roctx)
        self.assertEqual(code, 0, out)
        code, out = self.run_compare(labelled, labelled, [], [], roctx)
        self.assertEqual(code, 1, "no ROCTx in either trace")
        self.assertIn("expected one ROCTx line", out)
        marked = [("before", 1010, 7, {})] + our_ranges[1:]
        code, out = self.run_compare(XLA, XLA, host("inner", xla_ranges), host("inner", marked))
        self.assertEqual(code, 1)


if __name__ == "__main__":
    unittest.main()
