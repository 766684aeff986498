#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The loader model on this machine's real CUDA 13.0 toolkit and cuDNN 9 (/usr/local/cuda):
which copy `resolve` picks and why, the stub libcuda put on LD_LIBRARY_PATH, a world-writable
directory early in LD_LIBRARY_PATH, and a truncated copy of a real cuDNN library. Expected paths
follow from the toolkit's own layout (its ld.so.conf entry, libcudnn.so.9's RUNPATH), not from a
recording. Skips where the toolkit or its cuDNN is absent."""
import contextlib
import os
import shutil
import stat
import tempfile

import harness as h
from harness import expect, expect_contains, run, test

LIB64 = "/usr/local/cuda/lib64"
STUBS = os.path.join(LIB64, "stubs")


def probe():
    for need in [os.path.join(LIB64, "libcudnn.so.9"), os.path.join(LIB64, "libcudnn_cnn.so.9"),
                 os.path.join(LIB64, "libcudnn_graph.so.9"), os.path.join(STUBS, "libcuda.so")]:
        if not os.path.exists(need):
            return f"{need} does not exist here"
    return None


@contextlib.contextmanager
def temp_dir(prefix, mode=None):
    d = tempfile.mkdtemp(prefix=prefix)
    if mode is not None:
        os.chmod(d, mode)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def resolve(args, env=None):
    r = run(["resolve", "--format", "json"] + args, env=env, drop_env=("LD_LIBRARY_PATH", "LD_PRELOAD"))
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    doc = r.json()
    expect(len(doc["resolutions"]) == 1, f"one resolution expected: {doc}")
    return doc["resolutions"][0]


def check(args, ld_library_path):
    r = run(["check", "--no-nvml", "--format", "json"] + args,
            env={"LD_LIBRARY_PATH": ld_library_path}, drop_env=("LD_PRELOAD",))
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    return r.json()["findings"]


@test
def cudnn_sublibrary_comes_from_the_toolkit_through_the_cache():
    res = resolve(["libcudnn_cnn.so.9"])
    found = res.get("found")
    expect(found is not None, f"not found: {res}")
    expect(found["real_path"] == os.path.realpath(os.path.join(LIB64, "libcudnn_cnn.so.9")), found)
    expect(found["via"] == "ld.so.cache", found)
    expect_contains(found["about"], "9.")  # the version the inventory or the file names
    vias = [c["via"] for c in res["considered"]]
    expect(vias.index("LD_LIBRARY_PATH") < vias.index("ld.so.cache"), vias)


@test
def graph_from_the_dispatcher_comes_through_its_runpath():
    dispatcher = os.path.join(LIB64, "libcudnn.so.9")
    res = resolve(["--from", dispatcher, "libcudnn_graph.so.9"])
    found = res.get("found")
    expect(found is not None, f"not found: {res}")
    expect(found["path"] == os.path.join(LIB64, "libcudnn_graph.so.9"), found)
    expect(found["via"] == "runpath", found)
    expect_contains(found["source"], dispatcher)
    # RUNPATH wins over the cache: the cache's entry for the same file comes later.
    expect(res["considered"][0]["via"] == "rpath", res["considered"][0])
    expect_contains(res["considered"][0]["outcome"], "RUNPATH")


@test
def stub_libcuda_on_ld_library_path_is_reported():
    findings = check([], STUBS)
    stub = [f for f in findings if f["id"] == "loader.stub_libcuda"]
    expect(len(stub) == 1, [f["id"] for f in findings])
    expect(stub[0]["subject"] == os.path.join(STUBS, "libcuda.so"), stub[0]["subject"])
    expect(stub[0]["severity"] == "error", stub[0]["severity"])
    expect_contains(stub[0]["message"], "LD_LIBRARY_PATH")
    # Without the stubs directory there is no such finding.
    expect("loader.stub_libcuda" not in [f["id"] for f in check([], "")], "reported without stubs")


@test
def world_writable_directory_first_in_ld_library_path_is_reported():
    with temp_dir("doctor-ww-", 0o777) as ww:
        os.chmod(ww, 0o777)  # past the umask
        findings = check([], f"{ww}:{LIB64}")
        hits = [f for f in findings if f["id"] == "security.writable_search_dir"]
        expect([f["subject"] for f in hits] == [ww], [(f["id"], f["subject"]) for f in findings])
        expect_contains(hits[0]["message"], "entry 1 of LD_LIBRARY_PATH")
        os.chmod(ww, 0o755)
        findings = check([], f"{ww}:{LIB64}")
        expect("security.writable_search_dir" not in [f["id"] for f in findings],
               "reported for a directory only its owner can write")


@test
def truncated_copy_of_a_real_cudnn_library_is_reported_by_verify():
    with temp_dir("doctor-trunc-") as d, temp_dir("doctor-trunc-cache-") as cache:
        src = os.path.join(LIB64, "libcudnn_graph.so.9")
        cut = os.path.join(d, "libcudnn_graph.so.9")
        with open(src, "rb") as f, open(cut, "wb") as out:
            out.write(f.read(os.path.getsize(src) // 3))
        r = run(["check", "--verify", "--no-nvml", "--format", "json"],
                env={"LD_LIBRARY_PATH": d, "XDG_CACHE_HOME": cache})
        expect(r.code == 1, f"exit {r.code}: {r.err}")
        damaged = [f for f in r.json()["findings"] if f["id"] == "integrity.binary_damaged"]
        expect([f["subject"] for f in damaged] == [cut], [f["subject"] for f in damaged])
        expect_contains(damaged[0]["message"], "truncated")
        # The toolkit's own intact copy is not reported.
        expect(all(not f["subject"].startswith("/usr/local/cuda") for f in damaged), damaged)
        # The intact toolkit alone gives no damage.
        r = run(["check", "--verify", "--no-nvml", "--format", "json"],
                env={"XDG_CACHE_HOME": cache}, drop_env=("LD_LIBRARY_PATH",))
        expect("integrity.binary_damaged" not in [f["id"] for f in r.json()["findings"]],
               "damage reported on the intact toolkit")


if __name__ == "__main__":
    h.main(probe)
