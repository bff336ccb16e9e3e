"""``python -m xla_rocm_tracer SCRIPT [ARGS...]``: runs a Python script with the tracer imported
first, as if the script began with ``import xla_rocm_tracer``."""
import runpy
import sys

import xla_rocm_tracer  # noqa: F401  (before the script can start HIP)


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
