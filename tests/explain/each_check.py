#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""explain --each gives, for each input, the report that explain gives for that input alone, in
the order of the inputs (JSON: an array of the documents; text: the reports one after another).

    python3 tests/explain/each_check.py DOCTOR
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent / "cases"


def explain(doctor: str, args: list[str], fmt: str = "json") -> str:
    p = subprocess.run([doctor, "explain", "--no-machine", "--color", "never", "--format", fmt]
                       + args, capture_output=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"explain {' '.join(args)}: exit {p.returncode}: {p.stderr.decode()[:300]}")
    return p.stdout.decode("utf-8")


def main() -> int:
    doctor = sys.argv[1]
    files = sorted(str(p) for p in CASES.iterdir() if p.is_file() and p.suffix in (".log", ".txt"))[:6]
    if len(files) < 3:
        sys.exit(f"too few corpus files in {CASES}")
    # A pasted message is an input too.
    inputs = files + ["CUDA driver version is insufficient for CUDA runtime version"]
    alone = [json.loads(explain(doctor, [i])) for i in inputs]
    each = json.loads(explain(doctor, ["--each"] + inputs))
    problems = []
    if not isinstance(each, list) or len(each) != len(inputs):
        problems.append(f"--each gave {type(each).__name__} of "
                        f"{len(each) if isinstance(each, list) else '?'}, not {len(inputs)} documents")
    else:
        for i, (a, e) in enumerate(zip(alone, each)):
            if a != e:
                problems.append(f"input {i} ({inputs[i][-60:]}): --each differs from alone")
    together = json.loads(explain(doctor, inputs))
    if not isinstance(together, dict):
        problems.append("without --each the inputs are not one document")
    text = explain(doctor, ["--each"] + inputs, "text")
    heads = text.count("cudnn-doctor ")
    if heads < len(inputs):
        problems.append(f"--each text has {heads} report heads for {len(inputs)} inputs")
    for p in problems:
        print(p)
    print(f"{len(inputs)} inputs: " + ("ok" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
