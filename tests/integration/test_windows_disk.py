# SPDX-License-Identifier: MIT
"""A Windows system disk examined from Linux, as a user with a blue-screening machine would:
`check --sysroot T` and `crashes --sysroot T` over a tree with Windows/System32 and real hive
files (SYSTEM, SOFTWARE, two users' NTUSER.DAT), built here by tests/support/make_hive.py
(hivexregedit --merge). The display adapter, its driver version, the TDR settings and the
Python registrations come from the hives; hostile hives (a FIFO, a truncated hive, a text file)
make their facts unknown with the reason, and never hang or crash the doctor."""
import os
import shutil
import subprocess
import sys
import tempfile

import harness as h
from harness import expect, expect_contains, expect_exit, run, test

DISPLAY = r"ControlSet001\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}"

SYSTEM_REG = r"""Windows Registry Editor Version 5.00

[\Select]
"Current"=dword:00000001

[\ControlSet001\Control\GraphicsDrivers]
"TdrDelay"=dword:0000003c
"TdrLevel"=dword:00000003

[\ControlSet001\Control\CrashControl]
"CrashDumpEnabled"=dword:00000003

[\%s\0000]
"DriverDesc"="NVIDIA GeForce RTX 3090"
"ProviderName"="NVIDIA"
"DriverVersion"="32.0.15.6094"
"DriverDate"="9-5-2024"
"InfPath"="oem12.inf"
"MatchingDeviceId"="pci\\ven_10de&dev_2204"

[\ControlSet001\Services\nvlddmkm]
"Start"=dword:%%08x
"Type"=dword:00000001
"ImagePath"="\\SystemRoot\\System32\\DriverStore\\FileRepository\\nv_dispi.inf_amd64_1\\nvlddmkm.sys"

[\ControlSet001\Services\Tcpip]
"Start"=dword:00000001
"ImagePath"="\\SystemRoot\\System32\\drivers\\tcpip.sys"
""" % DISPLAY

SOFTWARE_REG = r"""Windows Registry Editor Version 5.00

[\Microsoft\Windows NT\CurrentVersion]
"ProductName"="Windows 10 Pro"
"CurrentBuildNumber"="19045"
"UBR"=dword:00000d1b

[\Python\PythonCore\3.11\InstallPath]
@="C:\\Program Files\\Python311\\"
"""

# The GPU stack's Apps & Features entries (NVIDIA's installer writes these keys), beside one that
# is no part of it; %s is the driver entry's version.
UNINSTALL = r"Microsoft\Windows\CurrentVersion\Uninstall"
PROGRAMS_REG = r"""
[\%s\{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_Display.Driver]
"DisplayName"="NVIDIA Graphics Driver %%s"
"DisplayVersion"="%%s"
"Publisher"="NVIDIA Corporation"

[\%s\{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_CUDADevelopment_12.4]
"DisplayName"="NVIDIA CUDA Development 12.4"
"DisplayVersion"="12.4"
"Publisher"="NVIDIA Corporation"
"InstallLocation"="C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\"

[\%s\7-Zip]
"DisplayName"="7-Zip 23.01 (x64)"
"Publisher"="Igor Pavlov"

[\WOW6432Node\%s\{vc-x86}]
"DisplayName"="Microsoft Visual C++ 2015-2022 Redistributable (x86) - 14.40.33810"
"DisplayVersion"="14.40.33810.0"
"Publisher"="Microsoft Corporation"
""" % (UNINSTALL, UNINSTALL, UNINSTALL, UNINSTALL)

USER_REG = r"""Windows Registry Editor Version 5.00

[\Software\Python\PythonCore\3.12\InstallPath]
@="C:\\Users\\%s\\AppData\\Local\\Programs\\Python\\Python312\\"
"""


def make_hive(path, reg):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    reg_file = path + ".reg"
    with open(reg_file, "w", encoding="utf-8") as f:
        f.write(reg)
    subprocess.run([sys.executable, os.path.join(h.SOURCE, "tests", "support", "make_hive.py"),
                    path, reg_file], check=True)
    os.unlink(reg_file)


def windows_disk(start=3, driver_entry=None):
    """A disk tree whose names are in the case a real Windows disk mixes (WINDOWS, config); the
    nvlddmkm service starts with `start`; with `driver_entry` (the driver's version there), the
    GPU stack's Uninstall entries are in SOFTWARE too."""
    t = tempfile.mkdtemp(prefix="windows-disk-")
    config = os.path.join(t, "WINDOWS", "System32", "config")
    make_hive(os.path.join(config, "SYSTEM"), SYSTEM_REG % start)
    programs = PROGRAMS_REG % (driver_entry, driver_entry) if driver_entry else ""
    make_hive(os.path.join(config, "SOFTWARE"), SOFTWARE_REG + programs)
    make_hive(os.path.join(t, "Users", "olduser", "NTUSER.DAT"), USER_REG % "olduser")
    os.utime(os.path.join(t, "Users", "olduser", "NTUSER.DAT"), (1_000_000, 1_000_000))
    make_hive(os.path.join(t, "Users", "alice", "NTUSER.DAT"), USER_REG % "alice")
    return t


def check_json(tree):
    r = run(["check", "--sysroot", tree, "--format", "json"], drop_env=("NO_COLOR",))
    expect(r.code in (0, 1), f"exit {r.code}\nstdout:{r.out[:2000]}\nstderr:{r.err[:2000]}")
    doc = r.json()
    h.validate(doc, "report.schema.json")
    expect("windows" in doc["inventory"], f"no Windows inventory: {doc['inventory']}")
    return doc


@test
def check_reads_the_hives():
    t = windows_disk()
    try:
        doc = check_json(t)
        inv = doc["inventory"]
        expect(inv["os"]["name"] == "Windows 10 Pro", inv["os"])
        w = inv["windows"]
        expect(w["build"] == "10.0.19045.3355", w)
        expect(w["display_adapters"] == [{
            "description": "NVIDIA GeForce RTX 3090", "provider": "NVIDIA",
            "driver_version": "32.0.15.6094", "nvidia_version": "560.94",
            "driver_date": "9-5-2024", "inf_path": "oem12.inf"}], w["display_adapters"])
        expect(w["tdr_delay_seconds"] == 60 and w["tdr_level"] == 3, w)
        # HKCU is the user who wrote last (alice), not olduser.
        expect([(p["hive"], p["tag"], p["install_path"]) for p in w["python_registrations"]] == [
            ("HKCU", "3.12", "C:\\Users\\alice\\AppData\\Local\\Programs\\Python\\Python312\\"),
            ("HKLM", "3.11", "C:\\Program Files\\Python311\\")], w["python_registrations"])
        expect(w["unknown_reasons"] == {}, w["unknown_reasons"])
        text = run(["check", "--sysroot", t], env={"NO_COLOR": "1"})
        expect_contains(text.out, "NVIDIA GeForce RTX 3090, NVIDIA, driver 32.0.15.6094 (NVIDIA 560.94)")
        expect_contains(text.out, "TdrDelay 60 s; TdrLevel 3")
        # The snapshot keeps every fact with its hive and key.
        snap = run(["snapshot", "--sysroot", t])
        expect_exit(snap, 0)
        facts = snap.json()
        expect(facts["collection"]["os_family"] == "windows", facts["collection"])
        delay = facts["windows"]["tdr"]["value"]["tdr_delay"]
        expect(delay == {"value": 60, "source": "hive:/WINDOWS/System32/config/SYSTEM:"
                         "HKLM\\SYSTEM\\ControlSet001\\Control\\GraphicsDrivers\\TdrDelay"}, delay)
    finally:
        shutil.rmtree(t)


SERVICE_ID = "windows.nvidia_service_not_loaded"
INSTALL_ID = "windows.driver_install_incomplete"
TOOLKIT_ID = "windows.cuda_toolkit_removed"
CUDA_124 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4"


def ids_of(doc):
    return [f["id"] for f in doc["findings"]]


@test
def services_and_programs_from_the_hives_make_their_findings():
    """nvlddmkm disabled, Apps & Features with driver 566.36 while the adapter has 560.94, and a
    CUDA 12.4 whose folder is gone: the three findings; the same disk set right: none of them."""
    t = windows_disk(start=4, driver_entry="566.36")
    try:
        r = run(["check", "--sysroot", t, "--format", "json", "--env", "CUDA_PATH_V12_4=" + CUDA_124],
                drop_env=("NO_COLOR",))
        expect(r.code in (0, 1), f"exit {r.code}: {r.err[:2000]}")
        doc = r.json()
        h.validate(doc, "report.schema.json")
        w = doc["inventory"]["windows"]
        expect(w["services"] == [{"name": "nvlddmkm", "start": 4, "type": 1, "image_path":
                                  "\\SystemRoot\\System32\\DriverStore\\FileRepository\\"
                                  "nv_dispi.inf_amd64_1\\nvlddmkm.sys"}], w["services"])
        expect([(p["view"], p["kind"], p["display_version"]) for p in w["installed_programs"]] == [
            ("HKLM", "cuda", "12.4"), ("HKLM", "nvidia_driver", "566.36"),
            ("HKLM32", "vc_redist", "14.40.33810.0")], w["installed_programs"])
        found = {f["id"]: f for f in doc["findings"]}
        expect(SERVICE_ID in found and found[SERVICE_ID]["severity"] == "error", ids_of(doc))
        if SERVICE_ID in found:
            commands = [x["command"] for x in found[SERVICE_ID]["fixes"] if x["command"]]
            expect("Set-ItemProperty -Path HKLM:\\SYSTEM\\CurrentControlSet\\Services\\nvlddmkm"
                   " -Name Start -Value 3" in commands, commands)
            expect(any("ControlSet001\\Services\\nvlddmkm\\Start" in e["source"]
                       for e in found[SERVICE_ID]["evidence"]), found[SERVICE_ID]["evidence"])
        expect(INSTALL_ID in found and "566.36" in found[INSTALL_ID]["message"]
               and "560.94" in found[INSTALL_ID]["message"], ids_of(doc))
        expect(TOOLKIT_ID in found and found[TOOLKIT_ID]["subject"] == "CUDA 12.4", ids_of(doc))
        if TOOLKIT_ID in found:
            commands = [x["command"] for x in found[TOOLKIT_ID]["fixes"] if x["command"]]
            expect("Remove-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\"
                   "Session Manager\\Environment' -Name CUDA_PATH_V12_4" in commands, commands)
        text = run(["check", "--sysroot", t], env={"NO_COLOR": "1"})
        expect_contains(text.out, "Service nvlddmkm start 4 (disabled), kernel driver")
        expect_contains(text.out, "NVIDIA Graphics Driver 566.36 (HKLM)")
        expect(any(e["source"].endswith("_Display.Driver\\DisplayVersion")
                   for e in found.get(INSTALL_ID, {}).get("evidence", [])), found.get(INSTALL_ID))
        # The snapshot gives the same findings on its own.
        snap = os.path.join(t, "snap.json")
        expect_exit(run(["snapshot", "--sysroot", t, "--env", "CUDA_PATH_V12_4=" + CUDA_124,
                         "-o", snap]), 0)
        again = run(["check", "--snapshot", snap, "--format", "json"])
        expect(ids_of(again.json()) == ids_of(doc), f"{ids_of(again.json())} != {ids_of(doc)}")
    finally:
        shutil.rmtree(t)
    t = windows_disk(start=3, driver_entry="560.94")
    try:
        os.makedirs(os.path.join(t, "Program Files", "NVIDIA GPU Computing Toolkit", "CUDA", "v12.4"))
        doc = run(["check", "--sysroot", t, "--format", "json", "--env",
                   "CUDA_PATH_V12_4=" + CUDA_124]).json()
        for i in (SERVICE_ID, INSTALL_ID, TOOLKIT_ID):
            expect(i not in ids_of(doc), f"{i} on a disk set right: {ids_of(doc)}")
        expect(doc["inventory"]["windows"]["services"][0]["start"] == 3, doc["inventory"]["windows"])
    finally:
        shutil.rmtree(t)


@test
def resolve_follows_the_windows_order_on_the_disk():
    """A file that is no DLL in System32 (the disk spells it WINDOWS) is found first and fails
    the load with error 193; the copy on PATH is never reached."""
    t = windows_disk()
    try:
        for d in (("WINDOWS", "System32"), ("cudnn", "bin")):
            os.makedirs(os.path.join(t, *d), exist_ok=True)
            with open(os.path.join(t, *d, "cudnn64_8.dll"), "wb") as f:
                f.write(b"junk")
        r = run(["resolve", "--sysroot", t, "--env", "PATH=C:\\cudnn\\bin", "--format", "json",
                 "cudnn64_8.dll"])
        expect_exit(r, 1)
        res = r.json()["resolutions"][0]
        expect(res["error"] == 193, res)
        # Paths keep the disk's case (WINDOWS); Windows compares them without regard to case.
        sys32 = "c:\\windows\\system32\\cudnn64_8.dll"
        expect(res["found"]["path"].lower() == sys32 and res["found"]["via"] == "System32"
               and res["found"]["real_path"].lower() == sys32, res["found"])
        vias = [(c["via"], c["path"].lower()) for c in res["considered"]]
        expect(vias.index(("System32", sys32)) < vias.index(("Windows", "c:\\windows\\cudnn64_8.dll"))
               < vias.index(("PATH", "c:\\cudnn\\bin\\cudnn64_8.dll")), vias)
        # From a snapshot: the same answer for what the collectors looked at, "not recorded"
        # for the rest.
        snap = os.path.join(t, "snap.json")
        expect_exit(run(["snapshot", "--sysroot", t, "--env", "PATH=C:\\cudnn\\bin", "-o", snap]), 0)
        again = run(["resolve", "--snapshot", snap, "--format", "json", "cudnn64_8.dll"])
        expect_exit(again, 1)
        expect(again.json()["resolutions"][0]["found"] == res["found"], again.out)
        unrecorded = run(["resolve", "--snapshot", snap, "nosuch.dll"])
        expect_exit(unrecorded, 1)
        expect_contains(unrecorded.out, "System32\\nosuch.dll: not recorded in the snapshot")
        expect_contains(unrecorded.out, "unless it is in a path below that could not be judged")
        text = run(["resolve", "--sysroot", t, "--env", "PATH=C:\\cudnn\\bin", "cudnn64_8.dll"])
        expect_contains(text.out, "LoadLibrary fails here with error 193 (ERROR_BAD_EXE_FORMAT)")
        expect_contains(text.out, "neither a PE nor an ELF image")
    finally:
        shutil.rmtree(t)


@test
def resolve_python_follows_the_framework_on_the_disk():
    """--python C:\\venv: the DLLs torch preloads from torch\\lib, as its __init__.py loads them."""
    t = windows_disk()
    try:
        site = os.path.join(t, "venv", "Lib", "site-packages")
        os.makedirs(os.path.join(site, "torch", "lib"))
        os.makedirs(os.path.join(site, "torch-2.1.0+cu118.dist-info"))
        os.makedirs(os.path.join(t, "venv", "Scripts"))
        files = {("venv", "pyvenv.cfg"): "home = C:\\Python311\nversion = 3.11.7\n",
                 ("venv", "Scripts", "python.exe"): "MZ",
                 ("venv", "Lib", "site-packages", "torch", "version.py"):
                     "__version__ = '2.1.0+cu118'\ncuda = '11.8'\n",
                 ("venv", "Lib", "site-packages", "torch-2.1.0+cu118.dist-info", "METADATA"):
                     "Name: torch\nVersion: 2.1.0+cu118\n",
                 ("venv", "Lib", "site-packages", "torch", "lib", "cudart64_110.dll"): "junk"}
        for parts, text in files.items():
            with open(os.path.join(t, *parts), "w") as f:
                f.write(text)
        r = run(["resolve", "--sysroot", t, "--python", "C:\\venv", "--format", "json"])
        expect_exit(r, 1)
        doc = r.json()
        expect(doc["context"] == "torch 2.1.0+cu118 in C:\\venv", doc["context"])
        cudart = [x for x in doc["resolutions"] if x["name"].lower().endswith("\\cudart64_110.dll")]
        expect(len(cudart) == 1 and cudart[0]["error"] == 193
               and "preloaded by torch" in cudart[0]["reason"]
               and cudart[0]["requested_by"] == "the Python process of C:\\venv", doc["resolutions"])
        missing = run(["resolve", "--sysroot", t, "--python", "C:\\nowhere"])
        expect_exit(missing, 2)
        expect_contains(missing.err, "--python C:\\nowhere: not a Python environment")
    finally:
        shutil.rmtree(t)


@test
def crashes_reads_the_tdr_settings_from_the_hive():
    t = windows_disk()
    try:
        r = run(["crashes", "--sysroot", t, "--format", "json"])
        expect(r.code in (0, 1), f"exit {r.code}\nstdout:{r.out[:2000]}\nstderr:{r.err[:2000]}")
        doc = r.json()
        sources = {s["source"]: s for s in doc["sources"]}
        key = ("hive:/WINDOWS/System32/config/SYSTEM:"
               "HKLM\\SYSTEM\\ControlSet001\\Control\\GraphicsDrivers")
        expect(key in sources, list(sources))
        expect(sources[key]["status"] == "read" and sources[key]["detail"] == "TdrDelay 60, TdrLevel 3",
               sources[key])
        expect("/WINDOWS/Minidump" in sources, list(sources))
    finally:
        shutil.rmtree(t)


def hostile(plant, expected):
    t = windows_disk()
    try:
        system = os.path.join(t, "WINDOWS", "System32", "config", "SYSTEM")
        plant(system)
        r = run(["check", "--sysroot", t, "--format", "json"])
        doc = r.json()
        w = doc["inventory"]["windows"]
        expect(w["display_adapters"] is None and w["tdr_delay_seconds"] is None, w)
        reason = w["unknown_reasons"]["display_adapters"]
        expect(reason.startswith("hive /WINDOWS/System32/config/SYSTEM: " + expected), reason)
        # SOFTWARE and the user hive still answer.
        expect(len(w["python_registrations"]) == 2, w)
        c = run(["crashes", "--sysroot", t, "--format", "json"])
        expect(c.code in (0, 1), f"crashes exit {c.code}: {c.err[:2000]}")
        unreadable = [s for s in c.json()["sources"] if s["status"] == "unreadable"]
        expect(any(expected in s["detail"] for s in unreadable), unreadable)
    finally:
        shutil.rmtree(t)


@test
def a_fifo_as_the_system_hive():
    def plant(p):
        os.unlink(p)
        os.mkfifo(p)
    hostile(plant, "is a FIFO, not a regular file")


@test
def a_truncated_system_hive():
    def plant(p):
        with open(p, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(data[: len(data) - 4096])
    hostile(plant, "truncated: the header declares")


@test
def a_text_file_as_the_system_hive():
    def plant(p):
        with open(p, "w") as f:
            f.write(SYSTEM_REG)
    hostile(plant, 'not a registry hive (no "regf" signature)')


def probe():
    if shutil.which("hivexregedit") is None:
        return "hivexregedit is not installed (libwin-hivex-perl)"
    return None


if __name__ == "__main__":
    h.main(probe)
