#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`resolve` on a live Windows machine, under wine, in a prefix this test owns.

  test_resolve.py CUDNN_DOCTOR_EXE WORK_DIR [--keep]

WORK_DIR/prefix becomes a fresh WINEPREFIX. Into it go mingw-built DLLs named and versioned like
cuDNN's: cudnn64_8.dll 8.9.7 in C:\\windows\\system32, cudnn64_8.dll 8.9.4 in C:\\cudnn\\bin (on
PATH through WINEPATH), and C:\\app\\plugin.dll importing cudnn64_8.dll with its own copy (8.9.2)
beside it. `resolve cudnn64_8.dll` must answer the System32 copy, list the PATH copy as shadowed
and the searched paths in the Windows order (System32, System, Windows, PATH); without the
System32 copy it must answer the PATH copy. `--from C:\\app\\plugin.dll` (loaded with
LOAD_WITH_ALTERED_SEARCH_PATH) takes the copy beside the plugin, and `--tree` walks the plugin's
imports. Exits 125 (skip) without wine or mingw-w64.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "winloader"))
sys.path.insert(0, HERE)
import run_winloader  # noqa: E402  (WinTree: mingw DLLs with version resources)
from test_live_collectors import run_in_fresh_prefix  # noqa: E402  (a wine prefix of its own)

SYSTEM32_COPY = r"C:\windows\system32\cudnn64_8.dll"
CUDNN_BIN = r"C:\cudnn\bin"
PATH_COPY = CUDNN_BIN + r"\cudnn64_8.dll"
PLUGIN = r"C:\app\plugin.dll"
BESIDE_PLUGIN = r"C:\app\cudnn64_8.dll"

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def resolve(wine, exe, args, fmt="json"):
    p = wine.run([exe, "resolve", "--format", fmt] + args, {"WINEPATH": CUDNN_BIN}, check=False)
    if fmt != "json":
        return p.returncode, p.stdout
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        expect(False, f"resolve {args}: stdout is not JSON (exit {p.returncode}):\n"
                      f"{p.stdout[:3000]}\n{p.stderr[:3000]}")
        return p.returncode, None


def index_of(considered, via, path):
    for i, c in enumerate(considered):
        if c["via"] == via and c["path"].lower() == path.lower():
            return i
    return None


def check_system32_wins(wine, exe):
    rc, doc = resolve(wine, exe, ["cudnn64_8.dll"])
    if doc is None:
        return
    expect(rc == 0, f"resolve exit {rc}")
    r = doc["resolutions"][0]
    found = r["found"] or {}
    expect(found.get("path", "").lower() == SYSTEM32_COPY.lower()
           and found.get("via") == "System32", f"found {found}")
    expect("8.9.7.29" in found.get("about", ""), f"found about {found}")
    shadowed = [(s["path"].lower(), s["via"]) for s in r["shadowed"]]
    expect((PATH_COPY.lower(), "PATH") in shadowed, f"shadowed {shadowed}")
    steps = r["considered"]
    order = [index_of(steps, "System32", SYSTEM32_COPY),
             index_of(steps, "System", r"C:\windows\system\cudnn64_8.dll"),
             index_of(steps, "Windows", r"C:\windows\cudnn64_8.dll"),
             index_of(steps, "PATH", PATH_COPY)]
    expect(None not in order and order == sorted(order), f"order {order} in {steps}")
    expect(steps and steps[0]["via"] in ("KnownDLLs", "already loaded", "app dir"),
           f"first step {steps[:1]}")
    rc, text = resolve(wine, exe, ["cudnn64_8.dll"], "text")
    expect(("cudnn64_8.dll => " + SYSTEM32_COPY + " [System32]").lower() in text.lower(),
           f"text:\n{text}")
    expect("real file" not in text, f"a real file that differs only in case:\n{text}")
    expect("asked for by a program calling LoadLibraryW" in text, f"text:\n{text}")


def check_path_wins(wine, exe):
    rc, doc = resolve(wine, exe, ["cudnn64_8.dll"])
    if doc is None:
        return
    r = doc["resolutions"][0]
    found = r["found"] or {}
    expect(found.get("path", "").lower() == PATH_COPY.lower() and found.get("via") == "PATH",
           f"without the System32 copy: found {found}")
    expect(not r["shadowed"], f"without the System32 copy: shadowed {r['shadowed']}")
    sys32 = [c for c in r["considered"] if c["via"] == "System32"]
    expect(sys32 and sys32[0]["outcome"] == "absent", f"System32 step {sys32}")
    rc, doc = resolve(wine, exe, ["cudnn_missing64_8.dll"])
    if doc is not None:
        expect(rc == 1 and doc["resolutions"][0]["error"] == 126, f"missing: exit {rc}, {doc}")


def check_plugin(wine, exe):
    rc, doc = resolve(wine, exe, ["--from", PLUGIN, "cudnn64_8.dll"])
    if doc is not None:
        r = doc["resolutions"][0]
        found = r["found"] or {}
        expect(found.get("path", "").lower() == BESIDE_PLUGIN.lower()
               and found.get("via") == "DLL load dir", f"--from: found {found}")
        expect(r["requested_by"].lower() == PLUGIN.lower(), f"--from: requested_by {r}")
    rc, text = resolve(wine, exe, ["--tree", PLUGIN], "text")
    lines = text.splitlines()
    expect(lines and lines[0].lower() == (PLUGIN + " [PE 64-bit x64]").lower(), f"--tree:\n{text}")
    expect(any(l.lower().startswith("    cudnn64_8.dll => " + BESIDE_PLUGIN.lower()) for l in lines),
           f"--tree:\n{text}")
    expect(any(l.lower().startswith("    kernel32.dll => ") for l in lines), f"--tree:\n{text}")


def examine(wine, work, prefix, exe):
    tree = run_winloader.WinTree(os.path.join(work, "tree"))
    tree.drives["C:"] = os.path.join(prefix, "drive_c")
    tree.dll(SYSTEM32_COPY, version=run_winloader.cudnn_version("8.9.7.29"))
    tree.dll(PATH_COPY, version=run_winloader.cudnn_version("8.9.4.25"))
    tree.dll(BESIDE_PLUGIN, version=run_winloader.cudnn_version("8.9.2.26"))
    tree.dll(PLUGIN, imports=("cudnn64_8.dll", "KERNEL32.dll"))
    check_system32_wins(wine, exe)
    check_plugin(wine, exe)
    os.remove(tree.host(SYSTEM32_COPY))
    check_path_wins(wine, exe)


def main():
    return run_in_fresh_prefix(__doc__, failures, examine)


if __name__ == "__main__":
    sys.exit(main())
