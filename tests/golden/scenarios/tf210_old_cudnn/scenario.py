"""TensorFlow 2.10 on Linux with a cuDNN 8.0 that an old guide had copied into the CUDA 11.2
toolkit.

Ubuntu 22.04, RTX 3080 on driver 535.183.01. /home/user/venv holds tensorflow 2.10.1 from PyPI
(build_info.py: CUDA 11.2, cuDNN 8). TensorFlow 2.10 was built with cuDNN 8.1; the cuDNN 8.0.5
libraries sit in /usr/local/cuda-11.2/lib64 (the tarball layout), which LD_LIBRARY_PATH names,
so TensorFlow's dlopen("libcudnn.so.8") finds them there.

Expected: compat.cudnn_older_than_build (error): TensorFlow would log 'Loaded runtime CuDNN
library: 8.0.5 but source was compiled with: 8.1.0'; the fix names cuDNN 8.1 for CUDA 11 and
where it goes."""

VENV = "/home/user/venv"
ENV = {
    "HOME": "/home/user",
    "PATH": f"{VENV}/bin:/usr/local/cuda-11.2/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "VIRTUAL_ENV": VENV,
    "LD_LIBRARY_PATH": "/usr/local/cuda-11.2/lib64",
}
EXIT = 1

BUILD_INFO = '''# Copyright 2020 The TensorFlow Authors. All Rights Reserved.
"""Auto-generated module providing information about the build."""
import collections

build_info = collections.OrderedDict([('cpu_compiler', '/dt9/usr/bin/gcc'), \\
('cuda_compute_capabilities', ['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), \\
('cuda_version', '11.2'), ('cudnn_version', '8'), ('is_cuda_build', True), \\
('is_rocm_build', False), ('is_tensorrt_build', True)])
'''


def build(t):
    t.ubuntu_base(kernel="6.5.0-41-generic", cpu="AMD Ryzen 9 5900X 12-Core Processor", cpus=24,
                  mem_gib=64)
    t.desktop_bus()
    t.working_nvidia("535.183.01", gpus=(("0000:01:00.0", 0x2206, 0x1aef),))
    t.cuda_toolkit("/usr/local/cuda-11.2", "11.2.2", "11.2.152")
    t.symlink("/usr/local/cuda", "cuda-11.2")
    lib = "/usr/local/cuda-11.2/targets/x86_64-linux/lib"
    # CUDA 11's runtime soname is libcudart.so.11.0 (what TensorFlow 2.10 opens), cuBLAS's .11.
    t.elf_lib(f"{lib}/libcudart.so.11.2.152", "libcudart.so.11.0")
    t.symlink(f"{lib}/libcudart.so.11.0", "libcudart.so.11.2.152")
    for stem in ("libcublas", "libcublasLt"):
        t.elf_lib(f"{lib}/{stem}.so.11.4.1.1043", f"{stem}.so.11")
        t.symlink(f"{lib}/{stem}.so.11", f"{stem}.so.11.4.1.1043")
    t.cudnn_versioned(lib, "8.0.5", t.CUDNN8_STEMS)
    t.cudnn_header("/usr/local/cuda-11.2/targets/x86_64-linux/include/cudnn_version.h", "8.0.5")
    t.ubuntu_python("3.10")
    t.elf_program("/usr/bin/python3.10")  # torch's loading context starts at the interpreter
    site = t.venv(VENV, "3.10.12")
    t.text(f"{site}/tensorflow/__init__.py", "# stand-in for tensorflow/__init__.py\n")
    t.text(f"{site}/tensorflow/python/platform/build_info.py", BUILD_INFO)
    t.elf_lib(f"{site}/tensorflow/libtensorflow_framework.so.2", "libtensorflow_framework.so.2")
    t.dist_info(site, "tensorflow", "2.10.1",
                ["tensorflow/__init__.py", "tensorflow/python/platform/build_info.py",
                 "tensorflow/libtensorflow_framework.so.2"])
