#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs every libFuzzer target of a `fuzz` build for a given time and prints one table row per
target: runs, executions per second, coverage, corpus size, crashes. New inputs go to
BUILD/campaign/<target>/corpus (the checked-in corpus is read, never written); a crash, leak or
timeout input is kept there as crash-*, leak-* or timeout-*.

    cmake --preset fuzz && cmake --build --preset fuzz
    scripts/fuzz_campaign.py --seconds 600 [--parallel 2] [--nice] [TARGET ...]

One input may take 30 s (-timeout=30): the first input of a target loads the whole knowledge
base, which takes seconds under the sanitizers on a busy machine.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)


def run_target(build, target, seconds, nice):
    name = target.removeprefix("fuzz_")
    work = os.path.join(build, "campaign", target)
    corpus = os.path.join(work, "corpus")
    os.makedirs(corpus, exist_ok=True)
    seeds = os.path.join(SOURCE, "tests", "fuzz", "corpus", name)
    cmd = ([] if not nice else ["nice", "-n", "19"]) + [
        os.path.join(build, "tests", "fuzz", target), f"-max_total_time={seconds}", "-timeout=30",
        "-rss_limit_mb=2048", "-print_final_stats=1", f"-artifact_prefix={work}/", corpus, seeds]
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    log = p.stderr
    with open(os.path.join(work, "log.txt"), "w") as f:
        f.write(log)

    def stat(key):
        m = re.findall(rf"stat::{key}:\s+(\d+)", log)
        return int(m[-1]) if m else None
    done = re.findall(r"#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)", log)
    artifacts = sorted(os.path.basename(a) for a in glob.glob(os.path.join(work, "*-*"))
                       if re.match(r"(crash|leak|timeout|oom|slow-unit)-", os.path.basename(a)))
    runs = stat("number_of_executed_units")
    return {"target": target, "exit": p.returncode, "runs": runs,
            "execs_per_s": stat("average_exec_per_sec"), "peak_rss_mb": stat("peak_rss_mb"),
            "cov": int(done[-1][1]) if done else None, "corpus": int(done[-1][3]) if done else None,
            "artifacts": artifacts}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="*")
    ap.add_argument("--build", default=os.path.join(SOURCE, "build", "fuzz"))
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--parallel", type=int, default=1)
    ap.add_argument("--nice", action="store_true", help="run the targets at the lowest priority")
    a = ap.parse_args()
    found = sorted(os.path.basename(p) for p in glob.glob(os.path.join(a.build, "tests", "fuzz", "fuzz_*"))
                   if os.access(p, os.X_OK) and not p.endswith(".cmake"))
    targets = a.targets or found
    missing = [t for t in targets if t not in found]
    if missing:
        sys.exit(f"not built in {a.build}: {' '.join(missing)}")
    print(f"| target | seconds | runs | exec/s | cov | corpus | peak RSS MB | crashes |")
    print("|---|---|---|---|---|---|---|---|")
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(a.parallel) as pool:
        for r in pool.map(lambda t: run_target(a.build, t, a.seconds, a.nice), targets):
            bad += bool(r["artifacts"]) or r["exit"] != 0
            print(f"| {r['target']} | {a.seconds} | {r['runs']} | {r['execs_per_s']} | {r['cov']} | "
                  f"{r['corpus']} | {r['peak_rss_mb']} | {' '.join(r['artifacts']) or 0} |", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
