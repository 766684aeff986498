"""TensorFlow 2.15 from pip in a conda env whose cuDNN comes from conda-forge.

Ubuntu 22.04 desktop with an RTX 4090 on the 535 driver, everything working. Miniconda lives in
/opt/conda (base: Python 3.11.5). Following TensorFlow's older conda instructions the user made
the env /opt/conda/envs/tf (Python 3.11.7 from conda-forge), ran `conda install -c conda-forge
cudnn=8.9.2.26` (build cuda12_0: lib/libcudnn*.so.8.9.2 with their .so.8 and .so links,
include/cudnn_version.h, and conda-meta/cudnn-8.9.2.26-cuda12_0.json listing them in "files" and
"paths_data" with sizes and hashes), then `pip install tensorflow==2.15.0` (its build_info.py
records CUDA 12.2 and cuDNN 8), and added LD_LIBRARY_PATH=$CONDA_PREFIX/lib in the env's
activate.d script. The shell has the env activated. (The CUDA 12 runtime packages the env also
needs are left out: the doctor does not read them.)

Expected: no finding; the inventory shows the env (conda, Python 3.11.7) with tensorflow 2.15.0
built for CUDA 12.2 and cuDNN 8, and the cuDNN 8.9.2 in /opt/conda/envs/tf/lib owned by conda
cudnn 8.9.2.26 (found via the conda env and LD_LIBRARY_PATH)."""

import hashlib
import json
import os

BASE = "/opt/conda"
ENVP = f"{BASE}/envs/tf"
ENV = {
    "CONDA_DEFAULT_ENV": "tf",
    "CONDA_EXE": f"{BASE}/bin/conda",
    "CONDA_PREFIX": ENVP,
    "HOME": "/home/user",
    "LD_LIBRARY_PATH": f"{ENVP}/lib/",
    "PATH": f"{ENVP}/bin:{BASE}/condabin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
}
EXIT = 0

BUILD_INFO = '''# Copyright 2020 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# ==============================================================================
"""Auto-generated module providing information about the build."""
import collections

build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), \
('cuda_compute_capabilities', ['sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), \
('cuda_version', '12.2'), ('cudnn_version', '8'), ('is_cuda_build', True), \
('is_rocm_build', False), ('is_tensorrt_build', True)])
'''


def conda_meta(t, prefix, name, version, build, files, depends, spec=None):
    """conda-meta/<name>-<version>-<build>.json as conda 23 writes it."""
    paths = []
    for rel in files:
        p = t.path(f"{prefix}/{rel}")
        if os.path.islink(p):
            paths.append({"_path": rel, "path_type": "softlink",
                          "sha256": hashlib.sha256(os.readlink(p).encode()).hexdigest(),
                          "size_in_bytes": len(os.readlink(p))})
        else:
            data = open(p, "rb").read()
            paths.append({"_path": rel, "path_type": "hardlink",
                          "sha256": hashlib.sha256(data).hexdigest(), "size_in_bytes": len(data)})
    fn = f"{name}-{version}-{build}.conda"
    doc = {
        "build": build,
        "build_number": 0,
        "channel": "https://conda.anaconda.org/conda-forge/linux-64",
        "constrains": [],
        "depends": depends,
        "extracted_package_dir": f"{BASE}/pkgs/{name}-{version}-{build}",
        "features": "",
        "files": list(files),
        "fn": fn,
        "license": "LicenseRef-cuDNN-Software-License-Agreement" if name == "cudnn" else "Python-2.0",
        "link": {"source": f"{BASE}/pkgs/{name}-{version}-{build}", "type": 1},
        "md5": hashlib.md5(fn.encode()).hexdigest(),
        "name": name,
        "package_tarball_full_path": f"{BASE}/pkgs/{fn}",
        "paths_data": {"paths": paths, "paths_version": 1},
        "requested_spec": spec or "None",
        "sha256": hashlib.sha256(fn.encode()).hexdigest(),
        "size": 441_000_000 if name == "cudnn" else 30_000_000,
        "subdir": "linux-64",
        "timestamp": 1686740000000,
        "url": f"https://conda.anaconda.org/conda-forge/linux-64/{fn}",
        "version": version,
    }
    t.text(f"{prefix}/conda-meta/{name}-{version}-{build}.json", json.dumps(doc, indent=1) + "\n")


def python_in(t, prefix, minor):
    t.text(f"{prefix}/bin/python{minor}", "# stand-in for the interpreter; never executed\n", 0o755)
    t.symlink(f"{prefix}/bin/python3", f"python{minor}")
    t.symlink(f"{prefix}/bin/python", f"python{minor}")
    t.text(f"{prefix}/lib/python{minor}/os.py", "# stand-in\n")
    t.mkdir(f"{prefix}/lib/python{minor}/site-packages")


def build(t):
    t.ubuntu_base(kernel="6.5.0-41-generic", cpu="13th Gen Intel(R) Core(TM) i9-13900K", cpus=32,
                  mem_gib=64)
    t.desktop_bus()
    t.working_nvidia("535.183.01", gpus=(("0000:01:00.0", 0x2684, 0x22ba),))

    # Miniconda's base.
    python_in(t, BASE, "3.11")
    t.text(f"{BASE}/condabin/conda", "#!/bin/sh\n# stand-in for conda\n", 0o755)
    t.text(f"{BASE}/bin/conda", "#!/opt/conda/bin/python\n# stand-in for conda\n", 0o755)
    conda_meta(t, BASE, "python", "3.11.5", "h955ad1f_0", ["bin/python3.11"], ["libgcc-ng >=11.2.0"])
    t.text(f"{BASE}/conda-meta/history", "==> 2023-12-01 10:00:00 <==\n# cmd: constructor\n")

    # The env.
    python_in(t, ENVP, "3.11")
    conda_meta(t, ENVP, "python", "3.11.7", "hab00c5b_1_cpython", ["bin/python3.11"],
               ["libgcc-ng >=12", "libzlib >=1.2.13,<2.0.0a0"], "python=3.11")
    lib = f"{ENVP}/lib"
    t.cudnn_versioned(lib, "8.9.2", t.CUDNN8_STEMS)
    t.cudnn_header(f"{ENVP}/include/cudnn_version.h", "8.9.2")
    files = ["include/cudnn_version.h"]
    for stem in t.CUDNN8_STEMS:
        files += [f"lib/{stem}.so", f"lib/{stem}.so.8", f"lib/{stem}.so.8.9.2"]
    conda_meta(t, ENVP, "cudnn", "8.9.2.26", "cuda12_0", sorted(files),
               ["__glibc >=2.17", "cuda-nvrtc", "cuda-version >=12.0,<13", "libcublas",
                "libgcc-ng >=12", "libstdcxx-ng >=12", "libzlib >=1.2.13,<2.0.0a0"],
               "conda-forge::cudnn=8.9.2.26")
    t.text(f"{ENVP}/etc/conda/activate.d/env_vars.sh",
           "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/\n")
    t.text(f"{ENVP}/conda-meta/history",
           "==> 2024-01-15 09:12:44 <==\n# cmd: /opt/conda/bin/conda create -n tf python=3.11\n"
           "==> 2024-01-15 09:20:03 <==\n# cmd: /opt/conda/bin/conda install -c conda-forge cudnn=8.9.2.26\n")

    site = f"{ENVP}/lib/python3.11/site-packages"
    t.text(f"{site}/tensorflow/__init__.py", "# stand-in for tensorflow/__init__.py\n")
    t.text(f"{site}/tensorflow/python/platform/build_info.py", BUILD_INFO)
    t.dist_info(site, "tensorflow", "2.15.0",
                ["tensorflow/__init__.py", "tensorflow/python/platform/build_info.py"])
