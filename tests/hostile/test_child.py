#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile libnvidia-ml.so.1 first on LD_LIBRARY_PATH (tests/support/fake_nvml.c, the modes
named below). The isolated child that loads it must contain what it does: kill(0, …) reaches only
the child's own session, a grandchild it forks neither holds the doctor nor outlives it, it cannot
write where only root may, a leak ends at the child's address-space limit, and every absurd value
it returns is rejected as out of range, never printed. Each case asserts the exit status, a
complete report, the NVML facts or finding with its evidence."""
import os
import signal
import subprocess
import tempfile
import time

import hostile as x
from hostile import expect, expect_contains, test

LIBDIR = None


def probe():
    global LIBDIR
    LIBDIR = tempfile.mkdtemp(prefix="doctor-hostile-nvml-")
    os.chmod(LIBDIR, 0o755)  # the child may run as nobody: it must still load the library
    try:
        lib = x.build_c_library("tests/support/fake_nvml.c", "libnvidia-ml.so.1", LIBDIR)
    except x.Failure as e:
        return str(e)
    os.chmod(lib, 0o755)
    return None


def env(mode, **extra):
    e = {"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": mode}
    e.update(extra)
    return e


def check(mode, *args, timeout=60, **extra):
    """`check --format json` with the stand-in in `mode`: a complete, schema-valid report."""
    # --nvml always: the stand-in answers although this machine has no NVIDIA driver.
    r = x.run(["check", "--format", "json", "--nvml", "always", *args], timeout=timeout,
              env=env(mode, **extra))
    x.expect_no_internal_error(r)
    expect(r.code in (0, 1), f"exit {r.code}: {r!r}")
    doc = r.json()
    x.h.validate(doc, "report.schema.json")
    expect("inventory" in doc and "findings" in doc, f"an incomplete report: {r!r}")
    return doc


def nvml_facts(mode, timeout=60, **extra):
    """The NVML facts of a `snapshot` with the stand-in in `mode`."""
    r = x.run(["snapshot", "--nvml", "always"], timeout=timeout, env=env(mode, **extra))
    expect(r.code == 0, f"snapshot exit {r.code}: {r!r}")
    return r.json()["driver"]["nvml"]


def probe_failed_finding(doc):
    found = [f for f in doc["findings"] if f["id"] == "driver.nvml_probe_failed"]
    expect(len(found) == 1, [f["id"] for f in doc["findings"]])
    return found[0]


def expect_gone(pid):
    """`pid` is neither running nor a zombie: the doctor killed and reaped it."""
    expect(not os.path.exists(f"/proc/{pid}"),
           f"process {pid} outlived the doctor: {open(f'/proc/{pid}/stat').read()}"
           if os.path.exists(f"/proc/{pid}") else "")


@test
def kill_of_its_process_group_ends_only_the_child():
    doc = check("killpg")
    nvml = doc["inventory"]["driver"]["nvml"]
    expect(nvml["status"] == "probe_failed", nvml)
    expect_contains(nvml["detail"], "crashed (signal or exception 0xf)")  # SIGTERM, the child's
    f = probe_failed_finding(doc)
    expect(any(e["source"] == "probe:nvml" and "0xf" in e["value"] for e in f["evidence"]),
           f["evidence"])


@test
def a_grandchild_holding_the_pipe_neither_holds_the_doctor_nor_outlives_it():
    with x.tree() as d:
        os.chmod(d, 0o1777)  # the child runs as nobody where it can: let it write the pid there
        pidfile = os.path.join(d, "grandchild.pid")
        # The probe may take 120 s, the run only 60: waiting for the pipe's EOF would be a hang.
        doc = check("fork", "--probe-timeout", "120", timeout=60, FAKE_NVML_PIDFILE=pidfile)
        pid = int(open(pidfile).read())
    nvml = doc["inventory"]["driver"]["nvml"]
    expect(nvml["status"] == "ok", nvml)
    expect(nvml["driver_version"] == "570.86.15", nvml)
    expect_gone(pid)


def wait_for(predicate, seconds):
    """Polls `predicate` until it holds or `seconds` pass (a bound, not a timing)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def running(pid):
    """True while `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@test
def the_child_dies_with_the_doctor():
    with x.tree() as d:
        os.chmod(d, 0o1777)
        pidfile = os.path.join(d, "child.pid")
        e = dict(os.environ, **env("hang", FAKE_NVML_PIDFILE=pidfile))
        doctor = subprocess.Popen([x.h.EXE, "check", "--nvml", "always", "--probe-timeout", "120"],
                                  env=e,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        child = None
        try:
            expect(wait_for(lambda: open(pidfile).read().endswith("\n")
                            if os.path.exists(pidfile) else False, 60),
                   "the probe child never reached nvmlInit_v2")
            child = int(open(pidfile).read())
            expect(running(child), f"child {child} is not running")
            os.kill(doctor.pid, signal.SIGKILL)  # the doctor alone, as an OOM killer would
            doctor.wait()
            expect(wait_for(lambda: not running(child), 30),
                   f"the probe child {child} outlived the doctor (killed with SIGKILL)")
        finally:
            if doctor.poll() is None:
                doctor.kill()
                doctor.wait()
            if child and running(child):
                os.kill(child, signal.SIGKILL)


@test
def nvml_cannot_write_where_only_root_may():
    if os.geteuid() != 0:
        raise x.h.Failure("this case needs root (CI runs as root)")
    with x.tree() as d:
        guarded = os.path.join(d, "root-only")
        os.mkdir(guarded, 0o755)
        target = os.path.join(guarded, "written-by-nvml")
        nvml = nvml_facts("write", FAKE_NVML_WRITE=target)
        expect(nvml["status"] == "ok", nvml)
        child = nvml["child"]["value"]
        expect(child["capabilities_dropped"] and child["no_new_privs"], child)
        if child["uid"] == 0:
            # Only where a /dev/nvidia* node is open to root alone; the facts must say so.
            expect(any("kept user root" in n for n in child["notes"]), child)
        else:
            expect(child["uid"] == x.NOBODY, child)
            expect(not os.path.exists(target), f"the child wrote {target}: {child}")


@test
def a_leak_ends_at_the_address_space_limit():
    # Under AddressSanitizer a failed allocation aborts unless it may return NULL, as glibc's does.
    asan = os.environ.get("ASAN_OPTIONS", "")
    extra = {"ASAN_OPTIONS": f"{asan}:allocator_may_return_null=1"} if x.SANITIZED else {}
    nvml = nvml_facts("leak", timeout=120, **extra)
    # The stand-in returns 999 when malloc fails, success only after holding 3 GiB unhindered.
    expect(nvml["status"] == "init_failed", nvml)
    expect(nvml["detail"].startswith("nvmlInit_v2 returned 999"), nvml)
    limit = nvml["child"]["value"]["address_space_limit"]
    expect(0 < limit, nvml["child"])
    r = x.run(["check", "--format", "json", "--nvml", "always"], timeout=120, rss_mb=1600,
              env=env("leak", **extra))
    expect(r.code in (0, 1), f"exit {r.code}: {r!r}")
    expect(r.json()["inventory"]["driver"]["nvml"]["status"] == "init_failed", r.out[:2000])


@test
def nonsense_values_are_rejected_as_out_of_range():
    nvml = nvml_facts("nonsense")
    expect(nvml["status"] == "ok", nvml)
    for key in ("nvml_version", "driver_version", "cuda_driver_version"):
        expect("value" not in nvml[key], (key, nvml[key]))
        expect_contains(nvml[key]["unknown"], "out of range")
    expect_contains(nvml["driver_version"]["unknown"], "without a terminating NUL")
    expect_contains(nvml["nvml_version"]["unknown"], "not printable ASCII")
    expect_contains(nvml["cuda_driver_version"]["unknown"], "-2147483648, not in 1000..99990")
    devices = nvml["devices"]["value"]
    expect(len(devices) == 1, devices)
    for key in ("name", "uuid", "pci_bus_id", "compute_capability", "memory_total", "memory_free"):
        expect("value" not in devices[0][key], (key, devices[0][key]))
        expect_contains(devices[0][key]["unknown"], "out of range")
    expect_contains(devices[0]["uuid"]["unknown"], "it is empty")
    expect_contains(devices[0]["memory_total"]["unknown"], "18446744073709551615 bytes")

    r = x.run(["check", "--nvml", "always"], timeout=60, env=env("nonsense"))
    x.expect_no_internal_error(r)
    for printed in ("-2147483", "16777216", "18446744073709551615", "\x1b[31m"):
        expect(printed not in r.out, f"{printed!r} printed: {r.out}")
    doc = check("nonsense")
    expect(doc["inventory"]["driver"]["nvml"]["cuda_driver_version"] is None, doc["inventory"])


if __name__ == "__main__":
    x.main(probe)
