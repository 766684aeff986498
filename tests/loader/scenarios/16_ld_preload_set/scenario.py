"""LD_PRELOAD (or LD_AUDIT) in the environment: every program loads those objects first.

check must report security.ld_preload for a non-empty LD_PRELOAD and LD_AUDIT, and nothing for
an empty or blank one. A preloaded object also answers every later request for its SONAME
(glibc matches already-loaded objects by name before searching, _dl_map_object), so a
preloaded libcudnn.so.9 beats the one LD_LIBRARY_PATH offers: resolve should say so."""

ENV = {"LD_LIBRARY_PATH": "/opt/ldlp"}
PRE = "/opt/preload/libcudnn.so.9"


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.elf_lib(PRE, "libcudnn.so.9", pad=1)
    t.elf_lib("/opt/ldlp/libcudnn.so.9", "libcudnn.so.9", pad=2)
    t.elf_lib("/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4", "libtcmalloc.so.4")


CHECK = [
    {"env": {"LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4"},
     "ids": ["security.ld_preload"],
     "message_contains": {"security.ld_preload": ["LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4"]}},
    {"env": {"LD_AUDIT": "/opt/audit/libaudit.so"}, "ids": ["security.ld_preload"],
     "message_contains": {"security.ld_preload": ["LD_AUDIT=/opt/audit/libaudit.so"]}},
    {"env": {"LD_PRELOAD": " "}, "absent": ["security.ld_preload"]},
    {"absent": ["security.ld_preload"]},
]
CASES = [
    {"name": "libcudnn.so.9", "env": {"LD_PRELOAD": PRE}, "found": PRE, "via": "LD_PRELOAD",
     "real": True, "shadowed": ["/opt/ldlp/libcudnn.so.9"],
     "text_contains": ["libcudnn.so.9 => /opt/preload/libcudnn.so.9 [LD_PRELOAD]",
                       "other copies, which lose:", "/opt/ldlp/libcudnn.so.9"]},
    # The contrast: without LD_PRELOAD, LD_LIBRARY_PATH decides.
    {"name": "libcudnn.so.9", "found": "/opt/ldlp/libcudnn.so.9", "via": "LD_LIBRARY_PATH", "real": True},
]
