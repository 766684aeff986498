#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_layering.py catches includes that run against the layers.

Usage: test_layering.py REPO_ROOT

Copies src/ to a scratch directory, checks that the copy is clean, then adds one bad include at a
time (checks -> platform, checks -> collect, formats -> platform, a pure layer linking platform in
CMake, a POSIX header outside platform/<os>/) and checks that the lint fails naming it.
"""
import os
import shutil
import subprocess
import sys
import tempfile

CASES = [
    ("src/doctor/checks/runner.cpp", "#include <doctor/platform/sysroot.hpp>\n",
     "src/doctor/checks/runner.cpp:1: #include doctor/platform/sysroot.hpp: a file of checks must "
     "not include platform"),
    ("src/doctor/checks/check.hpp", "#include <doctor/collect/collect.hpp>\n",
     "src/doctor/checks/check.hpp:1: #include doctor/collect/collect.hpp: a header of checks must "
     "not include collect"),
    ("src/doctor/formats/elf.cpp", "#include <doctor/platform/mapped_file.hpp>\n",
     "src/doctor/formats/elf.cpp:1: #include doctor/platform/mapped_file.hpp: a file of formats "
     "must not include platform"),
    ("src/doctor/explain/scan.cpp", "#include <unistd.h>\n",
     "src/doctor/explain/scan.cpp:1: #include unistd.h: a POSIX/Windows header outside "
     "platform/<os>/"),
]


def lint(root):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layering.py")
    r = subprocess.run([sys.executable, script, root], stdout=subprocess.PIPE, text=True)
    return r.returncode, r.stdout


def main():
    repo = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(repo, "src"), os.path.join(tmp, "src"))
        code, out = lint(tmp)
        if code != 0:
            failures.append(f"the unchanged copy is not clean:\n{out}")
        for rel, line, expected in CASES:
            path = os.path.join(tmp, rel)
            original = open(path, encoding="utf-8").read()
            open(path, "w", encoding="utf-8").write(line + original)
            code, out = lint(tmp)
            open(path, "w", encoding="utf-8").write(original)
            if code == 0 or expected not in out:
                failures.append(f"{rel} with {line.strip()}: expected a failure naming\n  "
                                f"{expected}\ngot (exit {code}):\n{out}")
        cmake = os.path.join(tmp, "src", "doctor", "CMakeLists.txt")
        original = open(cmake, encoding="utf-8").read()
        open(cmake, "w", encoding="utf-8").write(
            original.replace("PUBLIC doctor_kb doctor_loader doctor_model)",
                             "PUBLIC doctor_kb doctor_loader doctor_model doctor_platform)", 1))
        code, out = lint(tmp)
        if code == 0 or "checks is pure but links platform" not in out:
            failures.append(f"checks linking platform in CMake was not caught:\n{out}")
    for f in failures:
        print(f)
    print(f"layering lint test: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
