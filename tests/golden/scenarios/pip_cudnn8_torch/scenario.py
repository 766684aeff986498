"""A workstation where `pip install torch==2.0.1` went into a venv and everything works.

Ubuntu 22.04 with an RTX 4090 on the 535 driver (module loaded, device nodes made by udev,
libcuda and libnvidia-ml from libnvidia-compute-535). /home/user/venv is a `python3 -m venv` of
the system Python 3.10. The PyPI torch 2.0.1 wheel for Linux is the CUDA 11.7 build: its
dist-info says 2.0.1, torch/version.py says '2.0.1+cu117' and cuda '11.7', and it brings cuDNN
as the nvidia-cudnn-cu11 8.5.0.96 wheel (nvidia/cudnn/lib with the soname-only files
libcudnn.so.8 and the six libcudnn_{ops,cnn,adv}_{infer,train}.so.8, headers in
nvidia/cudnn/include) next to nvidia-cuda-runtime-cu11 11.7.99. The RECORDs list every file with
its real hash and size. The shell has the venv activated.

Expected: no finding; the inventory shows torch 2.0.1 built for CUDA 11.7 with cuDNN 8.5.0.96
from the wheel, and the pip cuDNN 8.5.0 with its seven libraries owned by the wheel."""

VENV = "/home/user/venv"
ENV = {
    "HOME": "/home/user",
    "PATH": f"{VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "VIRTUAL_ENV": VENV,
}
EXIT = 0


def build(t):
    t.ubuntu_base(kernel="6.5.0-41-generic", cpu="13th Gen Intel(R) Core(TM) i9-13900K", cpus=32,
                  mem_gib=64)
    t.desktop_bus()
    t.working_nvidia("535.183.01", gpus=(("0000:01:00.0", 0x2684, 0x22ba),))
    t.ubuntu_python("3.10")
    site = t.venv(VENV, "3.10.12")

    t.text(f"{site}/torch/__init__.py", "# stand-in for torch/__init__.py\n")
    t.text(f"{site}/torch/version.py",
           "from typing import Optional\n\n"
           "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
           "__version__ = '2.0.1+cu117'\n"
           "debug = False\n"
           "cuda: Optional[str] = '11.7'\n"
           "git_version = 'e9ebda29d87ce0916ab08c06ab26fd3766a870e5'\n"
           "hip: Optional[str] = None\n")
    t.dist_info(site, "torch", "2.0.1", ["torch/__init__.py", "torch/version.py"], requires=[
        'nvidia-cuda-runtime-cu11 (==11.7.99) ; platform_system == "Linux" and platform_machine == "x86_64"',
        'nvidia-cudnn-cu11 (==8.5.0.96) ; platform_system == "Linux" and platform_machine == "x86_64"',
    ])

    files = ["nvidia/__init__.py", "nvidia/cudnn/__init__.py", "nvidia/cudnn/include/__init__.py",
             "nvidia/cudnn/include/cudnn_version.h", "nvidia/cudnn/lib/__init__.py"]
    for f in files:
        if f.endswith(".py"):
            t.text(f"{site}/{f}", "")
    t.cudnn_header(f"{site}/nvidia/cudnn/include/cudnn_version.h", "8.5.0")
    for i, stem in enumerate(t.CUDNN8_STEMS):
        name = f"{stem}.so.8"
        t.elf(f"{site}/nvidia/cudnn/lib/{name}", name, pad=i * 96)
        files.append(f"nvidia/cudnn/lib/{name}")
    t.dist_info(site, "nvidia-cudnn-cu11", "8.5.0.96", files)

    t.text(f"{site}/nvidia/cuda_runtime/__init__.py", "")
    t.text(f"{site}/nvidia/cuda_runtime/lib/__init__.py", "")
    t.elf(f"{site}/nvidia/cuda_runtime/lib/libcudart.so.11.0", "libcudart.so.11.0")
    t.dist_info(site, "nvidia-cuda-runtime-cu11", "11.7.99",
                ["nvidia/cuda_runtime/__init__.py", "nvidia/cuda_runtime/lib/__init__.py",
                 "nvidia/cuda_runtime/lib/libcudart.so.11.0"])
