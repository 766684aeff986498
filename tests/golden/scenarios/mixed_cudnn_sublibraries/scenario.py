"""A system cuDNN 8.9.7 with one sub-library from an old cuDNN 8.2.4 archive.

Ubuntu 22.04 with an RTX 3090 on the 535 driver. cuDNN comes from NVIDIA's repository: libcudnn8
and libcudnn8-dev 8.9.7.29-1+cuda12.2 put libcudnn*.so.8.9.7 with their soname links in
/usr/lib/x86_64-linux-gnu (a default directory of the loader on Debian-style multiarch systems)
and cudnn_version_v8.h under /usr/include/x86_64-linux-gnu, reached from /usr/include through the
alternatives link. Following a forum answer to "Could not load library
libcudnn_cnn_infer.so.8", someone copied libcudnn_cnn_infer.so.8.2.4 out of an old
cudnn-11.4-linux-x64-v8.2.4.15 archive into the same directory and re-pointed the soname link
libcudnn_cnn_infer.so.8 at it. libcudnn_cnn_infer.so.8.9.7 is still there, unused.

Expected: cudnn.sublibrary_version_mixed naming libcudnn_cnn_infer.so.8 from 8.2.4 and the six
others from 8.9.7, with `sudo apt install --reinstall libcudnn8` as the package fix; the installation
is reported as 8.9.7 (its header) with seven libraries, owned by dpkg libcudnn8."""

ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/home/user"}
EXIT = 1

DEB = "8.9.7.29-1+cuda12.2"


def build(t):
    t.ubuntu_base(kernel="6.5.0-41-generic", cpu="AMD Ryzen 9 5950X 16-Core Processor", cpus=32,
                  mem_gib=64)
    t.pci_device("0000:00:00.0", 0x1022, 0x1480, 0x060000)
    t.pci_device("0000:02:00.0", 0x144d, 0xa80a, 0x010802, "nvme")
    t.working_nvidia("535.183.01", gpus=(("0000:0b:00.0", 0x2204, 0x1aef),))

    d = "/usr/lib/x86_64-linux-gnu"
    t.cudnn_versioned(d, "8.9.7", t.CUDNN8_STEMS)
    # The stray file from the old archive, and the link re-pointed at it.
    t.elf(f"{d}/libcudnn_cnn_infer.so.8.2.4", "libcudnn_cnn_infer.so.8", pad=4096)
    t.symlink(f"{d}/libcudnn_cnn_infer.so.8", "libcudnn_cnn_infer.so.8.2.4")

    inc = "/usr/include/x86_64-linux-gnu"
    t.cudnn_header(f"{inc}/cudnn_version_v8.h", "8.9.7")
    t.symlink("/etc/alternatives/libcudnn_version_h", f"{inc}/cudnn_version_v8.h")
    t.symlink("/usr/include/cudnn_version.h", "/etc/alternatives/libcudnn_version_h")

    runtime = ["/.", "/usr", "/usr/lib", d]
    dev = ["/.", "/usr", "/usr/include", inc, f"{inc}/cudnn_version_v8.h", "/usr/lib", d]
    for stem in t.CUDNN8_STEMS:
        runtime += [f"{d}/{stem}.so.8.9.7", f"{d}/{stem}.so.8"]
        dev += [f"{d}/{stem}_static_v8.a" if stem != "libcudnn" else f"{d}/libcudnn_static_v8.a"]
    t.text("/var/lib/dpkg/info/libcudnn8.list", "\n".join(runtime) + "\n")
    t.text("/var/lib/dpkg/info/libcudnn8-dev.list", "\n".join(dev) + "\n")
    t.text("/var/lib/dpkg/status", "".join(
        f"Package: {p}\nStatus: install ok installed\nArchitecture: amd64\nSource: cudnn\n"
        f"Version: {DEB}\n\n" for p in ("libcudnn8", "libcudnn8-dev")))
