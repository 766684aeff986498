#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Holds the source tree to its layering rules (docs/architecture.md):

1. No file outside src/doctor/platform/linux/ and src/doctor/platform/windows/ includes a POSIX or
   Windows header: platform code lives in whole files chosen by CMake.
2. Layers only include downwards: util <- platform <- core (binfmt, nvapi, facts, kb, core,
   loader, checks, report) <- cli.
3. Checks, the knowledge base, findings and reports are pure: they never include the platform
   layer or the collectors, directly or through the headers they include, so a snapshot gives
   the same findings anywhere.
"""
import os
import re
import sys

SYSTEM_HEADERS = re.compile(
    r"^(unistd|fcntl|dlfcn|link|poll|spawn|pthread|signal|dirent|pwd|grp|termios|windows|winbase|"
    r"winnt|winreg|shlwapi|psapi|tlhelp32|io|direct|bcrypt|wincrypt|dbghelp)\.h$|^(sys|linux|arpa|netinet)/")
LAYER = {"util": 0, "platform": 1, "binfmt": 2, "nvapi": 2, "facts": 2, "kb": 2, "explain": 2, "crash": 2, "core": 2, "loader": 2,
         "checks": 2, "report": 2}
PURE = {"checks", "kb", "core", "report", "explain"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def doctor_includes(path):
    out = []
    for line in open(path, encoding="utf-8"):
        m = INCLUDE.match(line)
        if m and m.group(1).startswith("doctor/"):
            out.append(m.group(1))
    return out


def impure_through_headers(src):
    """Rule 3 through headers: a pure file that includes a header that (at any depth) includes the
    platform layer or the collectors reads the machine just the same."""
    graph = {}
    for dirpath, _, files in os.walk(os.path.join(src, "doctor")):
        for name in files:
            if name.endswith(".hpp"):
                path = os.path.join(dirpath, name)
                graph["doctor/" + os.path.relpath(path, os.path.join(src, "doctor")).replace(os.sep, "/")] = \
                    doctor_includes(path)

    def impure(header, seen):
        if header.startswith("doctor/platform/") or header == "doctor/facts/collect.hpp":
            return [header]
        if header in seen:
            return None
        seen.add(header)
        for inc in graph.get(header, []):
            chain = impure(inc, seen)
            if chain:
                return [header] + chain
        return None

    problems = []
    for dirpath, _, files in os.walk(os.path.join(src, "doctor")):
        for name in files:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            if rel.split("/")[1] not in PURE or not name.endswith((".cpp", ".hpp")):
                continue
            for header in doctor_includes(path):
                if header.startswith("doctor/platform/") or header == "doctor/facts/collect.hpp":
                    continue  # reported by the direct rule
                chain = impure(header, set())
                if chain:
                    problems.append(f"src/{rel}: #include {header}: pure code reaches "
                                    f"{chain[-1]} through {' -> '.join(chain)}")
    return problems


def main():
    src = os.path.join(sys.argv[1], "src")
    problems = []
    for dirpath, _, files in os.walk(src):
        for name in files:
            if not name.endswith((".cpp", ".hpp")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            parts = rel.split("/")
            platform_file = rel.startswith(("doctor/platform/linux/", "doctor/platform/windows/"))
            layer = parts[1] if parts[0] == "doctor" else "cli"
            for lineno, line in enumerate(open(path, encoding="utf-8"), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                header = m.group(1)
                where = f"src/{rel}:{lineno}: #include {header}"
                if SYSTEM_HEADERS.search(header) and not platform_file:
                    problems.append(f"{where}: a POSIX/Windows header outside platform/<os>/")
                if header.startswith("doctor/"):
                    target = header.split("/")[1]
                    if layer == "cli":
                        continue
                    if target == "cli" or LAYER.get(target, 99) > LAYER.get(layer, -1):
                        problems.append(f"{where}: layer {layer} must not include layer {target}")
                    if layer in PURE and (target == "platform" or header == "doctor/facts/collect.hpp"):
                        problems.append(f"{where}: {layer} is pure and must not read the machine")
    problems += impure_through_headers(src)
    for p in problems:
        print(p)
    print(f"layering: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
