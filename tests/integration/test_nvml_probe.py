#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The isolated NVML probe end to end, against a stand-in libnvidia-ml.so.1 that speaks NVML's real
C ABI (tests/support/fake_nvml.c) and is put first on LD_LIBRARY_PATH: a working driver with one
GPU, NVML crashing inside nvmlInit_v2, NVML hanging there, and NVML without a driver. A crash or
hang must become a finding, never a crash or hang of the doctor."""
import os
import subprocess
import tempfile

import harness as h
from harness import expect, expect_contains, run, test

LIBDIR = None


def probe():
    global LIBDIR
    LIBDIR = tempfile.mkdtemp(prefix="doctor-fake-nvml-")
    os.chmod(LIBDIR, 0o755)  # the probe child gives up root for nobody: it must still load it
    src = os.path.join(h.SOURCE, "tests", "support", "fake_nvml.c")
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-Wl,-soname,libnvidia-ml.so.1",
                        "-o", os.path.join(LIBDIR, "libnvidia-ml.so.1"), src], capture_output=True, text=True)
    if r.returncode != 0:
        return f"cannot build the NVML stand-in: {r.stderr.strip()}"
    return None


def check(mode, *extra):
    env = {"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": mode}
    # --nvml always: this machine has no NVIDIA driver, so by default the child is not started.
    r = run(["check", "--format", "json", "--nvml", "always"] + list(extra), env=env)
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    doc = r.json()
    h.validate(doc, "report.schema.json")
    return doc


@test
def a_working_driver_lists_the_gpu():
    doc = check("ok")
    nvml = doc["inventory"]["driver"]["nvml"]
    expect(nvml["status"] == "ok", nvml)
    expect(nvml["driver_version"] == "570.86.15", nvml)
    expect(nvml["cuda_driver_version"] == "12.8", nvml)
    expect(nvml["library"].endswith("libnvidia-ml.so.1") and nvml["library"].startswith(LIBDIR), nvml)
    gpus = [g for g in doc["inventory"]["gpus"] if g["address"] == "0000:18:00.0"]
    expect(len(gpus) == 1, doc["inventory"]["gpus"])
    expect(gpus[0]["name"] == "NVIDIA H100 80GB HBM3", gpus[0])
    expect(gpus[0]["compute_capability"] == "9.0", gpus[0])
    expect(gpus[0]["uuid"] == "GPU-5a4b3c2d-1e0f-4a5b-8c7d-6e5f4a3b2c1d", gpus[0])
    expect(gpus[0]["memory_total_bytes"] == 85520809984, gpus[0])
    ids = [f["id"] for f in doc["findings"]]
    expect("gpu.not_found" not in ids, ids)


@test
def a_crash_inside_nvml_is_a_finding():
    doc = check("crash")
    expect(doc["inventory"]["driver"]["nvml"]["status"] == "probe_failed", doc["inventory"]["driver"]["nvml"])
    f = [f for f in doc["findings"] if f["id"] == "driver.nvml_probe_failed"]
    expect(len(f) == 1, [x["id"] for x in doc["findings"]])
    expect_contains(f[0]["message"], "crashed")


@test
def a_hang_inside_nvml_is_killed_and_reported():
    doc = check("hang", "--probe-timeout", "1")
    nvml = doc["inventory"]["driver"]["nvml"]
    expect(nvml["status"] == "probe_failed", nvml)
    expect_contains(nvml["detail"], "did not answer in time")
    expect(any(f["id"] == "driver.nvml_probe_failed" for f in doc["findings"]), doc["findings"])


@test
def nvml_without_a_driver_reports_the_return_code():
    nvml = check("nodriver")["inventory"]["driver"]["nvml"]
    expect(nvml["status"] == "init_failed", nvml)
    expect(nvml["detail"] == "nvmlInit_v2 returned 9 (Driver Not Loaded)", nvml)
    expect(nvml["nvml_version"] == "12.570.86.15", nvml)


@test
def no_nvml_flag_skips_the_probe():
    r = run(["check", "--format", "json", "--no-nvml"], env={"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": "crash"})
    nvml = r.json()["inventory"]["driver"]["nvml"]
    expect(nvml["status"] == "not_attempted", nvml)
    expect_contains(nvml["detail"], "--no-nvml")
    for extra in (["--nvml", "never"], ["--nvml", "always", "--no-nvml"]):
        r = run(["check", "--format", "json"] + extra, env={"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": "crash"})
        nvml = r.json()["inventory"]["driver"]["nvml"]
        expect(nvml["status"] == "not_attempted", (extra, nvml))


@test
def without_a_kernel_driver_the_child_is_not_started():
    if any(os.path.exists(p) for p in ("/proc/driver/nvidia", "/sys/module/nvidia", "/dev/dxg")) \
            or "nvidia" in open("/proc/devices").read():
        print("  (an NVIDIA driver is there: NVML is asked)")
        return
    # The stand-in would crash if it were loaded: by default it is not, and the facts say why.
    r = run(["check", "--format", "json"], env={"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": "crash"})
    doc = r.json()
    nvml = doc["inventory"]["driver"]["nvml"]
    expect(nvml["status"] == "not_attempted", nvml)
    expect_contains(nvml["detail"], "no NVIDIA kernel driver is loaded")
    expect_contains(nvml["detail"], "--nvml always")
    expect("driver.nvml_probe_failed" not in [f["id"] for f in doc["findings"]], doc["findings"])
    r = run(["check", "--nvml", "sometimes"])
    expect(r.code == 2, f"exit {r.code}")
    expect_contains(r.err, "--nvml")


@test
def telemetry_of_a_healthy_gpu_gives_no_hardware_finding():
    doc = check("ok")
    hw = [f["id"] for f in doc["findings"] if f["id"].startswith("hardware.")]
    expect(hw == [], hw)
    r = run(["snapshot", "--nvml", "always"], env={"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": "ok"})
    t = r.json()["driver"]["nvml"]["devices"]["value"][0]["telemetry"]["value"]
    expect(t["app_clock_graphics_mhz"] == 1755 and t["pcie_width_max"] == 16, t)
    expect(t["power_limit_default_mw"] == 700000 and t["clock_event_reasons"] == 1, t)


@test
def odd_telemetry_becomes_hardware_findings():
    for mode, fid, needle in (("overclock", "hardware.gpu_overclocked", "power limit 800 W, default 700 W"),
                              ("throttle", "hardware.gpu_throttling", "hardware thermal slowdown"),
                              ("rowremap", "hardware.gpu_memory_errors", "a row remap is pending"),
                              ("narrowlink", "hardware.pcie_link_degraded", "x8 of its x16")):
        doc = check(mode)
        f = [x for x in doc["findings"] if x["id"] == fid]
        expect(len(f) == 1, (mode, [x["id"] for x in doc["findings"]]))
        expect_contains(f[0]["message"], needle)
        others = [x["id"] for x in doc["findings"] if x["id"].startswith("hardware.") and x["id"] != fid]
        expect(others == [], (mode, others))


@test
def a_temperature_out_of_range_is_dropped_with_a_note():
    r = run(["snapshot", "--nvml", "always"], env={"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": "nonsense"})
    dev = r.json()["driver"]["nvml"]["devices"]["value"][0]
    expect("temperature_c" not in dev["telemetry"]["value"], dev["telemetry"])
    expect(any("temperature_c" in n and "4000" in n for n in dev["telemetry_notes"]), dev["telemetry_notes"])


def start_named(name):
    """A process whose command name (/proc/PID/comm) is `name`: a copy of sleep under that name."""
    d = tempfile.mkdtemp(prefix="doctor-proc-")
    exe = os.path.join(d, name)
    with open("/bin/sleep", "rb") as src, open(exe, "wb") as dst:
        dst.write(src.read())
    os.chmod(exe, 0o755)
    return subprocess.Popen([exe, "120"])


@test
def other_processes_holding_vram_are_named():
    # Two processes hold 74.5 GiB and an unknown amount of the H100's 79.6 GiB; one is named with
    # an escape sequence, which no report may pass through.
    trainer = start_named("trainer")
    hostile = start_named("x\x1b[31mred")
    try:
        procs = f"{trainer.pid}:80000000000,{hostile.pid}:na"
        env = {"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": "busy", "FAKE_NVML_PROCS": procs}
        r = run(["check", "--format", "json", "--nvml", "always"], env=env)
        doc = r.json()
        h.validate(doc, "report.schema.json")
        f = [x for x in doc["findings"] if x["id"] == "resources.gpu_memory_held"]
        expect(len(f) == 1, [x["id"] for x in doc["findings"]])
        expect_contains(f[0]["message"], f"pid {trainer.pid} (trainer) 74.5 GiB")
        expect_contains(f[0]["message"], f"pid {hostile.pid} (x")
        expect_contains(f[0]["message"], "amount unknown")
        r = run(["check", "--nvml", "always", "--color", "never"], env=env)
        expect("\x1b[31m" not in r.out, "an escape sequence from a process name reached the terminal")
        expect_contains(r.out, f"pid {trainer.pid} (trainer)")
        snap = run(["snapshot", "--nvml", "always"], env=env).json()
        dev = snap["driver"]["nvml"]["devices"]["value"][0]
        names = {p["pid"]: p["name"].get("value") for p in dev["processes"]["value"]}
        expect(names.get(trainer.pid) == "trainer", names)
        expect(dev["memory_used"]["value"] > 80000000000, dev["memory_used"])
    finally:
        for p in (trainer, hostile):
            p.kill()
            p.wait()
    # Without the processes the same GPU has its memory free: no finding.
    doc = check("ok")
    expect("resources.gpu_memory_held" not in [x["id"] for x in doc["findings"]], doc["findings"])


@test
def a_rising_replay_counter_and_persistence_off_on_a_server():
    for mode, fid, needle in (("replays", "hardware.pcie_replays_rising", "rose from 40 to 47 within 100 ms"),
                              ("persistoff", "hardware.persistence_mode_off", "NVIDIA H100 80GB HBM3 is a data-center GPU")):
        doc = check(mode)
        f = [x for x in doc["findings"] if x["id"] == fid]
        expect(len(f) == 1, (mode, [x["id"] for x in doc["findings"]]))
        expect_contains(f[0]["message"], needle)
    # A steady count (the narrow link's 1234) is read twice and gives no rise.
    r = run(["snapshot", "--nvml", "always"], env={"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": "narrowlink"})
    t = r.json()["driver"]["nvml"]["devices"]["value"][0]["telemetry"]["value"]
    expect(t["pcie_replay_count"] == 1234 and t["pcie_replay_count_later"] == 1234, t)


@test
def the_probe_command_judges_the_telemetry_too():
    r = run(["probe", "--format", "json"], env={"LD_LIBRARY_PATH": LIBDIR, "FAKE_NVML_MODE": "overclock,replays"})
    ids = [f["id"] for f in r.json()["findings"]]
    expect("hardware.gpu_overclocked" in ids and "hardware.pcie_replays_rising" in ids, ids)


if __name__ == "__main__":
    h.main(probe)
