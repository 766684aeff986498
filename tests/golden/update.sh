#!/usr/bin/env bash
# Rewrites every golden scenario's expected output with the given cudnn-doctor binary.
set -euo pipefail
exe=${1:?usage: tests/golden/update.sh path/to/cudnn-doctor}
here=$(cd "$(dirname "$0")" && pwd)
for dir in "$here"/scenarios/*/; do
  /usr/bin/python3 "$here/run_golden.py" "$exe" "${dir%/}" --update
  echo "updated ${dir%/}"
done
