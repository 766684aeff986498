"""A GPU server whose only GPU fell off the bus (Xid 79) while the driver was loaded.

Ubuntu 22.04 on a Xeon board. The 550.54.15 driver is installed and its kernel module is still
loaded (/proc/driver/nvidia/version, nvidia modules in /proc/modules), libcuda.so.550.54.15 and
libnvidia-ml.so.550.54.15 are in /usr/lib/x86_64-linux-gnu and /dev/nvidia0 and nvidiactl still
exist. But the kernel removed the A10 from the PCI bus: /sys/bus/pci/devices lists only the host
bridge, a root port, the BMC's ASPEED VGA (a display adapter, not NVIDIA), two I350 NICs and an
NVMe drive. The same tree describes a VM whose passed-through GPU was detached.

Expected: gpu.not_found, naming the ASPEED adapter as the only display and the loaded module as
evidence; no driver finding (the driver is fine, the device is gone)."""

ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
EXIT = 1


def build(t):
    t.ubuntu_base()
    t.server_bus()
    t.nvidia_proc_version("550.54.15", built="Tue Mar  5 22:23:56 UTC 2024")
    t.proc_modules("nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia", "ast", "igb", "nvme")
    t.nvidia_device_nodes(1)
    t.nvidia_user_libs("550.54.15")
