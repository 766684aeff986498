#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Scores `cudnn-doctor explain` on the real reports of one part of the corpus.

    python3 tests/explain/real/score.py DOCTOR --part train|test [-j N] [--json FILE]
                                        [--floor TOP1,TOP3] [--batch YYYY-MM-DD]

For each case of the part it runs `DOCTOR explain --no-machine --format json FILE` (25 cases to a
process, with --each: the same report each, the knowledge base loaded once) and compares
the cause classes it names with the class the thread established: top-1 is `causes[0]`, top-3
any of the first three distinct classes of `causes[0]`, its `alternatives`, then `causes[1:]`. It prints the figures overall, per label and per platform, then every
miss with what explain said. --batch scores only the cases collected in one batch (split.py
records it): a new batch's train part scored before any rule is written for it is a second,
unspent measure of reports explain has never seen. The test part is kept back: score it once, at the end (README.md).
The exit status is 0 when every case ran (the figures are the result, not a pass or fail), 1 when
explain failed to run on a case or, with --floor, when the train part scores below it, 2 on a
usage error.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


# The report of a file from its text alone, as JSON.
EXPLAIN = ["explain", "--color", "never", "--no-machine", "--format", "json"]


def causes_of(document) -> list[dict] | None:
    causes = document.get("causes") if isinstance(document, dict) else None
    return causes if isinstance(causes, list) else None


def run(doctor: str, path: Path) -> tuple[list[dict] | None, str]:
    p = subprocess.run([doctor] + EXPLAIN + [str(path)], capture_output=True, timeout=120)
    try:
        out = json.loads(p.stdout.decode("utf-8", "replace"))
    except json.JSONDecodeError:
        return None, f"exit {p.returncode}: {p.stderr.decode('utf-8', 'replace')[:300]}"
    return causes_of(out), ""


def run_chunk(doctor: str, paths: list[Path]) -> list[tuple[list[dict] | None, str]]:
    """Explains `paths` in one process (explain --each: the knowledge base loaded once); a chunk
    that does not answer with one document per report is explained report by report, so that a
    failure is told for the report that caused it."""
    p = subprocess.run([doctor] + EXPLAIN + ["--each"] + [str(x) for x in paths],
                       capture_output=True, timeout=120 + 10 * len(paths))
    try:
        out = json.loads(p.stdout.decode("utf-8", "replace"))
    except json.JSONDecodeError:
        out = None
    if p.returncode != 0 or not isinstance(out, list) or len(out) != len(paths):
        return [run(doctor, x) for x in paths]
    return [(causes_of(d), "") for d in out]


def main() -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `score.py ... | head` ends quietly
    ap = argparse.ArgumentParser()
    ap.add_argument("doctor")
    ap.add_argument("--part", choices=["train", "test"], required=True)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--json", help="also write the per-case results here")
    ap.add_argument("--floor", metavar="TOP1,TOP3",
                    help="train part only: exit 1 when fewer cases than these are right (a guard "
                         "against regressions; the test part has no floor, it is scored once)")
    ap.add_argument("--batch", help="only the cases of this collection batch (cases.json's batch)")
    args = ap.parse_args()
    if args.floor and args.part != "train":
        ap.error("--floor is for the train part only")
    cases = [c for c in json.loads((HERE / "cases.json").read_text(encoding="utf-8"))["cases"]
             if c["part"] == args.part and args.batch in (None, c["batch"])]
    # A test report the tool's knowledge cites ("seen": split.py --check requires the mark) does
    # not measure it on reports it has never seen: it is left out of the test score.
    seen = [c for c in cases if args.part == "test" and c.get("seen")]
    cases = [c for c in cases if not (args.part == "test" and c.get("seen"))]
    if seen:
        print(f"left out: {len(seen)} test reports the knowledge base or the research notes cite "
              "(\"seen\" in cases.json)")
    if not cases:
        print(f"no cases in the {args.part} part" + (f" of batch {args.batch}" if args.batch else ""))
        return 2
    paths = [HERE / c["part"] / c["file"] for c in cases]
    chunks = [paths[i:i + 25] for i in range(0, len(paths), 25)]
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        results = [r for rs in pool.map(lambda ch: run_chunk(args.doctor, ch), chunks) for r in rs]
    broken = 0
    top1 = top3 = 0
    by_label = collections.defaultdict(lambda: [0, 0, 0])
    by_platform = collections.defaultdict(lambda: [0, 0, 0])
    by_kind = collections.defaultdict(lambda: [0, 0, 0])
    misses = []
    rows = []
    for case, (causes, error) in zip(cases, results):
        if causes is None:
            broken += 1
            misses.append(f"{case['file']}: explain did not answer ({error})")
            continue
        # The answer's order: the first cause, its alternatives, then the other causes.
        named = []
        for k, c in enumerate(causes):
            for cls in [c.get("cause_class")] + ([a.get("cause_class") for a in
                                                  c.get("alternatives", [])] if k == 0 else []):
                if cls not in named:
                    named.append(cls)
        hit1 = bool(named) and named[0] == case["cause_class"]
        hit3 = case["cause_class"] in named[:3]
        top1 += hit1
        top3 += hit3
        for table, key in ((by_label, case["cause_class"]), (by_platform, case["platform"]),
                           (by_kind, f"{case['log_kind']}, {case['language']}")):
            table[key][0] += 1
            table[key][1] += hit1
            table[key][2] += hit3
        if not hit1:
            said = ", ".join(f"{c.get('id')} ({c.get('cause_class')})" for c in causes[:3]) or "no cause"
            misses.append(f"{case['file']} [{case['thread']}]: wanted {case['cause_class']}, "
                          f"got {said}")
        rows.append({"file": case["file"], "want": case["cause_class"], "named": named[:3],
                     "top1": hit1, "top3": hit3})
    n = len(cases)
    print(f"{args.part} part{f' of batch {args.batch}' if args.batch else ''}: {n} cases; top-1 {top1}/{n} ({100 * top1 / n:.1f}%), "
          f"top-3 {top3}/{n} ({100 * top3 / n:.1f}%)")
    # A report explain names no cause for is a different miss from a wrong cause: the user is
    # told to look further, not sent the wrong way.
    answered = [r for r in rows if r["named"]]
    right = sum(r["top1"] for r in answered)
    if answered:
        print(f"answered (a cause named): {len(answered)}/{n}; of those, right first "
              f"{right}/{len(answered)} ({100 * right / len(answered):.1f}%); no cause named: "
              f"{n - len(answered) - broken}")
    for title, table in (("label", by_label), ("platform", by_platform),
                         ("log kind and language", by_kind)):
        print(f"\nper {title}:")
        for key in sorted(table):
            total, h1, h3 = table[key]
            print(f"  {key:34} {total:4}  top-1 {h1:4} ({100 * h1 / total:5.1f}%)  "
                  f"top-3 {h3:4} ({100 * h3 / total:5.1f}%)")
    print(f"\nmisses ({len(misses)}):")
    for m in misses:
        print("  " + m)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    if args.floor:
        want1, want3 = (int(x) for x in args.floor.split(","))
        if top1 < want1 or top3 < want3:
            print(f"\nbelow the floor: top-1 {top1} (floor {want1}), top-3 {top3} (floor {want3})")
            return 1
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
