"""DT_RPATH is searched before LD_LIBRARY_PATH.

An application library /opt/app/lib/libapp.so carries DT_RPATH /opt/app/vendor (no RUNPATH) and
needs libcudnn.so.9; a second build /opt/app2/lib/libapp2.so has DT_RPATH $ORIGIN/../vendor. Both
vendor directories and the directory on LD_LIBRARY_PATH hold a libcudnn.so.9. glibc
(elf/dl-load.c, _dl_map_object) searches the caller's RPATH first, so the vendor copies win and
the LD_LIBRARY_PATH copy is shadowed; a program without RPATH gets the LD_LIBRARY_PATH copy."""

ENV = {"LD_LIBRARY_PATH": "/opt/ldlp"}


def build(t):
    t.debian_base()
    t.elf_lib("/opt/app/lib/libapp.so", "libapp.so", needed=["libcudnn.so.9"], rpath=["/opt/app/vendor"])
    t.elf_lib("/opt/app2/lib/libapp2.so", "libapp2.so", needed=["libcudnn.so.9"],
              rpath=["$ORIGIN/../vendor"])
    t.elf_lib("/opt/app/vendor/libcudnn.so.9", "libcudnn.so.9", pad=1)
    t.elf_lib("/opt/app2/vendor/libcudnn.so.9", "libcudnn.so.9", pad=2)
    t.elf_lib("/opt/ldlp/libcudnn.so.9", "libcudnn.so.9", pad=3)


CASES = [
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app/lib/libapp.so"],
     "found": "/opt/app/vendor/libcudnn.so.9", "via": "rpath",
     "source_contains": "RPATH of /opt/app/lib/libapp.so",
     "shadowed": ["/opt/ldlp/libcudnn.so.9"],
     "considered_contains": [{"path": "/opt/app/vendor/libcudnn.so.9", "via": "rpath", "outcome": "found"},
                             {"path": "/opt/ldlp/libcudnn.so.9", "via": "LD_LIBRARY_PATH"}]},
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app2/lib/libapp2.so"],
     "found": "/opt/app2/vendor/libcudnn.so.9", "via": "rpath",
     "shadowed": ["/opt/ldlp/libcudnn.so.9"], "real": True},
    # The contrast: no RPATH, so LD_LIBRARY_PATH decides.
    {"name": "libcudnn.so.9", "found": "/opt/ldlp/libcudnn.so.9", "via": "LD_LIBRARY_PATH",
     "shadowed": [], "real": True},
]
