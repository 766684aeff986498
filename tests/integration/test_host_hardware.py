#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host's own hardware on the real machine: Linux EDAC's memory error counters (every command
reads them), the disks' SMART health (`probe` and `snapshot --probe` ask smartctl, or say that
smartmontools is not installed) and the kernel's machine checks of this boot (or why they cannot
be counted), kept in the snapshot and judged again by `check --snapshot`; and the machine checks of
a real journal file in a --sysroot tree."""
import json
import os
import subprocess
import tempfile

import harness as h
from harness import expect, expect_contains, export_entry, journal_remote, run, test

SMARTCTL = [p for p in ("/usr/sbin/smartctl", "/sbin/smartctl", "/usr/local/sbin/smartctl",
                        "/usr/bin/smartctl", "/usr/local/bin/smartctl") if os.path.exists(p)]


def setup():
    return None if os.path.isdir("/sys") else "no /sys here"


@test
def every_snapshot_has_the_memory_error_counters_or_why_not():
    edac = run(["snapshot", "--no-nvml"]).json()["host_hardware"]["edac"]
    if os.path.isdir("/sys/devices/system/edac/mc"):
        expect("value" in edac, edac)
    else:
        expect_contains(edac["unknown"], "no EDAC driver is loaded")


@test
def the_probe_asks_smartctl_or_says_it_is_not_installed():
    doc = run(["probe", "--format", "json"]).json()
    ids = [f["id"] for f in doc["findings"]]
    snap = os.path.join(tempfile.mkdtemp(prefix="doctor-host-hw-"), "snapshot.json")
    r = run(["snapshot", "--probe", "-o", snap])
    expect(r.code == 0, r.err)
    with open(snap, encoding="utf-8") as f:
        disks = json.load(f)["host_hardware"]["disks"]
    if not SMARTCTL:
        expect("probe.disk_health_unknown" in ids, ids)
        expect_contains(disks["unknown"], "smartctl is not installed")
    else:
        expect("value" in disks or "unknown" in disks, disks)
    # The snapshot is judged anywhere as it was here.
    again = run(["check", "--snapshot", snap, "--format", "json"]).json()
    expect(("probe.disk_health_unknown" in [f["id"] for f in again["findings"]]) == (not SMARTCTL
           or "unknown" in disks), again["findings"])
    # Without --probe nobody asked: no finding about it.
    plain = run(["check", "--format", "json", "--no-nvml"]).json()
    expect("probe.disk_health_unknown" not in [f["id"] for f in plain["findings"]], plain["findings"])


@test
def the_probe_counts_this_boots_machine_checks_or_says_why_not():
    snap = os.path.join(tempfile.mkdtemp(prefix="doctor-host-hw-"), "snapshot.json")
    r = run(["snapshot", "--probe", "-o", snap])
    expect(r.code == 0, r.err)
    with open(snap, encoding="utf-8") as f:
        mce = json.load(f)["host_hardware"]["machine_checks"]
    if "value" in mce:
        expect(mce["source"].startswith(("journal:boot ", "file:/dev/kmsg")), mce)
        v = mce["value"]
        expect(v["events"] == v["corrected"] + v["uncorrected"] + v["unclassified"], v)
    else:
        expect_contains(mce["unknown"], "no kernel log of this boot could be read")
        expect_contains(mce["unknown"], "/dev/kmsg: ")
    # Without --probe nobody read the kernel log.
    plain = run(["snapshot", "--no-nvml"]).json()["host_hardware"]["machine_checks"]
    expect("unknown" in plain, plain)


# Real machine-check lines (tests/unit/data/crash/kernel/README.md): an uncorrected record of the
# boot-time poll (andikleen/mcelog #70) in the older boot, four corrected records of CPUs 1-3
# (home-assistant/operating-system #2989) in the newest.
MCE_OLD_BOOT = [
    (64261, "mce: [Hardware Error]: Machine check events logged"),
    (64265, "mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 4: a600000000020408"),
    (64270, "mce: [Hardware Error]: TSC 0 ADDR fef4c9e0 "),
]
MCE_NEW_BOOT = [
    (1000, "Linux version 6.1.63-haos (builder@buildkitsandbox)"),
    (9000000, "mce: [Hardware Error]: CPU 2: Machine Check: 0 Bank 6: cc59dec000041152"),
    (9000010, "mce: [Hardware Error]: TSC 0 ADDR 1422ff800 MISC 13020004086 "),
    (9000020, "mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 6: cc400b0000041136"),
    (9000030, "mce: [Hardware Error]: CPU 1: Machine Check: 0 Bank 6: cc400b4000041152"),
    (10000000, "mce: [Hardware Error]: CPU 3: Machine Check: 0 Bank 6: cc5bf2c000041136"),
]


def journal_tree(boots):
    """A --sysroot tree whose /var/log/journal holds `boots` [(boot id, [(monotonic usec, text)])]
    as a real journal file; None when systemd-journal-remote is absent."""
    tool = journal_remote()
    if tool is None:
        return None
    root = tempfile.mkdtemp(prefix="doctor-mce-")
    machine = "0123456789abcdef0123456789abcdef"
    jdir = os.path.join(root, "var", "log", "journal", machine)
    os.makedirs(jdir)
    stream = b""
    n = 0
    for b, (boot, lines) in enumerate(boots):
        for mono, text in lines:
            n += 1
            stream += export_entry({
                "__CURSOR": f"s=0;i={n}", "__REALTIME_TIMESTAMP": str(1702475000000000 + b * 10**9 + mono),
                "__MONOTONIC_TIMESTAMP": str(mono), "_BOOT_ID": boot, "_TRANSPORT": "kernel",
                "PRIORITY": "4", "SYSLOG_IDENTIFIER": "kernel", "MESSAGE": text,
                "_MACHINE_ID": machine, "_HOSTNAME": "homeassistant"})
    out = os.path.join(jdir, "system.journal")
    p = subprocess.run([tool, "--output=" + out, "-"], input=stream, capture_output=True)
    expect(p.returncode == 0 and os.path.exists(out), p.stderr.decode())
    return root


def journal_snapshot(boots):
    """`snapshot --probe` of a tree whose journal holds `boots` (journal_tree): (its path, its
    machine_checks fact), or None (with a note) when systemd-journal-remote is absent or this
    machine's libsystemd cannot read journal files."""
    root = journal_tree(boots)
    if root is None:
        print("  (systemd-journal-remote absent: skipped)")
        return None
    snap = root + "-snapshot.json"
    r = run(["snapshot", "--probe", "--sysroot", root, "-o", snap])
    expect(r.code == 0, r.err)
    with open(snap, encoding="utf-8") as f:
        mce = json.load(f)["host_hardware"]["machine_checks"]
    if "unknown" in mce and "libsystemd" in mce["unknown"]:
        print(f"  (skipped: {mce['unknown']})")
        return None
    return snap, mce


@test
def machine_checks_of_the_newest_boot_of_a_real_journal():
    old, new = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    found = journal_snapshot([(old, MCE_OLD_BOOT), (new, MCE_NEW_BOOT)])
    if found is None:
        return
    snap, mce = found
    expect("value" in mce, mce)
    v = mce["value"]
    expect(mce["source"] == f"dir:/var/log/journal boot {new}", mce["source"])
    # The uncorrected record of the older boot is not this boot's.
    expect((v["events"], v["corrected"], v["uncorrected"]) == (4, 4, 0), v)
    expect(v["cpus"] == [1, 2, 3] and v["banks"] == [6], v)
    expect(v["first"] == "2023-12-13T14:00:09Z (9.000000 s after boot)", v["first"])
    # Judged from the snapshot: a warning naming the CPUs, with the log lines as evidence.
    doc = run(["check", "--snapshot", snap, "--format", "json"]).json()
    f = h.only_finding(doc, "hardware.machine_check_errors")
    expect(f["severity"] == "warning", f)
    expect_contains(f["message"], "4 machine-check event(s) in this boot (4 corrected")
    expect_contains(f["message"], "CPUs 1, 2, 3; bank 6")
    expect(any("cc59dec000041152" in e["value"] for e in f["evidence"]), f["evidence"])


@test
def an_uncorrected_machine_check_of_the_newest_boot_is_critical():
    found = journal_snapshot([("cccccccccccccccccccccccccccccccc", MCE_OLD_BOOT)])
    if found is None:
        return
    snap, mce = found
    expect(mce["value"]["at_boot"] == 1, mce)
    doc = run(["check", "--snapshot", snap, "--format", "json"]).json()
    f = h.only_finding(doc, "hardware.machine_check_errors")
    expect(f["severity"] == "critical", f)
    expect_contains(f["message"], "1 logged as the kernel started")


if __name__ == "__main__":
    h.main(setup)
