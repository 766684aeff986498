"""A GeForce GTX 1080 (Pascal, compute capability 6.1) with the CUDA 12.8 build of torch 2.8.0.

Ubuntu 22.04 on driver 570.172.08 (branch R570 still drives Pascal). The venv holds
torch 2.8.0+cu128 with its nvidia-cudnn-cu12 9.10.2.21 wheel. PyTorch's cu128 wheels carry GPU
code for compute capability 7.0 and newer only (the libtorch_cuda.so here is a stand-in without
a fatbinary, so the architecture list comes from the knowledge base's build table).

Expected: compat.gpu_arch_not_in_build (error) naming the cu126 build, whose code includes 6.0
(sm_60 machine code runs on 6.1); no driver or cuDNN finding (cuDNN 9.10 still supports Pascal)."""

VENV = "/home/user/venv"
ENV = {
    "HOME": "/home/user",
    "PATH": f"{VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "VIRTUAL_ENV": VENV,
}
EXIT = 1


def build(t):
    t.ubuntu_base(kernel="6.8.0-45-generic", cpu="Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz",
                  cpus=12, mem_gib=32)
    t.desktop_bus()
    t.working_nvidia("570.172.08", gpus=(("0000:01:00.0", 0x1b80, 0x10f0),))
    t.ubuntu_python("3.10")
    t.elf_program("/usr/bin/python3.10")  # torch's loading context starts at the interpreter
    site = t.venv(VENV, "3.10.12")
    t.torch_wheel(site, "2.8.0", "12.8", needed=("libcudnn.so.9",),
                  rpath=("$ORIGIN/../../nvidia/cudnn/lib",),
                  requires=['nvidia-cudnn-cu12 (==9.10.2.21) ; platform_system == "Linux" and '
                            'platform_machine == "x86_64"'])
    t.cudnn_wheel(site, "9.10.2.21", "12")
