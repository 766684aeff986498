"""LD_LIBRARY_PATH is searched before DT_RUNPATH.

/opt/app/lib/libapp.so has DT_RUNPATH /opt/app/vendor and /opt/app2/lib/libapp2.so DT_RUNPATH
$ORIGIN/../vendor; both need libcudnn.so.9, which their vendor directories and /opt/ldlp (on
LD_LIBRARY_PATH) hold. glibc tries LD_LIBRARY_PATH first, so the /opt/ldlp copy wins and the
vendor copy is shadowed. libcudnn_graph.so.9 is only in the vendor directory: RUNPATH finds it."""

ENV = {"LD_LIBRARY_PATH": "/opt/ldlp"}


def build(t):
    t.debian_base()
    t.elf_lib("/opt/app/lib/libapp.so", "libapp.so", needed=["libcudnn.so.9"], runpath=["/opt/app/vendor"])
    t.elf_lib("/opt/app2/lib/libapp2.so", "libapp2.so", needed=["libcudnn.so.9"],
              runpath=["$ORIGIN/../vendor"])
    t.elf_lib("/opt/app2/lib/libapp2_graph.so", "libapp2_graph.so", needed=["libcudnn_graph.so.9"],
              runpath=["$ORIGIN/../vendor"])
    for d, pad in (("/opt/app/vendor", 1), ("/opt/app2/vendor", 2)):
        t.elf_lib(f"{d}/libcudnn.so.9", "libcudnn.so.9", pad=pad)
        t.elf_lib(f"{d}/libcudnn_graph.so.9", "libcudnn_graph.so.9", pad=pad)
    t.elf_lib("/opt/ldlp/libcudnn.so.9", "libcudnn.so.9", pad=3)


CASES = [
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app/lib/libapp.so"],
     "found": "/opt/ldlp/libcudnn.so.9", "via": "LD_LIBRARY_PATH",
     "shadowed": ["/opt/app/vendor/libcudnn.so.9"],
     "considered_contains": [{"path": "/opt/ldlp/libcudnn.so.9", "outcome": "found"},
                             {"path": "/opt/app/vendor/libcudnn.so.9", "via": "runpath",
                              "source": "RUNPATH of /opt/app/lib/libapp.so"}]},
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app2/lib/libapp2.so"],
     "found": "/opt/ldlp/libcudnn.so.9", "via": "LD_LIBRARY_PATH",
     "shadowed": ["/opt/app2/vendor/libcudnn.so.9"], "real": True},
    {"name": "libcudnn_graph.so.9", "args": ["--from", "/opt/app2/lib/libapp2_graph.so"],
     "found": "/opt/app2/vendor/libcudnn_graph.so.9", "via": "runpath",
     "source_contains": "RUNPATH of /opt/app2/lib/libapp2_graph.so", "real": True},
]
