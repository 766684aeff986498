#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A virtual environment with the real torch wheel from PyPI (it brings nvidia-cudnn-cu1x and the
other NVIDIA wheels): `check` must name the torch version and the CUDA it was built with, and the
pip cuDNN it ships, complete and with the wheel's version.

The download is about 3 GB, so this runs only under the ctest label `realistic`. The environment
is kept in DOCTOR_TORCH_VENV (default: build/realistic/torch-venv) and reused when it exists."""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness as h  # noqa: E402
from harness import expect, run, test  # noqa: E402

VENV = None


def ensure_venv():
    global VENV
    VENV = os.environ.get("DOCTOR_TORCH_VENV") or os.path.join(h.SOURCE, "build", "realistic", "torch-venv")
    if not os.path.exists(os.path.join(VENV, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    sp = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages", "torch", "version.py"))
    if not sp:
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "--progress-bar", "off", "torch"], check=True)


def pip_version(name):
    out = subprocess.run([os.path.join(VENV, "bin", "python"), "-c",
                          f"import importlib.metadata as m; print(m.version({name!r}))"],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None


def doctor_json():
    path = os.environ.get("PATH", "")
    r = run(["check", "--format", "json", "--env", f"VIRTUAL_ENV={VENV}", "--env", f"PATH={VENV}/bin:{path}"])
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    return r.json()


@test
def names_torch_its_cuda_and_its_pip_cudnn():
    doc = doctor_json()
    h.validate(doc, "report.schema.json")
    envs = [e for e in doc["inventory"]["python_environments"] if e["prefix"] == os.path.realpath(VENV)]
    expect(len(envs) == 1, [e["prefix"] for e in doc["inventory"]["python_environments"]])
    torch = [f for f in envs[0]["frameworks"] if f["name"] == "torch"]
    expect(len(torch) == 1, envs[0]["frameworks"])
    # What torch itself says: torch/version.py, read by the interpreter of the environment.
    truth = subprocess.run([os.path.join(VENV, "bin", "python"), "-c",
                            "import runpy, glob, sys; v = runpy.run_path(glob.glob(sys.prefix + "
                            "'/lib/python3*/site-packages/torch/version.py')[0]); "
                            "print(v['__version__']); print(v['cuda'])"],
                           capture_output=True, text=True, check=True).stdout.split()
    expect(torch[0]["version"] is not None and torch[0]["version"].split("+")[0] == truth[0].split("+")[0],
           (torch[0], truth))
    expect(torch[0]["cuda"] == truth[1], (torch[0], truth))

    cudnn_pkgs = [p for p in ("nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11") if pip_version(p)]
    expect(cudnn_pkgs, "torch brought no nvidia-cudnn wheel")
    wheel = pip_version(cudnn_pkgs[0])
    copies = [c for c in doc["inventory"]["cudnn"] if c["dir"].startswith(os.path.realpath(VENV))]
    expect(len(copies) == 1, doc["inventory"]["cudnn"])
    expect(copies[0]["package"] == f"pip {cudnn_pkgs[0]} {wheel}", copies[0])
    expect(wheel.startswith(copies[0]["version"]), (copies[0]["version"], wheel))
    expect(torch[0]["cudnn"] == wheel, torch[0])
    # Security findings about NVIDIA's own packaging (libcusparseLt's RUNPATH "$ORIGIN:" ends in an
    # empty entry, i.e. the current directory) are real, but not what this test is about.
    bad = [f["id"] for f in doc["findings"]
           if f["subject"].startswith(os.path.realpath(VENV)) and not f["id"].startswith("security.")]
    expect(not bad, f"findings about the fresh venv's own cuDNN: {bad}")


if __name__ == "__main__":
    h.main(lambda: ensure_venv())
