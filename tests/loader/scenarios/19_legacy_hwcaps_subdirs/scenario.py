"""glibc before 2.37 also searches the legacy hwcaps subdirectories of every search directory.

Before the directory itself and after its glibc-hwcaps/ subdirectories, glibc 2.36 (Debian 12;
Ubuntu 22.04 has 2.35) tries tls/, x86_64/ and the AT_PLATFORM/hwcap names (haswell/,
avx512_1/ and their combinations) under each directory (ld.so --help: "Legacy HWCAP
subdirectories under library search path directories"); glibc 2.37 removed them. The tree is a
glibc 2.36 system with LD_LIBRARY_PATH=/opt/a, where /opt/a/tls/libcudnn.so.9 and
/opt/a/libcudnn.so.9 both exist: glibc 2.36 loads the tls/ copy."""

ENV = {"LD_LIBRARY_PATH": "/opt/a"}


def build(t):
    t.debian_base()  # glibc 2.36
    t.mkdir("/lib/x86_64-linux-gnu")
    t.elf_lib("/opt/a/tls/libcudnn.so.9", "libcudnn.so.9", pad=1)
    t.elf_lib("/opt/a/libcudnn.so.9", "libcudnn.so.9", pad=2)


CASES = [
    {"name": "libcudnn.so.9", "found": "/opt/a/tls/libcudnn.so.9", "via": "LD_LIBRARY_PATH",
     "shadowed": ["/opt/a/libcudnn.so.9"], "real": "legacy-hwcaps",
     "xfail": "the model knows only the glibc-hwcaps subdirectories (glibc 2.33+), not the legacy "
              "tls/, x86_64/, haswell/… ones that glibc up to 2.36 searches first"},
]
