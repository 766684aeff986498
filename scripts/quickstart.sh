#!/usr/bin/env bash
# Installs what cudnn-doctor needs (Debian packages), builds it and runs `cudnn-doctor check`.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
echo
set +e
./build/release/src/cli/cudnn-doctor check "$@"
status=$?
set -e
echo
case $status in
  0) echo "cudnn-doctor: nothing at or above the --fail-on severity (default: error)." ;;
  1) echo "cudnn-doctor: exit status 1: findings at or above --fail-on (default: error), listed above." ;;
  *) echo "cudnn-doctor: exit status $status (2: usage error, 3: internal error)"; exit "$status" ;;
esac
echo "The binary is build/release/src/cli/cudnn-doctor; 'cudnn-doctor --help' lists the commands."
