#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`resolve --tree` against libtree (Debian's libtree package) on the real CUDA 13.0 toolkit and
cuDNN 9 libraries of /usr/local/cuda/lib64, and on torch's libtorch_cuda.so when DOCTOR_TORCH_VENV
names a virtual environment with torch: both tools must find the same libraries (the same real
files) and miss the same names. libtree walks the same DT_NEEDED, RPATH, RUNPATH and ld.so.conf
rules as ld.so, written independently, so agreement on every node is evidence for the loader
model, not a recording of it. Skips where libtree or the toolkit is absent."""
import glob
import os
import re
import shutil
import subprocess

import harness as h
from harness import expect, run, test

LIB64 = "/usr/local/cuda/lib64"
LIBTREE = shutil.which("libtree")
# The real file names ld.so would be asked for, as they ship: one per library family.
NAMES = ["libcudnn.so.[0-9]*", "libcudnn_ops.so.[0-9]*", "libcudnn_cnn.so.[0-9]*",
         "libcudnn_graph.so.[0-9]*", "libcudnn_engines_precompiled.so.[0-9]*",
         "libcublas.so.[0-9]*", "libcublasLt.so.[0-9]*", "libcudart.so.[0-9]*", "libnvrtc.so.[0-9]*",
         "libcufft.so.[0-9]*", "libcusparse.so.[0-9]*"]


def libraries():
    libs = []
    for pattern in NAMES:
        found = sorted(glob.glob(os.path.join(LIB64, pattern)), key=len)
        if found:
            libs.append(found[0])
    venv = os.environ.get("DOCTOR_TORCH_VENV")
    if venv:
        libs += glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "torch", "lib",
                                       "libtorch_cuda.so"))
    return libs


def probe():
    if LIBTREE is None:
        return "libtree is not installed (apt-get install libtree)"
    if not os.path.exists(os.path.join(LIB64, "libcudnn.so.9")):
        return f"{LIB64}/libcudnn.so.9 does not exist here"
    return None


def env_without_search_path():
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.pop("LD_PRELOAD", None)
    return env


# "├── /usr/lib/x86_64-linux-gnu/libc.so.6 [ld.so.conf]" or "│   └── libfoo.so.1 not found"
_LIBTREE_LINE = re.compile(r"^[│├└─\s]*(\S+)(?: \[([^\]]*)\])?(.*)$")


def libtree_nodes(lib):
    """{real path of every library found}, {names not found}; -vvv shows every library and every
    repeat, -p its path."""
    p = subprocess.run([LIBTREE, "-vvv", "-p", lib], capture_output=True, text=True,
                       env=env_without_search_path())
    expect(p.returncode in (0, 1), f"libtree exit {p.returncode}: {p.stderr}")
    found, missing = set(), set()
    for line in p.stdout.splitlines()[1:]:  # the first line is the library itself
        m = _LIBTREE_LINE.match(line)
        if not m:
            continue
        name, via, rest = m.groups()
        if "not found" in rest:
            missing.add(os.path.basename(name))
        elif via is not None:
            found.add(os.path.realpath(name))
    return found, missing


# "    libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 [ld.so.cache] (see above)", "    libx.so not found"
_DOCTOR_FOUND = re.compile(r"^\s+(\S+) => (/\S+) \[")
_DOCTOR_MISSING = re.compile(r"^\s+(\S+) not found$")


def doctor_nodes(lib):
    r = run(["resolve", "--tree", "--no-nvml", lib], drop_env=("LD_LIBRARY_PATH", "LD_PRELOAD"))
    expect(r.code in (0, 1), f"resolve exit {r.code}: {r.err}")
    found, missing = set(), set()
    for line in r.out.splitlines()[1:]:
        if m := _DOCTOR_FOUND.match(line):
            found.add(os.path.realpath(m.group(2)))
        elif m := _DOCTOR_MISSING.match(line):
            missing.add(m.group(1))
    return found, missing


@test
def the_same_libraries_as_libtree():
    libs = libraries()
    expect(len(libs) >= 5, f"expected the toolkit's libraries, found {libs}")
    for lib in libs:
        ours, our_missing = doctor_nodes(lib)
        theirs, their_missing = libtree_nodes(lib)
        expect(ours, f"{lib}: resolve found no dependency at all")
        expect(ours == theirs,
               f"{lib}: only resolve found {sorted(ours - theirs)}; only libtree found {sorted(theirs - ours)}")
        expect(our_missing == their_missing,
               f"{lib}: missing for resolve {sorted(our_missing)}, for libtree {sorted(their_missing)}")


if __name__ == "__main__":
    h.main(probe)
