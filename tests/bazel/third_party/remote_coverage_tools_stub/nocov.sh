#!/bin/sh
echo "coverage is not supported by the offline remote_coverage_tools stand-in" >&2
exit 1
