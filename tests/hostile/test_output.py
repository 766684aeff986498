#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Standard output that cannot take the report: a full device (`> /dev/full`), a closed
descriptor (`>&-`), a reader that went away (a broken pipe). Every command must say so on
standard error and exit 2, as `-o` on a full disk already did, never exit 0 with nothing written.
A broken pipe with SIGPIPE at its default ends the doctor by that signal, as it ends cat; with
SIGPIPE ignored by the parent the write error is reported like the others."""
import os
import signal
import subprocess
import tempfile

import hostile as x
from hostile import expect, expect_contains, test

import harness as h


def commands(root, log):
    """One quick invocation of every command, each of which prints something on success."""
    return [
        ["check", "--sysroot", root, "--no-nvml"],
        ["check", "--sysroot", root, "--no-nvml", "--format", "json"],
        ["snapshot", "--sysroot", root, "--no-nvml"],
        ["explain", "--no-machine", "Could not load library libcudnn_ops.so.9"],
        ["kb"],
        ["kb", "--format", "json"],
        ["resolve", "--sysroot", root, "libcudnn.so.9"],
        ["crashes", "--from", log],
        ["--help"],
        ["check", "--help"],
        ["--version"],
    ]


def run_with_stdout(args, stdout, preexec=None, timeout=60, env=None):
    """Runs the doctor with standard output `stdout` (an open file, a descriptor, or None for a
    closed one); returns (exit status or -signal, stderr)."""
    def before():
        if stdout is None:
            os.close(1)
        if preexec:
            preexec()

    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen([h.EXE] + args, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL if stdout is None else stdout, stderr=err,
                             preexec_fn=before, start_new_session=True,
                             env=dict(os.environ, **(env or {})))
        try:
            code = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise x.Failure(f"{args}: no answer within {timeout} s (a hang)")
        err.seek(0)
        return code, err.read().decode("utf-8", "replace")


def fixtures(d):
    root = os.path.join(d, "root")
    os.makedirs(root)
    log = x.write(os.path.join(d, "kern.log"),
                  "Dec  1 10:00:00 host kernel: [  100.0] NVRM: Xid (PCI:0000:01:00): 79, "
                  "pid=1234, name=python, GPU has fallen off the bus.\n")
    return root, log


@test
def full_stdout_is_an_error_for_every_command():
    with x.tree() as d:
        root, log = fixtures(d)
        for args in commands(root, log):
            with open("/dev/full", "w") as full:
                code, err = run_with_stdout(args, full)
            expect(code == 2, f"{args}: exit {code}, stderr {err!r}")
            expect_contains(err, "cudnn-doctor: error: standard output: ")
            # --version's few bytes fail inside CLI11's own flush; the rest name the errno.
            if args != ["--version"]:
                expect_contains(err, "No space left on device")


@test
def closed_stdout_is_an_error_for_every_command():
    with x.tree() as d:
        root, log = fixtures(d)
        for args in commands(root, log):
            code, err = run_with_stdout(args, None)
            expect(code == 2, f"{args}: exit {code}, stderr {err!r}")
            expect_contains(err, "cudnn-doctor: error: standard output: ")


@test
def broken_pipe_ends_by_sigpipe_or_is_reported_when_ignored():
    with x.tree() as d:
        root, log = fixtures(d)
        for args in (["kb"], ["snapshot", "--sysroot", root, "--no-nvml"]):
            r, w = os.pipe()
            os.close(r)  # the reader is gone before the first byte
            try:
                code, err = run_with_stdout(args, w)
                expect(code == -signal.SIGPIPE, f"{args}: exit {code}, stderr {err!r}")
                code, err = run_with_stdout(
                    args, w, preexec=lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN))
                expect(code == 2, f"{args} with SIGPIPE ignored: exit {code}, stderr {err!r}")
                expect_contains(err, "cudnn-doctor: error: standard output: Broken pipe")
            finally:
                os.close(w)


@test
def a_writable_stdout_still_gets_the_whole_report():
    with x.tree() as d:
        root, log = fixtures(d)
        r = x.run(["snapshot", "--sysroot", root, "--no-nvml"], timeout=60)
        expect(r.code == 0 and r.json()["collection"]["schema"] == "cudnn-doctor-snapshot/1", r)
        r = x.run(["kb"], timeout=30)
        expect(r.code == 0 and r.out.strip(), r)


if __name__ == "__main__":
    x.main()
