#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check --verify on this machine: the CUDA 13.0 toolkit's libraries against the dist-info RECORDs
it carries, the hash cache (a second run hashes nothing), --no-cache, and a --sysroot tree with
one real cuDNN library and a truncated one. Skips where that toolkit and its dist-info are
absent."""
import contextlib
import os
import shutil
import tempfile
import time

import harness as h
from harness import expect, expect_contains, run, test

TOOLKIT = "/usr/local/cuda-13.0"
DIST_INFO = os.path.join(TOOLKIT, "dist-info")
CUDNN_RECORD = "nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD"


def probe():
    if not os.path.isfile(os.path.join(DIST_INFO, CUDNN_RECORD)):
        return f"{DIST_INFO}/{CUDNN_RECORD} does not exist here"
    return None


@contextlib.contextmanager
def temp_dir(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def fresh_cache():
    """An XDG_CACHE_HOME of its own, so that runs neither see nor touch the user's cache."""
    return temp_dir("doctor-verify-cache-")


def snapshot(args, cache):
    start = time.perf_counter()
    r = run(["snapshot", "--verify", "--no-nvml"] + args, env={"XDG_CACHE_HOME": cache})
    wall = time.perf_counter() - start
    h.expect_exit(r, 0)
    return r.json(), wall


def check_json(args, cache):
    r = run(["check", "--verify", "--no-nvml", "--format", "json"] + args,
            env={"XDG_CACHE_HOME": cache})
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    return r.json()


def findings(doc, fid):
    return [f for f in doc["findings"] if f["id"] == fid]


@test
def toolkit_cudnn_libraries_verify_clean():
    with fresh_cache() as cache:
        snap, wall = snapshot([], cache)
        integrity = snap["integrity"]
        expect(integrity["requested"] is True, integrity)
        by_path = {f["path"]: f for f in integrity["files"]}
        cudnn = [p for p in by_path if p.startswith(f"{TOOLKIT}/lib/libcudnn")]
        expect(len(cudnn) >= 8, f"expected the toolkit's cuDNN libraries, got {sorted(by_path)[:20]}")
        for p in cudnn:
            f = by_path[p]
            expect(f["manager"] == "pip" and f["package"].startswith("nvidia-cudnn-cu13 "), f)
            expect(f["algorithm"] == "sha256", f)
            expect(f["actual"]["value"] == f["expected"], f"{p}: {f}")
            expect(f["actual_size"] == f["expected_size"], f)
        expect(integrity["files_hashed"] >= len(cudnn), integrity["files_hashed"])
        print(f"  cold: {integrity['files_hashed']} files, {integrity['bytes_hashed'] / 1e9:.2f} GB "
              f"in {wall:.2f} s")
        doc = check_json([], cache)
        bad = [f["subject"] for f in findings(doc, "integrity.hash_mismatch")
               if f["subject"].startswith(TOOLKIT)]
        expect(not bad, f"toolkit files reported as differing: {bad}")


@test
def second_run_takes_every_digest_from_the_cache():
    with fresh_cache() as cache:
        first, cold = snapshot([], cache)
        expect(first["integrity"]["files_hashed"] > 0, first["integrity"]["files_hashed"])
        expect(os.path.isfile(os.path.join(cache, "cudnn-doctor", "hashes-v1.json")),
               "no cache file written")
        second, warm = snapshot([], cache)
        expect(second["integrity"]["files_hashed"] == 0, second["integrity"]["files_hashed"])
        expect(second["integrity"]["bytes_hashed"] == 0, second["integrity"]["bytes_hashed"])
        expect([f["actual"]["value"] for f in second["integrity"]["files"]]
               == [f["actual"]["value"] for f in first["integrity"]["files"]], "digests differ")
        expect(all(f["actual"]["source"].startswith("cache:") for f in second["integrity"]["files"]),
               "a cached digest names the cache as its source")
        print(f"  cold {cold:.2f} s, cached {warm:.3f} s")


@test
def no_cache_neither_reads_nor_writes_the_cache():
    with fresh_cache() as cache:
        snap, _ = snapshot(["--no-cache"], cache)
        expect(snap["integrity"]["files_hashed"] > 0, snap["integrity"])
        expect(not os.path.exists(os.path.join(cache, "cudnn-doctor")), "--no-cache wrote a cache")


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def damaged_tree(root):
    """A --sysroot tree with the toolkit's layout: libcudnn.so.9 as installed, libcudnn_graph.so.9
    cut to its first 100 KB, the RECORD lines of the two, and include/cuda.h that marks a
    toolkit."""
    lib = os.path.join(root, TOOLKIT.lstrip("/"), "lib")
    os.makedirs(lib)
    link_or_copy(os.path.join(TOOLKIT, "lib", "libcudnn.so.9"), os.path.join(lib, "libcudnn.so.9"))
    with open(os.path.join(TOOLKIT, "lib", "libcudnn_graph.so.9"), "rb") as src:
        head = src.read(100 * 1024)
    with open(os.path.join(lib, "libcudnn_graph.so.9"), "wb") as dst:
        dst.write(head)
    # The markers the CUDA and cuDNN collectors know a toolkit and its cuDNN version by.
    include = os.path.join(root, TOOLKIT.lstrip("/"), "include")
    os.makedirs(include)
    for header in ("cuda.h", "cudnn_version.h"):
        shutil.copy2(os.path.join(TOOLKIT, "include", header), os.path.join(include, header))
    record_dir = os.path.join(root, DIST_INFO.lstrip("/"), os.path.dirname(CUDNN_RECORD))
    os.makedirs(record_dir)
    with open(os.path.join(DIST_INFO, CUDNN_RECORD)) as src:
        lines = [l for l in src if l.split(",")[0] in ("nvidia/cudnn/lib/libcudnn.so.9",
                                                      "nvidia/cudnn/lib/libcudnn_graph.so.9")]
    expect(len(lines) == 2, f"RECORD lines: {lines}")
    with open(os.path.join(record_dir, "RECORD"), "w") as dst:
        dst.writelines(lines)


@test
def truncated_library_in_a_sysroot_is_a_hash_mismatch():
    with temp_dir("doctor-verify-root-") as root, fresh_cache() as cache:
        damaged_tree(root)
        doc = check_json(["--sysroot", root], cache)
        mism = {f["subject"]: f for f in findings(doc, "integrity.hash_mismatch")}
        graph = f"{TOOLKIT}/lib/libcudnn_graph.so.9"
        expect(graph in mism, f"no hash mismatch for {graph}: {sorted(mism)}")
        expect_contains(mism[graph]["message"], "size 102400 bytes instead of 4451728, truncated")
        expect_contains(mism[graph]["message"], f"{DIST_INFO}/{CUDNN_RECORD}")
        expect(f"{TOOLKIT}/lib/libcudnn.so.9" not in mism, "the intact library was reported")

        snap, _ = snapshot(["--sysroot", root], cache)
        verified = {f["path"]: f for f in snap["integrity"]["files"]}
        expect(set(verified) == {f"{TOOLKIT}/lib/libcudnn.so.9", graph}, sorted(verified))
        intact = verified[f"{TOOLKIT}/lib/libcudnn.so.9"]
        expect(intact["actual"]["value"] == intact["expected"], "intact library differs")
        expect(snap.get("binaries"), "the snapshot lists no binaries")
        damaged = [f["subject"] for f in findings(doc, "integrity.binary_damaged")]
        expect(graph in damaged, f"{graph} not reported as structurally damaged: {damaged}")
        expect(f"{TOOLKIT}/lib/libcudnn.so.9" not in damaged, "the intact library was reported")

if __name__ == "__main__":
    h.main(probe)
