"""A build machine with an old runfile CUDA 11.8 and a newer apt CUDA 12.4, each with a cuDNN.

Ubuntu 22.04 server with an A10 on the 550 driver, everything working. CUDA 11.8 was installed
from the runfile to /usr/local/cuda-11.8 (its version.json names the SDK "11.8.20220929", the
runfile's style), and cuDNN 8.6.0 copied into it from the tarball, as NVIDIA's install guide
says (include/cudnn_version.h, lib64/libcudnn*.so.8.6.0 with their links). CUDA 12.4 came later
from NVIDIA's apt repository: /usr/local/cuda-12.4 (version.json "12.4.1", lib64 ->
targets/x86_64-linux/lib) with /usr/local/cuda and /usr/local/cuda-12 pointing at it through
/etc/alternatives and cuda-toolkit-config-common's ld.so.conf.d files; cuDNN 9.1.0 was copied
from its tarball into the 12.4 tree. PATH and CUDA_HOME name /usr/local/cuda.

Expected: the info findings cuda.multiple_toolkits and cudnn.multiple_copies and nothing worse,
so the exit status is 0."""

ENV = {
    "PATH": "/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "CUDA_HOME": "/usr/local/cuda",
    "HOME": "/home/user",
}
EXIT = 0


def version_json(sdk, cudart, nvcc):
    return ('{\n   "cuda" : {\n      "name" : "CUDA SDK",\n      "version" : "%s"\n   },\n'
            '   "cuda_cudart" : {\n      "name" : "CUDA Runtime (cudart)",\n      "version" : "%s"\n   },\n'
            '   "cuda_nvcc" : {\n      "name" : "CUDA NVCC",\n      "version" : "%s"\n   }\n}\n'
            % (sdk, cudart, nvcc))


def build(t):
    t.ubuntu_base()
    t.server_bus()
    t.working_nvidia("550.54.15", gpus=(("0000:17:00.0", 0x2236, None),))

    old = "/usr/local/cuda-11.8"
    t.text(f"{old}/version.json", version_json("11.8.20220929", "11.8.89", "11.8.89"))
    t.text(f"{old}/bin/nvcc", "# stand-in for nvcc 11.8; never executed\n", 0o755)
    t.elf(f"{old}/targets/x86_64-linux/lib/libcudart.so.11.8.89", "libcudart.so.11.0")
    t.symlink(f"{old}/targets/x86_64-linux/lib/libcudart.so.11.0", "libcudart.so.11.8.89")
    t.symlink(f"{old}/lib64", "targets/x86_64-linux/lib")
    t.cudnn_header(f"{old}/targets/x86_64-linux/include/cudnn_version.h", "8.6.0")
    t.symlink(f"{old}/include", "targets/x86_64-linux/include")
    t.cudnn_versioned(f"{old}/targets/x86_64-linux/lib", "8.6.0", t.CUDNN8_STEMS)

    new = "/usr/local/cuda-12.4"
    t.text(f"{new}/version.json", version_json("12.4.1", "12.4.127", "12.4.131"))
    t.text(f"{new}/bin/nvcc", "# stand-in for nvcc 12.4; never executed\n", 0o755)
    t.elf(f"{new}/targets/x86_64-linux/lib/libcudart.so.12.4.127", "libcudart.so.12")
    t.symlink(f"{new}/targets/x86_64-linux/lib/libcudart.so.12", "libcudart.so.12.4.127")
    t.symlink(f"{new}/lib64", "targets/x86_64-linux/lib")
    t.cudnn_header(f"{new}/targets/x86_64-linux/include/cudnn_version.h", "9.1.0")
    t.symlink(f"{new}/include", "targets/x86_64-linux/include")
    t.cudnn_versioned(f"{new}/targets/x86_64-linux/lib", "9.1.0", t.CUDNN9_STEMS)

    t.symlink("/etc/alternatives/cuda", new)
    t.symlink("/etc/alternatives/cuda-12", new)
    t.symlink("/usr/local/cuda", "/etc/alternatives/cuda")
    t.symlink("/usr/local/cuda-12", "/etc/alternatives/cuda-12")
    t.text("/etc/ld.so.conf.d/000_cuda.conf", "/usr/local/cuda/targets/x86_64-linux/lib\n")
    t.text("/etc/ld.so.conf.d/988_cuda-12.conf", "/usr/local/cuda-12/targets/x86_64-linux/lib\n")
