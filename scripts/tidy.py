#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs clang-tidy over src/ with a cache of clean results.

Usage: scripts/tidy.py BUILD_DIR [--jobs N] [--no-cache]

Each file's result is a function of clang-tidy's version, .clang-tidy, the file's compile command
and the contents of every file it includes. Ninja's dependency log (`ninja -t deps`, written by
every compile) lists those includes, so the key is a SHA-256 over all of them: a file whose key
was seen clean before is not checked again. Only clean results are cached; a file with a
diagnostic is checked every time until it is fixed. A file whose object was not built yet (no
dependencies recorded) is always checked.
The cache lives in $XDG_CACHE_HOME/cudnn-doctor/tidy (else ~/.cache/cudnn-doctor/tidy), outside
the clone, so a fresh clone on the same machine reuses it.

A unity build (DOCTOR_UNITY) compiles the files of a library in batches (Unity/unity_N_cxx.cxx);
clang-tidy then checks each batch as it is compiled, once, instead of each file on its own: the
same rules over the same code, with the headers the batch shares parsed and matched once.

Exit status: 0 every file clean; 1 diagnostics (printed); 2 usage or setup errors.
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys

TIDY = "clang-tidy-14"
# gcc-only warning flags in the compile commands are unknown to clang.
EXTRA = ["--quiet", "--extra-arg=-Wno-unknown-warning-option"]


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cudnn-doctor", "tidy")


def ninja_deps(build):
    """{object path (relative to `build`): [its dependencies]} from Ninja's dependency log."""
    out = subprocess.run(["ninja", "-C", build, "-t", "deps"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    deps, current = {}, None
    for line in out.splitlines():
        if not line.strip():
            current = None
        elif not line.startswith(" "):
            target, _, state = line.partition(": ")
            current = target if "(VALID)" in state else None
            if current:
                deps[current] = []
        elif current:
            deps[current].append(line.strip())
    return deps


class Hasher:
    """SHA-256 of files, with the clone's own path replaced by "<repo>": generated files (unity
    sources, precompiled-header stubs) name the clone, and a fresh clone elsewhere must hit."""

    def __init__(self, repo):
        self.memo = {}
        self.repo = repo.encode()

    def file(self, path):
        if path not in self.memo:
            h = hashlib.sha256()
            try:
                with open(path, "rb") as f:
                    h.update(f.read().replace(self.repo, b"<repo>"))
            except OSError:
                h.update(b"<missing>")
            self.memo[path] = h.hexdigest()
        return self.memo[path]


def unity_members(path):
    """The files a CMake unity source includes."""
    out = set()
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("#include"):
            name = line[len("#include"):].strip().strip('"<>')
            out.add(os.path.normpath(name))
    return out


def command_words(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    return shlex.split(entry["command"])


def key_of(entry, repo, hasher, salt, deps_by_object):
    """The cache key of one compile-commands entry, or None when its includes are unknown."""
    words = command_words(entry)
    directory = entry["directory"]
    obj = None
    kept = []
    skip = False
    for i, w in enumerate(words):
        if skip:
            skip = False
            continue
        if w == "-o" and i + 1 < len(words):
            obj = words[i + 1]
            skip = True
            continue
        # Paths inside the clone are hashed relative to it: a fresh clone elsewhere hits.
        kept.append(w.replace(repo, "<repo>"))
    deps = deps_by_object.get(obj) if obj else None
    if not deps:
        return None
    h = hashlib.sha256(salt)
    h.update("\0".join(kept[1:]).encode())
    for dep in deps:
        full = os.path.normpath(os.path.join(directory, dep))
        h.update(full.replace(repo, "<repo>").encode() + b"\0" + hasher.file(full).encode())
    return h.hexdigest()


def run_tidy(build, path):
    r = subprocess.run([TIDY, "-p", build] + EXTRA + [path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # clang-tidy prints "N warnings generated." for suppressed system-header warnings; keep only
    # real diagnostics.
    lines = [l for l in r.stdout.splitlines()
             if not l.endswith(("warnings generated.", "warning generated."))]
    return r.returncode, "\n".join(lines)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(args[0])
    jobs = os.cpu_count() or 2
    use_cache = "--no-cache" not in args
    if "--jobs" in args:
        jobs = int(args[args.index("--jobs") + 1])
    repo = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()
    db_path = os.path.join(build, "compile_commands.json")
    if not os.path.exists(db_path):
        print(f"tidy: {db_path} is missing; configure and build that directory first",
              file=sys.stderr)
        return 2
    db = {os.path.normpath(os.path.join(e["directory"], e["file"])): e
          for e in json.load(open(db_path))}
    files = subprocess.check_output(["git", "ls-files", "src/*.cpp"], cwd=repo, text=True).split()
    # Windows-only files need the Windows headers; the cross build compiles them instead.
    windows_only = ("src/doctor/platform/windows/", "src/cli/main_windows.cpp")
    files = [f for f in files if not f.startswith(windows_only)]
    version = subprocess.check_output([TIDY, "--version"], text=True)
    config = open(os.path.join(repo, ".clang-tidy"), "rb").read()
    salt = hashlib.sha256(version.encode() + b"\0" + config + b"\0" + " ".join(EXTRA).encode())
    salt = salt.digest()
    hasher = Hasher(repo)
    deps_by_object = ninja_deps(build)
    store = cache_dir()
    os.makedirs(store, exist_ok=True)
    # What to check: each listed file's own compile command, or the unity batch that includes it.
    wanted = {os.path.join(repo, f) for f in files}
    units, covered = [], set()
    for path, entry in sorted(db.items()):
        if path in wanted:
            units.append((path, entry))
            covered.add(path)
        elif "/Unity/unity_" in path:
            included = unity_members(path)
            if included & wanted:
                units.append((path, entry))
                covered |= included & wanted
    for f in sorted(wanted - covered):
        print(f"tidy: {os.path.relpath(f, repo)} is not in {db_path}", file=sys.stderr)
        return 2
    todo, cached = [], 0
    keys = {}
    for path, entry in units:
        key = key_of(entry, repo, hasher, salt, deps_by_object) if use_cache else None
        keys[path] = key
        if key and os.path.exists(os.path.join(store, key)):
            cached += 1
        else:
            todo.append(path)
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = {pool.submit(run_tidy, build, f): f for f in todo}
        for fut in concurrent.futures.as_completed(results):
            f = results[fut]
            code, out = fut.result()
            if code != 0 or out.strip():
                failed.append(f)
                print(out)
            elif keys[f]:
                open(os.path.join(store, keys[f]), "w").close()
    print(f"tidy: {len(files)} files in {len(units)} units, {cached} clean from the cache, "
          f"{len(todo)} checked, {len(failed)} with diagnostics")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
