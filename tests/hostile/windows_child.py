#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The isolated NVML child of the Windows build, under wine, with a hostile nvml.dll (the stand-in
tests/support/fake_nvml.c built by mingw, the real C ABI of nvml.h) in System32 of a wine prefix
this test owns. The child must say how it was confined and that must be what it did: every
privilege but SeChangeNotifyPrivilege removed (read back from its token), a commit limit of its
own job (read back from the job), a process limit that keeps vendor code from starting programs,
no error dialog on a crash, and a DLL search narrowed to System32, so that an nvml.dll planted
next to cudnn-doctor.exe is never loaded.

Usage: windows_child.py CUDNN_DOCTOR_EXE WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
FAKE = os.path.join(SOURCE, "tests", "support", "fake_nvml.c")
END_OF_REPORT = "\n"  # probe::k_end_of_report
GIB = 1 << 30


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def make_prefix(work):
    """A wine prefix of this test's own (made once, reused by later runs)."""
    prefix = os.path.join(work, "wineprefix-child")
    env = dict(os.environ, WINEPREFIX=prefix, WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=")
    if not os.path.isdir(os.path.join(prefix, "drive_c", "windows", "system32")):
        subprocess.run(["wineboot", "-i"], env=env, check=True, timeout=300,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["wineserver", "-w"], env=env, timeout=300)
    return prefix, env


def build_dll(out):
    subprocess.run(["x86_64-w64-mingw32-gcc", "-O1", "-shared", "-o", out, FAKE], check=True)


def run_child(exe, env, mode, timeout=60, **extra):
    """`cudnn-doctor.exe __probe-nvml` as the doctor starts it; returns (exit code, report, secs).
    Its output goes to a file, not a pipe: a grandchild that holds the pipe cannot keep this test
    waiting (the doctor itself stops reading at the end of the answer)."""
    e = dict(env, FAKE_NVML_MODE=mode)
    e.update(extra)
    start = time.monotonic()
    with tempfile.TemporaryFile() as out:
        p = subprocess.run(["wine", exe, "__probe-nvml"], env=e, stdout=out,
                           stderr=subprocess.DEVNULL, timeout=timeout)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    took = time.monotonic() - start
    report = None
    if text.startswith("{") and END_OF_REPORT in text:
        report = json.loads(text[: text.index(END_OF_REPORT)])
    return p.returncode, report, took


def confined(report):
    """The child's account of its confinement, checked against what it must have done. Wine keeps
    no job limits (it stores none and enforces none): there the child must not claim them."""
    child = report.get("child")
    expect(isinstance(child, dict), f"no account of the confinement: {report}")
    expect(child["capabilities_dropped"] is True,
           f"the token keeps privileges: {child['notes']}")
    notes = " ".join(child["notes"])
    limit = child["address_space_limit"]
    if limit == 0:
        expect("no memory limit" in notes, f"no commit limit, and the notes do not say so: {notes}")
    else:
        expect(GIB <= limit < 2 * GIB, f"commit limit {limit}, wanted 1 GiB beyond the start")
    expect("commit limit" in notes and "integrity" in notes,
           f"the notes do not say what Windows confinement leaves out: {notes}")
    expect("System32" not in notes, f"the DLL search was not narrowed: {notes}")
    return child


def main():
    exe, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    prefix, env = make_prefix(work)
    system32 = os.path.join(prefix, "drive_c", "windows", "system32")
    dll = os.path.join(system32, "nvml.dll")
    failures = []

    def case(name, fn):
        try:
            fn()
            print(f"ok   {name}")
        except (Failure, subprocess.TimeoutExpired, json.JSONDecodeError, KeyError) as e:
            failures.append(name)
            print(f"FAIL {name}: {e}")

    build_dll(dll)

    def ok():
        code, report, _ = run_child(exe, env, "ok")
        expect(code == 0 and report is not None, f"exit {code}, report {report}")
        expect(report.get("driver_version") == "570.86.15", f"NVML not read: {report}")
        confined(report)

    def fork():
        scratch = tempfile.mkdtemp(prefix="doctor-child-", dir=work)
        pidfile = os.path.join(scratch, "grandchild.pid")
        code, report, took = run_child(exe, env, "fork", FAKE_NVML_PIDFILE=pidfile)
        subprocess.run(["wineserver", "-k"], env=env, timeout=60)  # the grandchild, if any
        expect(code == 0 and report is not None, f"exit {code}, report {report}")
        child = confined(report)
        if os.path.exists(pidfile):
            expect("may start processes" in " ".join(child["notes"]),
                   f"vendor code started a process and the notes claim a limit: {child['notes']}")
        expect(took < 30, f"the child took {took:.0f} s")
        shutil.rmtree(scratch, ignore_errors=True)

    def crash():
        code, report, took = run_child(exe, env, "crash")
        expect(report is None, f"a report from a crashed child: {report}")
        # No exit status is asserted: Windows gives the exception code (0xC0000005), wine's
        # crash handler whatever winedbg returns. The doctor judges the missing answer.
        expect(took < 30, f"the crash took {took:.0f} s: an error dialog or a debugger waited")

    def leak():
        code, report, _ = run_child(exe, env, "ok")
        expect(report is not None, f"exit {code}")
        if report["child"]["address_space_limit"] == 0:
            print("     (no commit limit here, as the child says: the leak is not run)")
            return
        code, report, _ = run_child(exe, env, "leak", timeout=120)
        expect(code == 0 and report is not None, f"exit {code}, report {report}")
        confined(report)
        # 999: malloc failed at the job's commit limit, before the stand-in held 3 GiB.
        expect(report.get("init") == 999, f"the leak was not stopped: {report}")

    def planted():
        # No nvml.dll in System32; one next to a copy of cudnn-doctor.exe, as in a Downloads folder.
        os.remove(dll)
        folder = tempfile.mkdtemp(prefix="doctor-planted-", dir=work)
        try:
            copy = os.path.join(folder, "cudnn-doctor.exe")
            shutil.copy(exe, copy)
            build_dll(os.path.join(folder, "nvml.dll"))
            code, report, _ = run_child(copy, env, "ok")
            expect(code == 0 and report is not None, f"exit {code}, report {report}")
            expect("driver_version" not in report and "library_error" in report,
                   f"the planted nvml.dll next to the program was loaded: {report}")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            build_dll(dll)

    case("ok: NVML read, privileges removed (read back), limits as claimed", ok)
    case("fork: a process starts only where the child says it may", fork)
    case("crash: ends at once, no dialog", crash)
    case("leak: stopped by the commit limit, where there is one", leak)
    case("planted: nvml.dll next to the program is not loaded", planted)
    if failures:
        print(f"{len(failures)} of 5 failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
