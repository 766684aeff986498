#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The live services and installed-programs collectors under wine, in a prefix this test owns.

  test_live_services.py CUDNN_DOCTOR_EXE WORK_DIR [--keep]

Planted with `wine reg add`: an NVIDIA display adapter (driver 32.0.15.6094, NVIDIA 560.94), the
nvlddmkm service disabled (Start 4), and Apps & Features entries for NVIDIA Graphics Driver 566.36
and a CUDA 12.4 whose folder does not exist, with CUDA_PATH_V12_4 naming it. `check` must report
the service and the programs, with their keys, and the three findings; then the service is set to
start on demand, the driver entry to 560.94 and the folder is made, and the findings must be gone.
Exits 125 (skip) without wine or mingw-w64.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_live_collectors import DISPLAY_CLASS, run_in_fresh_prefix  # noqa: E402

SERVICE = r"HKLM\SYSTEM\CurrentControlSet\Services\nvlddmkm"
UNINSTALL = r"HKLM\SOFTWARE\Microsoft\Windows\CurrentVersion\Uninstall"
DRIVER_KEY = UNINSTALL + r"\{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_Display.Driver"
CUDA_KEY = UNINSTALL + r"\{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_CUDADevelopment_12.4"
USER_UNINSTALL = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Miniconda3"
CUDA_124 = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4"
IDS = ("windows.nvidia_service_not_loaded", "windows.driver_install_incomplete",
       "windows.cuda_toolkit_removed")

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def plant(wine):
    adapter = DISPLAY_CLASS + "\\0007"
    for name, value in [("DriverDesc", "NVIDIA GeForce RTX 3090"), ("ProviderName", "NVIDIA"),
                        ("DriverVersion", "32.0.15.6094"),
                        ("MatchingDeviceId", r"pci\ven_10de&dev_2204")]:
        wine.reg_add(adapter, name, value)
    wine.reg_add(SERVICE, "Start", "4", "REG_DWORD")
    wine.reg_add(SERVICE, "Type", "1", "REG_DWORD")
    wine.reg_add(SERVICE, "ImagePath",
                 r"\SystemRoot\System32\DriverStore\FileRepository\nv_dispi.inf_amd64_1\nvlddmkm.sys",
                 "REG_EXPAND_SZ")
    for name, value in [("DisplayName", "NVIDIA Graphics Driver 566.36"),
                        ("DisplayVersion", "566.36"), ("Publisher", "NVIDIA Corporation")]:
        wine.reg_add(DRIVER_KEY, name, value)
    for name, value in [("DisplayName", "NVIDIA CUDA Development 12.4"), ("DisplayVersion", "12.4"),
                        ("Publisher", "NVIDIA Corporation"), ("InstallLocation", CUDA_124 + "\\")]:
        wine.reg_add(CUDA_KEY, name, value)
    for name, value in [("DisplayName", "Miniconda3 py311_24.1.2-0 (Python 3.11.8 64-bit)"),
                        ("Publisher", "Anaconda, Inc.")]:
        wine.reg_add(USER_UNINSTALL, name, value)


def check(wine, exe):
    r = wine.run([exe, "check", "--format", "json", "--fail-on", "critical"],
                 {"CUDA_PATH_V12_4": CUDA_124}, check=False)
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        print(f"check: stdout is not JSON (exit {r.returncode}):\n{r.stdout[:3000]}\n{r.stderr[:3000]}")
        return None


def examine(wine, work, prefix, exe):
    plant(wine)
    doc = check(wine, exe)
    if doc is None:
        return 1
    w = doc["inventory"].get("windows") or {}
    services = {s["name"].lower(): s for s in (w.get("services") or [])}
    expect(services.get("nvlddmkm", {}).get("start") == 4 and services["nvlddmkm"]["type"] == 1,
           f"services {w.get('services')} ({w.get('unknown_reasons')})")
    programs = {(p["view"], p["kind"], p["display_version"]) for p in (w.get("installed_programs") or [])}
    for want in [("HKLM", "nvidia_driver", "566.36"), ("HKLM", "cuda", "12.4"), ("HKCU", "conda", "")]:
        expect(want in programs, f"{want} not in installed_programs {w.get('installed_programs')}")
    ids = [f["id"] for f in doc["findings"]]
    for i in IDS:
        expect(i in ids, f"{i} not found with the planted state: {ids}")
    service = [f for f in doc["findings"] if f["id"] == IDS[0]]
    if service:
        expect(any(e["source"].startswith("registry:HKLM\\SYSTEM\\CurrentControlSet\\Services\\nvlddmkm")
                   for e in service[0]["evidence"]), f"service evidence {service[0]['evidence']}")

    # Set right: the findings go.
    wine.reg_add(SERVICE, "Start", "3", "REG_DWORD")
    wine.reg_add(DRIVER_KEY, "DisplayVersion", "560.94")
    os.makedirs(os.path.join(prefix, "drive_c", "Program Files", "NVIDIA GPU Computing Toolkit",
                             "CUDA", "v12.4"), exist_ok=True)
    doc = check(wine, exe)
    if doc is None:
        return 1
    ids = [f["id"] for f in doc["findings"]]
    for i in IDS:
        expect(i not in ids, f"{i} still found after the state was set right: {ids}")
    return None


def main():
    return run_in_fresh_prefix(__doc__, failures, examine)


if __name__ == "__main__":
    sys.exit(main())
