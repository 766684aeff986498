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
        self.skip_reason = None  # set when the tree cannot be built faithfully here

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

    # --- pieces for the check scenarios ---------------------------------------------------

    def char_device(self, inner, major, minor, mode=0o666):
        """A character device node, as udev or nvidia-modprobe makes it. mknod needs root (the
        project's test machines run as root); without it a regular file stands in, which the
        doctor rightly does not take for a device node, so scenarios with working GPUs then
        show driver.device_nodes_missing and fail their diff."""
        import stat
        p = self.path(inner)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if os.path.lexists(p):
            os.remove(p)
        try:
            os.mknod(p, mode | stat.S_IFCHR, os.makedev(major, minor))
        except OSError as e:
            import sys
            sys.stderr.write(f"scenario_lib: cannot mknod {inner} ({e}); a regular file stands in, "
                             "so this scenario's expected output will not match (run as root)\n")
            self.skip_reason = f"mknod {inner} needs root"
            open(p, "w").close()
        os.chmod(p, mode)

    def container_dev(self):
        """The /dev a container runtime gives every container: null, zero, random, urandom, tty,
        full, pts/ and shm/, and no GPU node."""
        for name, major, minor in (("null", 1, 3), ("zero", 1, 5), ("full", 1, 7),
                                   ("random", 1, 8), ("urandom", 1, 9), ("tty", 5, 0)):
            self.char_device(f"/dev/{name}", major, minor)
        self.mkdir("/dev/pts")
        self.mkdir("/dev/shm")
        self.symlink("/dev/fd", "/proc/self/fd")

    def nvidia_device_nodes(self, gpus=1, uvm_major=508):
        """/dev/nvidia0…, nvidiactl and nvidia-modeset (major 195) and the nvidia-uvm pair (a
        dynamic major), as the driver's udev rules and nvidia-modprobe create them."""
        for i in range(gpus):
            self.char_device(f"/dev/nvidia{i}", 195, i)
        self.char_device("/dev/nvidiactl", 195, 255)
        self.char_device("/dev/nvidia-modeset", 195, 254)
        self.char_device("/dev/nvidia-uvm", uvm_major, 0)
        self.char_device("/dev/nvidia-uvm-tools", uvm_major, 1)

    def nvidia_proc_version(self, version, built="Wed Nov 13 07:12:39 UTC 2024",
                            gcc="gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)"):
        """/proc/driver/nvidia/version and /sys/module/nvidia/version of a loaded proprietary
        module, with an Ubuntu compiler line (nvidia_module writes Debian's)."""
        self.text("/proc/driver/nvidia/version",
                  f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {version}  {built}\n"
                  f"GCC version:  {gcc}\n")
        self.text("/sys/module/nvidia/version", version + "\n")

    def nvidia_user_libs(self, version, d="/usr/lib/x86_64-linux-gnu"):
        """libcuda and libnvidia-ml of driver `version` as Ubuntu's libnvidia-compute-<branch>
        package installs them: the versioned file, its soname link and the dev link."""
        for stem in ("libcuda.so", "libnvidia-ml.so"):
            self.elf(f"{d}/{stem}.{version}", f"{stem}.1")
            self.symlink(f"{d}/{stem}.1", f"{stem}.{version}")
            self.symlink(f"{d}/{stem}", f"{stem}.1")

    def nvidia_gpu(self, address, device, audio=None, driver="nvidia", audio_driver="snd_hda_intel",
                   class_code=0x030000):
        """An NVIDIA GPU at `address` (function 0) and, on GeForce boards, its HDMI audio function
        (function 1, an NVIDIA device that is not a display)."""
        self.pci_device(address, 0x10de, device, class_code, driver)
        if audio is not None:
            self.pci_device(address[:-1] + "1", 0x10de, audio, 0x040300, audio_driver)

    def server_bus(self):
        """The non-GPU devices of a typical x86 server board: host bridge, root port, BMC's VGA
        (an ASPEED display adapter, not NVIDIA), two I350 ports and an NVMe drive."""
        self.pci_device("0000:00:00.0", 0x8086, 0x09a2, 0x060000)
        self.pci_device("0000:00:01.0", 0x8086, 0x347a, 0x060400, "pcieport")
        self.pci_device("0000:02:00.0", 0x1a03, 0x2000, 0x030000, "ast")
        self.pci_device("0000:03:00.0", 0x8086, 0x1521, 0x020000, "igb")
        self.pci_device("0000:03:00.1", 0x8086, 0x1521, 0x020000, "igb")
        self.pci_device("0000:04:00.0", 0x144d, 0xa808, 0x010802, "nvme")

    def desktop_bus(self):
        """A desktop board: host bridge, the CPU's integrated graphics (Intel, bound to i915),
        a PCIe root port and an NVMe drive."""
        self.pci_device("0000:00:00.0", 0x8086, 0xa700, 0x060000)
        self.pci_device("0000:00:02.0", 0x8086, 0xa780, 0x030000, "i915")
        self.pci_device("0000:00:01.0", 0x8086, 0xa70d, 0x060400, "pcieport")
        self.pci_device("0000:04:00.0", 0x144d, 0xa80a, 0x010802, "nvme")

    def pci_ids_excerpt(self):
        """A larger excerpt of pciutils' pci.ids than pci_ids(), in its real order and format."""
        self.text("/usr/share/misc/pci.ids",
                  "#\n#\tList of PCI ID's\n#\n# excerpt: the vendors and devices of the scenarios\n#\n"
                  "10de  NVIDIA Corporation\n"
                  "\t10f0  GP104 High Definition Audio Controller\n"
                  "\t1b80  GP104 [GeForce GTX 1080]\n"
                  "\t20b0  GA100 [A100 SXM4 40GB]\n"
                  "\t2204  GA102 [GeForce RTX 3090]\n"
                  "\t2236  GA102GL [A10]\n"
                  "\t2330  GH100 [H100 SXM5 80GB]\n"
                  "\t2684  AD102 [GeForce RTX 4090]\n"
                  "\t22ba  AD102 High Definition Audio Controller\n"
                  "144d  Samsung Electronics Co Ltd\n"
                  "\ta808  NVMe SSD Controller SM981/PM981/PM983\n"
                  "\ta80a  NVMe SSD Controller PM9A1/PM9A3/980PRO\n"
                  "1a03  ASPEED Technology, Inc.\n"
                  "\t2000  ASPEED Graphics Family\n"
                  "8086  Intel Corporation\n"
                  "\t09a2  Ice Lake Memory Map/VT-d\n"
                  "\t1521  I350 Gigabit Network Connection\n"
                  "\t347a  Ice Lake CPU PCI Express Root Port\n"
                  "\ta700  Raptor Lake-S 8+16 Host Bridge/DRAM Controller\n"
                  "\ta70d  Raptor Lake PCI Express 5.0 Graphics Port (PEG010)\n"
                  "\ta780  Raptor Lake-S GT1 [UHD Graphics 770]\n")

    def ubuntu_base(self, point="22.04.4", kernel="5.15.0-105-generic", glibc="2.35",
                    glibc_pkg="2.35-0ubuntu3.7", cpu="Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz",
                    cpus=16, mem_gib=128):
        """An Ubuntu 22.04 machine with merged /usr (/lib -> usr/lib): os-release as the release
        ships it, Ubuntu's glibc, /proc basics, the linker configuration and the pci.ids excerpt.
        No /dev, /sys or /proc/modules: each scenario adds what its machine has."""
        major_minor = ".".join(point.split(".")[:2])
        self.text("/etc/os-release",
                  f'PRETTY_NAME="Ubuntu {point} LTS"\nNAME="Ubuntu"\nVERSION_ID="{major_minor}"\n'
                  f'VERSION="{point} LTS (Jammy Jellyfish)"\nVERSION_CODENAME=jammy\nID=ubuntu\n'
                  'ID_LIKE=debian\nHOME_URL="https://www.ubuntu.com/"\n'
                  'SUPPORT_URL="https://help.ubuntu.com/"\n'
                  'BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"\n'
                  'PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"\n'
                  "UBUNTU_CODENAME=jammy\n")
        for link in ("lib", "lib64", "bin", "sbin"):
            self.symlink(f"/{link}", f"usr/{link}")
        self.text("/usr/lib/x86_64-linux-gnu/libc.so.6",
                  "\x7fELF\x02\x01\x01" + "\0" * 9 + "\x03\0\x3e\0" + "\0" * 40 +
                  f"GNU C Library (Ubuntu GLIBC {glibc_pkg}) stable release version {glibc}.\0")
        self.mkdir("/usr/lib64")
        self.kernel(kernel)
        self.meminfo(mem_gib * 1024 * 1024, (mem_gib - 6) * 1024 * 1024, 8 * 1024 * 1024)
        self.cpuinfo(cpu, cpus)
        self.ld_so_conf()
        self.text("/etc/ld.so.conf.d/libc.conf", "# libc default configuration\n/usr/local/lib\n")
        self.pci_ids_excerpt()

    def ubuntu_python(self, minor="3.10"):
        """Ubuntu's system Python: /usr/bin/python3 -> python3.{minor}, its stdlib directory and
        apt's dist-packages (no GPU framework)."""
        self.text(f"/usr/bin/python{minor}", "# stand-in for the interpreter; never executed\n", 0o755)
        self.symlink("/usr/bin/python3", f"python{minor}")
        self.text(f"/usr/lib/python{minor}/os.py", "# stand-in\n")
        self.mkdir("/usr/lib/python3/dist-packages")

    def venv(self, prefix, micro="3.10.12", home="/usr/bin"):
        """A `python3 -m venv` environment: pyvenv.cfg, bin/python3 linked to the base interpreter
        and an empty lib/python3.X/site-packages, whose path it returns."""
        minor = ".".join(micro.split(".")[:2])
        self.text(f"{prefix}/pyvenv.cfg",
                  f"home = {home}\ninclude-system-site-packages = false\nversion = {micro}\n")
        self.symlink(f"{prefix}/bin/python3", f"{home}/python3")
        self.symlink(f"{prefix}/bin/python", "python3")
        self.symlink(f"{prefix}/bin/python{minor}", "python3")
        self.text(f"{prefix}/bin/activate", f'VIRTUAL_ENV="{prefix}"\nexport VIRTUAL_ENV\n')
        self.symlink(f"{prefix}/lib64", "lib")
        site = f"{prefix}/lib/python{minor}/site-packages"
        self.mkdir(site)
        return site

    def dist_info(self, site, name, version, files, requires=(), installer="pip"):
        """A wheel's installed .dist-info in `site`: METADATA, WHEEL, INSTALLER and a RECORD that
        lists `files` (paths relative to `site`, already written) with their real sha256 and size,
        in the format pip writes."""
        import base64
        import hashlib
        d = f"{name.replace('-', '_')}-{version}.dist-info"
        meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
            f"Requires-Dist: {r}\n" for r in requires)
        self.text(f"{site}/{d}/METADATA", meta)
        self.text(f"{site}/{d}/WHEEL",
                  "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.37.1)\nRoot-Is-Purelib: false\n"
                  "Tag: py3-none-manylinux1_x86_64\n")
        self.text(f"{site}/{d}/INSTALLER", installer + "\n")
        rows = []
        for rel in list(files) + [f"{d}/METADATA", f"{d}/WHEEL", f"{d}/INSTALLER"]:
            data = open(self.path(f"{site}/{rel}"), "rb").read()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append(f"{rel},sha256={digest},{len(data)}")
        rows.append(f"{d}/RECORD,,")
        self.text(f"{site}/{d}/RECORD", "\n".join(rows) + "\n")

    def cudnn_header(self, inner, version):
        """cudnn_version.h as cuDNN 8 and 9 ship it."""
        major, minor, patch = version.split(".")[:3]
        self.text(inner,
                  "/*\n * Copyright 2014-2023 NVIDIA Corporation.  All rights reserved.\n */\n\n"
                  "/**\n * \\file: The master cuDNN version file.\n */\n\n"
                  "#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n"
                  f"#define CUDNN_MAJOR {major}\n#define CUDNN_MINOR {minor}\n"
                  f"#define CUDNN_PATCHLEVEL {patch}\n\n"
                  f"#define CUDNN_VERSION (CUDNN_MAJOR * {'10000' if int(major) >= 9 else '1000'} "
                  "+ CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n\n"
                  "#endif /* CUDNN_VERSION_H */\n")

    def cudnn_versioned(self, d, version, stems, pad_base=0, dev_links=True):
        """cuDNN libraries as the tarball, the Debian packages and conda-forge lay them out: the
        real file <stem>.so.<version> (SONAME <stem>.so.<major>), the soname link and the dev
        link. Returns {real file name: size}."""
        major = version.split(".")[0]
        sizes = {}
        for i, stem in enumerate(stems):
            real = f"{stem}.so.{version}"
            sizes[real] = self.elf(f"{d}/{real}", f"{stem}.so.{major}", pad=pad_base + i * 64)
            self.symlink(f"{d}/{stem}.so.{major}", real)
            if dev_links:
                self.symlink(f"{d}/{stem}.so", f"{stem}.so.{major}")
        return sizes

    def working_nvidia(self, version="535.183.01", gpus=(("0000:01:00.0", 0x2684, 0x22ba),)):
        """A machine whose NVIDIA GPUs work: each bound to the loaded proprietary module, its
        device nodes, the nvidia modules in /proc/modules and the user-space libraries."""
        for address, device, audio in gpus:
            self.nvidia_gpu(address, device, audio)
        self.nvidia_proc_version(version)
        self.proc_modules("nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia", "ext4")
        self.nvidia_device_nodes(len(gpus))
        self.nvidia_user_libs(version)


    def h100_server(self):
        """The machine of the NVML stand-in's scenarios (NVML_MODE): Ubuntu 22.04 on a Xeon server
        with 512 GiB of RAM and one H100 SXM at 0000:18:00.0, the address and driver release
        (570.86.15) tests/support/fake_nvml.c reports, on the working driver."""
        self.ubuntu_base(kernel="6.8.0-45-generic", mem_gib=512)
        self.server_bus()
        self.working_nvidia("570.86.15", gpus=(("0000:18:00.0", 0x2330, None),))

    # The library stems of a complete cuDNN 8 and 9 for Linux (data/kb/library_sets.json).
    CUDNN8_STEMS = ["libcudnn", "libcudnn_adv_infer", "libcudnn_adv_train", "libcudnn_cnn_infer",
                    "libcudnn_cnn_train", "libcudnn_ops_infer", "libcudnn_ops_train"]
    CUDNN9_STEMS = ["libcudnn", "libcudnn_adv", "libcudnn_cnn", "libcudnn_engines_precompiled",
                    "libcudnn_engines_runtime_compiled", "libcudnn_graph", "libcudnn_heuristic",
                    "libcudnn_ops"]

    # --- ELF fixtures with chosen dynamic sections (tests/loader) --------------------------

    def _elf_stub(self, soname, bits):
        """A bare shared object with this SONAME, to link against so that the output gets a
        DT_NEEDED entry for it (the stub itself never enters the tree)."""
        key = ("stub", soname, bits)
        if key not in _ELF_CACHE:
            out = os.path.join(self.root, ".elf-cache", "stubs", str(bits), soname)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            flags = ["-m32", "-nostdlib"] if bits == 32 else []
            p = subprocess.run(["gcc", "-shared", "-fPIC", *flags, "-x", "c", "-",
                                f"-Wl,-soname,{soname}", "-o", out],
                               input=b"int doctor_stub;\n", capture_output=True)
            if p.returncode != 0:
                return None
            _ELF_CACHE[key] = out
        return _ELF_CACHE[key]

    def _elf_build(self, inner, kind, soname, needed, rpath, runpath, nodefaultlib, bits, pad):
        if rpath and runpath:
            raise ValueError("GNU ld writes DT_RPATH or DT_RUNPATH, not both")
        key = (kind, soname, tuple(needed), tuple(rpath), tuple(runpath), nodefaultlib, bits, pad)
        if key not in _ELF_CACHE:
            out = os.path.join(self.root, ".elf-cache", "built", str(len(_ELF_CACHE)))
            os.makedirs(os.path.dirname(out), exist_ok=True)
            cmd = ["gcc", "-fPIC", "-x", "c", "-", "-x", "none"]  # the stubs are not C
            if bits == 32:
                cmd += ["-m32", "-nostdlib"]
            if kind == "lib":
                cmd += ["-shared"]
                if soname:
                    cmd.append(f"-Wl,-soname,{soname}")
            if rpath:
                cmd.append("-Wl,--disable-new-dtags,-rpath," + ":".join(rpath))
            if runpath:
                cmd.append("-Wl,--enable-new-dtags,-rpath," + ":".join(runpath))
            if nodefaultlib:
                cmd.append("-Wl,-z,nodefaultlib")
            if needed:
                stubs = [self._elf_stub(n, bits) for n in needed]
                if None in stubs:
                    self.skip_reason = f"gcc cannot build {bits}-bit stub libraries here"
                    return None
                cmd.append("-Wl,--no-as-needed")
                cmd += stubs
            cmd += ["-o", out]
            src = f"const char doctor_pad[{pad + 1}] = {{1}};\n" if pad else "int doctor_fixture;\n"
            if kind == "exe":
                src += "int main(void) { return 0; }\n"
            p = subprocess.run(cmd, input=src.encode(), capture_output=True)
            if p.returncode != 0:
                self.skip_reason = (f"gcc cannot build {inner} ({bits}-bit): "
                                    + p.stderr.decode(errors="replace").strip().splitlines()[-1])
                return None
            _ELF_CACHE[key] = out
        p = self.path(inner)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if os.path.lexists(p):
            os.remove(p)
        with open(_ELF_CACHE[key], "rb") as src_file, open(p, "wb") as dst:
            dst.write(src_file.read())
        os.chmod(p, 0o755)
        return os.path.getsize(p)

    def elf_lib(self, inner, soname, needed=(), rpath=(), runpath=(), nodefaultlib=False, bits=64,
                pad=0):
        """A real x86 shared object with this SONAME, a DT_NEEDED entry for each name in `needed`
        (it is linked against stub libraries of those sonames), DT_RPATH `rpath` or DT_RUNPATH
        `runpath` (entries written as given, so "$ORIGIN/../lib" stays a token), DF_1_NODEFLIB
        with `nodefaultlib`, 64- or 32-bit. 32-bit objects are linked without libc (none is
        installed for -m32). Returns the size, or None (and sets skip_reason) when gcc cannot
        build it here."""
        return self._elf_build(inner, "lib", soname, needed, rpath, runpath, nodefaultlib, bits,
                               pad)

    def elf_program(self, inner, needed=(), rpath=(), runpath=(), nodefaultlib=False):
        """A real x86-64 executable with these DT_NEEDED, DT_RPATH or DT_RUNPATH entries (an
        interpreter or application whose RPATH the loader inherits)."""
        return self._elf_build(inner, "exe", "", needed, rpath, runpath, nodefaultlib, 64, 0)

    def cudnn_copy(self, d, version, stems, versioned=True, runpath=(), dispatcher_runpath=(),
                   pad_base=0):
        """A cuDNN set in `d` built with elf_lib: the real files <stem>.so.<version> with the
        soname link (versioned=True, the tarball and package layout) or soname-only files (the
        pip wheel layout), optional RUNPATH on every library (`runpath`) or only on the
        dispatcher libcudnn.so.N (`dispatcher_runpath`). Returns the inner paths of the soname
        names (<d>/<stem>.so.<major>), in the order of `stems`."""
        major = version.split(".")[0]
        written = []
        for i, stem in enumerate(stems):
            soname = f"{stem}.so.{major}"
            rp = tuple(dispatcher_runpath) if stem == "libcudnn" and dispatcher_runpath else tuple(runpath)
            real = f"{stem}.so.{version}" if versioned else soname
            self.elf_lib(f"{d}/{real}", soname, runpath=rp, pad=pad_base + i * 64)
            if versioned:
                self.symlink(f"{d}/{soname}", real)
            written.append(f"{d}/{soname}")
        return written

    def torch_wheel(self, site, version="2.3.1", cuda="12.1", needed=("libcudnn.so.9",), rpath=(),
                    runpath=(), requires=()):
        """torch as its Linux wheel installs into `site`: torch/__init__.py, torch/version.py
        (`cuda: Optional[str] = '<cuda>'`), torch/lib/libtorch_cuda.so (a real ELF with these
        DT_NEEDED names and DT_RPATH or DT_RUNPATH) and torch's dist-info with a RECORD."""
        self.text(f"{site}/torch/__init__.py", "# stand-in for torch/__init__.py\n")
        tag = "cu" + cuda.replace(".", "")
        self.text(f"{site}/torch/version.py",
                  "from typing import Optional\n\n"
                  "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
                  f"__version__ = '{version}+{tag}'\n"
                  "debug = False\n"
                  f"cuda: Optional[str] = '{cuda}'\n"
                  "git_version = '63d5e9221bedd1546b7d364b5ce4171547db12a9'\n"
                  "hip: Optional[str] = None\n")
        self.elf_lib(f"{site}/torch/lib/libtorch_cuda.so", "libtorch_cuda.so", needed=needed,
                     rpath=rpath, runpath=runpath)
        self.dist_info(site, "torch", version,
                       ["torch/__init__.py", "torch/version.py", "torch/lib/libtorch_cuda.so"],
                       requires=requires)

    def cudnn_wheel(self, site, version="9.1.0.70", cuda_major="12", stems=None, pad_base=0):
        """The nvidia-cudnn-cu<cuda_major> wheel in `site`: nvidia/cudnn/lib with the soname-only
        files (the dispatcher with RUNPATH $ORIGIN, as NVIDIA links it), cudnn_version.h and a
        dist-info whose RECORD lists them. Returns the lib directory."""
        stems = self.CUDNN9_STEMS if stems is None else stems
        major = version.split(".")[0]
        files = ["nvidia/__init__.py", "nvidia/cudnn/__init__.py", "nvidia/cudnn/lib/__init__.py",
                 "nvidia/cudnn/include/cudnn_version.h"]
        for f in files:
            if f.endswith(".py"):
                self.text(f"{site}/{f}", "")
        self.cudnn_header(f"{site}/nvidia/cudnn/include/cudnn_version.h", version)
        for path in self.cudnn_copy(f"{site}/nvidia/cudnn/lib", version, stems, versioned=False,
                                    dispatcher_runpath=["$ORIGIN"], pad_base=pad_base):
            files.append(path[len(site) + 1:])
        self.dist_info(site, f"nvidia-cudnn-cu{cuda_major}", version, files)
        return f"{site}/nvidia/cudnn/lib"

    def ldconfig(self):
        """Runs this machine's ldconfig on the tree (`ldconfig -r ROOT -X`: the tree's
        /etc/ld.so.conf and trusted directories, links left as they are) so that the tree gets
        a real /etc/ld.so.cache. Sets skip_reason where ldconfig is missing or fails."""
        import shutil
        exe = shutil.which("ldconfig") or next(
            (p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if os.path.exists(p)), None)
        if exe is None:
            self.skip_reason = "no ldconfig on this machine"
            return
        p = subprocess.run([exe, "-r", self.root, "-X"], capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(self.path("/etc/ld.so.cache")):
            self.skip_reason = f"ldconfig -r failed: {p.stderr.strip()}"

    def cuda_toolkit(self, prefix, version="12.4.1", cudart="12.4.127"):
        """A runfile CUDA toolkit at `prefix`: version.json, a stand-in bin/nvcc,
        targets/x86_64-linux/{lib,include} with lib64 and include links, libcudart. Returns the
        library directory as reached through lib64."""
        self.text(f"{prefix}/version.json",
                  '{\n   "cuda" : {\n      "name" : "CUDA SDK",\n      "version" : "%s"\n   },\n'
                  '   "cuda_cudart" : {\n      "name" : "CUDA Runtime (cudart)",\n'
                  '      "version" : "%s"\n   }\n}\n' % (version, cudart))
        self.text(f"{prefix}/bin/nvcc", "# stand-in for nvcc; never executed\n", 0o755)
        lib = f"{prefix}/targets/x86_64-linux/lib"
        major = cudart.split(".")[0]
        self.elf_lib(f"{lib}/libcudart.so.{cudart}", f"libcudart.so.{major}")
        self.symlink(f"{lib}/libcudart.so.{major}", f"libcudart.so.{cudart}")
        self.mkdir(f"{prefix}/targets/x86_64-linux/include")
        self.symlink(f"{prefix}/lib64", "targets/x86_64-linux/lib")
        self.symlink(f"{prefix}/include", "targets/x86_64-linux/include")
        return f"{prefix}/lib64"
