"""Debian 12 after a kernel update: the machine booted 6.1.0-28-amd64, but the NVIDIA module was
built by DKMS only for the previous kernel 6.1.0-26-amd64 (the headers of the new kernel were not
installed, so DKMS could not build it).

The GTX 1080 Ti has no driver bound; /proc/driver/nvidia does not exist; /lib/modules/6.1.0-26-amd64/
modules.dep lists updates/dkms/nvidia-current.ko (Debian's name for the module) and the new
kernel's does not; /var/lib/dkms/nvidia-current/535.183.01 exists; the user-space driver
(libcuda 535.183.01 from Debian's nvidia packages) is installed.

Expected: driver.module_missing_for_kernel (error) with the DKMS fix for the running kernel, and
not the generic driver.not_loaded."""

ENV = {"HOME": "/home/user", "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games"}
EXIT = 1

DEP_26 = ("kernel/drivers/video/fbdev/nvidia/nvidiafb.ko.xz: kernel/drivers/video/vgastate.ko.xz\n"
          "updates/dkms/nvidia-current.ko:\n"
          "updates/dkms/nvidia-current-modeset.ko: updates/dkms/nvidia-current.ko\n"
          "updates/dkms/nvidia-current-drm.ko: updates/dkms/nvidia-current-modeset.ko\n"
          "updates/dkms/nvidia-current-uvm.ko: updates/dkms/nvidia-current.ko\n"
          "kernel/drivers/platform/x86/nvidia-wmi-ec-backlight.ko.xz:\n"
          "kernel/fs/ext4/ext4.ko.xz: kernel/fs/jbd2/jbd2.ko.xz\n")
DEP_28 = ("kernel/drivers/video/fbdev/nvidia/nvidiafb.ko.xz: kernel/drivers/video/vgastate.ko.xz\n"
          "kernel/drivers/platform/x86/nvidia-wmi-ec-backlight.ko.xz:\n"
          "kernel/fs/ext4/ext4.ko.xz: kernel/fs/jbd2/jbd2.ko.xz\n")


def build(t):
    t.debian_base()
    t.kernel("6.1.0-28-amd64")
    t.cpuinfo("AMD Ryzen 7 5800X 8-Core Processor", 16)
    t.pci_ids_excerpt()
    t.desktop_bus()
    t.nvidia_gpu("0000:01:00.0", 0x1b06, audio=0x10ef, driver=None)
    t.proc_modules("snd_hda_intel", "nvme", "ext4")
    t.char_device("/dev/null", 1, 3)
    t.text("/lib/modules/6.1.0-26-amd64/modules.dep", DEP_26)
    t.text("/lib/modules/6.1.0-26-amd64/updates/dkms/nvidia-current.ko", "stand-in\n")
    t.text("/lib/modules/6.1.0-28-amd64/modules.dep", DEP_28)
    t.mkdir("/var/lib/dkms/nvidia-current/535.183.01/6.1.0-26-amd64/x86_64/module")
    t.symlink("/var/lib/dkms/nvidia-current/kernel-6.1.0-26-amd64-x86_64", "535.183.01/6.1.0-26-amd64/x86_64")
    t.nvidia_user_libs("535.183.01", "/usr/lib/x86_64-linux-gnu/nvidia/current")
