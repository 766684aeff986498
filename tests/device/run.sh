#!/usr/bin/env bash
# The device check of issue 17, on a machine with an NVIDIA GPU, in under 5 minutes: builds the
# release preset, then runs `probe`, `stress --level quick`, `stress --level quick` with a fault
# injected into the memory test and into the GEMM (each must be reported), and the ctest tests
# labelled gpu. Writes a summary (device bandwidth as a fraction of the theoretical peak and of
# the H200's 4.8 TB/s, GEMM throughput, memory covered, errors found) to $OUT/summary.txt and the
# JSON reports to $OUT when OUT is set. On a machine without a GPU it stops after the build with
# "no GPU: <why>" and exit status 4.
#   tests/device/run.sh            (from anywhere; JOBS=N to choose the build's parallelism)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
jobs=${JOBS:-$(nproc)}
stage() { echo "== $1 (at ${SECONDS} s)"; }
die() { echo "run.sh: $*" >&2; exit "${2:-1}"; }

stage "build (release preset)"
# The tests are registered (for ctest -L gpu, which needs only the binary and tests/device/), but
# only the binary is built.
cmake --preset release -DDOCTOR_BUILD_TESTS=ON >"$out/configure.log" 2>&1 \
  || die "configure failed (see $out/configure.log)"
cmake --build --preset release -j "$jobs" --target cudnn-doctor >"$out/build.log" 2>&1 \
  || die "build failed (see $out/build.log)"
exe=build/release/src/cli/cudnn-doctor
[[ -x $exe ]] || die "no $exe after the build"

stage "probe"
"$exe" probe --format json >"$out/probe.json"
echo "probe: exit $?"

stage "stress --level quick"
"$exe" stress --level quick --format json >"$out/stress.json"
rc=$?
detail() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["detail"])' "$1"; }
if [[ $rc == 4 ]]; then
  echo "no GPU: $(detail "$out/stress.json")" | tee "$out/summary.txt"
  exit 4
fi
echo "stress: exit $rc"

stage "stress --level quick --inject-fault memtest / gemm"
fail=0
[[ $rc == 0 ]] || { echo "FAIL: stress --level quick exited $rc (see $out/stress.json)"; fail=1; }
for where in memtest gemm; do
  "$exe" stress --level quick --inject-fault "$where" --format json >"$out/stress-inject-$where.json"
  irc=$?
  want=hardware.memory_test_errors
  [[ $where == gemm ]] && want=hardware.gemm_mismatch
  if [[ $irc == 1 ]] && grep -q "\"id\": \"$want\"" "$out/stress-inject-$where.json"; then
    echo "inject $where: reported ($want)"
  else
    echo "FAIL: the fault injected into $where was not reported (exit $irc)"
    fail=1
  fi
done

stage "ctest -L gpu"
ctest --test-dir build/release -L gpu --output-on-failure >"$out/ctest-gpu.log" 2>&1 || {
  echo "FAIL: gpu-labelled tests (see $out/ctest-gpu.log)"
  fail=1
}
tail -3 "$out/ctest-gpu.log"

stage "summary"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, os, sys
out = sys.argv[1]
run = json.load(open(os.path.join(out, "stress.json")))["run"]
h200 = 4.8e12
m, g, b, p = run.get("memory") or {}, run.get("gemm") or {}, run.get("bandwidth") or {}, run["peaks"]
dev = b.get("device_to_device")
print(f"GPU {run['gpu']}: {run['device']['name']} ({run['status']}, {run['seconds']:.1f} s)")
if dev:
    line = f"device copy bandwidth: {dev / 1e9:.1f} GB/s = {dev / h200:.1%} of the H200's 4.8 TB/s"
    if p.get("device"):
        line += f", {dev / p['device']:.1%} of NVML's theoretical {p['device'] / 1e9:.0f} GB/s"
    print(line)
for key, name in (("host_to_device", "host to device"), ("device_to_host", "device to host")):
    if b.get(key):
        frac = f" ({b[key] / p['pcie']:.0%} of the PCIe link's {p['pcie'] / 1e9:.1f} GB/s)" if p.get("pcie") else ""
        print(f"{name}: {b[key] / 1e9:.1f} GB/s{frac}, pinned={b.get('pinned')}")
if g:
    print(f"GEMM: {g['n']}x{g['n']} x {g['iterations']}, {g.get('gflops') or 0:.0f} GFLOP/s, "
          f"{g['run_mismatches']} run mismatches, {g['reference_mismatches']}/{g['reference_checked']} "
          f"reference mismatches, {g['nan']} NaN")
if m:
    print(f"memory covered: {m['bytes_covered'] / 2**30:.1f} GiB of {m['free_before'] / 2**30:.1f} GiB free "
          f"({m['coverage_of_free']:.1%}), {m['errors']} errors")
t = run["telemetry"]
for k, v in t["readings"].items():
    print(f"nvml {k}: {v['min']}..{v['max']}")
PY
echo "== done in ${SECONDS} s"
exit $fail
