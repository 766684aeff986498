#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`probe` and `stress` on a live Windows machine, under wine, in a prefix this test owns.

  test_probe.py CUDNN_DOCTOR_EXE WORK_DIR [--keep]

The driver, cuDNN and cuBLAS stand-ins (tests/support/fake_cuda.c, fake_cudnn.c, fake_cublas.c)
are built with mingw-w64 as nvcuda.dll, cudnn64_9.dll and cublas64_12.dll. With none planted,
`probe` must report the driver API probe not run (probe.not_run) with every place the Windows
search looked (System32, PATH). With nvcuda.dll in C:\\windows\\system32, cudnn64_9.dll in
C:\\cudnn\\bin and cublas64_12.dll in C:\\cuda\\bin (both on PATH through WINEPATH), the
children must load the planted copies, chosen by the Windows loader model (found_via System32 and
PATH), and cuDNN's convolution must be checked; a cuInit that crashes (FAKE_CUDA_MODE=initsegv)
and a cudnnGetVersion that dereferences NULL (FAKE_CUDNN_MODE=segv) must become
probe.child_failed naming the access violation 0xC0000005, and one that never returns
(FAKE_CUDNN_MODE=hang) a timed_out run ended at --timeout; `stress --level quick` must complete
on the stand-in and `--inject-fault gemm` must be caught (hardware.gemm_mismatch). Last, NVML's
stand-in (fake_nvml.c) as nvml.dll in System32 with an overclocked card that throttles must give
hardware.gpu_overclocked and hardware.gpu_throttling, as on Linux.
Exits 125 (skip) without wine or mingw-w64.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_live_collectors import run_in_fresh_prefix  # noqa: E402  (a wine prefix of its own)

SUPPORT = os.path.join(HERE, "..", "support")
NVCUDA = r"C:\windows\system32\nvcuda.dll"
CUDA_BIN = r"C:\cuda\bin"
CUBLAS = CUDA_BIN + r"\cublas64_12.dll"
CUDNN_BIN = r"C:\cudnn\bin"
CUDNN = CUDNN_BIN + r"\cudnn64_9.dll"
# The planted DLLs, never a builtin of wine's of the same name; and no winedbg: wine starts its
# debugger on an unhandled exception even in a process with SEM_NOGPFAULTERRORBOX (which
# platform::confine_child sets, and which keeps Windows' own error reporting from holding the
# child), so a crashed child would wait there until the time limit.
OVERRIDES = "mscoree,mshtml=;nvcuda,nvml,cudnn64_9,cublas64_12=n;winedbg.exe=d"
NVML = r"C:\windows\system32\nvml.dll"

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def host_path(prefix, winpath):
    assert winpath[:3].lower() == "c:\\"
    return os.path.join(prefix, "drive_c", *winpath[3:].split("\\"))


def build(src, out):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.run(["x86_64-w64-mingw32-gcc", "-shared", "-O1", "-o", out,
                    os.path.join(SUPPORT, src)], check=True, capture_output=True, text=True)


def doctor_json(wine, exe, args, extra_env=None):
    env = {"WINEPATH": CUDA_BIN + ";" + CUDNN_BIN, "WINEDLLOVERRIDES": OVERRIDES}
    env.update(extra_env or {})
    p = wine.run([exe] + args + ["--format", "json"], env, check=False)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        expect(False, f"{args}: stdout is not JSON (exit {p.returncode}):\n"
                      f"{p.stdout[:3000]}\n{p.stderr[:3000]}")
        return p.returncode, None


def run_of(doc, name):
    runs = [p for p in doc["probes"] if p["probe"] == name]
    expect(len(runs) == 1, f"probe {name} in {[p['probe'] for p in doc['probes']]}")
    return runs[0] if runs else {}


def findings(doc, fid):
    return [f for f in doc["findings"] if f["id"] == fid]


def no_driver(wine, exe):
    rc, doc = doctor_json(wine, exe, ["probe"])
    if doc is None:
        return
    cuda = run_of(doc, "cuda")
    expect(cuda.get("status") == "library_not_found", f"no driver: cuda run {cuda}")
    searched = [s.lower() for s in cuda.get("library", {}).get("searched", [])]
    expect(any(s.startswith(NVCUDA.lower()) and "system32" in s for s in searched),
           f"no driver: System32 not among the places searched {searched}")
    expect(any(s.startswith((CUDA_BIN + r"\nvcuda.dll").lower()) for s in searched),
           f"no driver: the PATH folder not among the places searched {searched}")
    nf = [f for f in findings(doc, "probe.not_run") if "nvcuda.dll" in json.dumps(f)]
    expect(nf and any("system32" in json.dumps(f["evidence"]).lower() for f in nf),
           f"no driver: probe.not_run with the places searched {doc['findings']}")


def planted(wine, exe):
    rc, doc = doctor_json(wine, exe, ["probe"])
    if doc is None:
        return
    cuda = run_of(doc, "cuda")
    lib = cuda.get("library", {})
    expect(lib.get("path", "").lower() == NVCUDA.lower() and lib.get("found_via") == "System32",
           f"planted: cuda library {lib}")
    expect(cuda.get("status") == "answered", f"planted: cuda run {cuda}")
    version = (cuda.get("version") or {}).get("value", "")
    expect(version.startswith("13"), f"planted: driver version {cuda.get('version')}")
    init = [c for c in cuda.get("calls", []) if c.get("function") == "cuInit"]
    expect(init and init[0].get("result") == 0, f"planted: cuInit {init}")
    cublas = run_of(doc, "cublas")
    lib = cublas.get("library", {})
    expect(lib.get("path", "").lower() == CUBLAS.lower() and lib.get("found_via") == "PATH",
           f"planted: cublas library {lib}")
    expect(cublas.get("status") == "answered", f"planted: cublas run {cublas}")
    cudnn = run_of(doc, "cudnn")
    lib = cudnn.get("library", {})
    expect(lib.get("path", "").lower() == CUDNN.lower() and lib.get("found_via") == "PATH",
           f"planted: cudnn library {lib}")
    expect(cudnn.get("status") == "answered"
           and (cudnn.get("version") or {}).get("value") == "9.1.0", f"planted: cudnn run {cudnn}")
    conv = cudnn.get("computations", [])
    expect(conv and conv[0].get("name") == "convolution_forward"
           and conv[0].get("status") == "passed", f"planted: cudnn's convolution {conv}")
    bad = [f["id"] for f in doc["findings"] if f["id"].startswith(("hardware.", "probe.cuda"))
           or f["id"] in ("probe.child_failed", "probe.library_not_loaded")]
    expect(not bad, f"planted: findings {bad}")


def crash(wine, exe):
    rc, doc = doctor_json(wine, exe, ["probe"], {"FAKE_CUDA_MODE": "initsegv"})
    if doc is None:
        return
    cuda = run_of(doc, "cuda")
    expect(cuda.get("status") == "crashed" and (cuda.get("signal", 0) & 0xFFFFFFFF) == 0xC0000005,
           f"crash: cuda run {cuda}")
    f = findings(doc, "probe.child_failed")
    text = json.dumps(f)
    expect(f and "0xC0000005" in text and "access violation" in text,
           f"crash: probe.child_failed naming the exception {f}")
    expect(rc == 1, f"crash: exit {rc}")
    rc, doc = doctor_json(wine, exe, ["probe"], {"FAKE_CUDNN_MODE": "segv"})
    if doc is None:
        return
    cudnn = run_of(doc, "cudnn")
    expect(cudnn.get("status") == "crashed"
           and (cudnn.get("signal", 0) & 0xFFFFFFFF) == 0xC0000005
           and "about to dereference NULL" in cudnn.get("stderr_tail", ""),
           f"crash: cudnn run {cudnn}")
    expect(run_of(doc, "cuda").get("status") == "answered", "crash: the cuda probe still answers")


def hang(wine, exe):
    # A cudnnGetVersion that never returns: the child (in a job object) is ended at the time
    # limit, the other probes still answer, and the doctor returns on time.
    start = time.monotonic()
    rc, doc = doctor_json(wine, exe, ["probe", "--timeout", "3"], {"FAKE_CUDNN_MODE": "hang"})
    took = time.monotonic() - start
    if doc is None:
        return
    cudnn = run_of(doc, "cudnn")
    expect(cudnn.get("status") == "timed_out", f"hang: cudnn run {cudnn}")
    f = findings(doc, "probe.child_failed")
    expect(f and "did not answer within the time limit" in f[0]["message"],
           f"hang: probe.child_failed {f}")
    expect(run_of(doc, "cuda").get("status") == "answered", "hang: the cuda probe still answers")
    expect(rc == 1, f"hang: exit {rc}")
    print(f"  (hang: the doctor returned after {took:.1f} s with a 3 s limit per probe)")


def stress(wine, exe):
    rc, doc = doctor_json(wine, exe, ["stress", "--level", "quick"])
    if doc is None:
        return
    run = doc["run"]
    expect(rc == 0 and run.get("status") == "completed", f"stress: exit {rc}, run {run}")
    lib = run.get("library", {})
    expect(lib.get("path", "").lower() == NVCUDA.lower(), f"stress: library {lib}")
    expect(doc["findings"] == [], f"stress: findings {doc['findings']}")
    rc, doc = doctor_json(wine, exe, ["stress", "--level", "quick", "--inject-fault", "gemm"])
    if doc is None:
        return
    expect(rc == 1 and [f["id"] for f in doc["findings"]] == ["hardware.gemm_mismatch"],
           f"stress --inject-fault gemm: exit {rc}, findings {doc['findings']}")


def odd_telemetry(wine, exe):
    # NVML's stand-in as nvml.dll: an overclocked card that throttles is judged as on Linux.
    rc, doc = doctor_json(wine, exe, ["probe"], {"FAKE_NVML_MODE": "overclock,throttle"})
    if doc is None:
        return
    ids = sorted(f["id"] for f in doc["findings"] if f["id"].startswith("hardware."))
    expect(ids == ["hardware.gpu_overclocked", "hardware.gpu_throttling"],
           f"telemetry: hardware findings {ids}")
    over = findings(doc, "hardware.gpu_overclocked")
    expect(over and "power limit 800 W, default 700 W" in over[0]["message"],
           f"telemetry: overclock message {over}")


def examine(wine, work, prefix, exe):
    nvcuda = host_path(prefix, NVCUDA)
    if os.path.exists(nvcuda):
        os.remove(nvcuda)  # a wine build with a placeholder of its own
    os.makedirs(host_path(prefix, CUDA_BIN), exist_ok=True)
    no_driver(wine, exe)
    build("fake_cuda.c", nvcuda)
    build("fake_cublas.c", host_path(prefix, CUBLAS))
    build("fake_cudnn.c", host_path(prefix, CUDNN))
    planted(wine, exe)
    crash(wine, exe)
    hang(wine, exe)
    stress(wine, exe)
    build("fake_nvml.c", host_path(prefix, NVML))
    odd_telemetry(wine, exe)
    return None


def main():
    return run_in_fresh_prefix(__doc__, failures, examine)


if __name__ == "__main__":
    sys.exit(main())
