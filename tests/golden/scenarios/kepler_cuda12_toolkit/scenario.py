"""A Tesla K80 server (Kepler GK210, compute capability 3.7) where CUDA 12.2 was installed.

Ubuntu 22.04 with the R470 driver 470.256.02 (the last branch for Kepler) loaded, and the CUDA
12.2 toolkit from the runfile in /usr/local/cuda-12.2 (installed with --toolkit, keeping the
driver).

Expected: compat.gpu_unsupported_by_toolkit (CUDA 12 removed Kepler; 11.x is the last toolkit
for it) and compat.driver_too_old for the toolkit (12.x needs 525.60.13, a branch that no longer
drives Kepler)."""

ENV = {"HOME": "/root", "PATH": "/usr/local/cuda-12.2/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
EXIT = 0  # both findings are warnings: nothing fails until something is built with CUDA 12


def build(t):
    t.ubuntu_base(kernel="5.15.0-105-generic", cpu="Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz",
                  cpus=28, mem_gib=256)
    t.server_bus()
    t.working_nvidia("470.256.02", gpus=(("0000:05:00.0", 0x102d, None), ("0000:06:00.0", 0x102d, None)))
    t.cuda_toolkit("/usr/local/cuda-12.2", "12.2.2", "12.2.140")
    t.symlink("/usr/local/cuda", "cuda-12.2")
