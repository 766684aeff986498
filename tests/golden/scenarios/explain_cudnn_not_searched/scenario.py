"""explain joined with the machine: faster-whisper (CTranslate2 4.3, built for cuDNN 8) fails with
'Could not load library libcudnn_ops_infer.so.8' on Ubuntu 22.04. The user had extracted the
cuDNN 8.9.7 tarball into the CUDA 12.2 toolkit, as the old installation guide says, but never put
the toolkit's lib64 on LD_LIBRARY_PATH and CUDA's installer left no ld.so.conf entry; CTranslate2
has no RUNPATH to cuDNN, so the loader searches only the cache and the default directories.

Expected: the first cause log.cudnn_sublibrary_missing from the log line; on the machine, no copy
is found where the loader looks, the copy in /usr/local/cuda-12.2/targets/x86_64-linux/lib is
named, with the exact LD_LIBRARY_PATH command, and the confirmation raises its confidence."""

COMMAND = ["explain", "{scenario}/transcribe.log"]
ENV = {
    "HOME": "/home/user",
    "PATH": "/home/user/venv/bin:/usr/local/cuda-12.2/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "VIRTUAL_ENV": "/home/user/venv",
}
EXIT = 0


def build(t):
    t.ubuntu_base(kernel="6.5.0-41-generic", cpu="AMD Ryzen 7 5800X 8-Core Processor", cpus=16,
                  mem_gib=32)
    t.working_nvidia("535.183.01", gpus=(("0000:01:00.0", 0x2504, 0x3897),))
    t.cuda_toolkit("/usr/local/cuda-12.2", "12.2.2", "12.2.140")
    t.symlink("/usr/local/cuda", "cuda-12.2")
    lib = "/usr/local/cuda-12.2/targets/x86_64-linux/lib"
    t.cudnn_versioned(lib, "8.9.7", t.CUDNN8_STEMS)
    t.cudnn_header("/usr/local/cuda-12.2/targets/x86_64-linux/include/cudnn_version.h", "8.9.7")
    t.ubuntu_python("3.10")
    t.elf_program("/usr/bin/python3.10")
    t.venv("/home/user/venv", "3.10.12")
    t.ldconfig()
