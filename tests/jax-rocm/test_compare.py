#!/usr/bin/env python3
"""Tests of compare.py on synthetic XSpaces written with xspace.write: it passes for the same
device work on renumbered lanes and fails, naming the difference, for each kind of mismatch.
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


XLA = [
    {"name": "Stream #0", "events": [kernel("gemm_fusion_dot_general_1", 10), kernel("gemm_fusion_dot_general_1", 11),
                                     kernel("loop_multiply_fusion", 14)]},
    {"name": "Stream #1", "events": [copy("MemcpyH2D", 12, 4194304)]},
    {"name": "Stream #2", "events": [copy("MemcpyD2D", 13, 128)]},
]


def ours_from(lanes):
    return [{"name": name, "events": events} for name, events in lanes]


class CompareTest(unittest.TestCase):
    def run_compare(self, xla_lines, our_lines):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "xla.xplane.pb"), os.path.join(d, "ours.xplane.pb")
            host = {"name": "/host:CPU", "lines": [{"name": "python", "events": [("x", 0, 1, {})]}]}
            xspace.write(a, [host, {"name": "/device:GPU:0", "lines": xla_lines}])
            xspace.write(b, [{"name": "/device:GPU:0", "lines": our_lines}])
            result = subprocess.run([sys.executable, os.path.join(here, "compare.py"), a, b],
                                    capture_output=True, text=True)
            return result.returncode, result.stdout

    def test_same_work_on_renumbered_lanes_passes(self):
        ours = ours_from([("Stream #7", XLA[2]["events"]), ("Stream #3", XLA[0]["events"]),
                          ("Stream #5", XLA[1]["events"])])
        code, out = self.run_compare(XLA, ours)
        self.assertEqual(code, 0, out)
        self.assertIn("3 kernels, 2 copies, 3 lanes", out)

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


if __name__ == "__main__":
    unittest.main()
