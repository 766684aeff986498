#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`cudnn-doctor probe` end to end: the real cuDNN 9 and cuBLAS of this machine loaded from the
copy the loader model names, each in an isolated child; NVIDIA's real stub libcuda when it is the
one found; and stand-ins with the vendors' real C ABI (tests/support/fake_cudnn.c, fake_cuda.c)
that crash, hang, kill their process group, fork, or compute a wrong convolution. A crash or hang
must become a finding while the doctor exits normally, and within the time limit."""
import json
import os
import subprocess
import tempfile
import time

import harness as h
from harness import expect, expect_contains, test

REAL_CUDNN = "/usr/local/cuda/lib64/libcudnn.so.9"
STUB = "/usr/local/cuda/lib64/stubs/libcuda.so"
FAKE_CUDNN_DIR = None  # libcudnn.so.9 stand-in
FAKE_CUDA_DIR = None   # libcuda.so.1 stand-in
STUB_DIR = None        # libcuda.so.1 -> the toolkit's stub, the classic container recipe
LIMIT = 120            # seconds any one doctor run may take before the test calls it hung


def build(src, soname, into):
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-O1", f"-Wl,-soname,{soname}", "-o",
                        os.path.join(into, soname), os.path.join(h.SOURCE, "tests", "support", src)],
                       capture_output=True, text=True)
    return None if r.returncode == 0 else f"cannot build {src}: {r.stderr.strip()}"


def probe():
    global FAKE_CUDNN_DIR, FAKE_CUDA_DIR, STUB_DIR
    if not os.path.exists(REAL_CUDNN) or not os.path.exists(STUB):
        return "needs the CUDA toolkit's cuDNN 9 and stub libcuda in /usr/local/cuda"
    FAKE_CUDNN_DIR = tempfile.mkdtemp(prefix="doctor-fake-cudnn-")
    FAKE_CUDA_DIR = tempfile.mkdtemp(prefix="doctor-fake-cuda-")
    STUB_DIR = tempfile.mkdtemp(prefix="doctor-stub-cuda-")
    for d in (FAKE_CUDNN_DIR, FAKE_CUDA_DIR, STUB_DIR):
        os.chmod(d, 0o755)  # the probe child gives up root for nobody: it must still load them
    os.symlink(STUB, os.path.join(STUB_DIR, "libcuda.so.1"))
    return build("fake_cudnn.c", "libcudnn.so.9", FAKE_CUDNN_DIR) or \
        build("fake_cuda.c", "libcuda.so.1", FAKE_CUDA_DIR)


def doctor(args, env=None):
    e = dict(os.environ)
    e.pop("LD_LIBRARY_PATH", None)
    e.update(env or {})
    start = time.monotonic()
    p = subprocess.run([h.EXE] + args, capture_output=True, text=True, env=e, timeout=LIMIT)
    return h.Result(p.returncode, p.stdout, p.stderr), time.monotonic() - start


def probe_json(*extra, env=None):
    r, _ = doctor(["probe", "--format", "json"] + list(extra), env)
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    doc = r.json()
    expect(doc["schema"] == "cudnn-doctor-probe/1", doc.get("schema"))
    return doc


def run_of(doc, name):
    runs = [p for p in doc["probes"] if p["probe"] == name]
    expect(len(runs) == 1, [p["probe"] for p in doc["probes"]])
    return runs[0]


ids = h.finding_ids
finding = h.only_finding


@test
def real_cudnn_is_probed_from_the_copy_the_loader_names():
    r, _ = doctor(["resolve", "libcudnn.so.9", "--format", "json"])
    chosen = r.json()["resolutions"][0]["found"]["path"]
    doc = probe_json()
    cudnn = run_of(doc, "cudnn")
    expect(cudnn["status"] == "answered", cudnn)
    expect(cudnn["library"]["path"] == chosen, (cudnn["library"], chosen))
    expect(cudnn["loaded"] == chosen, cudnn["loaded"])
    expect(cudnn["version"]["value"] == "9.19.0", cudnn["version"])
    expect(cudnn["runtime_version"]["value"].startswith("13."), cudnn["runtime_version"])
    # In a child: only the child reports how it was confined.
    expect("value" in cudnn["child"] and cudnn["child"]["value"]["no_new_privs"], cudnn["child"])
    create = [c for c in cudnn["calls"] if c["function"] == "cudnnCreate"]
    expect(len(create) == 1, cudnn["calls"])
    if not os.path.exists("/dev/nvidiactl"):
        # Measured on this machine without a driver: CUDNN_STATUS_NOT_INITIALIZED.
        expect(create[0]["result"] == 1001 and create[0]["name"] == "CUDNN_STATUS_NOT_INITIALIZED",
               create)
        expect(cudnn["computations"][0]["status"] == "skipped", cudnn["computations"])
        expect("probe.cudnn_handle_failed" in ids(doc), ids(doc))
    cublas = run_of(doc, "cublas")
    expect(cublas["status"] == "answered" and cublas["version"]["value"].count(".") == 2, cublas)


@test
def the_text_report_names_each_probe_and_the_library():
    r, _ = doctor(["probe"], {"NO_COLOR": "1"})
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    for needle in ("Probes", "nvml", "cudnn", "version 9.19.0", "cudnnCreate", "Findings:"):
        expect_contains(r.out, needle)
    expect("\x1b[" not in r.out, "colour with NO_COLOR")


@test
def the_stub_libcuda_is_reported_with_its_origin():
    doc = probe_json(env={"LD_LIBRARY_PATH": STUB_DIR})
    cuda = run_of(doc, "cuda")
    expect(cuda["library"]["path"] == os.path.join(STUB_DIR, "libcuda.so.1"), cuda["library"])
    expect(cuda["library"]["found_via"] == "LD_LIBRARY_PATH", cuda["library"])
    init = [c for c in cuda["calls"] if c["function"] == "cuInit"]
    expect(init and init[0]["result"] == 34 and init[0]["name"] == "CUDA_ERROR_STUB_LIBRARY", cuda["calls"])
    f = finding(doc, "probe.cuda_stub_library")
    expect(f["severity"] == "error" and f["cause_class"] == "environment.conflict", f)
    expect_contains(f["message"], "LD_LIBRARY_PATH")
    expect_contains(json.dumps(f["evidence"]), os.path.realpath(STUB))


@test
def a_segfault_in_cudnn_is_a_finding_with_the_evidence():
    doc = probe_json(env={"LD_LIBRARY_PATH": FAKE_CUDNN_DIR, "FAKE_CUDNN_MODE": "segv"})
    cudnn = run_of(doc, "cudnn")
    expect(cudnn["library"]["path"] == os.path.join(FAKE_CUDNN_DIR, "libcudnn.so.9"), cudnn["library"])
    expect(cudnn["status"] == "crashed" and cudnn["signal"] == 11, cudnn)
    expect_contains(cudnn["stderr_tail"], "about to dereference NULL")
    f = finding(doc, "probe.child_failed")
    expect_contains(f["message"], "SIGSEGV")
    expect_contains(json.dumps(f["evidence"]), "about to dereference NULL")
    expect(doc["summary"]["exit_code"] == 1, doc["summary"])
    # The other probes still ran.
    expect(run_of(doc, "cublas")["status"] == "answered", run_of(doc, "cublas"))


@test
def a_hang_in_cudnn_is_killed_at_the_time_limit():
    r, took = doctor(["probe", "--format", "json", "--timeout", "2"],
                     {"LD_LIBRARY_PATH": FAKE_CUDNN_DIR, "FAKE_CUDNN_MODE": "hang"})
    expect(r.code == 1, f"exit {r.code}: {r.err}")
    doc = r.json()
    cudnn = run_of(doc, "cudnn")
    expect(cudnn["status"] == "timed_out", cudnn)
    expect_contains(finding(doc, "probe.child_failed")["message"], "did not answer within the time limit")
    print(f"  (the doctor returned after {took:.1f} s with a 2 s limit per probe)")


@test
def a_kill_of_the_process_group_ends_only_the_child():
    doc = probe_json(env={"LD_LIBRARY_PATH": FAKE_CUDNN_DIR, "FAKE_CUDNN_MODE": "killpg"})
    cudnn = run_of(doc, "cudnn")
    expect(cudnn["status"] == "crashed" and cudnn["signal"] == 15, cudnn)
    expect("probe.child_failed" in ids(doc), ids(doc))


@test
def a_grandchild_forked_by_cudnn_does_not_outlive_the_doctor():
    pidfile = os.path.join(tempfile.mkdtemp(prefix="doctor-fork-"), "pid")
    os.chmod(os.path.dirname(pidfile), 0o777)  # the child runs as nobody
    doc = probe_json(env={"LD_LIBRARY_PATH": FAKE_CUDNN_DIR, "FAKE_CUDNN_MODE": "fork",
                          "FAKE_CUDNN_PIDFILE": pidfile})
    cudnn = run_of(doc, "cudnn")
    expect(cudnn["status"] == "answered" and cudnn["version"]["value"] == "9.1.0", cudnn)
    pid = int(open(pidfile).read())
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    expect(not alive, f"grandchild {pid} still runs")


@test
def a_working_stack_runs_the_convolution_and_checks_it():
    env = {"LD_LIBRARY_PATH": f"{FAKE_CUDNN_DIR}:{FAKE_CUDA_DIR}"}
    doc = probe_json(env=env)
    cuda = run_of(doc, "cuda")
    expect(cuda["version"]["value"] == "13.0", cuda)
    devices = cuda["devices"]["value"]
    expect(len(devices) == 1 and devices[0]["name"]["value"] == "NVIDIA H200", devices)
    expect(devices[0]["context"]["value"]["result"] == 0, devices[0])
    conv = run_of(doc, "cudnn")["computations"]
    expect(conv[0]["name"] == "convolution_forward" and conv[0]["status"] == "passed", conv)
    expect(conv[0]["elements"] == 108 and conv[0]["max_abs_error"] == "0", conv)
    expect(not [i for i in ids(doc) if i.startswith("probe.cuda") or i.startswith("hardware.")], ids(doc))
    wrong = probe_json(env=dict(env, FAKE_CUDNN_MODE="wrong"))
    f = finding(wrong, "hardware.compute_mismatch")
    expect(f["severity"] == "critical" and f["cause_class"] == "hardware.unstable", f)
    expect_contains(f["message"], "1 of 108 values")


@test
def driver_api_failures_name_their_cause():
    for mode, fid in (("nodevice", "probe.cuda_no_device"), ("old", "probe.cuda_driver_too_old"),
                      ("noctx", "probe.cuda_context_failed")):
        doc = probe_json(env={"LD_LIBRARY_PATH": FAKE_CUDA_DIR, "FAKE_CUDA_MODE": mode})
        expect(fid in ids(doc), (mode, ids(doc)))


@test
def lib_overrides_the_loader_and_is_checked():
    doc = probe_json("--lib", f"cudnn={FAKE_CUDNN_DIR}/libcudnn.so.9", env={"FAKE_CUDNN_MODE": "noinit"})
    cudnn = run_of(doc, "cudnn")
    expect(cudnn["library"]["found_via"] == "--lib" and cudnn["version"]["value"] == "9.1.0", cudnn)
    for bad in (["--lib", "cudnn"], ["--lib", "nvml=/x"], ["--lib", "cudnn="]):
        r, _ = doctor(["probe"] + bad)
        expect(r.code == 2, f"{bad}: exit {r.code}")
        expect_contains(r.err, "--lib")


@test
def a_snapshot_with_probes_is_judged_by_check():
    r, _ = doctor(["snapshot", "--probe"], {"LD_LIBRARY_PATH": FAKE_CUDNN_DIR, "FAKE_CUDNN_MODE": "segv"})
    expect(r.code == 0, f"exit {r.code}: {r.err}")
    snap = r.json()
    expect(snap["probe"]["ran"] is True, snap["probe"]["ran"])
    path = os.path.join(tempfile.mkdtemp(prefix="doctor-probe-snap-"), "snap.json")
    with open(path, "w") as f:
        f.write(r.out)
    r, _ = doctor(["check", "--snapshot", path, "--format", "json"])
    expect(r.code == 1, f"exit {r.code}: {r.err}")
    doc = r.json()
    h.validate(doc, "report.schema.json")
    expect("probe.child_failed" in ids(doc), ids(doc))
    r, _ = doctor(["snapshot", "--lib", "cudnn=/x"])
    expect(r.code == 2, f"exit {r.code}")


if __name__ == "__main__":
    h.main(probe)
