"""Bzlmod: the crates repository of this module (bazel/crates.bzl).

Kept apart from crates.bzl because `module_extension` does not exist under WORKSPACE-only
Bazel versions, which load crates.bzl.
"""

load(":crates.bzl", "xla_rocm_tracer_crates")

def _crates_impl(_module_ctx):
    xla_rocm_tracer_crates(name = "xla_rocm_tracer_crates")

crates = module_extension(implementation = _crates_impl)
