#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The real Windows cuDNN 8 wheel from PyPI (nvidia-cudnn-cu11 8.9.4.19, win_amd64): its seven
DLLs read through the C++ PE reader (tests/support/pe_dump) must show what NVIDIA ships: x64 DLLs,
Authenticode-signed, with a version resource naming the wheel's version, importing only
KERNEL32.dll and their sibling cuDNN DLLs (cuBLAS, NVRTC, zlibwapi and nvcuda are loaded at run
time, not imported), no delay-load imports, and a cut-off copy reported as truncated.

The wheel is about 730 MB, so this runs only under the ctest label `realistic`. It is kept in
DOCTOR_WHEEL_CACHE (default: build/realistic/wheels) and reused; without network the test skips."""
import json
import os
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness as h  # noqa: E402
from harness import expect, test  # noqa: E402

PACKAGE, VERSION = "nvidia-cudnn-cu11", "8.9.4.19"
WHEEL = f"nvidia_cudnn_cu11-{VERSION}-py3-none-win_amd64.whl"
# Which sibling DLLs each DLL imports: cuDNN 8's sub-library layering (ops_infer at the bottom).
SIBLINGS = {
    "cudnn64_8.dll": [],
    "cudnn_ops_infer64_8.dll": [],
    "cudnn_ops_train64_8.dll": ["cudnn_ops_infer64_8.dll"],
    "cudnn_cnn_infer64_8.dll": ["cudnn_ops_infer64_8.dll"],
    "cudnn_cnn_train64_8.dll": ["cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
                                "cudnn_cnn_infer64_8.dll"],
    "cudnn_adv_infer64_8.dll": ["cudnn_ops_infer64_8.dll"],
    "cudnn_adv_train64_8.dll": ["cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
                                "cudnn_adv_infer64_8.dll"],
}
DLL_DIR = None


def fetch():
    """Downloads the wheel (once) and extracts its DLLs; returns a skip reason or None."""
    global DLL_DIR
    cache = os.environ.get("DOCTOR_WHEEL_CACHE") or os.path.join(h.SOURCE, "build", "realistic", "wheels")
    os.makedirs(cache, exist_ok=True)
    wheel = os.path.join(cache, WHEEL)
    if not os.path.exists(wheel):
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                            "--platform", "win_amd64", "--python-version", "3.11", "--progress-bar", "off",
                            "-d", cache, f"{PACKAGE}=={VERSION}"], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(wheel):
            return f"cannot download {PACKAGE}=={VERSION} for win_amd64: {r.stderr.strip()[-300:]}"
    DLL_DIR = os.path.join(cache, f"{PACKAGE}-{VERSION}-win_amd64")
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if not info.filename.endswith(".dll"):
                continue
            target = os.path.join(DLL_DIR, os.path.basename(info.filename))
            if not os.path.exists(target) or os.path.getsize(target) != info.file_size:
                os.makedirs(DLL_DIR, exist_ok=True)
                with z.open(info) as src, open(target + ".part", "wb") as dst:
                    while chunk := src.read(1 << 20):
                        dst.write(chunk)
                os.replace(target + ".part", target)
    return None


def dump(paths):
    p = subprocess.run([h.EXE] + list(paths), capture_output=True, text=True)
    expect(p.returncode in (0, 1), f"pe_dump exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def dlls():
    out = dump(os.path.join(DLL_DIR, name) for name in sorted(SIBLINGS))
    return {os.path.basename(e["path"]): e for e in out}


@test
def wheel_holds_the_seven_cudnn8_dlls():
    expect(sorted(n for n in os.listdir(DLL_DIR) if n.endswith(".dll")) == sorted(SIBLINGS),
           os.listdir(DLL_DIR))


@test
def every_dll_is_a_signed_x64_dll_without_damage():
    for name, e in dlls().items():
        expect("error" not in e, (name, e.get("error")))
        expect(e["machine"] == 0x8664 and e["machine_name"] == "x64" and e["pe32_plus"], (name, e))
        expect(e["is_dll"], name)
        expect(e["has_signature"], f"{name}: no Authenticode certificate table")
        expect(e["problems"] == [], (name, e["problems"]))
        for section in (".text", ".rdata", ".data", ".rsrc", ".reloc"):
            expect(section in e["section_names"], (name, e["section_names"]))


@test
def version_resource_names_the_wheel_version():
    for name, e in dlls().items():
        v = e["version"]
        expect(v is not None, f"{name}: no version resource")
        expect(v["file_version"] == VERSION and v["product_version"] == VERSION, (name, v))
        expect(v["fixed_file_version"] == VERSION and v["fixed_product_version"] == VERSION, (name, v))
        expect(v["company_name"] == "NVIDIA Corporation", (name, v))
        expect(v["original_filename"] == name, (name, v))
        expect(v["product_name"].startswith("NVIDIA cuDNN") and v["product_name"] == v["file_description"],
               (name, v))
    expect(dlls()["cudnn64_8.dll"]["version"]["product_name"] == "NVIDIA cuDNN Library", "cudnn64_8.dll")


@test
def imports_are_kernel32_and_sibling_cudnn_dlls_only():
    for name, e in dlls().items():
        expect(e["imports"] == SIBLINGS[name] + ["KERNEL32.dll"], (name, e["imports"]))
        expect(e["delay_imports"] == [], (name, e["delay_imports"]))


@test
def truncated_copy_loses_its_signature_and_says_so():
    src = os.path.join(DLL_DIR, "cudnn64_8.dll")
    data = open(src, "rb").read()
    cut = os.path.join(DLL_DIR, "truncated-cudnn64_8.dll.test")
    for size in (len(data) - 1, len(data) // 2, 600):
        with open(cut, "wb") as f:
            f.write(data[:size])
        e = dump([cut])[0]
        expect("error" not in e, (size, e.get("error")))
        expect(not e["has_signature"], size)
        expect(any("certificate table" in p and "(truncated?)" in p for p in e["problems"]), (size, e["problems"]))
    os.remove(cut)


if __name__ == "__main__":
    h.main(fetch)
