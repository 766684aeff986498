"""An unattended upgrade moved the NVIDIA user-space driver from 535.183.01 to 535.216.01, and the
machine was not rebooted.

Ubuntu 22.04, RTX 4090. The loaded kernel module is still 535.183.01 (/proc/driver/nvidia/version),
while libcuda and libnvidia-ml in /usr/lib/x86_64-linux-gnu are now 535.216.01 (the old files are
gone, as the package upgrade removes them).

Expected: driver.version_mismatch (error) with the reboot and module-reload fixes."""

ENV = {"HOME": "/home/user", "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
EXIT = 1


def build(t):
    t.ubuntu_base(kernel="6.5.0-41-generic", cpu="13th Gen Intel(R) Core(TM) i9-13900K", cpus=32,
                  mem_gib=64)
    t.desktop_bus()
    t.nvidia_gpu("0000:01:00.0", 0x2684, 0x22ba)
    t.nvidia_proc_version("535.183.01")
    t.proc_modules("nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia", "ext4")
    t.nvidia_device_nodes(1)
    t.nvidia_user_libs("535.216.01")
