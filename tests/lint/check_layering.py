#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Holds the source tree to its layers (docs/architecture.md).

Usage: check_layering.py REPO_ROOT

The layers are the libraries of src/doctor/CMakeLists.txt, one per folder, and the calls
doctor_library(<folder> SOURCES ... PUBLIC <libs> PRIVATE <libs>) say which may use which. This
script reads that graph from the CMake file itself, so the lint and the link graph cannot
disagree, and checks:

1. No file outside src/doctor/platform/<os>/ includes a POSIX or Windows header: platform code
   lives in whole files chosen by CMake.
2. A file of folder F includes only headers of F and of the libraries F links (directly, or
   through their PUBLIC dependencies); a header of F only those of F's PUBLIC dependencies, so
   that whoever includes it can compile it.
3. The pure layers never reach the platform layer, however the graph changes: a snapshot must
   give the same findings anywhere.
4. Every folder under src/doctor is a library, and every library's folder exists.
"""
import os
import re
import sys

SYSTEM_HEADERS = re.compile(
    r"^(unistd|fcntl|dlfcn|link|poll|spawn|pthread|signal|dirent|pwd|grp|termios|windows|winbase|"
    r"winnt|winreg|shlwapi|psapi|tlhelp32|io|direct|bcrypt|wincrypt|dbghelp|setupapi|cfgmgr32|"
    r"winevt|evntprov)\.h$|^(sys|linux|arpa|netinet)/")
PURE = {"util", "formats", "model", "kb", "loader", "crash", "checks", "explain", "report"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
CALL = re.compile(r"doctor_library\((\w+)(.*?)\)", re.S)


def read_graph(cmake_file):
    """{folder: (public deps, private deps)} from the doctor_library() calls."""
    text = re.sub(r"#.*", "", open(cmake_file, encoding="utf-8").read())
    graph = {}
    for m in CALL.finditer(text):
        folder, body = m.group(1), m.group(2)
        if folder == "folder":  # the function definition itself
            continue
        sections = {"SOURCES": [], "PUBLIC": [], "PRIVATE": []}
        current = None
        for word in body.split():
            if word in sections:
                current = word
            elif current:
                sections[current].append(word)
        deps = lambda ws: {w[len("doctor_"):] for w in ws if w.startswith("doctor_")}
        graph[folder] = (deps(sections["PUBLIC"]), deps(sections["PRIVATE"]))
    return graph


def public_closure(graph, folder, seen=None):
    seen = set() if seen is None else seen
    for dep in graph.get(folder, (set(), set()))[0]:
        if dep not in seen:
            seen.add(dep)
            public_closure(graph, dep, seen)
    return seen


def visible(graph, folder, header):
    """Folders a file of `folder` may include: its own, its deps and their PUBLIC closures."""
    public, private = graph[folder]
    direct = public if header else public | private
    out = {folder}
    for dep in direct:
        out.add(dep)
        out |= public_closure(graph, dep)
    return out


def main():
    root = sys.argv[1]
    src = os.path.join(root, "src")
    graph = read_graph(os.path.join(src, "doctor", "CMakeLists.txt"))
    problems = []
    folders = {d for d in os.listdir(os.path.join(src, "doctor"))
               if os.path.isdir(os.path.join(src, "doctor", d))}
    for folder in sorted(folders - set(graph)):
        problems.append(f"src/doctor/{folder}: a folder without a doctor_library() in "
                        "src/doctor/CMakeLists.txt")
    for folder in sorted(set(graph) - folders):
        problems.append(f"src/doctor/CMakeLists.txt: doctor_library({folder}) has no folder")
    for folder in sorted(PURE & set(graph)):
        reach = visible(graph, folder, header=False)
        for bad in ("platform", "collect", "probe"):
            if bad in reach:
                problems.append(f"src/doctor/CMakeLists.txt: {folder} is pure but links {bad}")
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp", ".inc")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            parts = rel.split("/")
            platform_file = rel.startswith(("doctor/platform/linux/", "doctor/platform/windows/"))
            folder = parts[1] if parts[0] == "doctor" and len(parts) > 2 else None
            allowed = visible(graph, folder, name.endswith(".hpp")) if folder in graph else None
            for lineno, line in enumerate(open(path, encoding="utf-8"), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                header = m.group(1)
                where = f"src/{rel}:{lineno}: #include {header}"
                if SYSTEM_HEADERS.search(header) and not platform_file:
                    problems.append(f"{where}: a POSIX/Windows header outside platform/<os>/")
                if allowed is None or not header.startswith("doctor/"):
                    continue
                target = header.split("/")[1]
                if target not in allowed:
                    kind = "a header of" if name.endswith(".hpp") else "a file of"
                    problems.append(f"{where}: {kind} {folder} must not include {target} "
                                    f"({folder} may use: {', '.join(sorted(allowed - {folder}))})")
    for p in problems:
        print(p)
    print(f"layering: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
