"""The xla-rocm-tracer for JAX on AMD GPUs (docs/python.md of the project).

Import it before JAX starts HIP (before the first ``jax.devices()`` or computation)::

    import xla_rocm_tracer  # noqa: F401
    import jax

    with jax.profiler.trace("/tmp/logdir"):
        ...

Every ``jax.profiler`` session then also captures the GPU work with this tracer, and writes it
into the same run of the log folder, as ``<host>.pid<PID>.xplane.pb``: XLA's host planes (Python,
TraceMe, the XLA ops) with this tracer's HIP stream lanes. xprof and TensorBoard show it as a
host of that run.

How: the import adds the tool library to ``ROCP_TOOL_LIBRARIES``, so that rocprofiler-sdk loads
it beside XLA's own tracer when HIP starts; each session's start and stop also start and stop
the library's capture (its C ABI, ``include/xla_rocm_tracer.h``). Imported after HIP started,
the library is loaded then, after XLA's tool holds the SDK: ROCm 10.1's rocprofiler-sdk
(anytime initialization) still traces; before it, the session says why it has no GPU events
in one line on stderr.
"""

import ctypes
import os
import site
import sys
import sysconfig
import time

__all__ = ["library_path", "start", "stop", "write_log_folder"]

TOOL_LIBRARY = "libxla_rocm_tracer_tool.so"
# Names the tool library explicitly, as for the `xla-rocm-tracer` command.
TOOL_LIBRARY_VARIABLE = "XLA_ROCM_TRACER_TOOL_LIBRARY"
# Where the wheel installs the library, under its install prefix.
_INSTALLED_FOLDER = os.path.join("lib", "xla-rocm-tracer")
_STATUS_OK = 0
# Set by `xla-rocm-tracer record` for the processes it traces.
_RECORD_FOLDER_VARIABLE = "XLA_ROCM_TRACER_OUTPUT_FOLDER"


def _say(line):
    print(f"xla_rocm_tracer: {line}", file=sys.stderr, flush=True)


def library_path():
    """The tool library: ``XLA_ROCM_TRACER_TOOL_LIBRARY``, else the one this package installed."""
    named = os.environ.get(TOOL_LIBRARY_VARIABLE)
    if named:
        return named if os.path.isfile(named) else None
    prefixes = [sys.prefix, sysconfig.get_path("data"), getattr(site, "USER_BASE", None)]
    for prefix in prefixes:
        if prefix:
            candidate = os.path.join(prefix, _INSTALLED_FOLDER, TOOL_LIBRARY)
            if os.path.isfile(candidate):
                return candidate
    return None


class _Tool:
    """The tool library's C ABI, loaded on first use (the SDK has loaded it by then when this
    module was imported in time: ctypes then gets that same instance)."""

    def __init__(self, path):
        self.path = path
        self._lib = None
        self.since_ns = None

    def lib(self):
        if self._lib is None:
            # Not loaded yet when HIP started before the import: loaded now, it registers late
            # (ROCm 10.1's rocprofiler-sdk accepts that; before it the session's end says why
            # it has no GPU events, in one line).
            self._lib = ctypes.CDLL(self.path, mode=ctypes.RTLD_GLOBAL)
            self._lib.xrt_enable.argtypes = [ctypes.c_void_p]
            self._lib.xrt_tool_write_log_folder.argtypes = [ctypes.c_char_p, ctypes.c_uint64]
        return self._lib


_tool = None


def start():
    """Starts a capture (``jax.profiler`` sessions call this; other programs may too)."""
    if _tool is None:
        return False
    try:
        lib = _tool.lib()
    except OSError as error:
        _say(f"cannot load {_tool.path}: {error}")
        return False
    lib.xrt_disable()  # a session ended without stop() (PGLE's stop_and_get_fdo_profile)
    _tool.since_ns = time.time_ns()
    # A refusal is said once, when the session is written (write_log_folder).
    return lib.xrt_enable(None) == _STATUS_OK


def stop():
    """Stops the capture started by :func:`start`."""
    if _tool is None or _tool._lib is None:
        return False
    return _tool._lib.xrt_disable() == _STATUS_OK


def write_log_folder(logdir):
    """Writes the last capture into the log folder ``logdir`` (jax.profiler's layout): into the
    run that this process's ``jax.profiler`` session just wrote, with XLA's host planes, or a
    run of its own. Says on stderr where it went."""
    if _tool is None or _tool._lib is None or _tool.since_ns is None:
        return False
    status = _tool._lib.xrt_tool_write_log_folder(os.fsencode(os.fspath(logdir)), _tool.since_ns)
    return status == _STATUS_OK


def _patch_profile_session(profiler):
    """Wraps ``jax._src.profiler.ProfileSession``'s start and stop (``jax.profiler.trace``,
    ``start_trace`` and ``stop_trace`` all go through them)."""
    session_class = getattr(profiler, "ProfileSession", None)
    if session_class is None or getattr(session_class, "_xla_rocm_tracer", False):
        return
    original_start, original_stop = session_class.start, session_class.stop

    def start_session(self, *args, **kwargs):
        result = original_start(self, *args, **kwargs)
        start()  # inside XLA's window: after its tracer started
        return result

    def stop_session(self, *args, **kwargs):
        stop()  # inside XLA's window: before its tracer stops
        result = original_stop(self, *args, **kwargs)
        if getattr(self, "log_dir", None) is not None:
            write_log_folder(self.log_dir)  # after XLA wrote its run
        return result

    session_class.start, session_class.stop = start_session, stop_session
    session_class._xla_rocm_tracer = True


class _PatchWhenImported:
    """A meta-path finder that patches ``jax._src.profiler`` once it is imported (so importing
    this module does not import JAX)."""

    NAME = "jax._src.profiler"

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.NAME:
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original_exec = loader.exec_module

        def exec_module(module):
            original_exec(module)
            _patch_profile_session(module)

        loader.exec_module = exec_module
        return spec


def _install():
    global _tool
    if os.environ.get(_RECORD_FOLDER_VARIABLE):
        # Under `xla-rocm-tracer record`, which traces the whole process with the same
        # library: the module stays out of its way.
        return
    path = library_path()
    if path is None:
        _say(f"{TOOL_LIBRARY} not found (set {TOOL_LIBRARY_VARIABLE}): jax.profiler traces only with XLA's tracer")
        return
    _tool = _Tool(path)
    listed = [p for p in os.environ.get("ROCP_TOOL_LIBRARIES", "").split(":") if p]
    if path not in listed:
        os.environ["ROCP_TOOL_LIBRARIES"] = ":".join(listed + [path])
    if _PatchWhenImported.NAME in sys.modules:
        _patch_profile_session(sys.modules[_PatchWhenImported.NAME])
    else:
        sys.meta_path.insert(0, _PatchWhenImported())


_install()
