#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NVIDIA's real cuDNN 8.9.4 DLLs (the nvidia-cudnn-cu11 8.9.4.19 win_amd64 wheel from PyPI) in
C:\\tools\\cuda\\bin on PATH of a wine prefix this test owns, and TensorFlow 2.10 (the last native
Windows GPU build, its real build_info) registered in a PEP 514 Python 3.10: the live
`cudnn-doctor.exe check` must read cuDNN's version from the DLLs' own version resources, see the
complete set, and find zlibwapi.dll missing in that very folder; with a 64-bit zlibwapi.dll placed
there, no more.

  test_live_real_cudnn.py CUDNN_DOCTOR_EXE WORK_DIR

The wheel is about 730 MB: this runs only under the ctest label `realistic`. It is kept in
DOCTOR_WHEEL_CACHE (default: build/realistic/wheels, shared with realistic.windows_cudnn_wheel)
and reused; without it and without network the test skips (125)."""
import json
import os
import shutil
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "winloader"))
import run_winloader  # noqa: E402
from test_live_collectors import Wine  # noqa: E402

SKIP = 125
PACKAGE, VERSION = "nvidia-cudnn-cu11", "8.9.4.19"
WHEEL = f"nvidia_cudnn_cu11-{VERSION}-py3-none-win_amd64.whl"
CUDNN_BIN = r"C:\tools\cuda\bin"
PYTHON = r"C:\Python310"
SITE = PYTHON + r"\Lib\site-packages"
# tensorflow_gpu-2.10.0-cp310-cp310-win_amd64.whl's tensorflow/python/platform/build_info.py keys
# (tests/realistic/test_tf_build_info.py reads the real file).
TF210_BUILD_INFO = ("build_info = {'is_cuda_build': True, 'is_rocm_build': False, "
                    "'is_tensorrt_build': False, 'msvcp_dll_names': 'msvcp140.dll,msvcp140_1.dll', "
                    "'nvcuda_dll_name': 'nvcuda.dll', 'cudart_dll_name': 'cudart64_112.dll', "
                    "'cuda_version': '64_112', 'cudnn_dll_name': 'cudnn64_8.dll', "
                    "'cudnn_version': '64_8'}\n")
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def wheel_dlls():
    """The wheel's DLLs (downloaded once); a skip reason instead when there is no way to get it."""
    cache = os.environ.get("DOCTOR_WHEEL_CACHE") or os.path.join(SOURCE, "build", "realistic", "wheels")
    os.makedirs(cache, exist_ok=True)
    wheel = os.path.join(cache, WHEEL)
    if not os.path.exists(wheel):
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                            "--platform", "win_amd64", "--python-version", "3.11", "--progress-bar", "off",
                            "-d", cache, f"{PACKAGE}=={VERSION}"], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(wheel):
            return None, f"cannot download {PACKAGE}=={VERSION}: {r.stderr.strip()[-300:]}"
    out = {}
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if info.filename.endswith(".dll"):
                out[os.path.basename(info.filename)] = (z, info)
        return {n: z.read(i) for n, (z, i) in out.items()}, None


def check(wine, exe, env):
    p = wine.run([exe, "check", "--format", "json"], env, check=False)
    return json.loads(p.stdout)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if shutil.which("wine") is None or shutil.which("x86_64-w64-mingw32-gcc") is None:
        print("skip: wine or mingw-w64 is not installed")
        return SKIP
    dlls, why = wheel_dlls()
    if dlls is None:
        print(f"skip: {why}")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    prefix = os.path.join(work, "prefix")
    wine = Wine(prefix)
    wine.boot()
    try:
        drive_c = os.path.join(prefix, "drive_c")
        bin_dir = os.path.join(drive_c, "tools", "cuda", "bin")
        os.makedirs(bin_dir)
        for name, data in dlls.items():
            with open(os.path.join(bin_dir, name), "wb") as f:
                f.write(data)
        tree = run_winloader.WinTree(os.path.join(work, "tree"))
        tree.drives["C:"] = drive_c
        tree.text(SITE + r"\tensorflow\python\platform\build_info.py", TF210_BUILD_INFO)
        tree.text(SITE + r"\tensorflow_gpu-2.10.0.dist-info\METADATA",
                  "Name: tensorflow-gpu\nVersion: 2.10.0\n")
        tree.text(PYTHON + r"\python.exe", "MZ")
        py = r"HKCU\Software\Python\PythonCore\3.10"
        wine.reg_add(py, "SysVersion", "3.10")
        wine.reg_add(py + r"\InstallPath", None, PYTHON)
        env = {"WINEPATH": CUDNN_BIN}

        report = check(wine, exe, env)
        ids = sorted({f["id"] for f in report["findings"]})
        inv = report["inventory"]
        cudnn = [c for c in inv["cudnn"] if c["dir"].lower() == CUDNN_BIN.lower()]
        expect(len(cudnn) == 1, f"no cuDNN in {CUDNN_BIN}: {inv['cudnn']}")
        if cudnn:
            expect(cudnn[0]["version"].startswith("8.9.4"), f"cuDNN version {cudnn[0]['version']!r}")
            expect(len(cudnn[0]["libraries"]) == 7, f"cuDNN set {cudnn[0]['libraries']}")
        expect("cudnn.library_set_incomplete" not in ids, f"the real set is complete: {ids}")
        z = [f for f in report["findings"] if f["id"] == "windows.zlibwapi_not_found"]
        expect(z and z[0]["subject"].lower() == CUDNN_BIN.lower(),
               f"zlibwapi.dll missing in {CUDNN_BIN}: {[f['subject'] for f in z]} in {ids}")

        tree.dll(CUDNN_BIN + r"\zlibwapi.dll")
        report = check(wine, exe, env)
        expect(not [f for f in report["findings"] if f["id"] == "windows.zlibwapi_not_found"],
               "zlibwapi.dll next to the real cuDNN, still reported missing")
    finally:
        wine.shutdown()
    if failures:
        print(f"{len(failures)} failure(s); prefix kept in {prefix}")
        return 1
    print("ok: the real cuDNN 8.9.4 set, and its missing zlibwapi.dll, found under wine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
