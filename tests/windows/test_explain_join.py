#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""explain's machine join on a live Windows machine, under wine, in a prefix this test owns.

  test_explain_join.py CUDNN_DOCTOR_EXE WORK_DIR [--keep]

mingw-built DLLs named and versioned like cuDNN 8.9.4's Windows set go into C:\\cudnn\\bin (on PATH
through WINEPATH). `explain "Could not locate zlibwapi.dll. …" --format json` then runs three
times: with no zlibwapi.dll anywhere (the note names C:\\cudnn\\bin as the folder that lacks it),
with a 64-bit copy only in C:\\zlib on PATH (named, never called absent), and with the copy next
to cudnn64_8.dll (no folder lacks it). Exits 125 (skip) without wine or mingw-w64.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "winloader"))
import run_winloader  # noqa: E402  (WinTree: mingw DLLs with version resources)
from test_live_collectors import CUDNN_SET, run_in_fresh_prefix  # noqa: E402

CUDNN_BIN = r"C:\cudnn\bin"
ZLIB_DIR = r"C:\zlib"
LOG = "Could not locate zlibwapi.dll. Please make sure it is in your library path!"

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def notes_of(wine, exe, env, phase):
    """The first cause's machine notes (lower case) of `explain LOG` on the prefix."""
    p = wine.run([exe, "explain", LOG, "--format", "json"], env, check=False)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        expect(False, f"{phase}: stdout is not JSON (exit {p.returncode}):\n{p.stdout[:2000]}\n"
                      f"{p.stderr[:2000]}")
        return []
    expect(doc["machine"]["joined"] is True, f"{phase}: not joined: {doc['machine']}")
    causes = doc["causes"]
    expect(causes and causes[0]["id"] == "log.zlibwapi_missing", f"{phase}: causes {causes[:1]}")
    notes = [n["text"].lower() for n in causes[0]["machine"]] if causes else []
    print(f"{phase}:\n  " + "\n  ".join(notes))
    return notes


def has(notes, text):
    return any(text.lower() in n for n in notes)


def examine(wine, work, prefix, exe):
    tree = run_winloader.WinTree(os.path.join(work, "tree"))
    tree.drives["C:"] = os.path.join(prefix, "drive_c")
    for name in CUDNN_SET:
        tree.dll(CUDNN_BIN + "\\" + name, version=run_winloader.cudnn_version("8.9.4.25"))
    tree.text(r"C:\cudnn\include\cudnn_version.h",
              "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 4\n")
    env = {"WINEPATH": CUDNN_BIN + ";" + ZLIB_DIR}

    notes = notes_of(wine, exe, env, "no zlibwapi.dll")
    expect(has(notes, CUDNN_BIN + r" (cuDNN 8.9.4) lacks zlibwapi.dll: put a 64-bit zlibwapi.dll "
                      "into " + CUDNN_BIN + ", next to cudnn64_8.dll"),
           "no zlibwapi.dll: the cuDNN folder that lacks it is not named")

    tree.dll(ZLIB_DIR + r"\zlibwapi.dll")
    notes = notes_of(wine, exe, env, "a copy on PATH")
    expect(not has(notes, "no copy of") and not has(notes, "has to be installed"),
           "a copy on PATH: called absent")
    expect(has(notes, ZLIB_DIR + r"\zlibwapi.dll (a 64-bit x64 dll)"),
           "a copy on PATH: the copy is not named")
    expect(has(notes, "lacks zlibwapi.dll; the processes modelled here load "
                      + ZLIB_DIR + r"\zlibwapi.dll"),
           "a copy on PATH: not said that the modelled processes load it from there")

    os.remove(tree.host(ZLIB_DIR + r"\zlibwapi.dll"))
    tree.dll(CUDNN_BIN + r"\zlibwapi.dll")
    notes = notes_of(wine, exe, env, "a copy next to cuDNN")
    expect(not has(notes, "no copy of") and not has(notes, "lacks") and not has(notes, "not known"),
           "a copy next to cuDNN: called absent, lacking or not known")
    expect(has(notes, CUDNN_BIN + r" (cuDNN 8.9.4) has zlibwapi.dll next to cudnn64_8.dll"),
           "a copy next to cuDNN: not said")


def main():
    return run_in_fresh_prefix(__doc__, failures, examine)


if __name__ == "__main__":
    sys.exit(main())
