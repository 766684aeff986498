#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The problems of a Windows GPU setup, planted in a wine prefix this test owns, found by the live
`cudnn-doctor.exe check`, and the same findings from its snapshot checked on Linux.

  test_live_findings.py CUDNN_DOCTOR_EXE WORK_DIR [LINUX_CUDNN_DOCTOR]

The machine: a python.org-style Python 3.11 registered under PEP 514, with torch 2.1.0+cu118 (its
torch\\lib holding mingw-built DLLs named, versioned and importing like the real cuDNN 8.9.4 set,
cuBLAS, cudart and c10.dll, which imports VCRUNTIME140_1.dll) and TensorFlow 2.15 (a CPU-only
build: native Windows lost GPU support after 2.10); a CUDA 11.8 toolkit; the driver's nvcuda.dll.
Planted: no zlibwapi.dll anywhere; cudnn64_8.dll copied into System32; vcruntime140_1.dll removed
from System32 (torch's import then fails at c10.dll). Then vcruntime140_1.dll back (zlibwapi.dll
missing next to cuDNN shows), a 32-bit zlibwapi.dll on PATH (error 193), and a 64-bit one next to
cuDNN in torch\\lib (no zlibwapi finding at all). With LINUX_CUDNN_DOCTOR, the first state's snapshot is
checked on Linux and must give the same finding ids. Exits 125 (skip) without wine or mingw-w64.
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "winloader"))
import run_winloader  # noqa: E402
from test_live_collectors import Wine  # noqa: E402

SKIP = 125
PYTHON = r"C:\Python311"
SITE = PYTHON + r"\Lib\site-packages"
TORCH_LIB = SITE + r"\torch\lib"
TOOLKIT = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8"
OLD_ZLIB = r"C:\old zlib"
SYSTEM32 = r"C:\windows\system32"
CUDNN_SET = ["cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
             "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll", "cudnn_adv_infer64_8.dll",
             "cudnn_adv_train64_8.dll"]
# The imports of the 8.9.4 wheel's DLLs among themselves (PE import tables of nvidia-cudnn-cu11).
CUDNN_IMPORTS = {
    "cudnn_ops_train64_8.dll": ["cudnn_ops_infer64_8.dll"],
    "cudnn_cnn_infer64_8.dll": ["cudnn_ops_infer64_8.dll"],
    "cudnn_adv_infer64_8.dll": ["cudnn_ops_infer64_8.dll"],
    "cudnn_cnn_train64_8.dll": ["cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
                                "cudnn_cnn_infer64_8.dll"],
    "cudnn_adv_train64_8.dll": ["cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
                                "cudnn_adv_infer64_8.dll"],
}

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def populate(wine, tree):
    version = run_winloader.cudnn_version("8.9.4.25")
    for name in CUDNN_SET:
        tree.dll(TORCH_LIB + "\\" + name, imports=["KERNEL32.dll"] + CUDNN_IMPORTS.get(name, []),
                 version=version)
    for name in ["cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "nvrtc64_112_0.dll"]:
        tree.dll(TORCH_LIB + "\\" + name)
    tree.dll(TORCH_LIB + r"\c10.dll", imports=["KERNEL32.dll", "VCRUNTIME140_1.dll"])
    tree.text(SITE + r"\torch\version.py", "__version__ = '2.1.0+cu118'\ncuda = '11.8'\n")
    tree.text(SITE + r"\torch-2.1.0+cu118.dist-info\METADATA",
              "Name: torch\nVersion: 2.1.0+cu118\n")
    tree.text(SITE + r"\tensorflow\python\platform\build_info.py",
              "build_info = {'msvcp_dll_names': 'msvcp140.dll,msvcp140_1.dll', "
              "'is_cuda_build': False, 'is_rocm_build': False, 'is_tensorrt_build': False}\n")
    tree.text(SITE + r"\tensorflow-2.15.0.dist-info\METADATA", "Name: tensorflow\nVersion: 2.15.0\n")
    tree.text(TOOLKIT + r"\version.json",
              json.dumps({"cuda": {"name": "CUDA SDK", "version": "11.8.0"}}))
    tree.mkdir(TOOLKIT + r"\bin")
    tree.text(PYTHON + r"\python.exe", "MZ")
    py = r"HKCU\Software\Python\PythonCore\3.11"
    wine.reg_add(py, "SysVersion", "3.11")
    wine.reg_add(py + r"\InstallPath", None, PYTHON)
    tree.dll(SYSTEM32 + r"\nvcuda.dll",
             version=run_winloader.plain_version("32.0.15.6094", "NVIDIA CUDA Driver"))
    # The hand-made copy every program now finds first.
    tree.dll(SYSTEM32 + r"\cudnn64_8.dll", version=version)


def finding_ids(report):
    return sorted({f["id"] for f in report["findings"]})


def findings(report, fid):
    return [f for f in report["findings"] if f["id"] == fid]


def check(wine, exe, env):
    p = wine.run([exe, "check", "--format", "json"], env, check=False)
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"check: not JSON (exit {p.returncode}):\n{p.stdout[:2000]}{p.stderr[:2000]}")


def first_state(report):
    ids = finding_ids(report)
    s = findings(report, "windows.system_dir_copy")
    expect(any(f["subject"].lower() == (SYSTEM32 + r"\cudnn64_8.dll").lower() for f in s),
           f"the System32 copy of cudnn64_8.dll: {ids}")
    vc = findings(report, "windows.vc_runtime_missing")
    expect(vc and "VCRUNTIME140_1.dll" in vc[0]["message"], f"vcruntime140_1.dll missing: {ids}")
    expect(findings(report, "compat.tensorflow_windows_no_gpu"), f"TensorFlow 2.15 on Windows: {ids}")


def main():
    args = sys.argv[1:]
    if len(args) not in (2, 3):
        print(__doc__)
        return 2
    exe, work = os.path.abspath(args[0]), os.path.abspath(args[1])
    linux = os.path.abspath(args[2]) if len(args) == 3 else None
    if shutil.which("wine") is None or shutil.which("x86_64-w64-mingw32-gcc") is None:
        print("skip: wine or mingw-w64 is not installed")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    prefix = os.path.join(work, "prefix")
    wine = Wine(prefix)
    wine.boot()
    try:
        tree = run_winloader.WinTree(os.path.join(work, "tree"))
        tree.drives["C:"] = os.path.join(prefix, "drive_c")
        populate(wine, tree)
        # Wine's own vcruntime140_1.dll stands for the Visual C++ redistributable: without it,
        # a machine that never had the 2019+ redistributable.
        for d in ("system32", "syswow64"):
            p = os.path.join(prefix, "drive_c", "windows", d, "vcruntime140_1.dll")
            if os.path.exists(p):
                os.remove(p)
        env = {"CUDA_PATH": TOOLKIT, "WINEPATH": OLD_ZLIB}

        report = check(wine, exe, env)
        first_state(report)
        if linux:
            snap = wine.run([exe, "snapshot"], env, check=False)
            path = os.path.join(work, "windows-snapshot.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(snap.stdout)
            p = subprocess.run([linux, "check", "--snapshot", path, "--format", "json"],
                               capture_output=True, timeout=120)
            try:
                on_linux = json.loads(p.stdout)
                expect(finding_ids(on_linux) == finding_ids(report),
                       f"Linux check --snapshot: {finding_ids(on_linux)} != live {finding_ids(report)}")
            except json.JSONDecodeError:
                expect(False, f"Linux check --snapshot: not JSON (exit {p.returncode}): {p.stderr[:500]}")

        # torch's import fails at c10.dll, before cuDNN is ever used: with the redistributable
        # back, the next problem shows, zlibwapi.dll missing next to cuDNN.
        tree.dll(SYSTEM32 + r"\vcruntime140_1.dll")
        report = check(wine, exe, env)
        ids = finding_ids(report)
        expect(not findings(report, "windows.vc_runtime_missing"), f"vcruntime140_1.dll is back: {ids}")
        z = findings(report, "windows.zlibwapi_not_found")
        expect(len(z) == 1 and z[0]["subject"].lower() == TORCH_LIB.lower(),
               f"zlibwapi.dll missing next to cuDNN in torch\\lib: {[f['subject'] for f in z]} in {ids}")

        # A 32-bit zlibwapi.dll on PATH: found first, error 193, and Windows does not look further.
        tree.dll(OLD_ZLIB + r"\zlibwapi.dll", bits=32)
        report = check(wine, exe, env)
        w = findings(report, "windows.dll_wrong_architecture")
        expect(w and w[0]["subject"].lower() == (OLD_ZLIB + r"\zlibwapi.dll").lower()
               and "32-bit" in w[0]["message"],
               f"the 32-bit zlibwapi.dll on PATH: {finding_ids(report)}")
        expect(not findings(report, "windows.zlibwapi_not_found"),
               "zlibwapi reported missing although a (32-bit) copy is found")

        # The 64-bit zlibwapi.dll next to cuDNN: nothing about zlibwapi any more.
        tree.dll(TORCH_LIB + r"\zlibwapi.dll")
        report = check(wine, exe, env)
        expect(not findings(report, "windows.zlibwapi_not_found")
               and not findings(report, "windows.dll_wrong_architecture"),
               f"zlibwapi.dll next to cuDNN, still: {finding_ids(report)}")
    finally:
        wine.shutdown()
    if failures:
        print(f"{len(failures)} failure(s); prefix kept in {prefix}")
        return 1
    print("ok: every planted problem found" + (", and the same on Linux" if linux else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
