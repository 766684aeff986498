#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The real torch wheel's CUDA device code read through the C++ fatbinary reader
(tests/support/fatbin_dump): the architectures every container of torch/lib/libtorch_cuda.so has
code for must be exactly those torch declares (torch._C._cuda_getArchFlags(), which needs no GPU),
and the entries must match cuobjdump's listing when a cuobjdump is at hand (the toolkit's, or the
one Triton wheels ship).

It uses an existing environment only, never downloads one: DOCTOR_TORCH_VENV when set, else
/work/cache/torch-venv or build/realistic/torch-venv (which realistic.torch_venv fills). Without
one, the test skips."""
import collections
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness as h  # noqa: E402
from harness import expect, test  # noqa: E402

VENV = None
LIB = None


def find_venv():
    global VENV, LIB
    candidates = [os.environ.get("DOCTOR_TORCH_VENV")] if os.environ.get("DOCTOR_TORCH_VENV") else [
        "/work/cache/torch-venv", os.path.join(h.SOURCE, "build", "realistic", "torch-venv")]
    for venv in filter(None, candidates):
        libs = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "torch", "lib"))
        if libs and os.path.exists(os.path.join(libs[0], "libtorch_cuda.so")):
            VENV, LIB = venv, libs[0]
            return None
    return "no venv with a CUDA torch (set DOCTOR_TORCH_VENV): tried " + ", ".join(filter(None, candidates))


def dump(*names):
    r = subprocess.run([h.EXE] + [os.path.join(LIB, n) for n in names], capture_output=True, text=True)
    expect(r.returncode == 0, f"fatbin_dump exit {r.returncode}: {r.stdout[-2000:]} {r.stderr[-2000:]}")
    return json.loads(r.stdout)


def declared_archs():
    """torch's own list, as sm_XX / compute_XX (flags may also be written -gencode arch=...,code=...)."""
    r = subprocess.run([os.path.join(VENV, "bin", "python"), "-c",
                        "import torch; print(torch._C._cuda_getArchFlags())"],
                       capture_output=True, text=True)
    expect(r.returncode == 0, f"torch cannot be imported: {r.stderr[-2000:]}")
    return set(re.findall(r"\b(?:sm|compute)_\d+[a-z]?\b", r.stdout.strip().splitlines()[-1]))


def cuobjdump():
    for c in [os.environ.get("DOCTOR_CUOBJDUMP"), "/usr/local/cuda/bin/cuobjdump",
              *glob.glob(os.path.join(os.path.dirname(LIB), "..", "triton", "backends", "nvidia", "bin",
                                      "cuobjdump"))]:
        if c and os.access(c, os.X_OK):
            return c
    return None


def cuobjdump_counts(tool, name):
    """Entries per architecture in cuobjdump's listing: ELF "…sm_90a.cubin" is sm_90a, PTX
    "…sm_90.ptx" compute_90. cuobjdump writes a family-specific cubin without its "f"."""
    out = subprocess.run([tool, "--list-elf", "--list-ptx", os.path.join(LIB, name)],
                         capture_output=True, text=True).stdout
    counts = collections.Counter()
    for kind, arch in re.findall(r"(ELF|PTX) file +\d+: .*\.sm_(\d+[a-z]?)\.(?:cubin|ptx)", out):
        counts[("sm_" if kind == "ELF" else "compute_") + arch] += 1
    return counts


@test
def libtorch_cuda_is_built_for_what_torch_declares():
    d = dump("libtorch_cuda.so")[0]
    print(f"  libtorch_cuda.so: {d['containers']} containers, {d['entries']} entries, "
          f"read in {d['milliseconds']:.1f} ms")
    print(f"  common archs: {' '.join(d['common_archs'])}")
    print(f"  all archs:    {' '.join(d['archs'])}")
    expect(d["section"] == ".nv_fatbin" and not d["problems"], d)
    declared = declared_archs()
    print(f"  torch declares: {' '.join(sorted(declared))}")
    expect(set(d["common_archs"]) == declared, (d["common_archs"], declared))
    expect(declared <= set(d["archs"]), (d["archs"], declared))
    # Reading headers only: thousands of entries in well under a second even in a debug build.
    expect(d["milliseconds"] < 1000, d["milliseconds"])


@test
def entries_match_cuobjdump():
    tool = cuobjdump()
    if not tool:
        print("  (no cuobjdump: not compared)")
        return
    for name in ("libtorch_cuda_linalg.so", "libtorch_cuda.so"):
        d = dump(name)[0]
        counts = cuobjdump_counts(tool, name)
        expect(sum(counts.values()) == d["entries"], (name, counts, d["entries"]))
        # cuobjdump drops the family suffix of cubins; compare without it.
        mine = {re.sub(r"^(sm_\d+)f$", r"\1", a) for a in d["archs"]}
        expect(mine == set(counts), (name, sorted(mine), sorted(counts)))


if __name__ == "__main__":
    h.main(find_venv)
