#!/usr/bin/env python3
"""One process of a `jax.distributed` job on localhost (tests/python/run.sh): joins the job
through the coordinator at 127.0.0.1:PORT, then runs examples/jax_matmul.py's GPU workload on
its own local device under jax.profiler.trace(LOGDIR). Each process of the job takes one of the
simulated machine's GPUs (`local_device_ids`), as one process per GPU does on a real node.
Usage: distributed.py PORT NUM_PROCESSES PROCESS_ID LOGDIR"""
import importlib.util
import os
import sys

import jax

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    port, processes, process_id, logdir = sys.argv[1:5]
    # One GPU each, by HIP ordinal, as on a node whose processes all see every GPU.
    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=int(processes),
                               process_id=int(process_id), local_device_ids=[int(process_id)],
                               initialization_timeout=120)
    local = jax.local_devices()
    if len(jax.devices()) != int(processes) or len(local) != 1:
        sys.exit(f"process {process_id}: expected one local device of {processes}, "
                 f"got {local} of {jax.devices()}")
    spec = importlib.util.spec_from_file_location("jax_matmul", os.path.join(REPO, "examples", "jax_matmul.py"))
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    example.run_workload(logdir, shape=(8, 8, 8))
    print(f"process {process_id}: ran on {local[0]}")
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
