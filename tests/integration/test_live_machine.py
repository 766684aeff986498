#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The real CLI on this machine, which carries the CUDA 13.0 toolkit with cuDNN 9.19 under
/usr/local/cuda and Debian's NVML, and has no GPU. Skips where that toolkit is absent."""
import json
import os
import tempfile

import harness as h
from harness import expect, expect_contains, expect_exit, run, test

TOOLKIT = "/usr/local/cuda-13.0"


def probe():
    if not os.path.isfile(os.path.join(TOOLKIT, "include", "cudnn_version.h")):
        return f"{TOOLKIT} with cuDNN is not installed here"
    return None


def nvidia_on_pci():
    base = "/sys/bus/pci/devices"
    for d in os.listdir(base) if os.path.isdir(base) else []:
        try:
            vendor = open(os.path.join(base, d, "vendor")).read().strip()
            klass = open(os.path.join(base, d, "class")).read().strip()
        except OSError:
            continue
        if vendor == "0x10de" and klass.startswith("0x03"):
            return True
    return False


def live_json(*extra):
    r = run(["check", "--format", "json"] + list(extra))
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    return r.json()


@test
def reports_the_toolkit_and_cudnn_exactly():
    doc = live_json()
    h.validate(doc, "report.schema.json")
    inv = doc["inventory"]
    toolkits = {t["path"]: t for t in inv["cuda_toolkits"]}
    expect(TOOLKIT in toolkits, f"{TOOLKIT} not among {list(toolkits)}")
    expect(toolkits[TOOLKIT]["version"] == "13.0", toolkits[TOOLKIT])
    expect("/usr/local/cuda" in toolkits[TOOLKIT]["aliases"], toolkits[TOOLKIT])
    copies = [c for c in inv["cudnn"] if c["dir"].startswith(TOOLKIT)]
    expect(len(copies) == 1, inv["cudnn"])
    c = copies[0]
    expect(c["version"] == "9.19.0", c)
    expect(sorted(c["libraries"]) == sorted([
        "libcudnn.so.9", "libcudnn_adv.so.9", "libcudnn_cnn.so.9", "libcudnn_engines_precompiled.so.9",
        "libcudnn_engines_runtime_compiled.so.9", "libcudnn_graph.so.9", "libcudnn_heuristic.so.9",
        "libcudnn_ops.so.9"]), c["libraries"])
    ids = [f["id"] for f in doc["findings"]]
    expect("cudnn.library_set_incomplete" not in ids, ids)


@test
def reports_the_missing_gpu_and_driver_with_reasons():
    if nvidia_on_pci():
        print("  (an NVIDIA GPU is on this machine's bus; nothing to assert about its absence)")
        return
    doc = live_json()
    gpu = [f for f in doc["findings"] if f["id"] == "gpu.not_found"]
    expect(len(gpu) == 1, [f["id"] for f in doc["findings"]])
    expect(gpu[0]["severity"] == "error", gpu[0])
    drv = doc["inventory"]["driver"]
    if drv["kernel_module"] is None:
        expect_contains(drv["reason"], "/proc/driver/nvidia/version")
    if no_driver_to_ask():
        # NVML could only say "driver not loaded": the child is not started, and the facts say why.
        nvml = drv["nvml"]
        expect(nvml["status"] == "not_attempted", nvml)
        expect_contains(nvml["detail"], "no NVIDIA kernel driver is loaded")
        expect_contains(gpu[0]["message"], "NVML was not queried")


def no_driver_to_ask():
    """What the doctor tests before it starts the NVML child, read here independently."""
    if any(os.path.exists(p) for p in ("/proc/driver/nvidia", "/sys/module/nvidia", "/dev/dxg")):
        return False
    try:
        with open("/proc/devices") as f:
            chars = f.read().split("Block devices")[0].splitlines()
    except OSError:
        return False
    return not any(len(l.split()) == 2 and l.split()[1].startswith("nvidia") for l in chars)


def has_debian_nvml():
    return any(os.path.exists(os.path.join(d, "libnvidia-ml.so.1"))
               for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu"))


@test
def the_real_nvml_asked_without_a_driver_says_so():
    if not no_driver_to_ask() or not has_debian_nvml():
        print("  (needs Debian's libnvidia-ml.so.1 and no NVIDIA driver loaded)")
        return
    nvml = live_json("--nvml", "always")["inventory"]["driver"]["nvml"]
    # The real NVML without a driver: nvmlInit_v2 returns 9, NVML_ERROR_DRIVER_NOT_LOADED, which
    # is why the default does not ask.
    expect(nvml["status"] == "init_failed", nvml)
    expect_contains(nvml["detail"], "returned 9")
    expect(nvml["library"] is not None, nvml)


@test
def nvml_probe_creates_no_device_node():
    if os.path.exists("/dev/nvidiactl") or os.geteuid() != 0:
        print("  (needs root and no /dev/nvidiactl beforehand)")
        return
    live_json("--nvml", "always")
    expect(not os.path.exists("/dev/nvidiactl"), "the NVML probe created /dev/nvidiactl")


@test
def snapshot_then_check_gives_the_live_findings():
    d = tempfile.mkdtemp(prefix="doctor-live-")
    snap = os.path.join(d, "snap.json")
    expect_exit(run(["snapshot", "-o", snap]), 0)
    live = live_json()
    r = run(["check", "--snapshot", snap, "--format", "json"])
    expect(r.code in (0, 1), r.err)
    from_snap = r.json()
    expect(from_snap["findings"] == live["findings"], "findings differ between live and snapshot")
    # Free memory changes between the two collections; everything else must match.
    for doc in (from_snap, live):
        doc["inventory"]["os"].pop("memory_available_bytes")
    expect(from_snap["inventory"] == live["inventory"], "inventory differs between live and snapshot")


@test
def env_override_is_seen_by_the_collectors():
    doc = live_json("--env", f"LD_LIBRARY_PATH={TOOLKIT}/lib64")
    c = [c for c in doc["inventory"]["cudnn"] if c["dir"].startswith(TOOLKIT)][0]
    expect("LD_LIBRARY_PATH" in c["found_via"], c["found_via"])


@test
def fail_on_critical_passes_here():
    expect_exit(run(["check", "--fail-on", "critical"]), 0)


@test
def text_report_names_what_it_found():
    r = run(["check", "--color", "never"])
    expect_contains(r.out, "13.0 at /usr/local/cuda-13.0")
    expect_contains(r.out, "9.19.0 at /usr/local/cuda-13.0/lib: 8 libraries")


if __name__ == "__main__":
    h.main(probe)
