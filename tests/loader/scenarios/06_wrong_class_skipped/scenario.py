"""A copy of the wrong ELF class is skipped silently and the search goes on.

LD_LIBRARY_PATH is /opt/ldlp32:/opt/ldlp64; the first holds a 32-bit (i386) libcudnn.so.9, the
second a 64-bit one. A 64-bit caller skips the 32-bit file (glibc open_verify: "wrong ELF class"
is not fatal, it sets found_other_class and goes on) and loads /opt/ldlp64's. That holds for a
64-bit program without RPATH as well: every process on an x86-64 system whose doctor this is
runs 64-bit code unless it is itself a 32-bit program. 32-bit objects are linked with -m32
-nostdlib; the scenario is skipped where gcc cannot do that."""

ENV = {"LD_LIBRARY_PATH": "/opt/ldlp32:/opt/ldlp64"}


def build(t):
    t.debian_base()
    if t.elf_lib("/opt/ldlp32/libcudnn.so.9", "libcudnn.so.9", bits=32) is None:
        return
    t.elf_lib("/opt/ldlp64/libcudnn.so.9", "libcudnn.so.9", pad=1)
    t.elf_lib("/opt/app/lib/libapp.so", "libapp.so", needed=["libcudnn.so.9"])


CASES = [
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app/lib/libapp.so"],
     "found": "/opt/ldlp64/libcudnn.so.9", "via": "LD_LIBRARY_PATH",
     "considered_contains": [{"path": "/opt/ldlp32/libcudnn.so.9", "outcome": "wrong ELF class"},
                             {"path": "/opt/ldlp64/libcudnn.so.9", "outcome": "found"}],
     "real": True},
    {"name": "libcudnn.so.9",
     "found": "/opt/ldlp64/libcudnn.so.9", "via": "LD_LIBRARY_PATH",
     "considered_contains": [{"path": "/opt/ldlp32/libcudnn.so.9", "outcome": "wrong ELF class"}],
     "real": True},
]
