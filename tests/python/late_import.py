#!/usr/bin/env python3
"""`import xla_rocm_tracer` after JAX started HIP (tests/python/run.sh): three jitted matmuls
under jax.profiler.trace(LOGDIR). Usage: late_import.py LOGDIR"""
import sys

import jax
import jax.numpy as jnp

jax.devices()  # the plugin starts HIP (and XLA's tracer forces rocprofiler-sdk)
import xla_rocm_tracer  # noqa: E402,F401  (too late, on purpose)

matmul = jax.jit(jnp.matmul)
x = jnp.ones((8, 8), dtype=jnp.float32)
matmul(x, x).block_until_ready()
with jax.profiler.trace(sys.argv[1]):
    for _ in range(3):
        matmul(x, x).block_until_ready()
