#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`cudnn-doctor stress` end to end without a GPU: against a stand-in libcuda.so.1 that speaks the
driver API's real C ABI and runs the doctor's PTX kernels on host memory, checking each kernel's
parameter list against the shipped PTX (tests/support/fake_cuda.c), with NVML's stand-in
(fake_nvml.c) for the telemetry; and against the real stub libcuda of the CUDA toolkit. Each
scenario must give its finding and exit status, and the doctor must return on time."""
import os
import subprocess
import tempfile

import harness as h
from harness import expect, expect_contains, test

STUB = "/usr/local/cuda/lib64/stubs/libcuda.so"
LIMIT = 120  # seconds a doctor run may take before the test fails instead of waiting
FAKE_CUDA = None
FAKE_CUBLAS = None
NVML_DIR = None


def build(src, soname, into):
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-O1", f"-Wl,-soname,{soname}", "-o",
                        os.path.join(into, soname), os.path.join(h.SOURCE, "tests", "support", src)],
                       capture_output=True, text=True)
    return None if r.returncode == 0 else f"cannot build {src}: {r.stderr.strip()}"


def probe():
    global FAKE_CUDA, FAKE_CUBLAS, NVML_DIR
    cuda_dir = tempfile.mkdtemp(prefix="doctor-stress-cuda-")
    NVML_DIR = tempfile.mkdtemp(prefix="doctor-stress-nvml-")
    for d in (cuda_dir, NVML_DIR):
        os.chmod(d, 0o755)  # the child gives up root for nobody: it must still load them
    FAKE_CUDA = os.path.join(cuda_dir, "libcuda.so.1")
    FAKE_CUBLAS = os.path.join(cuda_dir, "libcublas.so.13")
    return build("fake_cuda.c", "libcuda.so.1", cuda_dir) or \
        build("fake_cublas.c", "libcublas.so.13", cuda_dir) or \
        build("fake_nvml.c", "libnvidia-ml.so.1", NVML_DIR)


def stress(*args, mode="ok", lib=None, env=None):
    e = dict(os.environ)
    e.pop("LD_LIBRARY_PATH", None)
    e["FAKE_CUDA_MODE"] = mode
    e.update(env or {})
    argv = [h.EXE, "stress", "--format", "json", "--lib", f"cuda={lib or FAKE_CUDA}",
            "--lib", f"cublas={FAKE_CUBLAS}"] + list(args)
    p = subprocess.run(argv, capture_output=True, text=True, env=e, timeout=LIMIT)
    r = h.Result(p.returncode, p.stdout, p.stderr)
    doc = r.json()
    expect(doc["schema"] == "cudnn-doctor-stress/1", doc.get("schema"))
    h.validate(doc, "stress.schema.json")
    expect(doc["summary"]["exit_code"] == r.code, (doc["summary"], r.code))
    return r, doc


ids = h.finding_ids
finding = h.only_finding


@test
def a_healthy_gpu_passes_every_phase_over_most_of_its_memory():
    r, doc = stress()
    h.expect_exit(r, 0)
    run = doc["run"]
    expect(run["status"] == "completed", run)
    expect(ids(doc) == [], ids(doc))
    m = run["memory"]
    expect(m["errors"] == 0 and m["coverage_of_free"] >= 0.9, m)
    expect(set(m["pattern_errors"]) == {"walking_ones", "walking_zeros", "own_address",
                                        "moving_inversions", "random"}, m["pattern_errors"])
    g = run["gemm"]
    expect(g["iterations"] == 10 and g["reference_checked"] == 256, g)
    expect(g["run_mismatches"] == 0 and g["reference_mismatches"] == 0 and g["nan"] == 0, g)
    expect(g["cublas"]["status"] == "compared" and g["cublas"]["mismatches"] == 0, g["cublas"])
    expect(run["bandwidth"]["device_to_device"] is not None, run["bandwidth"])
    # No NVML here: absolute figures only, and the reason.
    expect_contains(run["peaks"]["note"], "no theoretical peak")


@test
def a_stuck_bit_is_reported_with_its_address_and_bit():
    r, doc = stress(mode="stuckbit")
    h.expect_exit(r, 1)
    f = finding(doc, "hardware.memory_test_errors")
    expect(f["severity"] == "critical", f["severity"])
    expect_contains(f["message"], "address 0x7e0000100040, bit(s) 5")
    log = doc["run"]["memory"]["error_log"]
    expect(all(e["address"] == 0x7e0000100040 and e["bits"] == 32 for e in log), log)


@test
def a_corrupted_gemm_result_is_a_finding():
    r, doc = stress(mode="badgemm")
    h.expect_exit(r, 1)
    f = finding(doc, "hardware.gemm_mismatch")
    expect_contains(f["message"], "1 elements differed from the first run")
    expect(doc["run"]["gemm"]["run_mismatches"] == 1, doc["run"]["gemm"])


@test
def a_gemm_that_differs_from_cublas_is_a_finding():
    r, doc = stress(env={"FAKE_CUBLAS_MODE": "wrong"})
    h.expect_exit(r, 1)
    g = doc["run"]["gemm"]
    expect(g["cublas"]["mismatches"] == 1 and g["reference_mismatches"] == 0, g)
    expect_contains(finding(doc, "hardware.gemm_mismatch")["message"], "differ from cuBLAS")


@test
def injected_faults_are_caught_by_the_same_checks():
    r, doc = stress("--inject-fault", "memtest")
    h.expect_exit(r, 1)
    expect(doc["run"]["inject"] == "memtest", doc["run"]["inject"])
    expect(doc["run"]["memory"]["errors"] == 1, doc["run"]["memory"])
    expect_contains(finding(doc, "hardware.memory_test_errors")["message"], "bit(s) 0")
    r, doc = stress("--inject-fault", "gemm")
    h.expect_exit(r, 1)
    g = doc["run"]["gemm"]
    expect(g["reference_mismatches"] == 1 and g["run_mismatches"] > 0, g)
    finding(doc, "hardware.gemm_mismatch")


@test
def a_segfault_in_a_launch_is_a_finding_and_the_doctor_returns():
    r, doc = stress(mode="launchsegv")
    h.expect_exit(r, 1)
    expect(doc["run"]["status"] == "crashed" and doc["run"]["signal"] == 11, doc["run"])
    f = finding(doc, "stress.child_failed")
    expect_contains(f["message"], "SIGSEGV")
    expect_contains(doc["run"]["stderr_tail"], "segfault in cuLaunchKernel")


@test
def a_hang_in_a_launch_is_killed_at_the_time_limit():
    r, doc = stress("--timeout", "2", mode="launchhang")
    h.expect_exit(r, 1)
    expect(doc["run"]["status"] == "timed_out", doc["run"])
    finding(doc, "stress.child_failed")


@test
def without_a_gpu_it_says_why_and_exits_4():
    if os.path.exists(STUB):
        r, doc = stress(lib=STUB)
        h.expect_exit(r, 4)
        f = finding(doc, "stress.not_run")
        expect_contains(f["message"], "CUDA_ERROR_STUB_LIBRARY")
        expect_contains(f["message"], "link-time stub")
    r, doc = stress(mode="nodevice")
    h.expect_exit(r, 4)
    expect_contains(finding(doc, "stress.not_run")["message"], "CUDA_ERROR_NO_DEVICE")
    r, doc = stress(lib="/nonexistent/libcuda.so.1")
    h.expect_exit(r, 4)
    expect_contains(finding(doc, "stress.not_run")["message"], "cannot be loaded")
    r, doc = stress("--gpu", "3")
    h.expect_exit(r, 4)
    expect_contains(finding(doc, "stress.not_run")["message"], "there is no GPU 3")


@test
def nvml_is_sampled_during_the_run_and_a_slowdown_is_reported():
    r, doc = stress(env={"LD_LIBRARY_PATH": NVML_DIR, "FAKE_NVML_MODE": "throttle"})
    h.expect_exit(r, 0)  # a warning: below --fail-on error
    t = doc["run"]["telemetry"]
    expect(t["samples"] >= 1, t)
    expect(t["readings"]["temperature_c"]["max"] == 92, t)
    expect(doc["run"]["peaks"]["pcie"] is not None, doc["run"]["peaks"])
    f = finding(doc, "stress.gpu_slowed_down")
    expect_contains(f["message"], "SW_THERMAL_SLOWDOWN")
    r, doc = stress("--fail-on", "warning", env={"LD_LIBRARY_PATH": NVML_DIR,
                                                 "FAKE_NVML_MODE": "throttle"})
    h.expect_exit(r, 1)


@test
def text_output_and_usage_errors():
    e = dict(os.environ, FAKE_CUDA_MODE="ok")
    p = subprocess.run([h.EXE, "stress", "--lib", f"cuda={FAKE_CUDA}"], capture_output=True,
                       text=True, env=e, timeout=LIMIT)
    expect(p.returncode == 0, p.stderr)
    expect_contains(p.stdout, "memory  ")
    expect_contains(p.stdout, "of 32.0 MiB free tested")
    expect("\rstress:" not in p.stderr, "progress printed to a standard error that is no terminal")
    p = subprocess.run([h.EXE, "stress", "--lib", "cudnn=/x"], capture_output=True, text=True,
                       timeout=LIMIT)
    expect(p.returncode == 2, (p.returncode, p.stderr))
    p = subprocess.run([h.EXE, "stress", "--level", "forever"], capture_output=True, text=True,
                       timeout=LIMIT)
    expect(p.returncode == 2, (p.returncode, p.stderr))


if __name__ == "__main__":
    h.main(probe)
