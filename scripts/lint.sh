#!/usr/bin/env bash
# Runs clang-tidy 14 (.clang-tidy: naming rules and bug-prone patterns, all as errors) over src/
# with the compile commands of a build directory (default build/ci), which must have been built
# (its dependency files key the cache of clean results: scripts/tidy.py).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/tidy.py "${1:-build/ci}" "${@:2}"
