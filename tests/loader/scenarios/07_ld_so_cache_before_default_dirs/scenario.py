"""/etc/ld.so.cache is consulted before the default directories, and only its first entry of
the right architecture counts.

/etc/ld.so.conf.d/cudnn.conf lists /opt/cudnn/lib, and the tree's /etc/ld.so.cache is made by
this machine's real ldconfig (-r TREE). Then, as people do, a libcudnn.so.9 is copied by hand
into /usr/lib/x86_64-linux-gnu without running ldconfig again: the cache still sends the loader
to /opt/cudnn/lib, and the default-directory copy loses. libcudnn_graph.so.9 was in both
directories when ldconfig ran: the cache holds both, /opt/cudnn/lib first (ld.so.conf
directories are scanned before the trusted ones), and glibc takes the first. libcudnn_ops.so.9
was deleted from /opt/cudnn/lib after ldconfig ran: glibc tries the stale entry only, does not
fall back to the cache's second entry, and finds the default-directory copy by the default
search (dl-load.c: one _dl_load_cache_lookup, then the system directories)."""

import os


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.text("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    t.text("/etc/ld.so.conf.d/cudnn.conf", "/opt/cudnn/lib\n")
    t.cudnn_copy("/opt/cudnn/lib", "9.1.0", ["libcudnn", "libcudnn_graph", "libcudnn_ops"])
    t.elf_lib("/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9", "libcudnn_graph.so.9", pad=5)
    t.elf_lib("/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9", "libcudnn_ops.so.9", pad=6)
    t.ldconfig()
    # After ldconfig: a hand-copied dispatcher, and a deleted sub-library.
    t.elf_lib("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "libcudnn.so.9", pad=7)
    os.remove(t.path("/opt/cudnn/lib/libcudnn_ops.so.9.1.0"))


CASES = [
    {"name": "libcudnn.so.9",
     "found": "/opt/cudnn/lib/libcudnn.so.9", "via": "ld.so.cache",
     "real_path": "/opt/cudnn/lib/libcudnn.so.9.1.0",
     "shadowed": ["/usr/lib/x86_64-linux-gnu/libcudnn.so.9"],
     "considered_contains": [{"path": "/opt/cudnn/lib/libcudnn.so.9", "via": "ld.so.cache"},
                             {"path": "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "via": "default"}]},
    {"name": "libcudnn_graph.so.9",
     "found": "/opt/cudnn/lib/libcudnn_graph.so.9", "via": "ld.so.cache",
     "shadowed": ["/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9"]},
    {"name": "libcudnn_ops.so.9",
     "found": "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9", "via": "default",
     "considered_contains": [{"path": "/opt/cudnn/lib/libcudnn_ops.so.9", "via": "ld.so.cache",
                              "outcome": "absent"},
                             {"path": "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9", "via": "default",
                              "outcome": "found"}]},
]
