#!/usr/bin/env bash
# Formats the tracked C++ sources with clang-format 14, or with --check reports files that differ.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
if [[ ${1:-} == --check ]]; then
  clang-format-14 --dry-run --Werror "${files[@]}"
  echo "format: ${#files[@]} files clean"
else
  clang-format-14 -i "${files[@]}"
fi
