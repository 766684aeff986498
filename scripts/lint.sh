#!/usr/bin/env bash
# Runs clang-tidy 14 (.clang-tidy: naming rules and bug-prone patterns, all as errors) over src/
# with the compile commands of a build directory (default build/ci).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
if [[ ! -f $build/compile_commands.json ]]; then
  echo "lint: $build/compile_commands.json is missing; configure that build first" >&2
  exit 2
fi
# Windows platform files need the Windows headers; the cross build compiles them instead.
mapfile -t files < <(git ls-files 'src/*.cpp' | grep -v '^src/doctor/platform/windows/')
# gcc-only warning flags in the compile commands are unknown to clang.
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 \
  clang-tidy-14 -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option
echo "lint: ${#files[@]} files clean"
