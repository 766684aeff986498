#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmarks `cudnn-doctor check` against `python -m torch.utils.collect_env`.

Runs each command several times, interleaved (A B A B …) so that drift of a shared machine hits
both alike, after one warm-up run each, and reports the median wall time, the peak resident
memory (GNU time, one more run), the user-space instructions retired (`perf stat`, where the
machine exposes the counter), and the ratio collect_env / check from the same run. Beside them:
the start-up floor (`cudnn-doctor --version`) and `check --no-nvml`, the doctor's own process
without its NVML child (the peak RSS of a command counts its largest child, and NVML's own
nvmlInit takes about 13 MB even when it only answers Driver Not Loaded).

  bench/bench_check.py --doctor build/release/src/cli/cudnn-doctor [--venv VENV] [--runs 10]

With --venv (a virtual environment with torch installed) the doctor examines that environment too
(--env VIRTUAL_ENV=VENV and VENV/bin first on PATH), and collect_env runs from it.
Targets (issue 18): check with the torch venv at most 50 ms and 15 MB, at least 50x faster than
collect_env.
"""
import argparse
import os
import statistics
import sys

from benchlib import fmt_instructions, fmt_mb, instructions, series


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--doctor", required=True)
    ap.add_argument("--venv")
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()

    doctor = os.path.abspath(args.doctor)
    commands = {"--version (start-up floor)": ([doctor, "--version"], None),
                "check (this machine)": ([doctor, "check", "--format", "json"], None)}
    if args.venv:
        venv = os.path.abspath(args.venv)
        env = dict(os.environ)
        env["PATH"] = f"{venv}/bin:{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = venv
        commands["check (with the torch venv)"] = ([doctor, "check", "--format", "json"], env)
        commands["check --no-nvml (with the torch venv)"] = (
            [doctor, "check", "--no-nvml", "--format", "json"], env)
        commands["python -m torch.utils.collect_env"] = (
            [f"{venv}/bin/python", "-m", "torch.utils.collect_env"], env)

    results, memory = series(commands, args.runs)
    counted = {name: instructions(argv, env) for name, (argv, env) in commands.items()}
    print(f"{args.runs} runs each after one warm-up; median wall time; peak RSS of the process "
          f"(and its children) from one more run under GNU time; instructions from perf stat\n")
    print("| command | median wall (s) | min–max (s) | peak RSS (MB) | instructions | exit |")
    print("|---|---|---|---|---|---|")
    medians = {}
    for name, rows in results.items():
        walls = [w for w, _ in rows]
        medians[name] = statistics.median(walls)
        print(f"| `{name}` | {medians[name]:.3f} | {min(walls):.3f}–{max(walls):.3f} | "
              f"{fmt_mb(memory[name])} | {fmt_instructions(counted[name])} | {rows[-1][1]} |")
    if args.venv:
        ratios = [c[0] / d[0] for c, d in zip(results["python -m torch.utils.collect_env"],
                                               results["check (with the torch venv)"])]
        print(f"\ncollect_env / check (with the venv), pair by pair: median {statistics.median(ratios):.1f}x "
              f"(min {min(ratios):.1f}x, max {max(ratios):.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
