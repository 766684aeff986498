#!/usr/bin/env bash
# The shipped stress PTX (src/doctor/probe/kernels/stress_kernels.ptx) is valid without a GPU: its
# header asks for no more than PTX ISA 7.0 and sm_52 (what drivers back to the CUDA 11.0 era JIT),
# every kernel the stress child looks up is an entry, and the installed ptxas assembles it for
# sm_75 and sm_90. Where nvcc is present, the committed PTX is also what scripts/gen_stress_ptx.sh
# makes from stress_kernels.cu today (its provenance). Exits 125 (ctest skip) without ptxas.
#   check_ptx.sh SOURCE_DIR
set -euo pipefail
src=$1
ptx=$src/src/doctor/probe/kernels/stress_kernels.ptx
cuda=${CUDA_HOME:-/usr/local/cuda}
fail() { echo "FAIL: $*"; exit 1; }
grep -qx '.version 7.0' "$ptx" || fail "the PTX ISA is not 7.0: $(grep '^\.version' "$ptx")"
grep -qx '.target sm_52' "$ptx" || fail "the target is not sm_52: $(grep '^\.target' "$ptx")"
grep -qx '.address_size 64' "$ptx" || fail "the address size is not 64"
for k in doctor_memtest_write doctor_memtest_verify doctor_sgemm doctor_copy; do
  grep -q "^.visible .entry $k(" "$ptx" || fail "no entry $k"
done
if [[ ! -x $cuda/bin/ptxas ]]; then
  echo "SKIP: no ptxas at $cuda/bin/ptxas: the PTX header was checked, not assembled"
  exit 125
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in sm_75 sm_90; do
  "$cuda/bin/ptxas" --gpu-name "$arch" -o "$tmp/$arch.cubin" "$ptx" || fail "ptxas $arch"
  echo "ptxas --gpu-name $arch: ok ($(stat -c %s "$tmp/$arch.cubin") bytes)"
done
if [[ -x $cuda/bin/nvcc ]]; then
  mkdir -p "$tmp/tree/scripts" "$tmp/tree/src/doctor/probe/kernels"
  cp "$src/scripts/gen_stress_ptx.sh" "$tmp/tree/scripts/"
  cp "$src/src/doctor/probe/kernels/stress_kernels.cu" "$tmp/tree/src/doctor/probe/kernels/"
  NVCC=$cuda/bin/nvcc "$tmp/tree/scripts/gen_stress_ptx.sh" >/dev/null
  diff -q "$ptx" "$tmp/tree/src/doctor/probe/kernels/stress_kernels.ptx" >/dev/null \
    || fail "stress_kernels.ptx is not what scripts/gen_stress_ptx.sh makes from stress_kernels.cu"
  echo "the committed PTX is scripts/gen_stress_ptx.sh's output"
fi
echo "PASS"
