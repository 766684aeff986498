#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The build itself enforces the layers: a file that links only doctor_checks (or doctor_formats)
cannot include a header of a layer those libraries do not use.

Usage: test_layer_build.py BUILD_DIR

Builds the EXCLUDE_FROM_ALL targets of tests/lint/CMakeLists.txt: each layering_bad_* target must
fail to compile, naming the header it may not see; layering_good must compile.
"""
import subprocess
import sys

BAD = {
    "layering_bad_checks_platform": "doctor/platform/sysroot.hpp",
    "layering_bad_checks_collect": "doctor/collect/collect.hpp",
    "layering_bad_formats_platform": "doctor/platform/mapped_file.hpp",
}


def build(build_dir, target):
    r = subprocess.run(["cmake", "--build", build_dir, "--target", target],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def main():
    build_dir = sys.argv[1]
    failures = []
    code, out = build(build_dir, "layering_good")
    if code != 0:
        failures.append(f"layering_good (checks including the loader) did not compile:\n{out}")
    for target, header in BAD.items():
        code, out = build(build_dir, target)
        if code == 0:
            failures.append(f"{target} compiled: {header} is visible where it must not be")
        elif f"{header}: No such file or directory" not in out:
            failures.append(f"{target} failed, but not for want of {header}:\n{out}")
    for f in failures:
        print(f)
    print(f"layer build: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
