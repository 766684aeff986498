#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmarks `cudnn-doctor check` against `python -m torch.utils.collect_env`.

Runs each command several times, interleaved (A B A B …) so that drift of a shared machine hits
both alike, after one warm-up run each, and reports the median wall time and the peak resident
memory (from wait4's rusage of each child), and the ratio collect_env / check from the same run.

  bench/bench_check.py --doctor build/release/src/cli/cudnn-doctor [--venv VENV] [--runs 10]

With --venv (a virtual environment with torch installed) the doctor examines that environment too
(--env VIRTUAL_ENV=VENV and VENV/bin first on PATH), and collect_env runs from it.
Targets (../shared/DESIGN.md): check under 0.3 s and 30 MB, at least 10x faster than collect_env.
"""
import argparse
import os
import statistics
import sys

from benchlib import fmt_mb, series


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--doctor", required=True)
    ap.add_argument("--venv")
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()

    doctor = os.path.abspath(args.doctor)
    commands = {"check (this machine)": ([doctor, "check", "--format", "json"], None)}
    if args.venv:
        venv = os.path.abspath(args.venv)
        env = dict(os.environ)
        env["PATH"] = f"{venv}/bin:{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = venv
        commands["check (with the torch venv)"] = ([doctor, "check", "--format", "json"], env)
        commands["python -m torch.utils.collect_env"] = (
            [f"{venv}/bin/python", "-m", "torch.utils.collect_env"], env)

    results, memory = series(commands, args.runs)
    print(f"{args.runs} runs each after one warm-up; median wall time; peak RSS of the process "
          f"from one more run under GNU time\n")
    print("| command | median wall (s) | min–max (s) | peak RSS (MB) | exit |")
    print("|---|---|---|---|---|")
    medians = {}
    for name, rows in results.items():
        walls = [w for w, _ in rows]
        medians[name] = statistics.median(walls)
        print(f"| `{name}` | {medians[name]:.3f} | {min(walls):.3f}–{max(walls):.3f} | "
              f"{fmt_mb(memory[name])} | {rows[-1][1]} |")
    if args.venv:
        ratios = [c[0] / d[0] for c, d in zip(results["python -m torch.utils.collect_env"],
                                               results["check (with the torch venv)"])]
        print(f"\ncollect_env / check (with the venv), pair by pair: median {statistics.median(ratios):.1f}x "
              f"(min {min(ratios):.1f}x, max {max(ratios):.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
