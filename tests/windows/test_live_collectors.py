#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The live Windows collectors under wine, against a prefix this test owns and populates.

  test_live_collectors.py CUDNN_DOCTOR_EXE WORK_DIR [--keep]

WORK_DIR/prefix becomes a fresh WINEPREFIX (wineboot -i, about a minute). Into it go: mingw-built
DLLs named and versioned like cuDNN 8.9.4's Windows set in C:\\cudnn\\bin (on PATH through
WINEPATH) with include\\cudnn_version.h beside it, a CUDA 11.8 toolkit folder with version.json
(CUDA_PATH), a python.org-style Python 3.11 with a torch build, registered under PEP 514 with
`wine reg add`, an NVIDIA display adapter in the display class key, and a user PATH in
HKCU\\Environment. `check --format json` and `snapshot` must report each of them, with its
source. Exits 125 (skip) without wine or mingw-w64.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "winloader"))
import run_winloader  # noqa: E402  (WinTree: mingw DLLs with version resources)

SKIP = 125
DISPLAY_CLASS = r"HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}"
ADAPTER_KEY = "0007"  # beside whatever adapters wine itself registers
TOOLKIT = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8"
CUDNN_BIN = r"C:\cudnn\bin"
PYTHON = r"C:\Python311"
USER_PATH = r"C:\cudnn\bin;C:\Users\Public\tools"
VENV = r"C:\venvs\tf"
CONDA_ENV = r"C:\ProgramData\miniconda3\envs\gpu"
UNICODE_BIN = "C:\\用户\\张伟\\cudnn\\bin"  # a folder a Chinese user name puts on PATH
# The Microsoft Store's Python 3.12: its install folder, and pip's packages in its data folder
# under %LOCALAPPDATA%\Packages (LocalCache\local-packages, the Store's PYTHONUSERBASE).
STORE_FAMILY = "PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0"
STORE_APP = r"C:\Program Files\WindowsApps\PythonSoftwareFoundation.Python.3.12_3.12.2800.0_x64__qbz5n2kfra8p0"
CUDNN_SET = ["cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
             "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll", "cudnn_adv_infer64_8.dll",
             "cudnn_adv_train64_8.dll"]

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def call(cmd, env, timeout):
    """Runs CMD with its output in files, not pipes: wine's services (winedevice.exe), started
    on the way and kept by the persistent wineserver, inherit the handles and would keep a pipe
    open after CMD exits."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                           timeout=timeout)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(cmd, p.returncode,
                                           out.read().decode("utf-8", "replace"),
                                           err.read().decode("utf-8", "replace"))


class Wine:
    def __init__(self, prefix):
        self.env = dict(os.environ, WINEPREFIX=prefix, WINEDEBUG="-all", LANG="C.UTF-8",
                        WINEDLLOVERRIDES="mscoree,mshtml=", DISPLAY="")

    def run(self, args, extra_env=None, check=True):
        env = dict(self.env, **(extra_env or {}))
        p = call(["wine"] + args, env, 300)
        if check and p.returncode != 0:
            raise RuntimeError(f"wine {' '.join(args)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
        return p

    def reg_add(self, key, name, data, kind="REG_SZ"):
        args = ["reg", "add", key, "/f", "/t", kind, "/d", data]
        args[3:3] = ["/ve"] if name is None else ["/v", name]
        self.run(args)

    def boot(self):
        if call(["wineboot", "-i"], self.env, 600).returncode != 0:
            raise RuntimeError("wineboot -i failed")
        call(["wineserver", "-w"], self.env, 300)
        # One session from here to the end: wine rebuilds the display class key when a session
        # starts, which would drop the planted adapter.
        call(["wineserver", "-p"], self.env, 60)
        self.run(["reg", "query", DISPLAY_CLASS])

    def shutdown(self):
        call(["wineserver", "-k"], self.env, 60)


def populate_store_python(wine, tree):
    local = wine.run(["cmd", "/c", "echo", "%LOCALAPPDATA%"]).stdout.strip()
    tree.text(STORE_APP + r"\python.exe", "MZ")
    tree.mkdir(STORE_APP + r"\Lib\site-packages")
    site = local + "\\Packages\\" + STORE_FAMILY + r"\LocalCache\local-packages\Python312\site-packages"
    tree.text(site + r"\torch\version.py", "__version__ = '2.5.1+cu124'\ncuda = '12.4'\n")
    tree.text(site + r"\torch-2.5.1+cu124.dist-info\METADATA", "Name: torch\nVersion: 2.5.1+cu124\n")
    return site


def populate(wine, tree):
    for name in CUDNN_SET:
        tree.dll(CUDNN_BIN + "\\" + name, version=run_winloader.cudnn_version("8.9.4.25"))
    tree.text(r"C:\cudnn\include\cudnn_version.h",
              "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 4\n")
    tree.text(TOOLKIT + r"\version.json",
              json.dumps({"cuda": {"name": "CUDA SDK", "version": "11.8.0"}}))
    tree.mkdir(TOOLKIT + r"\bin")
    tree.text(PYTHON + r"\python.exe", "MZ")
    site = PYTHON + r"\Lib\site-packages"
    tree.text(site + r"\torch\version.py", "__version__ = '2.1.0+cu118'\ncuda = '11.8'\n")
    tree.text(site + r"\torch-2.1.0+cu118.dist-info\METADATA", "Name: torch\nVersion: 2.1.0+cu118\n")
    py = r"HKCU\Software\Python\PythonCore\3.11"
    wine.reg_add(py, "DisplayName", "Python 3.11 (64-bit)")
    wine.reg_add(py, "SysVersion", "3.11")
    wine.reg_add(py + r"\InstallPath", None, PYTHON)
    wine.reg_add(py + r"\InstallPath", "ExecutablePath", PYTHON + r"\python.exe")
    py32 = r"HKLM\SOFTWARE\WOW6432Node\Python\PythonCore\3.9-32"
    wine.reg_add(py32 + r"\InstallPath", None, r"C:\Python39-32")
    adapter = DISPLAY_CLASS + "\\" + ADAPTER_KEY
    for name, value in [("DriverDesc", "NVIDIA GeForce RTX 3090"), ("ProviderName", "NVIDIA"),
                        ("DriverVersion", "32.0.15.6094"), ("DriverDate", "9-5-2024"),
                        ("InfPath", "oem12.inf"),
                        ("MatchingDeviceId", r"pci\ven_10de&dev_2204&subsys_38801028")]:
        wine.reg_add(adapter, name, value)
    wine.reg_add(r"HKCU\Environment", "Path", USER_PATH, "REG_EXPAND_SZ")
    wine.reg_add(r"HKCU\Environment", "CUDA_PATH", TOOLKIT)
    # A venv (VIRTUAL_ENV) and a conda environment with its own cuDNN in Library\bin.
    tree.text(VENV + r"\pyvenv.cfg", "home = C:\\Python311\nversion = 3.11.7\n")
    tree.text(VENV + r"\Scripts\python.exe", "MZ")
    tree.mkdir(VENV + r"\Lib\site-packages")
    base = r"C:\ProgramData\miniconda3"
    tree.text(base + r"\conda-meta\python-3.12.1-h2628c8c_0.json", "{}")
    tree.text(CONDA_ENV + r"\conda-meta\python-3.10.13-he1021f5_0.json", "{}")
    tree.mkdir(CONDA_ENV + r"\Lib\site-packages")
    tree.dll(CONDA_ENV + r"\Library\bin\cudnn64_8.dll",
             version=run_winloader.cudnn_version("8.9.2.26"))
    tree.dll(UNICODE_BIN + "\\cudnn64_9.dll", version=run_winloader.cudnn_version("9.1.0.70"))
    # The CUDA driver of an NVIDIA 560.94 package (nvcuda.dll's FileVersion is Windows' form).
    tree.dll(r"C:\windows\system32\nvcuda.dll",
             version=run_winloader.plain_version("32.0.15.6094", "NVIDIA CUDA Driver"))
    # The VC++ redistributable and a TDR delay, as their installers and a user set them.
    vc = r"HKLM\SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\x64"
    wine.reg_add(vc, "Installed", "1", "REG_DWORD")
    wine.reg_add(vc, "Version", "v14.40.33810.00")
    wine.reg_add(r"HKLM\SYSTEM\CurrentControlSet\Control\GraphicsDrivers", "TdrDelay", "8",
                 "REG_DWORD")


def check_report(report):
    inv = report.get("inventory", report)
    os_name = inv["os"]["name"] or ""
    expect("Windows" in os_name and "build" in os_name, f"os.name is {os_name!r}, not a Windows name")
    expect(inv["os"]["memory_total_bytes"], "os.memory_total_bytes is unknown")
    cudnn = [c for c in inv["cudnn"] if c["dir"].lower() == CUDNN_BIN.lower()]
    expect(len(cudnn) == 1, f"no cuDNN in {CUDNN_BIN}: {inv['cudnn']}")
    if cudnn:
        expect(cudnn[0]["version"] == "8.9.4", f"cuDNN version {cudnn[0]['version']!r}")
        expect(cudnn[0]["major"] == 8, f"cuDNN major {cudnn[0]['major']!r}")
        expect(sorted(n.lower() for n in cudnn[0]["libraries"]) == sorted(CUDNN_SET),
               f"cuDNN set {cudnn[0]['libraries']}")
        expect("PATH" in cudnn[0]["found_via"], f"found_via {cudnn[0]['found_via']}")
    libs = [(l["name"], l["version"], l["path"].lower()) for l in inv["driver"]["libraries"]]
    expect(("libcuda", "560.94", r"c:\windows\system32\nvcuda.dll") in libs, f"driver libraries {libs}")
    nvml = inv["driver"]["nvml"]
    expect(nvml["status"] == "library_not_found" and "nvml.dll" in nvml["detail"], f"nvml {nvml}")
    toolkits = [t for t in inv["cuda_toolkits"] if t["path"].lower() == TOOLKIT.lower()]
    expect(len(toolkits) == 1, f"no toolkit {TOOLKIT}: {inv['cuda_toolkits']}")
    if toolkits:
        expect(toolkits[0]["version"] == "11.8.0", f"toolkit version {toolkits[0]['version']!r}")
    pythons = [p for p in inv["python_environments"] if p["prefix"].lower() == PYTHON.lower()]
    expect(len(pythons) == 1, f"no Python {PYTHON}: {inv['python_environments']}")
    if pythons:
        expect(pythons[0]["python_version"] == "3.11", f"python {pythons[0]['python_version']!r}")
        torch = [f for f in pythons[0]["frameworks"] if f["name"] == "torch"]
        expect(torch and torch[0]["version"] == "2.1.0+cu118", f"frameworks {pythons[0]['frameworks']}")
    kinds = {p["prefix"].lower(): (p["kind"], p["python_version"]) for p in inv["python_environments"]}
    expect(kinds.get(VENV.lower()) == ("venv", "3.11.7"), f"venv: {kinds}")
    store = [p for p in inv["python_environments"] if p["prefix"].lower() == STORE_APP.lower()]
    expect(len(store) == 1 and store[0]["kind"] == "store" and store[0]["python_version"] == "3.12",
           f"Store Python {STORE_APP}: {kinds}")
    if store:
        torch = [f for f in store[0]["frameworks"] if f["name"] == "torch"]
        expect(torch and torch[0]["version"] == "2.5.1+cu124",
               f"Store Python frameworks {store[0]['frameworks']}")
    expect(kinds.get(CONDA_ENV.lower()) == ("conda", "3.10.13"), f"conda env: {kinds}")
    conda_bin = (CONDA_ENV + r"\Library\bin").lower()
    conda = [c for c in inv["cudnn"] if c["dir"].lower() == conda_bin]
    expect(len(conda) == 1 and conda[0]["version"] == "8.9.2.26"
           and f"conda:{CONDA_ENV}" in conda[0]["found_via"], f"conda cuDNN: {inv['cudnn']}")
    uni = [c for c in inv["cudnn"] if c["dir"] == UNICODE_BIN]
    expect(len(uni) == 1 and uni[0]["major"] == 9 and uni[0]["version"] == "9.1.0.70",
           f"cuDNN in {UNICODE_BIN}: {inv['cudnn']}")


def check_snapshot(snap):
    expect(snap["collection"]["os_family"] == "windows", "snapshot os_family")
    expect(not [e for e in snap["collection"]["errors"]], f"collector errors {snap['collection']['errors']}")
    win = snap["windows"]
    adapters = [a for a in (win["display_adapters"].get("value") or []) if a["key"] == ADAPTER_KEY]
    expect(len(adapters) == 1, f"display adapter {ADAPTER_KEY}: {win['display_adapters']}")
    if adapters:
        a = adapters[0]
        expect(a["description"] == "NVIDIA GeForce RTX 3090", f"adapter {a}")
        expect(a["vendor_id"] == 0x10de and a["device_id"] == 0x2204, f"adapter ids {a}")
        expect(a["nvidia_version"].get("value") == "560.94", f"adapter nvidia_version {a}")
    user_path = win["user_path"]
    expect(user_path.get("value") == USER_PATH, f"user_path {user_path}")
    expect("HKCU\\Environment\\Path" in (user_path.get("source") or ""), f"user_path source {user_path}")
    regs = [r for r in (win["python_registrations"].get("value") or [])
            if r["company"] == "PythonCore" and r["tag"] == "3.11"]
    expect(len(regs) == 1, f"PEP 514 registration: {win['python_registrations']}")
    if regs:
        expect(regs[0]["hive"] == "HKCU" and regs[0]["install_path"] == PYTHON, f"registration {regs[0]}")
        expect(regs[0]["executable"] == PYTHON + r"\python.exe", f"registration {regs[0]}")
    regs32 = [r for r in (win["python_registrations"].get("value") or []) if r["tag"] == "3.9-32"]
    expect(len(regs32) == 1 and regs32[0]["hive"] == "HKLM32"
           and regs32[0]["executable"] == r"C:\Python39-32\python.exe", f"32-bit registration {regs32}")
    store = [e for e in snap["python_envs"] if e["prefix"].lower() == STORE_APP.lower()]
    locations = [f["location"].lower() for e in store for f in e["frameworks"]]
    expect(len(locations) == 1 and r"\localcache\local-packages\python312\site-packages\torch"
           in locations[0], f"Store Python's torch is read from its user site-packages: {locations}")
    expect(store and store[0]["found_via"] == ["store:" + STORE_FAMILY], f"Store Python: {store}")
    build = win["build"].get("value") or ""
    expect(build.count(".") >= 2, f"build {win['build']}")
    expect(win["build"].get("source", "").startswith("api:RtlGetVersion"), f"build source {win['build']}")
    expect(snap["environment"].get("CUDA_PATH") == TOOLKIT, f"CUDA_PATH {snap['environment']}")
    # The loader model asked for cudnn64_8.dll by name, and found it on PATH.
    probed = {p["path"]: p for p in snap["probed_paths"]}
    dispatcher = probed.get((CUDNN_BIN + r"\cudnn64_8.dll").lower())
    expect(dispatcher and dispatcher["exists"]
           and dispatcher["real_path"].lower() == (CUDNN_BIN + r"\cudnn64_8.dll").lower(),
           f"probed cudnn64_8.dll: {dispatcher}")
    expect(any(b["path"].lower() == r"c:\windows\system32\nvcuda.dll" and b["format"] == "pe"
               and b["bits"] == 64 for b in snap["binaries"]), "nvcuda.dll's headers were not read")
    vc = win["vc_runtimes"].get("value") or []
    expect({"arch": "x64", "version": "v14.40.33810.00", "installed": True} in vc, f"vc_runtimes {vc}")
    tdr = win["tdr"].get("value") or {}
    expect(tdr.get("tdr_delay", {}).get("value") == 8, f"tdr {win['tdr']}")
    expect("not set" in tdr.get("tdr_level", {}).get("unknown", ""), f"tdr {win['tdr']}")


def run_in_fresh_prefix(doc, failures, body):
    """The main() of a wine test run as `TEST CUDNN_DOCTOR_EXE WORK_DIR [--keep]`: skips (125)
    without wine or mingw-w64, boots WORK_DIR/prefix as a fresh WINEPREFIX and calls
    body(wine, work, prefix, exe), which records into `failures`; a number it returns ends the
    test with that status. The work folder is kept after a failure (or with --keep)."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    keep = "--keep" in sys.argv
    if len(args) != 2:
        print(doc)
        return 2
    exe, work = os.path.abspath(args[0]), os.path.abspath(args[1])
    if shutil.which("wine") is None or shutil.which("wineboot") is None:
        print("skip: wine is not installed")
        return SKIP
    if shutil.which("x86_64-w64-mingw32-gcc") is None:
        print("skip: mingw-w64 is not installed")
        return SKIP
    prefix = os.path.join(work, "prefix")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    wine = Wine(prefix)
    wine.boot()
    try:
        status = body(wine, work, prefix, exe)
    finally:
        wine.shutdown()
    if status is not None:
        return status
    if failures:
        print(f"{len(failures)} failure(s); prefix kept in {prefix}")
        return 1
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


def main():
    return run_in_fresh_prefix(__doc__, failures, examine)


def examine(wine, work, prefix, exe):
    tree = run_winloader.WinTree(os.path.join(work, "tree"))
    tree.drives["C:"] = os.path.join(prefix, "drive_c")
    populate(wine, tree)
    populate_store_python(wine, tree)
    env = {"WINEPATH": CUDNN_BIN + ";" + UNICODE_BIN, "CUDA_PATH": TOOLKIT, "VIRTUAL_ENV": VENV,
           "CONDA_PREFIX": CONDA_ENV}
    check = wine.run([exe, "check", "--format", "json", "--fail-on", "critical"], env, check=False)
    try:
        report = json.loads(check.stdout)
    except json.JSONDecodeError:
        print(f"check: stdout is not JSON (exit {check.returncode}):\n{check.stdout[:3000]}\n{check.stderr[:3000]}")
        return 1
    check_report(report)
    snap = wine.run([exe, "snapshot"], env, check=False)
    try:
        check_snapshot(json.loads(snap.stdout))
    except json.JSONDecodeError:
        print(f"snapshot: stdout is not JSON (exit {snap.returncode}):\n{snap.stdout[:3000]}\n{snap.stderr[:3000]}")
        return 1
    return None


if __name__ == "__main__":
    sys.exit(main())
