# SPDX-License-Identifier: MIT
"""Builds --sysroot trees for golden scenarios.

Every file a scenario needs is made here at test time: ELF libraries are compiled by gcc with the
SONAME the real library has, so no binary is committed. Paths are inner paths of the examined
system ("/usr/local/cuda-13.0/lib/libcudnn.so.9"); Tree maps them under its root directory.
"""
import os
import subprocess

_ELF_CACHE = {}


class Tree:
    def __init__(self, root):
        self.root = root

    def path(self, inner):
        return os.path.join(self.root, inner.lstrip("/"))

    def mkdir(self, inner):
        os.makedirs(self.path(inner), exist_ok=True)

    def text(self, inner, content, mode=0o644):
        p = self.path(inner)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(content)
        os.chmod(p, mode)

    def symlink(self, inner, target):
        p = self.path(inner)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if os.path.lexists(p):
            os.remove(p)
        os.symlink(target, p)

    def elf(self, inner, soname, pad=0):
        """A real x86-64 shared object with this SONAME (and `pad` extra bytes of data, to give
        files distinct sizes where a scenario needs that)."""
        key = (soname, pad)
        if key not in _ELF_CACHE:
            out = os.path.join(self.root, ".elf-cache", f"{soname}.{pad}")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            src = f"const char doctor_pad[{pad + 1}] = {{1}};\n" if pad else "int doctor_fixture;\n"
            subprocess.run(
                ["gcc", "-shared", "-fPIC", "-x", "c", "-", f"-Wl,-soname,{soname}", "-o", out],
                input=src.encode(), check=True)
            _ELF_CACHE[key] = out
        p = self.path(inner)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(_ELF_CACHE[key], "rb") as src, open(p, "wb") as dst:
            dst.write(src.read())
        os.chmod(p, 0o755)
        return os.path.getsize(p)

    # --- machine pieces -------------------------------------------------------------------

    def os_release(self, pretty="Debian GNU/Linux 12 (bookworm)", id_="debian", version_id="12"):
        self.text("/etc/os-release",
                  f'PRETTY_NAME="{pretty}"\nNAME="{pretty.split(" ")[0]}"\nVERSION_ID="{version_id}"\nID={id_}\n')

    def kernel(self, release="6.1.0-26-amd64"):
        self.text("/proc/sys/kernel/osrelease", release + "\n")

    def meminfo(self, total_kb=32 * 1024 * 1024, avail_kb=30 * 1024 * 1024, swap_kb=0):
        self.text("/proc/meminfo",
                  f"MemTotal:       {total_kb} kB\nMemFree:        {avail_kb} kB\n"
                  f"MemAvailable:   {avail_kb} kB\nSwapTotal:      {swap_kb} kB\nSwapFree:       {swap_kb} kB\n")

    def cpuinfo(self, model="AMD EPYC 7763 64-Core Processor", count=8):
        self.text("/proc/cpuinfo", "".join(
            f"processor\t: {i}\nmodel name\t: {model}\n\n" for i in range(count)))

    def pci_device(self, address, vendor, device, class_code, driver=None):
        d = f"/sys/bus/pci/devices/{address}"
        self.text(f"{d}/vendor", f"0x{vendor:04x}\n")
        self.text(f"{d}/device", f"0x{device:04x}\n")
        self.text(f"{d}/class", f"0x{class_code:06x}\n")
        self.text(f"{d}/subsystem_vendor", f"0x{vendor:04x}\n")
        self.text(f"{d}/subsystem_device", "0x0000\n")
        if driver:
            self.symlink(f"{d}/driver", f"../../../bus/pci/drivers/{driver}")

    def virtio_bus(self, count=6):
        """A VM's PCI bus with no GPU: a host bridge and virtio devices."""
        self.pci_device("0000:00:00.0", 0x8086, 0x1237, 0x060000)
        for i in range(1, count):
            self.pci_device(f"0000:00:{i:02x}.0", 0x1af4, 0x1000 + i, 0x020000, "virtio-pci")

    def pci_ids(self):
        self.text("/usr/share/misc/pci.ids",
                  "# excerpt of pci.ids (pciutils), enough for the scenarios\n"
                  "10de  NVIDIA Corporation\n"
                  "\t1b80  GP104 [GeForce GTX 1080]\n"
                  "\t2330  GH100 [H100 SXM5 80GB]\n"
                  "\t2684  AD102 [GeForce RTX 4090]\n"
                  "1af4  Red Hat, Inc.\n"
                  "\t1001  Virtio block device\n"
                  "8086  Intel Corporation\n"
                  "\t1237  440FX - 82441FX PMC [Natoma]\n")

    def nvidia_module(self, version="535.104.05", open_module=False):
        banner = (f"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {version}  Release Build  "
                  "(dvs-builder@U16-I3-B03-4-3)  Thu Jan 23 23:19:50 UTC 2025"
                  if open_module else
                  f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {version}  Sat Aug 19 01:15:15 UTC 2023")
        self.text("/proc/driver/nvidia/version", banner + "\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n")
        self.text("/sys/module/nvidia/version", version + "\n")

    def proc_modules(self, *names):
        self.text("/proc/modules", "".join(
            f"{n} 12345 0 - Live 0x0000000000000000\n" for n in names))

    def ld_so_conf(self, *dirs):
        self.text("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
        self.text("/etc/ld.so.conf.d/x86_64-linux-gnu.conf",
                  "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n"
                  "/usr/lib/x86_64-linux-gnu\n")
        for i, d in enumerate(dirs):
            self.text(f"/etc/ld.so.conf.d/zz-{i}.conf", d + "\n")

    def libc(self, version="2.36"):
        self.text("/lib/x86_64-linux-gnu/libc.so.6",
                  "\x7fELF\x02\x01\x01" + "\0" * 9 + "\x03\0\x3e\0" + "\0" * 40 +
                  f"GNU C Library (Debian GLIBC {version}-9+deb12u4) stable release version {version}.\0")

    def debian_base(self, pretty="Debian GNU/Linux 12 (bookworm)", id_="debian", version_id="12"):
        self.os_release(pretty, id_, version_id)
        self.kernel()
        self.meminfo()
        self.cpuinfo()
        self.libc()
        self.pci_ids()
        self.mkdir("/dev")
        self.mkdir("/usr/lib/x86_64-linux-gnu")
        self.proc_modules("ext4", "virtio_net")
