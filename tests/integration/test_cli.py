#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CLI behaviour: help, version, usage errors and their exit status, output formats, colour,
JSON-only stdout, bad snapshot and --kb-dir input."""
import json
import os
import tempfile

import harness as h
from harness import expect, expect_contains, expect_exit, run, test


def empty_root():
    d = tempfile.mkdtemp(prefix="doctor-cli-")
    return d


@test
def help_lists_commands_and_exit_statuses():
    r = run(["--help"])
    expect_exit(r, 0)
    for needle in ("check", "snapshot", "Exit status", "--fail-on"[:0]):
        expect_contains(r.out, needle)
    r = run(["check", "--help"])
    expect_exit(r, 0)
    for needle in ("--sysroot", "--env", "--snapshot", "--format", "--color", "--fail-on", "--kb-dir", "--no-nvml"):
        expect_contains(r.out, needle)


@test
def version_prints_name_and_version():
    r = run(["--version"])
    expect_exit(r, 0)
    expect(r.out.startswith("cudnn-doctor "), r.out)


@test
def usage_errors_exit_2_with_a_message():
    for args in (["--no-such-option"], ["check", "--format", "yaml"], ["check", "--fail-on", "fatal"],
                 ["check", "--sysroot", "/nonexistent/root"], ["check", "--env", "NOEQUALS", "--sysroot", "/"],
                 ["frobnicate-no-such-command-x", "--bad"]):
        r = run(args)
        expect_exit(r, 2)
        expect(r.err.strip() != "", f"{args}: no message on stderr")


@test
def json_output_is_only_json_and_matches_the_schema():
    root = empty_root()
    r = run(["check", "--sysroot", root, "--format", "json"])
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    doc = r.json()
    h.validate(doc, "report.schema.json")
    expect(doc["target"]["kind"] == "sysroot", doc["target"])
    # An empty tree: no PCI bus to look at, so GPU presence is unknown, never "absent".
    ids = [f["id"] for f in doc["findings"]]
    expect("gpu.presence_unknown" in ids and "gpu.not_found" not in ids, ids)


@test
def color_follows_flag_and_no_color():
    root = empty_root()
    r = run(["check", "--sysroot", root, "--color", "always"])
    expect_contains(r.out, "\x1b[")
    r = run(["check", "--sysroot", root, "--color", "never"])
    expect("\x1b[" not in r.out, "escape codes with --color never")
    # auto: not a terminal here, so no colour, whatever NO_COLOR says
    r = run(["check", "--sysroot", root], env={"NO_COLOR": "1"})
    expect("\x1b[" not in r.out, "escape codes with NO_COLOR")


@test
def markdown_output():
    r = run(["check", "--sysroot", empty_root(), "--format", "markdown"])
    expect_contains(r.out, "### Inventory")
    expect_contains(r.out, "### Findings")


@test
def fail_on_sets_the_exit_status():
    root = empty_root()  # yields a warning (gpu.presence_unknown), nothing worse
    expect_exit(run(["check", "--sysroot", root]), 0)
    expect_exit(run(["check", "--sysroot", root, "--fail-on", "warning"]), 1)
    expect_exit(run(["check", "--sysroot", root, "--fail-on", "critical"]), 0)


@test
def output_file_option_writes_the_report():
    out = os.path.join(empty_root(), "report.json")
    r = run(["check", "--sysroot", empty_root(), "--format", "json", "-o", out])
    expect(r.out == "", "stdout not empty with -o")
    json.load(open(out))


@test
def bad_snapshots_are_usage_errors_with_clear_messages():
    d = empty_root()
    cases = {
        "junk.json": ("\x00\x01garbage", "not JSON"),
        "other.json": ('{"collection": {"schema": "cudnn-doctor-snapshot/42"}}', "not supported"),
        "array.json": ("[1,2]", "not a cudnn-doctor snapshot"),
        "types.json": ('{"collection": {"schema": "cudnn-doctor-snapshot/1"}, "cudnn": 5}', "malformed snapshot"),
    }
    for name, (content, message) in cases.items():
        p = os.path.join(d, name)
        open(p, "w").write(content)
        r = run(["check", "--snapshot", p])
        expect_exit(r, 2)
        expect_contains(r.err, message)
    r = run(["check", "--snapshot", os.path.join(d, "missing.json")])
    expect_exit(r, 2)
    r = run(["check", "--snapshot", "-"], stdin='{"collection": {"schema": "cudnn-doctor-snapshot/1"}}')
    expect(r.code in (0, 1), f"stdin snapshot: {r.code} {r.err}")
    r = run(["check", "--snapshot", os.path.join(d, "junk.json"), "--sysroot", d])
    expect_exit(r, 2)


@test
def kb_dir_overrides_and_bad_kb_is_rejected():
    d = empty_root()
    kb = json.load(open(os.path.join(h.SOURCE, "data", "kb", "findings.json")))
    for row in kb["findings"]:
        if row["id"] == "gpu.presence_unknown":
            row["title"] = "Overridden title"
    json.dump(kb, open(os.path.join(d, "findings.json"), "w"))
    r = run(["check", "--sysroot", empty_root(), "--kb-dir", d])
    expect_contains(r.out, "Overridden title")
    open(os.path.join(d, "findings.json"), "w").write('{"spec": "cudnn-doctor-kb/1", "kind": "findings", "findings": [{"id": "x"}]}')
    r = run(["check", "--sysroot", empty_root(), "--kb-dir", d])
    expect_exit(r, 2)
    expect_contains(r.err, "findings.json")


@test
def sysroot_environment_starts_empty_and_env_fills_it():
    root = empty_root()
    r = run(["snapshot", "--sysroot", root], env={"CUDA_HOME": "/from/the/doctor"})
    expect_exit(r, 0)
    snap = json.loads(r.out)
    expect("CUDA_HOME" not in snap["environment"], snap["environment"])
    r = run(["snapshot", "--sysroot", root, "--env", "CUDA_HOME=/opt/cuda", "--env", "PATH=/usr/bin"])
    snap = json.loads(r.out)
    expect(snap["environment"].get("CUDA_HOME") == "/opt/cuda", snap["environment"])
    expect(snap["collection"]["live"] is False, snap["collection"])


def listed_commands():
    """The subcommands `cudnn-doctor --help` lists: the rows of the command table."""
    r = run(["--help"])
    expect_exit(r, 0)
    lines = r.out.split("Subcommands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [line.split()[0] for line in lines if line.strip()]


# For each command, arguments its own run function answers in a way no other command does, and
# how to tell. A new row of the command table needs an entry here.
def dispatch_probes(root):
    return {
        "check": (["--sysroot", root, "--format", "json"],
                  lambda r: r.code in (0, 1) and r.json()["schema"] == "cudnn-doctor-report/1"),
        "snapshot": (["--sysroot", root],
                     lambda r: r.code == 0 and r.json()["collection"]["schema"] == "cudnn-doctor-snapshot/1"),
        "resolve": ([], lambda r: r.code == 2 and "resolve needs a library NAME" in r.err),
        "probe": (["--lib", "nvml=/x"],
                  lambda r: r.code == 2 and "no probe of that name loads a library" in r.err),
        "stress": (["--lib", "cudnn=/x"],
                   lambda r: r.code == 2 and "stress loads only the driver API" in r.err),
        "kb": (["--format", "json"], lambda r: r.code == 0 and "distinct_sources" in r.json()),
        "explain": ([], lambda r: r.code == 2 and "explain needs a log file" in r.err),
        "crashes": (["--from", os.path.join(root, "missing.log")],
                    lambda r: r.code == 2 and "no input could be read as crash evidence" in r.err),
    }


@test
def every_command_of_the_table_parses_and_runs_its_own_function():
    root = empty_root()
    probes = dispatch_probes(root)
    names = listed_commands()
    expect(sorted(names) == sorted(probes), f"--help lists {names}; probes cover {sorted(probes)}")
    for name in names:
        r = run([name, "--help"])
        expect_exit(r, 0)
        expect_contains(r.out, f"Usage: cudnn-doctor {name} [OPTIONS]")
        args, answered = probes[name]
        r = run([name] + args)
        expect(answered(r), f"{name} {args}: not answered by {name}'s run function: exit {r.code}\n"
                            f"stdout:\n{r.out[:2000]}\nstderr:\n{r.err[:2000]}")


@test
def a_first_word_that_names_no_command_is_an_argument_of_check():
    for args in (["frobnicate"], ["frobnicate", "--format", "json"], ["help-me"]):
        default, check = run(args), run(["check"] + args)
        expect_exit(default, 2)
        expect((default.out, default.err) == (check.out, check.err), f"{args}: {default.err!r} vs {check.err!r}")
    expect_contains(run(["frobnicate"]).err, "The following argument was not expected: frobnicate")
    # Only options: `check` with them.
    root = empty_root()
    default, check = run(["--sysroot", root, "--format", "json"]), run(["check", "--sysroot", root, "--format", "json"])
    expect(default.code == check.code and default.out == check.out, f"{default.code} {check.code}")
    expect(default.json()["command"] == "check", default.out[:200])


if __name__ == "__main__":
    h.main()


@test
def plain_resolve_lines_read_as_cli11_reads_them():
    """`resolve [--tree] [--no-nvml] NAME` is read without CLI11 (run.cpp); "--" before NAME
    sends the same line through CLI11. Both must give the same output and exit status."""
    lib = os.path.realpath("/bin/sh")  # an ELF program on every Linux machine
    lines = [["resolve", "--tree", lib], ["resolve", "--no-nvml", "--tree", lib],
             ["resolve", "libc.so.6"], ["resolve", "--tree", "/nonexistent/libx.so"],
             ["resolve", "libnot-there.so.1", "--no-nvml"]]
    for args in lines:
        plain = run(args)
        through_cli11 = run(args[:-1] + ["--", args[-1]] if not args[-1].startswith("-") else args)
        expect((plain.code, plain.out, plain.err) == (through_cli11.code, through_cli11.out,
                                                      through_cli11.err),
               f"{args}: {plain.code} {plain.err!r} vs {through_cli11.code} {through_cli11.err!r}")
    # Not plain, so read by CLI11: a repeated flag (which CLI11 takes), a NAME that names a command
    # (which CLI11 takes as the NAME).
    once = run(["resolve", "--tree", lib])
    twice = run(["resolve", "--tree", "--tree", lib])
    expect((twice.code, twice.out) == (once.code, once.out), (twice.code, twice.err))
    named = run(["resolve", "--tree", "check"])
    expect(named.code == 2 and "--tree check: not an ELF file" in named.err, (named.code, named.err))
