"""An RTX 3090 workstation on the 470 driver where `pip install torch==2.1.2` pulled the CUDA 12.1
build.

Ubuntu 22.04, driver 470.223.02 (the R470 branch: newest CUDA 11.4), module loaded and working.
/home/user/venv holds torch 2.1.2+cu121 from PyPI with its pinned nvidia-cudnn-cu12 8.9.2.26 wheel
(torch's libtorch_cuda.so finds libcudnn.so.8 through its RPATH $ORIGIN/../../nvidia/cudnn/lib).

Expected: compat.driver_too_old (error): CUDA 12.x needs at least 525.60.13 even with minor-version
compatibility; the fixes name a newer driver, or the cu118 build of torch 2.1.2, which runs on
470 (CUDA 11.x needs 450.80.02)."""

VENV = "/home/user/venv"
ENV = {
    "HOME": "/home/user",
    "PATH": f"{VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "VIRTUAL_ENV": VENV,
}
EXIT = 1


def build(t):
    t.ubuntu_base(kernel="5.15.0-105-generic", cpu="AMD Ryzen 9 5950X 16-Core Processor", cpus=32,
                  mem_gib=64)
    t.desktop_bus()
    t.working_nvidia("470.223.02", gpus=(("0000:01:00.0", 0x2204, 0x1aef),))
    t.ubuntu_python("3.10")
    t.elf_program("/usr/bin/python3.10")  # torch's loading context starts at the interpreter
    site = t.venv(VENV, "3.10.12")
    t.torch_wheel(site, "2.1.2", "12.1", needed=("libcudnn.so.8",),
                  rpath=("$ORIGIN/../../nvidia/cudnn/lib",),
                  requires=['nvidia-cudnn-cu12 (==8.9.2.26) ; platform_system == "Linux" and '
                            'platform_machine == "x86_64"'])
    t.cudnn_wheel(site, "8.9.2.26", "12", stems=t.CUDNN8_STEMS)
