"""A caller linked with -z nodefaultlib (DF_1_NODEFLIB) skips the default directories and every
ld.so.cache entry that lies in one of them.

The cache (made by the real ldconfig -r TREE) lists /usr/lib/x86_64-linux-gnu/libcudnn.so.9 (a
default directory), /opt/cudnn/lib/libcudnn_graph.so.9 (from ld.so.conf) and
/usr/lib/cudnn9/libcudnn_adv.so.9 (from ld.so.conf, but below /usr/lib). libcudnn_ops.so.9 was
copied into /usr/lib/x86_64-linux-gnu after ldconfig ran (default search only).

glibc (dl-load.c, _dl_map_object) drops a cache entry whose path starts with one of the system
directories *as a prefix* ("/lib/x86_64-linux-gnu/", ..., "/lib/", "/usr/lib/"), so entries in
subdirectories of them are dropped too: confirmed on glibc 2.36, where a NODEFLIB library cannot
load libfakeroot-0.so although the cache lists /usr/lib/x86_64-linux-gnu/libfakeroot/."""


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.text("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    t.text("/etc/ld.so.conf.d/cudnn.conf", "/opt/cudnn/lib\n/usr/lib/cudnn9\n")
    t.elf_lib("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "libcudnn.so.9", pad=1)
    t.elf_lib("/opt/cudnn/lib/libcudnn_graph.so.9", "libcudnn_graph.so.9", pad=2)
    t.elf_lib("/usr/lib/cudnn9/libcudnn_adv.so.9", "libcudnn_adv.so.9", pad=3)
    t.ldconfig()
    t.elf_lib("/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9", "libcudnn_ops.so.9", pad=4)
    needs = ["libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_adv.so.9", "libcudnn_ops.so.9"]
    t.elf_lib("/opt/app/lib/libapp_nodeflib.so", "libapp_nodeflib.so", needed=needs, nodefaultlib=True)
    t.elf_lib("/opt/app/lib/libapp.so", "libapp.so", needed=needs)


NODEFLIB = ["--from", "/opt/app/lib/libapp_nodeflib.so"]
PLAIN = ["--from", "/opt/app/lib/libapp.so"]
CASES = [
    {"name": "libcudnn.so.9", "args": NODEFLIB, "found": None,
     "considered_contains": [{"path": "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "via": "ld.so.cache",
                              "outcome": "DF_1_NODEFLIB"}],
     "considered_lacks": ["/lib/x86_64-linux-gnu/libcudnn.so.9"]},
    {"name": "libcudnn_ops.so.9", "args": NODEFLIB, "found": None, "shadowed": [],
     "considered_lacks": ["/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9"]},
    {"name": "libcudnn_graph.so.9", "args": NODEFLIB,
     "found": "/opt/cudnn/lib/libcudnn_graph.so.9", "via": "ld.so.cache"},
    {"name": "libcudnn_adv.so.9", "args": NODEFLIB, "found": None,
     "considered_contains": [{"path": "/usr/lib/cudnn9/libcudnn_adv.so.9", "via": "ld.so.cache",
                              "outcome": "DF_1_NODEFLIB"}],
     "considered_lacks": ["/usr/lib/libcudnn_adv.so.9"]},
    # The contrast: without NODEFLIB the cache and the default directories are used.
    {"name": "libcudnn.so.9", "args": PLAIN,
     "found": "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "via": "ld.so.cache"},
    {"name": "libcudnn_ops.so.9", "args": PLAIN,
     "found": "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9", "via": "default"},
    {"name": "libcudnn_adv.so.9", "args": PLAIN,
     "found": "/usr/lib/cudnn9/libcudnn_adv.so.9", "via": "ld.so.cache"},
]
