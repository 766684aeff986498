"""A library no searched path holds: exit status 1, and every path the loader tries, in glibc's
order (dl-load.c, _dl_map_object): the caller's RPATH entries ($ORIGIN expanded), each
LD_LIBRARY_PATH directory (its glibc-hwcaps subdirectories first, best first, where the
directory has them), the caller's RUNPATH, the ld.so.cache (made by the real ldconfig; no entry
for the name) and the default directories of a Debian multiarch system."""

ENV = {"LD_LIBRARY_PATH": "/opt/a:/opt/b"}
NAME = "libcudnn_ops.so.9"


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.text("/etc/ld.so.conf", "/opt/other/lib\n")
    t.elf_lib("/opt/other/lib/libother.so.1", "libother.so.1")
    t.ldconfig()
    t.elf_lib("/opt/app/lib/libapp.so", "libapp.so", needed=[NAME], rpath=["/opt/app/rp1", "$ORIGIN/../rp2"])
    t.elf_lib("/opt/app/lib/libapp_rt.so", "libapp_rt.so", needed=[NAME], runpath=["/opt/app/rt"])
    t.mkdir("/opt/a")
    t.mkdir("/opt/b/glibc-hwcaps/x86-64-v3")


DEFAULTS = [("ld.so.cache", "/etc/ld.so.cache")] + [
    ("default", f"{d}/{NAME}") for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib")]
LDLP = [("LD_LIBRARY_PATH", f"/opt/a/{NAME}")] + [
    ("LD_LIBRARY_PATH", f"/opt/b/glibc-hwcaps/{v}/{NAME}") for v in ("x86-64-v4", "x86-64-v3", "x86-64-v2")] + [
    ("LD_LIBRARY_PATH", f"/opt/b/{NAME}")]

CASES = [
    {"name": NAME, "args": ["--from", "/opt/app/lib/libapp.so"], "found": None, "exit": 1,
     "considered": [("rpath", f"/opt/app/rp1/{NAME}"), ("rpath", f"/opt/app/rp2/{NAME}")] + LDLP + DEFAULTS,
     "considered_contains": [{"path": "/etc/ld.so.cache", "outcome": "no entry"}],
     "text_contains": [f"{NAME} => not found", "paths considered, in order:", f"/opt/app/rp1/{NAME}: absent",
                       f"/usr/lib/{NAME}: absent"]},
    {"name": NAME, "args": ["--from", "/opt/app/lib/libapp_rt.so"], "found": None, "exit": 1,
     "considered": LDLP + [("runpath", f"/opt/app/rt/{NAME}")] + DEFAULTS},
    {"name": NAME, "found": None, "exit": 1, "considered": LDLP + DEFAULTS},
]
