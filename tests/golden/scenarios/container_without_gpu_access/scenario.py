"""An nvidia/cuda:12.2.2-cudnn8-runtime-ubuntu22.04 container started without `--gpus`.

The image is complete: Ubuntu 22.04.3, the CUDA 12.2 runtime under /usr/local/cuda-12.2 (lib64 ->
targets/x86_64-linux/lib, /usr/local/cuda and cuda-12 through /etc/alternatives, the
ld.so.conf.d files of cuda-toolkit-config-common and the image's nvidia.conf), and the libcudnn8
8.9.6.50-1+cuda12.2 package in /usr/lib/x86_64-linux-gnu with its dpkg records. The image's ENV
sets NVIDIA_VISIBLE_DEVICES=all, NVIDIA_DRIVER_CAPABILITIES=compute,utility and LD_LIBRARY_PATH
to /usr/local/nvidia/lib{,64}; those only matter when the NVIDIA runtime hook runs.

The container was started with plain `docker run`, so the hook did not run: /dev has only the
runtime's default nodes (null, zero, random, urandom, tty, full) and no libcuda was mounted in.
What the container does see is the host's kernel state: /proc/driver/nvidia/version and
/proc/modules report the host's loaded 535.129.03 module, and the read-only /sys shows the A10
bound to nvidia.

Expected: driver.device_nodes_missing (module loaded, no /dev/nvidia0), whose fix starts with
`docker run --gpus all`; no gpu.* or driver.not_loaded finding; the inventory shows the image's
cuDNN 8.9.6 owned by dpkg libcudnn8."""

ENV = {
    "PATH": "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LD_LIBRARY_PATH": "/usr/local/nvidia/lib:/usr/local/nvidia/lib64",
    "NVIDIA_VISIBLE_DEVICES": "all",
    "NVIDIA_DRIVER_CAPABILITIES": "compute,utility",
    "HOME": "/root",
}
EXIT = 1

CUDNN = "8.9.6"
DEB = "8.9.6.50-1+cuda12.2"


def build(t):
    t.ubuntu_base(point="22.04.3", kernel="5.15.0-105-generic", glibc_pkg="2.35-0ubuntu3.4",
                  cpu="AMD EPYC 7313 16-Core Processor", cpus=32, mem_gib=256)
    t.text("/.dockerenv", "")
    t.container_dev()
    # The host's kernel state, visible through /proc and the read-only /sys.
    t.nvidia_proc_version("535.129.03", built="Thu Oct 19 18:42:02 UTC 2023")
    t.proc_modules("nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia", "overlay", "br_netfilter",
                   "ext4")
    t.pci_device("0000:00:00.0", 0x1022, 0x1480, 0x060000)
    t.pci_device("0000:c0:00.0", 0x1a03, 0x2000, 0x030000, "ast")
    t.nvidia_gpu("0000:41:00.0", 0x2236, class_code=0x030200)

    # The image: CUDA runtime, cuDNN package, linker configuration.
    tk = "/usr/local/cuda-12.2"
    lib = f"{tk}/targets/x86_64-linux/lib"
    t.elf(f"{lib}/libcudart.so.12.2.140", "libcudart.so.12")
    t.symlink(f"{lib}/libcudart.so.12", "libcudart.so.12.2.140")
    t.symlink(f"{tk}/lib64", "targets/x86_64-linux/lib")
    t.elf(f"{tk}/compat/libcuda.so.535.129.03", "libcuda.so.1")
    t.symlink(f"{tk}/compat/libcuda.so.1", "libcuda.so.535.129.03")
    t.symlink("/etc/alternatives/cuda", tk)
    t.symlink("/etc/alternatives/cuda-12", tk)
    t.symlink("/usr/local/cuda", "/etc/alternatives/cuda")
    t.symlink("/usr/local/cuda-12", "/etc/alternatives/cuda-12")
    t.text("/etc/ld.so.conf.d/000_cuda.conf", "/usr/local/cuda/targets/x86_64-linux/lib\n")
    t.text("/etc/ld.so.conf.d/988_cuda-12.conf", "/usr/local/cuda-12/targets/x86_64-linux/lib\n")
    t.text("/etc/ld.so.conf.d/nvidia.conf", "/usr/local/nvidia/lib\n/usr/local/nvidia/lib64\n")

    d = "/usr/lib/x86_64-linux-gnu"
    t.cudnn_versioned(d, CUDNN, t.CUDNN8_STEMS, dev_links=False)
    listed = ["/.", "/usr", "/usr/lib", d]
    for stem in t.CUDNN8_STEMS:
        listed += [f"{d}/{stem}.so.{CUDNN}", f"{d}/{stem}.so.8"]
    listed += ["/usr/share/doc/libcudnn8", "/usr/share/doc/libcudnn8/changelog.Debian.gz"]
    t.text("/var/lib/dpkg/info/libcudnn8.list", "\n".join(listed) + "\n")
    t.text("/var/lib/dpkg/status",
           "Package: libc6\nStatus: install ok installed\nArchitecture: amd64\n"
           "Version: 2.35-0ubuntu3.4\n\n"
           "Package: libcudnn8\nStatus: hold ok installed\nPriority: optional\nSection: multiverse/libs\n"
           "Installed-Size: 1059496\nMaintainer: cudatools <cudatools@nvidia.com>\nArchitecture: amd64\n"
           "Source: cudnn\n"
           f"Version: {DEB}\nProvides: libcudnn\n"
           "Description: cuDNN runtime libraries\n cuDNN runtime libraries containing primitives "
           "for deep neural networks.\n\n")
