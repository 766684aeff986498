#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""FIFOs named like the files the doctor reads. Nothing ever writes to them: a reader that opens one
without O_NONBLOCK, or reads it as if it were a regular file, blocks forever. Each case must
answer promptly, say what it found there, and never call a FIFO a library."""
import base64
import hashlib
import os
import socket

import hostile as x
from hostile import expect, expect_contains, test

IS_FIFO = "is a FIFO, not a regular file"
LIBRARY = "tests/support/fake_nvml.c"  # any small C file makes a real shared library


def snapshot(root, *extra, env=None):
    r = x.run(["snapshot", "--sysroot", root, "--no-nvml", *extra], timeout=30, env=env)
    x.expect_no_internal_error(r)
    expect(r.code == 0, f"snapshot failed: {r!r}")
    return r


# One case per place the doctor reads a text or binary file of an examined tree: the FIFO's inner
# path, any real files the collector needs before it reads that one, extra arguments, and the
# text the snapshot must then carry (the fact's "unknown, because …" naming the FIFO).
PLACES = [
    ("os-release", "etc/os-release", {}, [], "/etc/os-release: " + IS_FIFO),
    ("toolkit version.json", "usr/local/cuda-13.0/version.json",
     {"usr/local/cuda-13.0/include/cuda.h": "/* no version here */\n"}, [],
     "/usr/local/cuda-13.0/version.json: " + IS_FIFO),
    ("/proc/driver/nvidia/version", "proc/driver/nvidia/version", {"proc/cpuinfo": ""}, [],
     "cannot read /proc/driver/nvidia/version: /proc/driver/nvidia/version: " + IS_FIFO),
    ("ld.so.cache", "etc/ld.so.cache", {}, [],
     "cannot read /etc/ld.so.cache: /etc/ld.so.cache: " + IS_FIFO),
    ("ld.so.conf", "etc/ld.so.conf", {}, [],
     "cannot read /etc/ld.so.conf: /etc/ld.so.conf: " + IS_FIFO),
    ("pyvenv.cfg", "venv/pyvenv.cfg", {"venv/bin/activate": ""},
     ["--env", "VIRTUAL_ENV=/venv"], "/venv/pyvenv.cfg: " + IS_FIFO),
    ("libc.so.6", "lib/x86_64-linux-gnu/libc.so.6", {}, [],
     "/lib/x86_64-linux-gnu/libc.so.6: " + IS_FIFO),
    ("cudnn_version.h", "usr/local/cuda-13.0/include/cudnn_version.h",
     {"usr/local/cuda-13.0/include/cuda.h": "#define CUDA_VERSION 13000\n",
      "usr/local/cuda-13.0/lib64/libcudnn.so.9": "not a library\n"}, [],
     "/usr/local/cuda-13.0/include/cudnn_version.h: " + IS_FIFO),
    ("pci.ids", "usr/share/misc/pci.ids",
     {"sys/bus/pci/devices/0000:01:00.0/vendor": "0x10de\n",
      "sys/bus/pci/devices/0000:01:00.0/device": "0x2330\n",
      "sys/bus/pci/devices/0000:01:00.0/class": "0x030200\n"}, [],
     "/usr/share/misc/pci.ids: " + IS_FIFO),
]


@test
def fifo_in_each_place_a_collector_reads():
    failures = []
    for place, inner, files, extra, needle in PLACES:
        with x.tree() as root:
            for path, data in files.items():
                x.write(os.path.join(root, path), data)
            x.fifo(os.path.join(root, inner))
            try:
                r = snapshot(root, *extra)
            except x.Failure as e:  # a hang or an internal error: name the place, go on
                failures.append(f"{place}: {e}")
                continue
            if needle not in r.out:
                failures.append(f"{place}: the snapshot does not say {needle!r}")
    expect(not failures, "\n".join(failures))


@test
def os_release_fifo_in_a_sysroot():
    with x.tree() as root:
        x.fifo(os.path.join(root, "etc", "os-release"))
        r = x.run(["check", "--sysroot", root, "--format", "json"], timeout=30)
        x.expect_no_internal_error(r)
        r = snapshot(root)
        expect_contains(r.out, "/etc/os-release: " + IS_FIFO)


@test
def torch_version_py_fifo():
    with x.tree() as root:
        site = os.path.join(root, "venv", "lib", "python3.11", "site-packages")
        x.write(os.path.join(root, "venv", "pyvenv.cfg"), "version = 3.11.4\n")
        x.write(os.path.join(site, "torch", "__init__.py"), "")
        x.fifo(os.path.join(site, "torch", "version.py"))
        r = snapshot(root, "--env", "VIRTUAL_ENV=/venv")
        expect_contains(r.out, "torch/version.py: " + IS_FIFO)


@test
def pip_record_fifo():
    """A dist-info RECORD that is a FIFO: the package index skips it, the run returns."""
    with x.tree() as root:
        site = os.path.join(root, "venv", "lib", "python3.11", "site-packages")
        x.write(os.path.join(root, "venv", "pyvenv.cfg"), "version = 3.11.4\n")
        x.write(os.path.join(site, "nvidia", "cudnn", "lib", "libcudnn.so.9"), "x")
        x.fifo(os.path.join(site, "nvidia_cudnn_cu12-9.1.0.70.dist-info", "RECORD"))
        r = x.run(["check", "--sysroot", root, "--no-nvml", "--verify", "--env",
                   "VIRTUAL_ENV=/venv", "--format", "json"], timeout=30)
        x.expect_no_internal_error(r)
        doc = r.json()
        expect(doc.get("findings") is not None, f"no findings list: {r!r}")


@test
def kern_log_fifo_for_crashes():
    with x.tree() as root:
        x.fifo(os.path.join(root, "var", "log", "kern.log"))
        r = x.run(["crashes", "--sysroot", root], timeout=30)
        x.expect_no_internal_error(r)
        expect_contains(r.out, "unreadable")
        expect_contains(r.out, "/var/log/kern.log: " + IS_FIFO)


@test
def kb_check_dir_with_a_fifo():
    with x.tree() as root:
        x.fifo(os.path.join(root, "findings.json"))
        r = x.run(["kb", "--check", root], timeout=30)
        x.expect_usage_error(r, "findings.json: " + IS_FIFO)


@test
def snapshot_argument_that_is_a_fifo():
    with x.tree() as root:
        path = x.fifo(os.path.join(root, "snap.json"))
        r = x.run(["check", "--snapshot", path], timeout=30)
        x.expect_usage_error(r, IS_FIFO)


@test
def hash_cache_fifo():
    """The --verify hash cache (XDG_CACHE_HOME/cudnn-doctor/hashes-v1.json) is a FIFO: it is not
    read (the digests are computed), and the run returns."""
    with x.tree() as root, x.tree() as cache:
        tk = os.path.join(root, "usr", "local", "cuda-13.0")
        data = b"\x7fELF not really\n"
        x.write(os.path.join(tk, "lib", "libcudnn.so.9"), data)
        x.write(os.path.join(tk, "include", "cuda.h"), "#define CUDA_VERSION 13000\n")
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        x.write(os.path.join(tk, "dist-info", "nvidia_cudnn_cu13-9.19.0.56.dist-info", "RECORD"),
                f"nvidia/cudnn/lib/libcudnn.so.9,sha256={digest},{len(data)}\n")
        x.fifo(os.path.join(cache, "cudnn-doctor", "hashes-v1.json"))
        r = snapshot(root, "--verify", env={"XDG_CACHE_HOME": cache})
        files = r.json()["integrity"]["files"]
        expect(files, f"nothing was verified, so the cache was never opened: {r.out[:2000]}")


@test
def resolve_fifo_is_no_library():
    """A FIFO where the loader looks: ld.so would block opening it, so the load hangs there; the
    doctor says so and never calls it found."""
    with x.tree() as root:
        good = os.path.join(root, "opt", "b")
        os.makedirs(good)
        x.build_c_library(LIBRARY, "libx.so", good)
        x.fifo(os.path.join(root, "opt", "a", "libx.so"))
        r = x.run(["resolve", "libx.so", "--sysroot", root, "--env",
                   "LD_LIBRARY_PATH=/opt/a:/opt/b", "--format", "json"], timeout=30)
        x.expect_no_internal_error(r)
        expect(r.code == 1, f"a load that hangs is a failure (exit 1): {r!r}")
        entry = r.json()["resolutions"][0]
        expect(entry["found"] is None, f"a FIFO was called found: {entry}")
        expect_contains(entry["error"], "/opt/a/libx.so: a FIFO, not a library")


@test
def resolve_socket_ends_the_list():
    """A socket: open() fails with ENXIO, glibc's open_path gives up the rest of that list and the
    next source is searched (checked with dlopen: the copy later in LD_LIBRARY_PATH is not
    loaded, one in a default directory is)."""
    with x.tree() as root:
        os.makedirs(os.path.join(root, "opt", "a"))
        for d in (os.path.join(root, "opt", "b"), os.path.join(root, "usr", "lib")):
            os.makedirs(d)
            x.build_c_library(LIBRARY, "libx.so", d)
        s = socket.socket(socket.AF_UNIX)
        try:
            s.bind(os.path.join(root, "opt", "a", "libx.so"))
            r = x.run(["resolve", "libx.so", "--sysroot", root, "--env",
                       "LD_LIBRARY_PATH=/opt/a:/opt/b"], timeout=30)
        finally:
            s.close()
        x.expect_no_internal_error(r)
        expect(r.code == 0, f"the default directory's copy loads: {r!r}")
        expect_contains(r.out, "libx.so => /usr/lib/libx.so [default]")
        expect_contains(r.out, "/opt/a/libx.so: a socket, not a library")
        expect_contains(r.out, "/opt/b/libx.so: not tried")


@test
def resolve_device_node_is_no_library():
    """A character device where the loader looks (here /dev/null's numbers): ld.so reads it and
    finds no ELF header; the doctor neither opens it nor calls it found."""
    if os.geteuid() != 0:
        print("  (not root: mknod is not allowed, the device case is not run)")
        return
    with x.tree() as root:
        lib = os.path.join(root, "usr", "lib")
        os.makedirs(lib)
        os.mknod(os.path.join(lib, "libx.so"), 0o600 | 0o020000, os.makedev(1, 3))
        r = x.run(["resolve", "libx.so", "--sysroot", root], timeout=30)
        x.expect_no_internal_error(r)
        expect(r.code == 1, f"{r!r}")
        expect_contains(r.out, "/usr/lib/libx.so: a character device, not a library")


if __name__ == "__main__":
    x.main()
