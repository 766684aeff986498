"""An RPATH/RUNPATH entry with a $NAME that is not a dynamic string token is used literally.

glibc's _dl_dst_substitute replaces $ORIGIN, $LIB and $PLATFORM and copies any other '$' as it
is (checked on glibc 2.36: LD_DEBUG shows the search path "/x/$FOO"); only a known token without
a value (e.g. $ORIGIN in a secure process) drops the entry. /opt/app/lib/libapp.so has RUNPATH
$ORIGIN/../$FOO, and the directory /opt/app/$FOO really holds libcudnn.so.9."""


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.elf_lib("/opt/app/lib/libapp.so", "libapp.so", needed=["libcudnn.so.9"], runpath=["$ORIGIN/../$FOO"])
    t.elf_lib("/opt/app/$FOO/libcudnn.so.9", "libcudnn.so.9")


CASES = [
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app/lib/libapp.so"],
     "found": "/opt/app/$FOO/libcudnn.so.9", "via": "runpath", "real": True},
]
