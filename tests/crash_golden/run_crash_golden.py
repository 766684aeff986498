#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden crash reports: `cudnn-doctor crashes --from …` over a fixed set of real-shaped inputs.

Each directory here holds scenario.py (INPUTS: the --from inputs in order, "{scenario}/file" for a
file of the directory, "{testdata}/…" for a real sample of ../shared/testdata; EXIT: the exit
status), the input files, expected.txt and expected.json. The driver runs `crashes` in text (no
colour) and JSON from the scenario directory with relative input paths (so no checkout's own
path, which would change the text's line breaks, enters the output), writes the shared samples'
directory as <TESTDATA>, and diffs against the expected files. The outputs are deterministic: the
inputs carry their own times, and nothing of the machine running the test is read.

A scenario that needs ../shared/testdata skips (exit 125) when it is missing, and fails instead
when DOCTOR_REQUIRE_TESTDATA=1 (CI).

  run_crash_golden.py CUDNN_DOCTOR SCENARIO_DIR            # check one scenario
  run_crash_golden.py CUDNN_DOCTOR SCENARIO_DIR --update   # rewrite its expected files
"""
import difflib
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "testdata"))


def load(scenario_dir):
    spec = importlib.util.spec_from_file_location("scenario", os.path.join(scenario_dir, "scenario.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    exe, scenario_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    update = "--update" in sys.argv[3:]
    mod = load(scenario_dir)
    testdata = os.path.relpath(TESTDATA, scenario_dir)
    inputs = [i.replace("{scenario}/", "").replace("{testdata}", testdata) for i in mod.INPUTS]
    missing = [i for i in inputs if not os.path.exists(os.path.join(scenario_dir, i))]
    if missing:
        if os.environ.get("DOCTOR_REQUIRE_TESTDATA") == "1":
            print(f"DOCTOR_REQUIRE_TESTDATA=1 but inputs are missing: {missing}", file=sys.stderr)
            return 1
        print(f"SKIP: inputs missing (DOCTOR_REQUIRE_TESTDATA=1 makes this a failure): {missing}")
        return 125
    args = ["crashes"] + [a for i in inputs for a in ("--from", i)]
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    failed = False
    for fmt, name in (("text", "expected.txt"), ("json", "expected.json")):
        p = subprocess.run([os.path.abspath(exe)] + args + ["--format", fmt, "--color", "never"],
                           capture_output=True, text=True, env=env, cwd=scenario_dir)
        if p.returncode != mod.EXIT:
            print(f"crashes --format {fmt} exited {p.returncode}, expected {mod.EXIT}: {p.stderr}",
                  file=sys.stderr)
            return 1
        actual = p.stdout.replace(testdata, "<TESTDATA>")
        path = os.path.join(scenario_dir, name)
        if update:
            with open(path, "w", encoding="utf-8") as f:
                f.write(actual)
            continue
        expected = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if expected != actual:
            failed = True
            sys.stdout.writelines(difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True),
                f"expected/{name}", f"actual/{name}"))
    if failed:
        print(f"\nto accept the new output run:\n  {sys.argv[0]} {exe} {scenario_dir} --update\n"
              f"or tests/crash_golden/update.sh {exe}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
