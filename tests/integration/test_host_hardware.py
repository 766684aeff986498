#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host's own hardware on the real machine: Linux EDAC's memory error counters (every command
reads them) and the disks' SMART health (`probe` and `snapshot --probe` ask smartctl, or say that
smartmontools is not installed), kept in the snapshot and judged again by `check --snapshot`."""
import json
import os
import tempfile

import harness as h
from harness import expect, expect_contains, run, test

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


if __name__ == "__main__":
    h.main(setup)
