#!/usr/bin/env bash
# A `gpu` test: `stress` on the real GPU 0. With no argument the quick level must pass (exit 0);
# with `memtest` or `gemm` the injected fault must be reported (exit 1 with the finding). Exits
# 125 (ctest skip) when stress says it could not run (exit 4: no driver, no GPU), with its reason.
#   gpu_stress.sh EXE [memtest|gemm]
set -uo pipefail
exe=$1
inject=${2:-}
args=(stress --level quick --format json)
[[ -n $inject ]] && args+=(--inject-fault "$inject")
out=$("$exe" "${args[@]}")
rc=$?
if [[ $rc == 4 ]]; then
  echo "SKIP: no GPU: $(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"]["detail"])')"
  exit 125
fi
printf '%s\n' "$out"
if [[ -z $inject ]]; then
  [[ $rc == 0 ]] || { echo "FAIL: stress exited $rc on a GPU that should pass"; exit 1; }
else
  want=hardware.memory_test_errors
  [[ $inject == gemm ]] && want=hardware.gemm_mismatch
  [[ $rc == 1 ]] || { echo "FAIL: stress exited $rc with a fault injected into $inject"; exit 1; }
  grep -q "\"id\": \"$want\"" <<<"$out" || { echo "FAIL: no $want"; exit 1; }
fi
echo PASS
