#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmarks `cudnn-doctor check --verify` against `sha256sum` over exactly the same files.

The file list is what the doctor verifies on this machine (the snapshot's integrity.files: the
CUDA toolkit's libraries and executables, cuDNN, pip/conda/dpkg GPU packages). Each run, in turn:

  check --verify --no-cache    every file hashed (cold hash cache), all cores
  sha256sum FILES (+ md5sum)   the same files, the same digests, one core, as a user would
  check --verify               every digest from the warm hash cache
  check                        no --verify: what the cached run costs on top

interleaved (A B C D A B C D …) after one warm-up each, so that drift of a shared machine hits all
alike; medians, and the ratio sha256sum / check --verify pair by pair.

"Cold" means a cold hash cache over a warm page cache: the files are read from memory, so the
numbers compare hashing, not the disk. With --drop-caches (root, and /proc/sys/vm writable) the
page cache is dropped before every cold run and every sha256sum run, which measures the disk too.

  bench/bench_verify.py --doctor build/release/src/cli/cudnn-doctor [--runs 5] [--drop-caches]

Targets: check --verify faster than sha256sum; the cached run under 50 ms.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def can_drop_caches():
    try:
        drop_caches()
        return True
    except OSError:
        return False


def measure(argvs, env=None, before=None):
    """Runs the commands `argvs` one after the other; returns their wall time and last exit."""
    if before:
        before()
    start = time.perf_counter()
    code = 0
    for argv in argvs:
        code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
    return time.perf_counter() - start, code


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--doctor", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--drop-caches", action="store_true",
                    help="drop the page cache before each cold run (needs root and a writable /proc/sys)")
    args = ap.parse_args()
    doctor = os.path.abspath(args.doctor)

    before = None
    if args.drop_caches:
        if not can_drop_caches():
            print("--drop-caches: /proc/sys/vm/drop_caches is not writable here; measuring with a "
                  "warm page cache\n")
        else:
            before = drop_caches

    cache_home = tempfile.mkdtemp(prefix="bench-verify-cache-")
    env = dict(os.environ, XDG_CACHE_HOME=cache_home)
    snap = subprocess.run([doctor, "snapshot", "--verify", "--no-nvml"], capture_output=True,
                          text=True, env=env, check=True)
    files = json.loads(snap.stdout)["integrity"]["files"]
    sha = sorted({f["path"] for f in files if f["algorithm"] == "sha256"})
    md5 = sorted({f["path"] for f in files if f["algorithm"] == "md5"})
    total = sum(os.path.getsize(p) for p in set(sha) | set(md5))
    if not files:
        print("the doctor verifies no files on this machine: nothing to compare")
        shutil.rmtree(cache_home, ignore_errors=True)
        return 1
    # Both digests count, as the doctor computes both (dpkg records md5).
    baseline = [["sha256sum"] + sha] + ([["md5sum"] + md5] if md5 else [])

    commands = {
        "check --verify --no-cache": ([[doctor, "check", "--verify", "--no-cache", "--no-nvml",
                                        "--format", "json"]], env, before),
        "sha256sum (same files)": (baseline, None, before),
        "check --verify (cached)": ([[doctor, "check", "--verify", "--no-nvml", "--format", "json"]],
                                    env, None),
        "check (no --verify)": ([[doctor, "check", "--no-nvml", "--format", "json"]], env, None),
    }
    results = {name: [] for name in commands}
    for argv, e, b in commands.values():
        measure(argv, e, b)  # warm-up; primes the hash cache for the cached run
    for _ in range(args.runs):
        for name, (argv, e, b) in commands.items():
            results[name].append(measure(argv, e, b))

    cold = "dropped before each cold run" if before else "warm (files in memory)"
    print(f"{len(sha) + len(md5)} files, {total / 1e9:.2f} GB ({len(md5)} md5, the rest sha256); "
          f"{os.cpu_count()} CPUs; page cache {cold}; {args.runs} runs each after one warm-up, "
          f"interleaved\n")
    print("| command | median wall (s) | min–max (s) | GB/s | exit |")
    print("|---|---|---|---|---|")
    medians = {}
    for name, rows in results.items():
        walls = [w for w, _ in rows]
        medians[name] = statistics.median(walls)
        rate = f"{total / 1e9 / medians[name]:.2f}" if "cached" not in name and "no --verify" not in name else "–"
        print(f"| `{name}` | {medians[name]:.3f} | {min(walls):.3f}–{max(walls):.3f} | {rate} | {rows[-1][1]} |")
    ratios = [s[0] / d[0] for s, d in zip(results["sha256sum (same files)"],
                                          results["check --verify --no-cache"])]
    print(f"\nsha256sum / check --verify --no-cache, pair by pair: median {statistics.median(ratios):.1f}x "
          f"(min {min(ratios):.1f}x, max {max(ratios):.1f}x)")
    shutil.rmtree(cache_home, ignore_errors=True)
    extra = medians["check --verify (cached)"] - medians["check (no --verify)"]
    print(f"cached --verify: {medians['check --verify (cached)'] * 1000:.0f} ms in all, "
          f"{extra * 1000:+.0f} ms over a plain check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
