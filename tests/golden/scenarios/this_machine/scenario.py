"""This project's CI machine: no GPU on a VM's PCI bus, Debian's NVML without a driver, and the
CUDA 13.0 toolkit with cuDNN 9.19.0 under /usr/local/cuda-13.0 in its pip-derived layout (lib64 ->
lib, a dist-info directory whose RECORD names every cuDNN file with its size, /usr/local/bin/nvcc as a
wrapper script, the library directory in ld.so.conf)."""

CUDNN9 = ["libcudnn.so.9", "libcudnn_adv.so.9", "libcudnn_cnn.so.9",
          "libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9",
          "libcudnn_graph.so.9", "libcudnn_heuristic.so.9", "libcudnn_ops.so.9"]

ENV = {"PATH": "/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin", "CUDA_HOME": "/usr/local/cuda"}
EXIT = 1


def build(t):
    t.debian_base()
    t.virtio_bus(6)
    tk = "/usr/local/cuda-13.0"
    t.symlink("/usr/local/cuda", tk)
    t.symlink(f"{tk}/lib64", "lib")
    t.text(f"{tk}/bin/nvcc", "#!/bin/sh\n# stand-in for the nvcc binary; never executed\n", 0o755)
    t.text("/usr/local/bin/nvcc", f'#!/bin/sh\nexec {tk}/bin/nvcc "$@"\n', 0o755)
    t.text(f"{tk}/include/cuda.h", "#define CUDA_VERSION 13000\n")
    t.text(f"{tk}/include/cudnn_version.h",
           "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n")
    record = []
    for i, name in enumerate(CUDNN9):
        size = t.elf(f"{tk}/lib/{name}", name, pad=i * 64)
        t.symlink(f"{tk}/lib/{name[:name.index('.so')]}.so", name)
        record.append(f"nvidia/cudnn/lib/{name},sha256=fixture,{size}")
    t.elf(f"{tk}/lib/libcudart.so.13", "libcudart.so.13")
    t.text(f"{tk}/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD", "\n".join(record) + "\n")
    t.text(f"{tk}/dist-info/nvidia_cuda_runtime-13.0.96.dist-info/RECORD",
           "nvidia/cu13/lib/libcudart.so.13,sha256=fixture,1\n")
    t.ld_so_conf(f"{tk}/lib")
    # Debian's libnvidia-ml1 (non-free) without a driver: the library, no kernel module.
    nvml = "/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.535.261.03"
    t.elf(nvml, "libnvidia-ml.so.1")
    t.symlink("/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1", "libnvidia-ml.so.535.261.03")
    t.symlink("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "/etc/alternatives/nvidia--libnvidia-ml.so.1-x86_64-linux-gnu")
    t.symlink("/etc/alternatives/nvidia--libnvidia-ml.so.1-x86_64-linux-gnu",
              "/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1")
