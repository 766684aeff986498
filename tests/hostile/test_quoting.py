#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Folder names that are shell code. A fix command the doctor prints is meant to be pasted into a
shell, so every path or value in it is quoted for that shell; a value no quoting makes safe there
means no command, and the fix's text says why. Each case runs the printed command the way a
reader would (sh -c in a scratch folder) and checks that the attack's marker file never appears."""
import os
import subprocess
import sys

import hostile as x
from hostile import expect, expect_contains, test

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import scenario_lib  # noqa: E402

ATTACK = ";touch PWNED;#"
EXPLAIN_LOG = os.path.join("tests", "golden", "scenarios", "explain_cudnn_not_searched",
                           "transcribe.log")


def paste(command):
    """Runs `command` as a reader pasting it would, in a scratch folder with the PATH of this
    machine; returns whether the marker file appeared. `sh -n` must accept it first: a command
    that does not even parse is no fix."""
    r = subprocess.run(["sh", "-n", "-c", command], capture_output=True, text=True)
    expect(r.returncode == 0, f"sh -n rejects the printed command {command!r}: {r.stderr}")
    with x.tree("doctor-paste-") as cwd:
        subprocess.run(["sh", "-c", command], cwd=cwd, capture_output=True, timeout=30)
        return os.path.exists(os.path.join(cwd, "PWNED"))


def printed_commands(text):
    """The commands of a text report: the lines that start with '$ ' once indented."""
    return [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("$ ")]


def new_tree(root):
    # scenario_lib caches built ELF files inside the first tree it made; each case has its own.
    scenario_lib._ELF_CACHE.clear()
    return scenario_lib.Tree(root)


def toolkit_with_cudnn_outside_the_search(root, toolkit):
    """The explain_cudnn_not_searched machine, with the toolkit folder named `toolkit`."""
    t = new_tree(root)
    t.ubuntu_base(kernel="6.5.0-41-generic")
    t.working_nvidia("535.183.01", gpus=(("0000:01:00.0", 0x2504, 0x3897),))
    t.cuda_toolkit(toolkit, "12.2.2", "12.2.140")
    lib = f"{toolkit}/targets/x86_64-linux/lib"
    t.cudnn_versioned(lib, "8.9.7", t.CUDNN8_STEMS)
    t.cudnn_header(f"{toolkit}/targets/x86_64-linux/include/cudnn_version.h", "8.9.7")
    t.ldconfig()
    return lib


@test
def explain_quotes_a_toolkit_folder_that_is_shell_code():
    toolkit = "/usr/local/cuda-12.2" + ATTACK
    with x.tree() as root:
        lib = toolkit_with_cudnn_outside_the_search(root, toolkit)
        log = os.path.join(x.h.SOURCE, EXPLAIN_LOG)
        r = x.run(["explain", log, "--sysroot", root, "--format", "json"], timeout=60, rss_mb=400)
        x.expect_no_internal_error(r)
        commands = [n["command"] for c in r.json()["causes"] for n in c["machine"] if n["command"]]
        expect(commands, f"no command offered for the copy in {lib}: {r.out[:3000]}")
        expect_contains(commands[0], f"export LD_LIBRARY_PATH='{lib}'")
        for command in commands:
            expect(not paste(command), f"pasting {command!r} ran the folder name")
        text = x.run(["explain", log, "--sysroot", root, "--color", "never"], timeout=60)
        shown = printed_commands(text.out)
        expect(all(c in shown for c in commands), f"text shows {shown}, JSON {commands}")


@test
def explain_offers_no_command_for_a_folder_with_a_newline():
    toolkit = "/usr/local/cuda-12.2\ntouch PWNED"
    with x.tree() as root:
        toolkit_with_cudnn_outside_the_search(root, toolkit)
        log = os.path.join(x.h.SOURCE, EXPLAIN_LOG)
        r = x.run(["explain", log, "--sysroot", root, "--format", "json"], timeout=60)
        x.expect_no_internal_error(r)
        notes = [n for c in r.json()["causes"] for n in c["machine"]
                 if "not search" in n["text"]]
        expect(notes, f"no note about the copy outside the search: {r.out[:3000]}")
        expect(all(n["command"] == "" for n in notes), f"a command was offered: {notes}")
        expect_contains(notes[0]["text"], "no command is offered")
        expect_contains(notes[0]["text"], "U+000A")


@test
def check_verify_quotes_a_venv_folder_that_is_shell_code():
    venv = "/home/user/v" + ATTACK
    with x.tree() as root, x.tree("doctor-cache-") as cache:
        t = new_tree(root)
        t.ubuntu_base()
        t.ubuntu_python("3.10")
        site = t.venv(venv)
        lib = t.cudnn_wheel(site)
        # Damage one library after its RECORD was written: --verify reports it, with the command
        # that reinstalls the wheel through the environment's own interpreter.
        with open(t.path(f"{lib}/libcudnn_graph.so.9"), "ab") as f:
            f.write(b"damage")
        r = x.run(["check", "--verify", "--no-nvml", "--sysroot", root, "--env",
                   f"VIRTUAL_ENV={venv}", "--format", "json"],
                  timeout=120, rss_mb=500, env={"XDG_CACHE_HOME": cache})
        x.expect_no_internal_error(r)
        mism = [f for f in r.json()["findings"] if f["id"] == "integrity.hash_mismatch"]
        expect(mism, f"no hash mismatch reported: {r.out[:3000]}")
        commands = [fx["command"] for f in mism for fx in f["fixes"] if fx["command"]]
        expect(commands, f"no reinstall command: {mism}")
        expect_contains(commands[0], f"'{venv}/bin/python' -m pip install --force-reinstall")
        for command in commands:
            expect(not paste(command), f"pasting {command!r} ran the folder name")


if __name__ == "__main__":
    x.main()
