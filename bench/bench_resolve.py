#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmarks `cudnn-doctor resolve --tree` against `libtree` on the same libraries.

Both print the whole DT_NEEDED tree of a library with where each dependency is found; the doctor
also records every path considered and reads each ELF file's headers for the loader model. Each
library is given to both tools in turn, interleaved (A B A B …) after one warm-up each, so that
drift of a shared machine hits both alike; the median wall time and peak resident memory (wait4
time, from one more run) and the user-space instructions (`perf stat`, where the machine exposes
the counter) are reported per library, with the ratio libtree / doctor from the same run (above
1: the doctor is faster), and the doctor's start-up floor (`--version`) measured the same way.

  bench/bench_resolve.py --doctor build/release/src/cli/cudnn-doctor [--runs 20] [LIB ...]

Without LIB: the cuDNN and CUDA libraries of /usr/local/cuda/lib64 that exist here, and
libtorch_cuda.so of --venv if given. libtree comes from Debian (`apt-get install libtree`).
"""
import argparse
import glob
import os
import shutil
import statistics
import sys

from benchlib import cpu_ms, fmt_instructions, fmt_mb, instructions, peak_rss_mb, wall_time


def default_libraries(venv):
    libs = []
    for pattern in ["libcudnn.so.[0-9]*", "libcudnn_ops.so.[0-9]*", "libcudnn_cnn.so.[0-9]*",
                    "libcudnn_engines_precompiled.so.[0-9]*", "libcublasLt.so.[0-9]*",
                    "libcudart.so.[0-9]*", "libnvrtc.so.[0-9]*"]:
        found = sorted(glob.glob(os.path.join("/usr/local/cuda/lib64", pattern)), key=len)
        if found:
            libs.append(found[0])
    if venv:
        libs += sorted(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "torch", "lib",
                                              "libtorch_cuda.so")))
    return libs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--doctor", required=True)
    ap.add_argument("--libtree", default=shutil.which("libtree"))
    ap.add_argument("--venv", help="a virtual environment with torch: adds its libtorch_cuda.so")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("libs", nargs="*")
    args = ap.parse_args()
    if not args.libtree:
        sys.exit("libtree not found: apt-get install libtree, or pass --libtree")
    doctor = os.path.abspath(args.doctor)
    libs = [os.path.abspath(p) for p in args.libs] or default_libraries(args.venv)
    if not libs:
        sys.exit("no libraries to resolve: pass LIB paths")

    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)  # both tools see the same, default, search path
    print(f"{len(libs)} libraries; {os.cpu_count()} CPUs; {args.runs} runs each after one warm-up, "
          f"interleaved; LD_LIBRARY_PATH unset\n")
    floor_argv = [doctor, "--version"]
    wall_time(floor_argv, env)
    floor = statistics.median(wall_time(floor_argv, env)[0] for _ in range(args.runs))
    print(f"doctor start-up floor (`--version`): median {floor:.4f} s, "
          f"{fmt_mb(peak_rss_mb(floor_argv, env))} MB, {fmt_instructions(instructions(floor_argv, env))}\n")
    print("| library | doctor median (s) | doctor CPU (ms) | doctor MB | doctor instructions | "
          "libtree median (s) | libtree CPU (ms) | libtree MB | libtree instructions | "
          "libtree / doctor (wall) | libtree / doctor (CPU) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    cpu_ratios = []
    failures = 0
    for lib in libs:
        commands = {"doctor": [doctor, "resolve", "--tree", "--no-nvml", lib],
                    "libtree": [args.libtree, lib]}
        results = {name: [] for name in commands}
        for argv in commands.values():
            wall_time(argv, env)
        for _ in range(args.runs):
            for name, argv in commands.items():
                results[name].append(wall_time(argv, env))
        med = {n: statistics.median(w for w, _ in r) for n, r in results.items()}
        mem = {n: peak_rss_mb(argv, env) for n, argv in commands.items()}
        ins = {n: fmt_instructions(instructions(argv, env)) for n, argv in commands.items()}
        # CPU time, alternating the two tools in rounds of runs (perf stat -r), median of rounds.
        rounds = {n: [] for n in commands}
        for _ in range(5):
            for n, argv in commands.items():
                rounds[n].append(cpu_ms(argv, env, max(args.runs // 5, 4)))
        cpu = {n: statistics.median(v) if all(x is not None for x in v) else None
               for n, v in rounds.items()}
        cpu_ratio = cpu["libtree"] / cpu["doctor"] if cpu["doctor"] and cpu["libtree"] else None
        if cpu_ratio is not None:
            cpu_ratios.append(cpu_ratio)
        fmt_cpu = {n: f"{v:.2f}" if v is not None else "n/a (no perf)" for n, v in cpu.items()}
        codes = {n: sorted({c for _, c in r}) for n, r in results.items()}
        pair = [lt[0] / d[0] for d, lt in zip(results["doctor"], results["libtree"])]
        ratios.append(statistics.median(pair))
        note = "" if codes["doctor"] == [0] and codes["libtree"] == [0] else f" (exit codes {codes})"
        failures += codes["doctor"] != [0]
        print(f"| `{os.path.basename(lib)}` | {med['doctor']:.4f} | {fmt_cpu['doctor']} | "
              f"{fmt_mb(mem['doctor'])} | {ins['doctor']} | {med['libtree']:.4f} | "
              f"{fmt_cpu['libtree']} | {fmt_mb(mem['libtree'])} | {ins['libtree']} | "
              f"{statistics.median(pair):.2f}x{note} | "
              f"{f'{cpu_ratio:.2f}x' if cpu_ratio is not None else 'n/a'} |")
    print(f"\nlibtree / doctor over all libraries: median {statistics.median(ratios):.2f}x "
          f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x) in wall time")
    if cpu_ratios:
        print(f"libtree / doctor over all libraries: median {statistics.median(cpu_ratios):.2f}x "
              f"(min {min(cpu_ratios):.2f}x, max {max(cpu_ratios):.2f}x) in CPU time")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
