#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Merges the collected real reports into one manifest and splits them, by thread, into a part
to write rules on (train) and a part kept back for the final score (test).

    python3 tests/explain/real/split.py [--seed N] [--check]

Inputs: pool-*.json manifests and the pool/ logs they name (written by the collectors; see
README.md). Output: cases.json, with each case's "part", and the logs moved to train/ or test/.
The split is a seeded shuffle of the sorted thread list (random.Random(seed)); the first third
(rounded up) is the test part. Run again after adding cases: cases already split keep their part,
new threads are split among themselves with the same seed. --check only validates cases.json and
the files, and exits 1 on a problem.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CAUSE_CLASSES = HERE.parent.parent.parent / "src" / "doctor" / "model" / "cause_class.cpp"
SEED = 20261203
FIELDS = {"file", "thread", "url", "platform", "runtime", "framework", "cause_class", "cause",
          "fix", "established_by", "evidence", "log_kind", "language"}
# Set by this script, not by the collectors: the part, and the batch (the date in the name of the
# pool manifest the case came from, pool-YYYY-MM-DD-*.json, with a letter after the date for a
# second batch of the same day: pool-YYYY-MM-DDb-*.json), so that a batch's train part can be
# scored on its own before any rule is written for it (score.py --batch).
BATCH = re.compile(r"^pool-(\d{4}-\d{2}-\d{2}[a-z]?)-")
PLATFORMS = {"windows", "linux", "wsl", "macos", "unknown"}
ESTABLISHED = {"maintainer", "reporter-confirmed", "other-user-confirmed"}
LOG_KINDS = {"title-only", "excerpt", "full"}
THREAD = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#[0-9]+$")


def cause_classes() -> set[str]:
    # The public names of the CauseClass enum, from its one mapping table.
    text = CAUSE_CLASSES.read_text(encoding="utf-8")
    return set(re.findall(r'\{CauseClass::\w+, "([a-z_.]+)"\}', text))


# Where the tool's knowledge comes from: a test-part thread cited there is not unseen.
ROOT = HERE.parent.parent.parent
KNOWLEDGE = [ROOT / "data" / "kb", ROOT / "tests" / "explain" / "cases.json",
             ROOT.parent / "shared" / "research"]
CITATION = re.compile(r"([\w.-]+/[\w.-]+)#(\d+)((?:(?:,|,? and| or)\s*#\d+)*)")
CITATION_URL = re.compile(r"github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/(\d+)")


def cited_threads() -> dict[str, str]:
    """Every owner/repo#N (lower case) the knowledge base, the hand corpus or the research notes
    cite, with the first file that does ("owner/repo#1, #2" cites both)."""
    out: dict[str, str] = {}
    for root in KNOWLEDGE:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()) \
            if root.is_dir() else []
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            for m in CITATION.finditer(text):
                for n in [m[2]] + re.findall(r"#(\d+)", m[3] or ""):
                    out.setdefault(f"{m[1].lower()}#{n}", os.path.relpath(path, ROOT))
            for m in CITATION_URL.finditer(text):
                out.setdefault(f"{m[1].lower()}#{m[2]}", os.path.relpath(path, ROOT))
    return out


def problems_of(case: dict, classes: set[str]) -> list[str]:
    out = []
    where = case.get("file", "?")
    missing = FIELDS - set(case)
    extra = set(case) - FIELDS - {"part", "batch", "seen"}
    if missing:
        out.append(f"{where}: missing {sorted(missing)}")
    if extra:
        out.append(f"{where}: unknown fields {sorted(extra)}")
    if not THREAD.match(str(case.get("thread", ""))):
        out.append(f"{where}: thread {case.get('thread')!r} is not owner/repo#N")
    if case.get("platform") not in PLATFORMS:
        out.append(f"{where}: platform {case.get('platform')!r}")
    if case.get("cause_class") not in classes:
        out.append(f"{where}: cause_class {case.get('cause_class')!r} is not a known class")
    if case.get("established_by") not in ESTABLISHED:
        out.append(f"{where}: established_by {case.get('established_by')!r}")
    if not re.match(r"^\d{4}-\d{2}-\d{2}[a-z]?$", str(case.get("batch", ""))):
        out.append(f"{where}: batch {case.get('batch')!r} is not a date")
    if case.get("log_kind") not in LOG_KINDS:
        out.append(f"{where}: log_kind {case.get('log_kind')!r}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    classes = cause_classes()
    manifest = HERE / "cases.json"
    done = json.loads(manifest.read_text(encoding="utf-8"))["cases"] if manifest.exists() else []
    problems = []
    if not args.check:
        seen = {c["thread"].lower() for c in done}
        new = []
        for pool in sorted(HERE.glob("pool-*.json")):
            batch = BATCH.match(pool.name)
            if not batch:
                problems.append(f"{pool.name}: not named pool-YYYY-MM-DD[x]-*.json")
                continue
            for case in json.loads(pool.read_text(encoding="utf-8"))["cases"]:
                case["batch"] = batch.group(1)
                key = case.get("thread", "").lower()
                if key in seen:
                    print(f"{pool.name}: {case.get('thread')} is a repeat; left out")
                    continue
                if not (HERE / "pool" / case.get("file", "")).is_file():
                    problems.append(f"{pool.name}: {case.get('file')} is not in pool/")
                    continue
                seen.add(key)
                new.append(case)
        new.sort(key=lambda c: c["thread"].lower())
        order = list(range(len(new)))
        random.Random(args.seed).shuffle(order)
        test_count = (len(new) + 2) // 3
        for rank, i in enumerate(order):
            new[i]["part"] = "test" if rank < test_count else "train"
        for case in new:
            (HERE / case["part"]).mkdir(exist_ok=True)
            shutil.move(str(HERE / "pool" / case["file"]), str(HERE / case["part"] / case["file"]))
        done = sorted(done + new, key=lambda c: (c["part"], c["thread"].lower()))
        manifest.write_text(json.dumps({"seed": args.seed, "cases": done}, ensure_ascii=False,
                                       indent=1) + "\n", encoding="utf-8")
        print(f"{len(new)} new cases split: {test_count} test, {len(new) - test_count} train")
    threads = set()
    for case in done:
        problems += problems_of(case, classes)
        if case["thread"].lower() in threads:
            problems.append(f"{case['file']}: thread {case['thread']} twice")
        threads.add(case["thread"].lower())
        if case.get("part") not in ("train", "test"):
            problems.append(f"{case['file']}: part {case.get('part')!r}")
        elif not (HERE / case["part"] / case["file"]).is_file():
            problems.append(f"{case['file']}: not in {case['part']}/")
    # A test report whose thread the tool's knowledge cites is not one it has never seen: it must
    # say so ("seen", which score.py leaves out of the test score), or the citation must go.
    cited = cited_threads()
    for case in done:
        where = cited.get(case["thread"].lower())
        if case.get("part") == "test" and where and not case.get("seen"):
            problems.append(f"{case['file']}: test thread {case['thread']} is cited by {where}: "
                            "mark the case \"seen\" or drop the citation")
    listed = {(c.get("part"), c.get("file")) for c in done}
    for part in ("train", "test"):
        folder = HERE / part
        for path in sorted(folder.iterdir()) if folder.is_dir() else []:
            if (part, path.name) not in listed:
                problems.append(f"{part}/{path.name} is in no case of cases.json")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
