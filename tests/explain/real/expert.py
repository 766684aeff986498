#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Scores expert readings of the real reports against the causes their threads established.

    python3 tests/explain/real/expert.py [--tool SCORE_JSON]

An expert reading (expert/reading-*.json) is a reader's answer for a report from its text alone:
up to three cause classes, most likely first, and whether the text decides the cause ("yes"),
narrows it to two or three classes ("partly") or carries no evidence of it ("no"). The readers
saw only the log and the class list (expert/CLASSES.md), under the instructions in
expert/INSTRUCTIONS.md: no thread, no label, no search. The figures are how far a careful reader
gets on the same text the tool reads: a ceiling to hold the tool's scores against.

--tool takes the JSON that score.py --json writes and sets the tool's answers beside the
readers', on the same reports.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100.0 * n / d:.1f}%)" if d else "0/0"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", help="score.py --json output for the same part")
    args = ap.parse_args()
    cases = {c["file"]: c for c in json.loads((HERE / "cases.json").read_text("utf-8"))["cases"]}
    tool = {}
    if args.tool:
        tool = {t["file"]: t for t in json.loads(Path(args.tool).read_text("utf-8"))}
    problems = []
    readings = []
    for path in sorted((HERE / "expert").glob("reading-*.json")):
        for a in json.loads(path.read_text("utf-8"))["answers"]:
            case = cases.get(a["file"])
            if case is None:
                problems.append(f"{path.name}: {a['file']} is in no case of cases.json")
                continue
            if case["part"] != "train":
                problems.append(f"{path.name}: {a['file']} is a test report: readings are of "
                                "the train part only")
                continue
            if a.get("decidable") not in ("yes", "partly", "no") or not a.get("top3"):
                problems.append(f"{path.name}: {a['file']}: decidable or top3 missing")
                continue
            readings.append((path.name, a, case))
    for p in problems:
        print(p)
    if problems:
        return 1
    # One reading per report for the figures: the first reader's. A second reader of the same
    # report measures the readers' agreement instead.
    first: dict[str, tuple] = {}
    second: dict[str, list] = collections.defaultdict(list)
    for r in readings:
        if r[1]["file"] in first:
            second[r[1]["file"]].append(r)
        else:
            first[r[1]["file"]] = r
    n = len(first)
    print(f"expert readings: {n} reports, {len(readings) - n} read twice")
    top1 = sum(a["top3"][0] == c["cause_class"] for _, a, c in first.values())
    top3 = sum(c["cause_class"] in a["top3"][:3] for _, a, c in first.values())
    print(f"  reader top-1 {pct(top1, n)}, top-3 {pct(top3, n)}")
    if tool:
        missing = [f for f in first if f not in tool]
        if missing:
            print(f"  --tool lacks {len(missing)} of these reports (another part or batch?)")
        on = [f for f in first if f in tool]
        t1 = sum(tool[f]["top1"] for f in on)
        t3 = sum(tool[f]["top3"] for f in on)
        print(f"  tool on the same reports: top-1 {pct(t1, len(on))}, top-3 {pct(t3, len(on))}")
    print("\nby what the text decides (reader's judgement):")
    groups = collections.defaultdict(list)
    for f, (_, a, c) in first.items():
        groups[a["decidable"]].append((f, a, c))
    for d in ("yes", "partly", "no"):
        g = groups.get(d, [])
        r1 = sum(a["top3"][0] == c["cause_class"] for _, a, c in g)
        r3 = sum(c["cause_class"] in a["top3"][:3] for _, a, c in g)
        line = f"  {d:7} {len(g):4}  reader top-1 {pct(r1, len(g)):>16}  top-3 {pct(r3, len(g)):>16}"
        if tool:
            on = [f for f, _, _ in g if f in tool]
            line += (f"  tool top-1 {pct(sum(tool[f]['top1'] for f in on), len(on)):>16}"
                     f"  top-3 {pct(sum(tool[f]['top3'] for f in on), len(on)):>16}")
        print(line)
    if second:
        agree1 = sum(first[f][1]["top3"][0] == r[1]["top3"][0] for f, rs in second.items()
                     for r in rs)
        agree_d = sum(first[f][1]["decidable"] == r[1]["decidable"] for f, rs in second.items()
                      for r in rs)
        both = sum(len(rs) for rs in second.values())
        r2 = sum(r[1]["top3"][0] == r[2]["cause_class"] for rs in second.values() for r in rs)
        print(f"\nsecond readings: {both}; same first class {pct(agree1, both)}, same judgement "
              f"of the text {pct(agree_d, both)}; the second reader's top-1 {pct(r2, both)}")
    if tool:
        print("\nreader right first, tool not (what the text carries that the tool does not read):")
        for f, (_, a, c) in sorted(first.items()):
            t = tool.get(f)
            if t and a["top3"][0] == c["cause_class"] and not t["top1"]:
                got = ", ".join(t["named"][:2]) or "no cause"
                print(f"  {f} [{c['thread']}]: {c['cause_class']}; tool: {got}; reader: "
                      f"{a['why'][:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
