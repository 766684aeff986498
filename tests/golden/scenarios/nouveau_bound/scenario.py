"""A fresh Debian 12 desktop where nouveau drives the GTX 1080.

Debian loads the open-source nouveau driver for NVIDIA cards out of the box. The GTX 1080
(10de:1b80) at 0000:01:00.0 is bound to nouveau (its audio function to snd_hda_intel), nouveau and
its helpers (drm_ttm_helper, ttm, mxm_wmi…) are in /proc/modules, /sys/module/nouveau exists,
and /dev has only the DRM nodes nouveau creates. The NVIDIA driver was never installed: no
/proc/driver/nvidia, no libcuda, no /dev/nvidia*.

Expected: driver.nouveau_bound with Debian's initramfs command, and NOT driver.not_loaded (nouveau
holding the GPU is the root cause; the missing NVIDIA module follows from it)."""

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games", "HOME": "/home/user"}
EXIT = 1


def build(t):
    t.debian_base()
    t.cpuinfo("AMD Ryzen 9 7950X 16-Core Processor", 32)
    t.pci_ids_excerpt()
    t.pci_device("0000:00:00.0", 0x1022, 0x14d8, 0x060000)
    t.pci_device("0000:00:01.1", 0x1022, 0x14db, 0x060400, "pcieport")
    t.pci_device("0000:04:00.0", 0x144d, 0xa80a, 0x010802, "nvme")
    t.nvidia_gpu("0000:01:00.0", 0x1b80, audio=0x10f0, driver="nouveau")
    t.proc_modules("nouveau", "mxm_wmi", "drm_display_helper", "drm_ttm_helper", "ttm",
                   "i2c_algo_bit", "snd_hda_intel", "nvme", "ext4")
    t.text("/sys/module/nouveau/parameters/modeset", "-1\n")
    t.char_device("/dev/null", 1, 3)
    t.char_device("/dev/dri/card0", 226, 0)
    t.char_device("/dev/dri/renderD128", 226, 128)
