"""$LIB expands to the distribution's library directory: on Debian and Ubuntu (multiarch) that
is "lib/x86_64-linux-gnu" (Debian patches glibc's DL_DST_LIB; checked with LD_DEBUG=libs on
Debian 12's glibc 2.36), on Fedora/RHEL "lib64".

The tree is a Debian multiarch system. /opt/app/lib/libapp.so has RUNPATH /opt/vendor/$LIB,
/opt/app2/lib/libapp2.so RUNPATH $ORIGIN/../${LIB}; decoys sit where "lib64" and upstream's
notdir(slibdir) "x86_64-linux-gnu" would point."""


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.elf_lib("/opt/app/lib/libapp.so", "libapp.so", needed=["libcudnn.so.9"],
              runpath=["/opt/vendor/$LIB"])
    t.elf_lib("/opt/app2/lib/libapp2.so", "libapp2.so", needed=["libcudnn.so.9"],
              runpath=["$ORIGIN/../${LIB}"])
    for i, d in enumerate(("/opt/vendor/lib/x86_64-linux-gnu", "/opt/vendor/lib64",
                           "/opt/vendor/x86_64-linux-gnu", "/opt/app2/lib/x86_64-linux-gnu",
                           "/opt/app2/lib64", "/opt/app2/x86_64-linux-gnu")):
        t.elf_lib(f"{d}/libcudnn.so.9", "libcudnn.so.9", pad=i + 1)


CASES = [
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app/lib/libapp.so"],
     "found": "/opt/vendor/lib/x86_64-linux-gnu/libcudnn.so.9", "via": "runpath",
     "considered_lacks": ["/opt/vendor/lib64/libcudnn.so.9", "/opt/vendor/x86_64-linux-gnu/libcudnn.so.9"]},
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app2/lib/libapp2.so"],
     "found": "/opt/app2/lib/x86_64-linux-gnu/libcudnn.so.9", "via": "runpath", "real": "debian-lib"},
]
