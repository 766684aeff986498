#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Linux snapshots checked by the Windows build give the Linux build's findings.

For every golden scenario whose command is `check` (tests/golden/scenarios), the Linux build makes
the scenario's tree, writes its snapshot (edited as the scenario edits it, for the machines no
collector here can read) and checks it; the Windows build, under wine, checks the same snapshot.
The findings must be equal, field for field (ids, severities, evidence, fixes), and so must the
exit status.

  test_reverse_snapshots.py WINDOWS_EXE LINUX_EXE SCENARIOS_DIR

Exits 125 (skip) when the Linux build is not there: scripts/test.sh builds it first.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden")
sys.path.insert(0, GOLDEN)
import scenario_lib  # noqa: E402
from run_golden import load, write_snapshot  # noqa: E402


def run(cmd):
    env = dict(os.environ, WINEDEBUG="-all", ASAN_OPTIONS="detect_leaks=0")
    env.pop("NO_COLOR", None)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


def compare(name, linux, windows, mod, root, work):
    """windows: the command that runs the Windows build (wine and its path). Returns the problems
    for one scenario (none when the two builds agree) and how many findings Linux made."""
    snap = os.path.join(work, "snapshot.json")
    code, err = write_snapshot(linux, mod, root, snap)
    if code != 0:
        return [f"{name}: the Linux snapshot exited {code}: {err.strip()}"], 0
    args = ["check", "--snapshot", snap, "--format", "json", "--color", "never"] + list(getattr(mod, "ARGS", []))
    on_linux = run([linux] + args)
    on_windows = run(windows + args)
    problems = []
    if on_linux.returncode not in (0, 1):
        return [f"{name}: the Linux check exited {on_linux.returncode}: {on_linux.stderr.strip()}"], 0
    if on_windows.returncode != on_linux.returncode:
        problems.append(f"{name}: exit status {on_windows.returncode} on Windows, {on_linux.returncode} on Linux"
                        f" ({on_windows.stderr.strip()[:300]})")
    try:
        lin = json.loads(on_linux.stdout)["findings"]
        win = json.loads(on_windows.stdout)["findings"]
    except (ValueError, KeyError) as e:
        return problems + [f"{name}: unreadable report: {e}"], 0
    if win != lin:
        lin_ids = [f["id"] for f in lin]
        win_ids = [f["id"] for f in win]
        detail = f"ids {win_ids} != {lin_ids}" if win_ids != lin_ids else "same ids, other fields"
        if win_ids == lin_ids:
            for a, b in zip(win, lin):
                if a != b:
                    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
                    detail += f"; {a['id']} differs in {keys}: {json.dumps({k: a.get(k) for k in keys})[:400]}" \
                              f" vs {json.dumps({k: b.get(k) for k in keys})[:400]}"
                    break
        problems.append(f"{name}: the Windows build's findings differ: {detail}")
    return problems, len(lin)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    windows, linux, scenarios = sys.argv[1], sys.argv[2], sys.argv[3]
    if not os.path.isfile(linux):
        print(f"SKIP: no Linux build at {linux} (scripts/test.sh builds build/ci first)")
        return 125
    wine = os.environ.get("WINE", "wine")
    windows_cmd = [shutil.which(wine) or wine, windows]
    checked, with_findings, problems = [], [], []
    for name in sorted(os.listdir(scenarios)):
        scenario_dir = os.path.join(scenarios, name)
        if not os.path.isfile(os.path.join(scenario_dir, "scenario.py")):
            continue
        mod = load(scenario_dir)
        if getattr(mod, "COMMAND", ["check"])[0] != "check":
            continue
        work = tempfile.mkdtemp(prefix="doctor-reverse-")
        try:
            root = os.path.join(work, "root")
            os.makedirs(root)
            scenario_lib._ELF_CACHE.clear()  # its files lie in the last tree, removed below
            tree = scenario_lib.Tree(root)
            mod.build(tree)
            if tree.skip_reason:
                print(f"{name}: skipped ({tree.skip_reason})")
                continue
            shutil.rmtree(os.path.join(root, ".elf-cache"), ignore_errors=True)
            found, count = compare(name, linux, windows_cmd, mod, root, work)
            if count:
                with_findings.append(name)
            problems += found
            checked.append(name)
            print(f"{name}: {'; '.join(found) if found else 'same findings'}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print("FAIL:", p, file=sys.stderr)
    if len(with_findings) < 10:
        # The comparison must have something to compare: most scenarios plant a problem.
        print(f"FAIL: only {len(with_findings)} of {len(checked)} scenarios have findings", file=sys.stderr)
        return 1
    if problems:
        return 1
    print(f"ok: {len(checked)} Linux snapshots ({len(with_findings)} with findings) give the same"
          " findings in the Windows build")
    return 0


if __name__ == "__main__":
    sys.exit(main())
