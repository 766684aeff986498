#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs `cudnn-doctor explain` over the log corpus and checks the cause it names for each case.

    python3 tests/explain/run_corpus.py DOCTOR [CORPUS_DIR] [--case NAME ...] [-j N] [-v]
    python3 tests/explain/run_corpus.py --manifest-only [CORPUS_DIR]

CORPUS_DIR is the folder holding cases.json and cases/ (default: this script's folder).
For every case the runner executes

    DOCTOR [--no-color] explain --no-machine --format json cases/FILE

(--no-color only when the binary accepts it) and checks, from the JSON on standard output:
- `causes[0].id` is the case's `expect` and `causes[0].cause_class` its `cause_class`, or, for a
  case whose `expect` is null, that `causes` is empty;
- every id in `also` is somewhere among the causes, and no id in `not_cause` is;
- `inputs[0].encoding`, when the output has it, is the case's `encoding`.

Before that it checks the manifest itself (files exist and are all listed, ids, counts, cause
classes as in data/kb/findings.json, generated cases up to date). One line per failure, then
`N/M cases pass`; the exit status is 1 if anything failed, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FINDINGS = REPO / "data" / "kb" / "findings.json"

PLATFORMS = {"windows", "linux"}
ENCODINGS = {"utf-8", "utf-16le", "utf-16be", "gbk"}
ID_RE = re.compile(r"^log\.[a-z0-9_]+$")
NOT_CAUSES = {"log.harmless_noise", "log.context"}
MIN_CASES = 80
MIN_NEGATIVES = 8
MIN_PER_ENCODING = {"gbk": 3, "utf-16le": 3}
TIMEOUT_S = 120


@dataclass
class Case:
    file: str
    expect: str | None
    cause_class: str | None
    platform: str
    encoding: str
    also: list[str] = field(default_factory=list)
    not_cause: list[str] = field(default_factory=list)
    origin: str = ""


def load_manifest(corpus: Path) -> tuple[list[Case], list[str]]:
    """Reads cases.json; returns the cases and the problems found in the manifest."""
    problems: list[str] = []
    path = corpus / "cases.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return [], [f"manifest: cannot read {path}: {e}"]
    raw = doc.get("cases") if isinstance(doc, dict) else None
    if not isinstance(raw, list):
        return [], ["manifest: no \"cases\" list"]

    known_classes: dict[str, str] = {}
    if FINDINGS.exists():
        try:
            for row in json.loads(FINDINGS.read_text(encoding="utf-8"))["findings"]:
                known_classes[row["id"]] = row["cause_class"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            problems.append(f"manifest: cannot read {FINDINGS}: {e}")

    cases: list[Case] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw):
        where = f"manifest case {i}"
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            problems.append(f"{where}: not an object with a \"file\"")
            continue
        name = entry["file"]
        where = f"manifest {name}"
        unknown = set(entry) - {"file", "expect", "cause_class", "platform", "encoding", "also", "not_cause", "origin"}
        if unknown:
            problems.append(f"{where}: unknown keys {sorted(unknown)}")
        case = Case(file=name, expect=entry.get("expect"), cause_class=entry.get("cause_class"),
                    platform=entry.get("platform", ""), encoding=entry.get("encoding", ""),
                    also=list(entry.get("also") or []), not_cause=list(entry.get("not_cause") or []),
                    origin=entry.get("origin", ""))
        if name in seen:
            problems.append(f"{where}: listed twice")
        seen.add(name)
        if not name.startswith("cases/") or not (corpus / name).is_file():
            problems.append(f"{where}: no such file under cases/")
        if case.expect is None:
            if case.cause_class is not None:
                problems.append(f"{where}: cause_class must be null when expect is null")
        elif not isinstance(case.expect, str) or not ID_RE.match(case.expect) or case.expect in NOT_CAUSES:
            problems.append(f"{where}: expect {case.expect!r} is not a log.* cause id")
        elif not isinstance(case.cause_class, str) or not case.cause_class:
            problems.append(f"{where}: expect without cause_class")
        elif known_classes:
            if case.expect not in known_classes:
                problems.append(f"{where}: {case.expect} is not a finding in data/kb/findings.json")
            elif known_classes[case.expect] != case.cause_class:
                problems.append(f"{where}: cause_class {case.cause_class} but findings.json gives "
                                f"{known_classes[case.expect]} for {case.expect}")
        for key, ids in (("also", case.also), ("not_cause", case.not_cause)):
            for fid in ids:
                if not isinstance(fid, str) or not ID_RE.match(fid):
                    problems.append(f"{where}: {key} entry {fid!r} is not a log.* id")
        if case.expect and case.expect in case.not_cause:
            problems.append(f"{where}: expect is also listed in not_cause")
        if case.platform not in PLATFORMS:
            problems.append(f"{where}: platform {case.platform!r} not in {sorted(PLATFORMS)}")
        if case.encoding not in ENCODINGS:
            problems.append(f"{where}: encoding {case.encoding!r} not in {sorted(ENCODINGS)}")
        if not case.origin:
            problems.append(f"{where}: no origin")
        cases.append(case)

    on_disk = {f"cases/{p.name}" for p in (corpus / "cases").iterdir() if p.is_file()} if (corpus / "cases").is_dir() else set()
    for name in sorted(on_disk - seen):
        problems.append(f"manifest: cases/{Path(name).name} is not listed in cases.json")
    if len(cases) < MIN_CASES:
        problems.append(f"manifest: {len(cases)} cases, at least {MIN_CASES} wanted")
    negatives = sum(1 for c in cases if c.expect is None)
    if negatives < MIN_NEGATIVES:
        problems.append(f"manifest: {negatives} negative cases, at least {MIN_NEGATIVES} wanted")
    for enc, least in MIN_PER_ENCODING.items():
        n = sum(1 for c in cases if c.encoding == enc)
        if n < least:
            problems.append(f"manifest: {n} {enc} cases, at least {least} wanted")
    problems += check_generated(corpus)
    return cases, problems


def check_generated(corpus: Path) -> list[str]:
    """The committed outputs of make_encoded_cases.py must be what it writes now."""
    script = corpus / "make_encoded_cases.py"
    if not script.exists():
        return []
    spec = importlib.util.spec_from_file_location("make_encoded_cases", script)
    if spec is None or spec.loader is None:
        return [f"manifest: cannot load {script}"]
    module = importlib.util.module_from_spec(spec)
    sys.dont_write_bytecode = True  # keep the corpus folder free of __pycache__
    try:
        spec.loader.exec_module(module)
        expected = module.outputs()
    except (Exception, SystemExit) as e:  # the generator's own checks raise SystemExit
        return [f"manifest: make_encoded_cases.py failed: {e}"]
    problems = []
    for name, data in expected.items():
        path = corpus / "cases" / name
        if not path.exists() or path.read_bytes() != data:
            problems.append(f"manifest: cases/{name} differs from make_encoded_cases.py output (rerun it)")
    return problems


def accepts_no_color(doctor: str) -> bool:
    """True if the top-level help lists --no-color (a `--help` run exits 0 whatever else is on
    the command line, so trying the option with --help proves nothing)."""
    try:
        proc = subprocess.run([doctor, "--help"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and b"--no-color" in proc.stdout


@dataclass
class Result:
    case: Case
    ok: bool
    message: str = ""


def describe(causes: list) -> str:
    shown = []
    for c in causes[:3]:
        if isinstance(c, dict):
            shown.append(f"{c.get('id')} ({c.get('cause_class')}, {c.get('confidence')})")
        else:
            shown.append(repr(c))
    more = f" +{len(causes) - 3} more" if len(causes) > 3 else ""
    return "[" + ", ".join(shown) + more + "]" if shown else "no cause"


def run_case(doctor: str, no_color: bool, corpus: Path, case: Case) -> Result:
    cmd = [doctor] + (["--no-color"] if no_color else []) + ["explain", "--no-machine", "--format", "json", case.file]
    env = dict(os.environ, NO_COLOR="1")
    try:
        proc = subprocess.run(cmd, cwd=corpus, capture_output=True, timeout=TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        return Result(case, False, f"timed out after {TIMEOUT_S} s")
    except OSError as e:
        return Result(case, False, f"cannot run {doctor}: {e}")
    stderr_tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
    if proc.returncode != 0:
        return Result(case, False, f"exit status {proc.returncode}: {' | '.join(stderr_tail)}")
    try:
        out = json.loads(proc.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return Result(case, False, f"stdout is not JSON ({e}): {proc.stdout[:120]!r}")
    if not isinstance(out, dict) or not isinstance(out.get("causes"), list):
        return Result(case, False, "JSON has no \"causes\" list")

    causes = out["causes"]
    ids = [c.get("id") for c in causes if isinstance(c, dict)]
    errors = []
    if case.expect is None:
        if causes:
            errors.append(f"expected no cause, got {describe(causes)}")
    else:
        first = causes[0] if causes and isinstance(causes[0], dict) else {}
        if first.get("id") != case.expect or first.get("cause_class") != case.cause_class:
            errors.append(f"expected {case.expect} ({case.cause_class}) first, got {describe(causes)}")
    missing = [a for a in case.also if a not in ids]
    if missing:
        errors.append(f"also {missing} not among causes {ids}")
    present = [n for n in case.not_cause if n in ids]
    if present:
        errors.append(f"not_cause {present} among causes {ids}")
    inputs = out.get("inputs")
    if isinstance(inputs, list) and inputs and isinstance(inputs[0], dict) and "encoding" in inputs[0]:
        if inputs[0]["encoding"] != case.encoding:
            errors.append(f"encoding {inputs[0]['encoding']!r}, expected {case.encoding!r}")
    return Result(case, not errors, "; ".join(errors))


def select(cases: list[Case], names: list[str]) -> tuple[list[Case], list[str]]:
    chosen, unknown = [], []
    for name in names:
        hits = [c for c in cases if name in (c.file, Path(c.file).name, Path(c.file).stem)]
        if hits:
            chosen += [c for c in hits if c not in chosen]
        else:
            unknown.append(name)
    return chosen, unknown


def resolve_corpus(arg: str | None) -> Path:
    corpus = Path(arg).resolve() if arg else HERE
    if not (corpus / "cases.json").exists() and (corpus.parent / "cases.json").exists():
        corpus = corpus.parent  # the cases/ folder itself was given
    return corpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check `cudnn-doctor explain` against the log corpus.")
    parser.add_argument("doctor", nargs="?", help="the cudnn-doctor binary")
    parser.add_argument("corpus", nargs="?", help="folder with cases.json and cases/ (default: this script's folder)")
    parser.add_argument("--case", action="append", default=[], metavar="NAME",
                        help="run only this case (file, file name or stem); repeatable")
    parser.add_argument("--manifest-only", action="store_true", help="check the manifest; run nothing")
    parser.add_argument("-j", "--jobs", type=int, default=min(8, os.cpu_count() or 1), help="cases run in parallel")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print passing cases")
    args = parser.parse_args(argv)

    if args.manifest_only and args.doctor and not args.corpus:
        args.corpus, args.doctor = args.doctor, None  # `--manifest-only CORPUS_DIR`
    if not args.manifest_only and not args.doctor:
        parser.error("DOCTOR is required (or use --manifest-only)")
    corpus = resolve_corpus(args.corpus)

    cases, problems = load_manifest(corpus)
    for p in problems:
        print(f"FAIL {p}")
    if args.manifest_only:
        print(f"manifest: {len(cases)} cases, {len(problems)} problem(s)")
        return 1 if problems else 0

    doctor = str(Path(args.doctor).resolve()) if os.sep in args.doctor else args.doctor
    todo = cases
    if args.case:
        todo, unknown = select(cases, args.case)
        if unknown:
            print(f"no such case: {', '.join(unknown)}", file=sys.stderr)
            return 2
    no_color = accepts_no_color(doctor)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda c: run_case(doctor, no_color, corpus, c), todo))
    passed = 0
    for r in results:
        if r.ok:
            passed += 1
            if args.verbose:
                print(f"ok   {r.case.file}")
        else:
            print(f"FAIL {r.case.file}: {r.message}")
    print(f"{passed}/{len(results)} cases pass" + (f"; {len(problems)} manifest problem(s)" if problems else ""))
    return 0 if passed == len(results) and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
