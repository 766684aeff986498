"""A bare ubuntu:22.04 image examined as an unpacked tree (`docker export`), not as a running
container.

The tree has what the image has: os-release, the merged-/usr links (/lib -> usr/lib …), glibc
2.35 in /usr/lib/x86_64-linux-gnu, the default ld.so.conf, an empty /usr/local. It has no /proc,
/sys or /dev, because those are mounted only when a container runs; an image examined at rest has
no running kernel, no PCI bus and no device nodes to look at. No NVIDIA software is installed.

Expected: gpu.presence_unknown (a warning, so exit status 0), never gpu.not_found: nothing says
there is no GPU, only that this tree cannot tell. The inventory gives the reasons ("unknown,
because …") for the kernel, CPU, memory, GPUs and driver rather than guessing."""

ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}
EXIT = 0


def build(t):
    t.text("/etc/os-release",
           'PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\n'
           'VERSION="22.04.4 LTS (Jammy Jellyfish)"\nVERSION_CODENAME=jammy\nID=ubuntu\n'
           'ID_LIKE=debian\nHOME_URL="https://www.ubuntu.com/"\nSUPPORT_URL="https://help.ubuntu.com/"\n'
           'BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"\n'
           'PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"\n'
           "UBUNTU_CODENAME=jammy\n")
    for link in ("lib", "lib64", "bin", "sbin"):
        t.symlink(f"/{link}", f"usr/{link}")
    t.text("/usr/lib/x86_64-linux-gnu/libc.so.6",
           "\x7fELF\x02\x01\x01" + "\0" * 9 + "\x03\0\x3e\0" + "\0" * 40 +
           "GNU C Library (Ubuntu GLIBC 2.35-0ubuntu3.7) stable release version 2.35.\0")
    t.mkdir("/usr/lib64")
    t.mkdir("/usr/local/lib")
    t.mkdir("/usr/local/bin")
    t.mkdir("/root")
    t.ld_so_conf()
    t.text("/etc/ld.so.conf.d/libc.conf", "# libc default configuration\n/usr/local/lib\n")
