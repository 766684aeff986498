#!/usr/bin/env bash
# Rewrites every golden crash report's expected output with the given cudnn-doctor binary; review
# the diff before committing it.
set -euo pipefail
exe=${1:?usage: tests/crash_golden/update.sh path/to/cudnn-doctor}
here=$(cd "$(dirname "$0")" && pwd)
for dir in "$here"/*/; do
  [ -f "$dir/scenario.py" ] || continue
  /usr/bin/python3 "$here/run_crash_golden.py" "$exe" "${dir%/}" --update
  echo "updated ${dir%/}"
done
